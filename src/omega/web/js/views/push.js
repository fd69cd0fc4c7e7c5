// @ts-check
// The account page's "Allow notifications on this device" toggle (Web Push, ../push.js):
// on, this device gets the account's notices while no tab of the site is open; off, it does not.

import { h } from "../dom.js";
import { describe } from "../errors.js";
import * as push from "../push.js";
import { t } from "../i18n.js";

/** The toggle, with a line that says what it did or why it could not. */
export function pushToggle() {
  const box = h("input", { type: "checkbox", name: "push", class: "push-box" });
  const note = h("div", { class: "account-note", role: "status" });
  const el = h("div", { class: "push-setting", "data-setting": "push" },
    h("label", { class: "push-toggle" }, box, h("span", {}, t("Allow notifications on this device"))), note);
  /** @param {string} text @param {boolean} [error] */
  const say = (text, error = false) => {
    note.className = `account-note ${error ? "is-error" : "is-info"}`;
    note.textContent = text;
  };
  if (!push.supported()) {
    box.disabled = true;
    say(t("This browser cannot get the site's notifications (it needs HTTPS and a browser with Web Push)."));
    return el;
  }
  push.current().then((sub) => { box.checked = Boolean(sub) && Notification.permission === "granted"; })
    .catch(() => {});
  box.addEventListener("change", async () => {
    const on = box.checked;
    box.disabled = true;
    try {
      if (on) {
        const answer = await push.enable();
        say(t("Notifications are on for this device ({devicesCount} of {max} devices).", { devicesCount: answer.devices.length, max: answer.max }));
      } else {
        await push.disable();
        say(t("Notifications are off for this device."));
      }
    } catch (err) {
      box.checked = !on;
      say(describe(err), true);
    } finally {
      box.disabled = false;
    }
  });
  return el;
}

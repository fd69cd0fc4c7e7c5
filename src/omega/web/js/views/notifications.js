// @ts-check
// The account panel's notification settings: a checkbox per kind of notice and channel
// (mail now; Web Push later), and the digest choice for "your turn" mails. Each change is
// saved at once (docs/server-api.md, Notifications); a failure puts the box back.

import { api } from "../api.js";
import { h } from "../dom.js";
import { describe } from "../errors.js";
import { t } from "../i18n.js";

/**
 * The account's preferences as the server sends them.
 * @typedef {{kinds: Record<string, string>, channels: string[], on: Record<string, string[]>, digest: boolean}} Preferences
 */

/** What each channel is called on the page. */
const CHANNEL_NAMES = /** @type {Record<string, string>} */ ({ mail: t("Mail"), push: t("Push") });

/**
 * The body that turns `channel` on or off for `kind`, the kind's other channels as they are.
 * @param {Preferences} prefs
 * @param {string} kind
 * @param {string} channel
 * @param {boolean} on
 * @returns {{on: Record<string, string[]>}}
 */
export function toggled(prefs, kind, channel, on) {
  const now = (prefs.on[kind] || []).filter((c) => c !== channel);
  return { on: { [kind]: on ? [...now, channel] : now } };
}

/** The section (folded like the email one): a table of checkboxes, drawn once the preferences have come. */
export function notificationsSection() {
  const note = h("div", { class: "account-note", role: "status" });
  const body = h("div", { class: "notify-settings" }, h("p", { class: "muted" }, "…"));
  /**
   * Save a change; the boxes show what the server answered.
   * @param {unknown} change
   */
  const save = async (change) => {
    note.className = "account-note";
    note.textContent = "";
    try {
      draw(await api("POST", "/api/account/notifications", { body: change }));
      note.className = "account-note is-info";
      note.textContent = t("Saved.");
    } catch (err) {
      note.className = "account-note is-error";
      note.textContent = describe(err);
      load();
    }
  };
  /** @param {Preferences} prefs */
  const draw = (prefs) => {
    const head = h("tr", {}, h("th", {}, t("Tell me when")), ...prefs.channels.map((c) => h("th", {}, CHANNEL_NAMES[c] || c)));
    const rows = Object.entries(prefs.kinds).map(([kind, label]) => h("tr", {},
      h("td", {}, label),
      ...prefs.channels.map((channel) => {
        const box = /** @type {HTMLInputElement} */ (h("input", {
          type: "checkbox", "data-kind": kind, "data-channel": channel, "aria-label": `${label}: ${CHANNEL_NAMES[channel] || channel}`,
        }));
        box.checked = (prefs.on[kind] || []).includes(channel);
        box.addEventListener("change", () => save(toggled(prefs, kind, channel, box.checked)));
        return h("td", {}, box);
      })));
    const digest = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", "data-digest": "" }));
    digest.checked = prefs.digest;
    digest.addEventListener("change", () => save({ digest: digest.checked }));
    body.replaceChildren(
      h("table", { class: "notify-table" }, h("thead", {}, head), h("tbody", {}, ...rows)),
      h("label", { class: "account-field notify-digest" }, digest,
        h("span", {}, t("One digest mail for my turns instead of a mail per game"))),
      h("p", { class: "muted" }, t("Mail goes to your confirmed address; each mail has a link to stop it.")));
  };
  const load = () => {
    api("GET", "/api/account/notifications")
      .then((prefs) => draw(/** @type {Preferences} */ (prefs)))
      .catch((err) => body.replaceChildren(h("p", { class: "account-note is-error" }, describe(err))));
  };
  load();
  return h("details", { class: "notify-section", "data-section": "notifications" },
    h("summary", {}, t("Notifications")), body, note);
}

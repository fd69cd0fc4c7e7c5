// @ts-check
// The account panel's last part (docs/server-api.md, Watching and Leaving): whether others may
// watch the player's games from the live list and their profile, the download of everything
// the site keeps of the account, and closing the account (its password asked again, what
// happens said plainly first). Loaded when the panel first opens.

import * as account from "../account.js";
import { api } from "../api.js";
import { h } from "../dom.js";
import { describe } from "../errors.js";
import { t } from "../i18n.js";

/** What closing does, said before the password is asked for (docs/privacy.md). */
export const CLOSING_TEXT = t("Closing logs you out on every device at once, and nobody can log in to the account. ")
  + t("For 14 days you can reopen it by logging in with its password. After that your email address, password, ")
  + t("settings, devices, notifications and the text of your chat messages are removed, and your seats in games ")
  + t("show as “deleted player”. The games themselves, the other players' ratings and tournament results stay, ")
  + t("and your username stays reserved, so nobody can take it.");

/** @param {string} iso */
const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

/** The listing setting: a checkbox, as the server has it. */
function watchToggle() {
  const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", name: "listed", disabled: true }));
  const note = h("div", { class: "account-note", role: "status" });
  /** @param {Promise<{listed: boolean}>} asked */
  const show = (asked) => asked.then((s) => { box.checked = s.listed; box.disabled = false; note.textContent = ""; })
    .catch((err) => { note.className = "account-note is-error"; note.textContent = describe(err); box.disabled = false; });
  show(api("GET", "/api/account/watch"));
  box.addEventListener("change", () => {
    box.disabled = true;
    show(api("POST", "/api/account/watch", { body: { listed: box.checked } }));
  });
  return h("section", { class: "watch-setting", "aria-label": t("Watching") },
    h("label", { class: "row" }, box, h("span", {}, t("Let others watch my games from the live list and my profile"))), note);
}

/** The panel's part: the listing setting, "Download my data" and "Close my account". */
export function leavingSection() {
  const password = /** @type {HTMLInputElement} */ (h("input", {
    type: "password", class: "account-input", autocomplete: "current-password", name: "close-password", required: true,
  }));
  const note = h("div", { class: "account-note", role: "status" });
  const button = h("button", { type: "submit", class: "btn small undo", "data-action": "close-account" }, t("Close my account"));
  const form = h("form", {
    class: "account-form", "data-form": "close",
    /** @param {Event} e */
    onsubmit: async (e) => {
      e.preventDefault();
      button.disabled = true;
      note.className = "account-note";
      note.textContent = "";
      // The account area redraws for nobody logged in and this form goes with it: the
      // answer is said beside the area, where it stays.
      const area = form.closest(".account");
      try {
        const closed = await account.closeAccount(password.value);
        password.value = "";
        if (area) {
          area.after(h("p", { class: "account-note is-info", role: "status", "data-closed": "" },
            t("Your account is closed. You can reopen it until {when} by logging in with its password.", { when: when(closed.reopen_until) })));
        }
      } catch (err) {
        note.className = "account-note is-error";
        note.textContent = describe(err);
      } finally {
        button.disabled = false;
      }
    },
  }, h("p", { class: "muted closing-text" }, CLOSING_TEXT),
  h("label", { class: "account-field" }, h("span", {}, t("Password")), password), note, button);
  return h("section", { class: "leaving", "aria-label": t("Your data") },
    watchToggle(),
    h("p", {}, h("a", { href: "/api/account/export", download: "", class: "btn small", "data-action": "export" }, t("Download my data"))),
    h("details", { class: "close-account" }, h("summary", { class: "btn small ghost" }, t("Close my account…")), form));
}

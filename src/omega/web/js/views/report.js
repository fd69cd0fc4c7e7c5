// @ts-check
// Reporting a player to the moderators (POST /api/reports): a small form, with the reasons
// the server lists in /api/config (moderation.reasons), opened from a chat message or a
// profile. What the report points to (a message, a table) is given by whoever opens it.

import { api } from "../api.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { t } from "../i18n.js";

/**
 * @typedef {object} ReportTarget
 * @property {string} username whom
 * @property {number} [message_id] a chat message of theirs
 * @property {string} [table_id] the table it happened at
 */

/** @type {Promise<{reasons: Record<string, string>, text_max: number}> | null} /api/config's, asked once */
let asked = null;

/** The reasons a report may give, as the server names them, and its text's longest. */
function limits() {
  if (!asked) {
    asked = /** @type {Promise<import("../types.js").SiteConfig>} */ (api("GET", "/api/config"))
      .then((c) => c.moderation || { reasons: {}, text_max: 0 });
    asked.catch(() => (asked = null));
  }
  return asked;
}

/**
 * The report's body from the form's values (a blank text is left out).
 * @example reportBody({username: "bob", message_id: 7}, "chat_abuse", "  ") // {username: "bob", message_id: 7, reason: "chat_abuse"}
 * @param {ReportTarget} target
 * @param {string} reason
 * @param {string} text
 */
export function reportBody(target, reason, text) {
  /** @type {Record<string, unknown>} */
  const body = { ...target, reason };
  if (text.trim()) body.text = text.trim();
  return body;
}

/**
 * The form that reports `target`; `onClose` when it is cancelled or sent.
 * @param {ReportTarget} target
 * @param {() => void} onClose
 * @param {string} [what] how the form names what is reported
 */
export function reportForm(target, onClose, what = t("Report {target}", { target: target.username })) {
  const status = h("p", { class: "report-status", role: "status" });
  const reason = /** @type {HTMLSelectElement} */ (h("select", { class: "report-reason", "aria-label": t("Reason") }));
  const text = /** @type {HTMLInputElement} */ (h("input", { type: "text", class: "report-text",
    "aria-label": t("What happened"), placeholder: target.table_id || target.message_id ? t("What happened (optional)") : t("What happened") }));
  limits().then((c) => {
    fill(reason, Object.entries(c.reasons).map(([value, label]) => h("option", { value }, label)));
    if (target.message_id !== undefined && "chat_abuse" in c.reasons) reason.value = "chat_abuse";
    if (c.text_max) text.maxLength = c.text_max;
  }).catch((err) => (status.textContent = describe(err)));
  const send = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "btn small" }, t("Send report")));
  const form = h("form", { class: "report-form card", "aria-label": what, onsubmit: (/** @type {Event} */ e) => {
    e.preventDefault();
    send.disabled = true;
    status.textContent = t("Sending…");
    api("POST", "/api/reports", { body: reportBody(target, reason.value, text.value) })
      .then(() => {
        status.textContent = t("Reported. A moderator will look at it.");
        form.dataset.sent = "true";
        setTimeout(onClose, 4000);
      })
      .catch((err) => {
        send.disabled = false;
        status.textContent = describe(err);
      });
  } },
  h("strong", {}, what), " ", reason, " ", text, " ", send, " ",
  h("button", { type: "button", class: "link", onclick: onClose }, t("Cancel")), status);
  return form;
}

// @ts-check
// The account's email parts of the page: the address form in the account panel, "Forgot
// password?" under the log-in form, and the card a mailed link opens (the address verified,
// or a new password to choose).

import * as account from "../account.js";
import { answeringForm, h } from "../dom.js";
import { ApiError, describe } from "../errors.js";
import * as recovery from "../recovery.js";
import { t } from "../i18n.js";

/**
 * What a failure of these forms says: the server's own sentence (its words are written
 * for these forms), or the page's for a network failure.
 * @param {unknown} err
 */
const said = (err) => (err instanceof ApiError ? err.message : describe(err));

/**
 * A small form: labelled inputs, a button and a line for the answer.
 * @param {string} name data-form
 * @param {[string, Record<string, unknown>][]} inputs label and attributes of each input
 * @param {string} submit
 * @param {(values: string[]) => Promise<string>} run the sentence to show when done
 * @param {boolean} [once] the form is done once it succeeds: only its answer stays
 */
function smallForm(name, inputs, submit, run, once = false) {
  const fields = inputs.map(([, attrs]) => /** @type {HTMLInputElement} */ (h("input", { class: "account-input", required: true, ...attrs })));
  const rows = inputs.map(([label], i) => h("label", { class: "account-field" }, h("span", {}, label), fields[i]));
  const form = answeringForm(name, rows, submit, async () => {
    const text = await run(fields.map((f) => f.value));
    for (const f of fields) if (f.type === "password") f.value = "";
    if (once) for (const part of form.querySelectorAll("label, button")) /** @type {HTMLElement} */ (part).hidden = true;
    return text;
  }, said);
  return form;
}

/** The account panel's email section: the address in use, the one waiting, and the forms. */
export function emailSection() {
  const status = h("p", { class: "muted email-status", "data-email-status": "" }, "…");
  /** @param {recovery.Addresses} a */
  const show = (a) => {
    const now = a.email ? t("Your address: {email}.", { email: a.email }) : t("No email address: add one to be able to reset a forgotten password.");
    status.textContent = a.pending ? t("{now} Waiting for you to confirm {pending}: follow the link mailed to it.", { now, pending: a.pending }) : now;
  };
  const load = () => recovery.addresses().then(show).catch((err) => (status.textContent = said(err)));
  load();
  recovery.onVerified(() => {
    if (status.isConnected) load();
  });
  const change = smallForm("email", [
    [t("Email address"), { type: "email", autocomplete: "email", name: "email" }],
    [t("Password"), { type: "password", autocomplete: "current-password", name: "password" }],
  ], t("Send confirmation link"), async ([email, password]) => {
    const a = await recovery.askAddress(email.trim(), password);
    show(a);
    return a.pending ? t("A link is on its way to {pending}. Follow it to confirm the address.", { pending: a.pending }) : t("This is already your address.");
  });
  const remove = smallForm("email-remove", [
    [t("Password"), { type: "password", autocomplete: "current-password", name: "password" }],
  ], t("Remove the address"), async ([password]) => {
    show(await recovery.removeAddress(password));
    return t("The address is removed.");
  });
  return h("details", { class: "email-section", "data-section": "email" },
    h("summary", {}, t("Email address")), status, change,
    h("details", { class: "email-remove" }, h("summary", {}, t("Remove the address")), remove));
}

/** "Forgot password?" under the log-in form. */
export function forgotSection() {
  const form = smallForm("forgot", [
    [t("Username or email address"), { type: "text", autocomplete: "username", name: "who" }],
  ], t("Mail me a link"), async ([who]) => (await recovery.forgot(who.trim())).message.replace(/^./, (c) => c.toUpperCase()) + ".");
  return h("details", { class: "forgot-section", "data-section": "forgot" }, h("summary", {}, t("Forgot password?")), form);
}

/**
 * The card a mailed link opens over the page, if the page was opened with one.
 * @param {string} hash location.hash
 */
export function openMailedLink(hash) {
  const link = recovery.mailedLink(hash);
  if (!link) return;
  history.replaceState(null, "", location.pathname + location.search);
  const note = h("div", { class: "account-note", role: "status" });
  const close = h("button", { type: "button", class: "btn small", "data-action": "close" }, t("Close"));
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "card mailed-link", "data-mailed": link.kind }));
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  if (link.kind === "verify-email") {
    dialog.append(h("h2", {}, t("Email address")), note, close);
    recovery.verifyAddress(link.token).then((a) => {
      note.className = "account-note is-info";
      note.textContent = t("Your address is confirmed: {email}.", { email: a.email });
    }, (err) => {
      note.className = "account-note is-error";
      note.textContent = said(err);
    });
  } else {
    const form = smallForm("reset", [
      [t("New password"), { type: "password", autocomplete: "new-password", name: "password" }],
    ], t("Set the new password"), async ([password]) => {
      await account.resetPassword(link.token, password);
      return t("Your password is changed and you are logged in. Every other device is logged out.");
    }, true);
    dialog.append(h("h2", {}, t("Choose a new password")), form, close);
  }
  document.body.append(dialog);
  dialog.showModal();
}

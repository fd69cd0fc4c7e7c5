// @ts-check
// The account area's small forms share one way of answering: the button is off while the
// form's work runs, and a line under it says what came of it (the work's sentence, or the
// failure's).

import { h } from "../dom.js";
import { describe } from "../errors.js";

/**
 * A form whose submit runs `run`: the sentence it returns is shown as an answer, a failure
 * as an error (in `explain`'s words), and the button is off until it ends.
 * @example answeringForm("login", [row], "Log in", async () => "Welcome back.")
 * @param {string} name what the form is (`data-form`)
 * @param {HTMLElement[]} rows its fields
 * @param {string} submit the button's text
 * @param {() => Promise<string | void>} run what the form does
 * @param {(err: unknown) => string} [explain] a failure's sentence
 * @returns {HTMLFormElement}
 */
export function answeringForm(name, rows, submit, run, explain = describe) {
  // Not "message": the table page's own message line is the one element of that class.
  const note = h("div", { class: "account-note", role: "status" });
  const button = h("button", { type: "submit", class: "btn confirm small" }, submit);
  return /** @type {HTMLFormElement} */ (h("form", {
    class: "account-form", "data-form": name,
    /** @param {Event} e */
    onsubmit: async (e) => {
      e.preventDefault();
      button.disabled = true;
      note.className = "account-note";
      note.textContent = "";
      try {
        const said = await run();
        if (said) {
          note.className = "account-note is-info";
          note.textContent = said;
        }
      } catch (err) {
        note.className = "account-note is-error";
        note.textContent = explain(err);
      } finally {
        button.disabled = false;
      }
    },
  }, rows, note, button));
}

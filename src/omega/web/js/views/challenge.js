// @ts-check
// A challenge's page (/challenges/{id}): the link a notice or the sender gives. It says who
// challenges whom to what and where it stands; the challenged player (or, for a challenge
// open by link, whoever logs in and opens it first) accepts or declines, the sender cancels
// or copies the link. Accepted, the table opens, for both.

import * as account from "../account.js";
import { api } from "../api.js";
import { copyButton, fill, h, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { RELATION_HEADS, challengeLine } from "../relations.js";
import { AccountArea } from "./account.js";
import { answer, watchChallenges } from "./friends.js";
import { t } from "../i18n.js";

/** @typedef {import("../relations.js").Challenge} Challenge */

/**
 * Draw the challenge `id` into `root`.
 * @param {HTMLElement} root
 * @param {string} id
 */
export function startChallenge(root, id) {
  document.title = t("Challenge · Omega");
  const main = h("main", { class: "card challenge-page" }, h("h1", {}, t("Challenge")), h("p", { class: "muted" }, t("Loading…")));
  const note = h("div", { class: "account-note", role: "alert" });
  fill(root, h("div", { class: "lobby" },
    siteBar(new AccountArea().el), main));

  /** @param {Challenge} c */
  function draw(c) {
    const user = account.known();
    /** @param {string} label @param {"accept" | "decline" | "cancel"} what @param {string} cls */
    const button = (label, what, cls) => h("button", {
      type: "button", class: `btn ${cls}`, "data-action": what,
      onclick: async () => {
        note.textContent = "";
        try {
          draw(await answer(c, what));
        } catch (err) {
          note.textContent = describe(err, RELATION_HEADS);
        }
      },
    }, label);
    const pending = c.status === "pending";
    const actions = !pending ? [c.table_id ? h("a", { href: `/t/${c.table_id}`, class: "btn confirm" }, t("Open the game")) : ""]
      : !user ? [h("p", { class: "muted" }, t("Log in (at the top) to accept this challenge."))]
        : c.mine ? [button(t("Cancel the challenge"), "cancel", "ghost"), copyButton(`${location.origin}${c.path}`, t("Copy the link"))]
          : [button(t("Accept"), "accept", "confirm"), c.to ? button(t("Decline"), "decline", "ghost") : ""];
    fill(main, h("h1", {}, c.to ? t("{from} challenges {to}", { from: c.from, to: c.to }) : t("{from} challenges whoever opens this link", { from: c.from })),
      h("p", { class: "challenge-line", "data-status": c.status }, challengeLine(c)),
      pending ? h("p", { class: "muted small" }, t("Waits for an answer until {value}.", { value: new Date(c.expires_at).toLocaleString() })) : "",
      h("div", { class: "row" }, ...actions), note);
  }

  const load = () => api("GET", `/api/challenges/${encodeURIComponent(id)}`)
    .then((c) => draw(/** @type {Challenge} */ (c)))
    .catch((err) => fill(main, h("h1", {}, t("Challenge")), h("p", { class: "problem", "data-problem": "no_challenge" }, describe(err, RELATION_HEADS))));
  account.onChange(() => load());
  account.current().then(() => {
    load();
    // The sender waiting here goes to the table when it is accepted.
    if (account.known()) watchChallenges((c) => { if (c.id === id) draw(c); });
  });
}

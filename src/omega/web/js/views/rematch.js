// @ts-check
// Where the rematch stands, under the game-over view: who proposed it and who has still to
// answer (with Accept and Decline for me when I have), or how it ended.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").Rematch} Rematch */

/**
 * @typedef {object} RematchHandlers
 * @property {() => void} onAccept
 * @property {() => void} onDecline
 * @property {() => void} onOpen go to the rematch's table
 */

/**
 * A list of names in English.
 * @example names(["Ann", "Bo", "Cy"]) // "Ann, Bo and Cy"
 * @param {string[]} list
 */
export function names(list) {
  return list.length < 2 ? list.join("") : t("{value} and {value2}", { value: list.slice(0, -1).join(", "), value2: list[list.length - 1] });
}

/**
 * The sentence for a rematch, seen from `me` (null: a spectator).
 * @example rematchLine({status: "declined", proposer: 0, accepted: [0], waiting: [], ended_by: 1, table: null}, 0, ["Ann", "Bo"])
 * // "Bo declined the rematch."
 * @param {Rematch} r
 * @param {number | null} me
 * @param {string[]} seatNames
 */
export function rematchLine(r, me, seatNames) {
  const who = (/** @type {number} */ seat) => (seat === me ? t("You") : seatNames[seat] || t("Player {value}", { value: seat + 1 }));
  if (r.status === "declined") return t("{who} declined the rematch.", { who: who(r.ended_by ?? 0) });
  if (r.status === "cancelled") return t("{who} left: the rematch is off.", { who: who(r.ended_by ?? 0) });
  if (r.status === "started") return t("The rematch has started.");
  const waiting = r.waiting.filter((s) => s !== me).map((s) => seatNames[s] || t("Player {value}", { value: s + 1 }));
  const asked = t("{who} proposed a rematch (the seats move one place on).", { who: who(r.proposer) });
  if (me !== null && r.waiting.includes(me)) return asked;
  return waiting.length ? t("{asked} Waiting for {names}.", { asked, names: names(waiting) }) : asked;
}

export class RematchView {
  /** @param {RematchHandlers} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.el = h("section", { class: "rematch", hidden: true, "aria-label": t("Rematch"), "aria-live": "polite" });
  }

  /**
   * @param {Rematch | null} r
   * @param {number | null} me
   * @param {string[]} seatNames
   */
  update(r, me, seatNames) {
    this.el.hidden = r === null;
    if (!r) return;
    const asked = r.status === "proposed" && me !== null && r.waiting.includes(me);
    fill(this.el,
      h("p", { class: "rematch-line", "data-status": r.status }, rematchLine(r, me, seatNames)),
      asked ? h("div", { class: "row" },
        h("button", { type: "button", class: "btn confirm", onclick: this.handlers.onAccept }, t("Accept rematch")),
        h("button", { type: "button", class: "btn", onclick: this.handlers.onDecline }, t("Decline"))) : null,
      r.status === "started" && r.table
        ? h("button", { type: "button", class: "btn confirm", onclick: this.handlers.onOpen }, t("Open the rematch")) : null);
  }
}

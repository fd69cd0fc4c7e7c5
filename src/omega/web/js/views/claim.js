// @ts-check
// Claiming an absent player's seat (docs/server-api.md, the `claim` action): at an untimed
// casual table, once the seat to move has kept me waiting for the server's wait
// (`claim_from`) and its player has the table closed, a button resigns that seat for them.
// The server decides; the page only offers the button when the server would say yes.

import { fill, h, keyed } from "../dom.js";
import { mySeat, seatLabel } from "../tablestate.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../types.js").Seat} Seat */

/**
 * The seat I may claim now (`nowMs`: the page's clock, moved by the offset to the server's
 * measured at the socket's sync), or null: the table allows it (`claim_from`), I hold a
 * seat still in play that is not the one to move, and the seat to move is a person with
 * no socket open.
 * @example claimable(m, Date.parse(m.state.claim_from)) // the absent seat, once the wait is over
 * @param {Loaded} m
 * @param {number} nowMs
 * @returns {Seat | null}
 */
export function claimable(m, nowMs) {
  const from = m.state.claim_from;
  const me = mySeat(m);
  const absent = m.state.game.current_seat;
  if (!from || m.state.status !== "playing" || !me || me.resigned || me.timed_out || me.kind !== "human") return null;
  if (absent === null || absent === me.index) return null;
  const seat = m.state.seats[absent];
  if (!seat || seat.kind !== "human" || seat.resigned || seat.connected) return null;
  return nowMs + (m.offset ?? 0) >= Date.parse(from) ? seat : null;
}

/**
 * Milliseconds until the claim becomes possible (the page draws again then), or null when
 * no wait would end in one (nothing to claim, or it is possible already).
 * @param {Loaded} m
 * @param {number} nowMs
 * @returns {number | null}
 */
export function claimWait(m, nowMs) {
  const from = m.state.claim_from;
  if (!from || claimable(m, nowMs) || !claimable(m, Date.parse(from) - (m.offset ?? 0))) return null;
  return Math.max(0, Date.parse(from) - (nowMs + (m.offset ?? 0)));
}

export class ClaimView {
  /** @param {{onClaim: () => void}} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.el = h("div", { class: "row claim-row", hidden: true });
  }

  /**
   * @param {Loaded} m
   * @param {number} nowMs
   */
  update(m, nowMs) {
    const seat = claimable(m, nowMs);
    const last = seat !== null && m.state.players - m.state.game.resigned.length <= 2;
    keyed(this.el, seat ? `${seat.index}|${last}|${m.sending}` : "", () => {
      this.el.hidden = !seat;
      if (!seat) {
        fill(this.el);
        return;
      }
      // With more players the game goes on: the computer plays the absent seat's stones.
      const what = last ? t("Claim the win") : t("Resign {seat} for them", { seat: colorName(seat.color) });
      const then = last ? t("{seat} resigns and you win.", { seat: colorName(seat.color) }) : t("{seat} resigns and the computer plays its stones.", { seat: colorName(seat.color) });
      fill(this.el, h("span", {}, t("{seat} ({seat2}) has left the table and kept you waiting. ", { seat: seatLabel(seat), seat2: colorName(seat.color) }),
        h("span", { class: "muted" }, t("If you claim, {then}", { then }))),
      h("button", { type: "button", class: "btn claim", disabled: m.sending, onclick: this.handlers.onClaim }, what));
    });
  }
}

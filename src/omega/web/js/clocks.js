// @ts-check
// The clocks of a timed table by the server's time, pure: the offset to the server's clock
// and each seat's clock, the running one counting down to its flag (views/clocks.js draws them).

import { colorsInPlay, isOver, seatOf } from "./tablestate.js";
import { clockText, serverOffset } from "./timecontrol.js";

/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./tabletypes.js").ClockFacts} ClockFacts */

/**
 * The clocks at a timed table (null untimed), at the page's time `pageNow` corrected by the
 * offset to the server's clock measured when the socket connected: the running clock counts
 * down to the server's flag time, never by the page's own idea of time. Seats without a
 * clock (computers, resigned) are left out.
 * @param {Loaded} m
 * @param {number} pageNow the page's time (Date.now())
 * @returns {ClockFacts[] | null}
 */
export function clockFacts(m, pageNow) {
  const c = m.state.clock;
  if (!c) return null;
  const now = pageNow + (m.offset ?? 0);
  /** @type {ClockFacts[]} */
  const out = [];
  for (const color of colorsInPlay(m)) {
    const seat = seatOf(m, color);
    if (!seat) continue;
    const stored = c.left_ms[seat.index];
    const running = c.running === seat.index && c.flag_at !== null && !isOver(m);
    const timedOut = Boolean(seat.timed_out);
    if (stored === null && !timedOut) continue;
    const left = timedOut ? 0 : running ? Date.parse(/** @type {string} */ (c.flag_at)) - now : /** @type {number} */ (stored);
    out.push({ color, left, text: clockText(left, c.kind), running, low: left <= c.low_ms, out: timedOut });
  }
  return out;
}

/**
 * The server's time arrived (a sync or a pong): measure the offset from it. `sentAt` is
 * when the question left, when known (a ping), so half the round trip is allowed for.
 * @template {Model} M
 * @param {M} m
 * @param {string | undefined} serverTime
 * @param {number} sentAt
 * @param {number} receivedAt
 * @returns {M}
 */
export function measuredOffset(m, serverTime, sentAt, receivedAt) {
  const offset = serverTime ? serverOffset(serverTime, sentAt, receivedAt) : null;
  return offset === null ? m : { ...m, offset };
}

// @ts-check
// Time controls on the page: the lobby's choices (from GET /api/config, never a copy of the
// server's limits), and how a clock's time reads. Pure: no DOM, no timers.

import { t } from "./i18n.js";

/** @typedef {import("./types.js").TimeControlConfig} TimeControlConfig */

/**
 * The time controls the lobby's form offers: untimed, the real-time presets, custom real
 * time, then turn-based limits per move (a reserve is chosen apart).
 * @example controlChoices({realtime: {presets: [{text: "3+2", label: "3 minutes + 2 seconds a move"}]}, turn_based: {per_move: [{text: "1d", label: "1 day a move"}]}}).map((c) => c.value) // ["untimed", "3+2", "custom", "1d"]
 * @param {Pick<TimeControlConfig, "realtime" | "turn_based">} config
 * @returns {{value: string, label: string, group: "none" | "realtime" | "turn_based"}[]}
 */
export function controlChoices(config) {
  return [
    { value: "untimed", label: t("Untimed"), group: "none" },
    ...config.realtime.presets.map((p) => ({ value: p.text, label: p.text, group: /** @type {const} */ ("realtime") })),
    { value: "custom", label: t("Custom…"), group: "realtime" },
    ...config.turn_based.per_move.map((p) => ({ value: p.text, label: p.label, group: /** @type {const} */ ("turn_based") })),
  ];
}

/**
 * The text of a chosen time control (as POST /api/tables takes it), from the form's fields.
 * @example controlText("custom", 7, 3, 0) // "7+3"
 * @example controlText("1d", 0, 0, 7) // "1d+7d"
 * @param {string} choice a value of controlChoices
 * @param {number} minutes custom real time: base minutes
 * @param {number} seconds custom real time: increment seconds
 * @param {number} reserveDays turn-based: days of reserve (0: none)
 */
export function controlText(choice, minutes, seconds, reserveDays) {
  if (choice === "custom") return `${minutes}+${seconds}`;
  if (/^\d+[hd]$/.test(choice)) return reserveDays > 0 ? `${choice}+${reserveDays}d` : choice;
  return choice;
}

/**
 * A clock's time as it reads: real time `m:ss` (tenths in the last 10 seconds, `h:mm:ss`
 * from an hour); turn-based days and hours (`2d 5h`), hours and minutes under a day,
 * minutes and seconds under an hour.
 * @example clockText(65_000, "realtime") // "1:05"
 * @example clockText(9_340, "realtime") // "0:09.3"
 * @example clockText((2 * 24 + 5) * 3600_000 + 1, "turn_based") // "2d 5h"
 * @param {number} ms
 * @param {"realtime" | "turn_based"} kind
 */
export function clockText(ms, kind) {
  const left = Math.max(0, ms);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  if (kind === "turn_based") {
    const hours = Math.floor(left / 3_600_000);
    if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
    const minutes = Math.floor(left / 60_000) % 60;
    if (hours >= 1) return `${hours}h ${minutes}m`;
  }
  if (kind === "realtime" && left < 10_000) return `0:${pad(Math.floor(left / 1000))}.${Math.floor(left / 100) % 10}`;
  const total = Math.floor(left / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  return h ? `${h}:${pad(m)}:${pad(total % 60)}` : `${m}:${pad(total % 60)}`;
}

/**
 * A round trip longer than this (ms) is not a network's: the page's clock moved while the
 * question was out (a laptop that slept, a clock set by hand).
 */
export const MAX_ROUND_TRIP = 10_000;

/**
 * The offset of the server's clock from the page's (ms to add to the page's time), from a
 * message that carries the server's time: it was read halfway between sending and receiving.
 * After a longer round trip than {@link MAX_ROUND_TRIP} the halfway point means nothing
 * (a page clock that jumped a day would put the server half a day out), and the server
 * read its time as it answered, so the arrival stands for it.
 * @example serverOffset("2026-01-01T00:00:01.000Z", Date.parse("2026-01-01T00:00:00.000Z"), Date.parse("2026-01-01T00:00:00.200Z")) // 900
 * @param {string} serverTime ISO time with milliseconds
 * @param {number} sentAt the page's time when the question left (the answer's arrival if unknown)
 * @param {number} receivedAt the page's time when the answer came
 * @returns {number | null} null when the time cannot be read
 */
export function serverOffset(serverTime, sentAt, receivedAt) {
  const server = Date.parse(serverTime);
  if (Number.isNaN(server)) return null;
  const roundTrip = receivedAt - sentAt;
  const readAt = roundTrip >= 0 && roundTrip <= MAX_ROUND_TRIP ? (sentAt + receivedAt) / 2 : receivedAt;
  return server - readAt;
}

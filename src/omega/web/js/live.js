// @ts-check
// The live list's logic (docs/server-api.md, Watching): its games' types, how a seat is named,
// and the query string of the filters. No DOM: the view is views/watch.js.

import { t } from "./i18n.js";

/** @typedef {{index: number, kind: string, level: number | null, username: string | null, rating: number | null}} LiveSeat */
/** @typedef {{id: string, players: number, size: number, rated: boolean, time_control: {text: string, kind: string},
 *   to_move_seat: number | null, updated_at: string | null, seats: LiveSeat[], rating: number | null, path: string}} LiveGame */

/**
 * A seat as the list names it: the username with its rating, or what the seat is.
 * @example seatText({index: 0, kind: "human", level: null, username: "Ann", rating: 1117}) // "Ann (1117)"
 * @param {LiveSeat} s
 */
export function seatText(s) {
  if (s.kind === "computer") return t("computer level {level}", { level: s.level });
  return s.username ? `${s.username}${s.rating !== null ? ` (${s.rating})` : ""}` : t("guest");
}

/**
 * The list's query string from the filters' values (empty ones left out).
 * @example liveQuery({username: " Ann ", players: "", rated: "true"}) // "?username=Ann&rated=true"
 * @param {Record<string, string>} values
 */
export function liveQuery(values) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v.trim()) q.set(k, v.trim());
  const text = q.toString();
  return text ? `?${text}` : "";
}

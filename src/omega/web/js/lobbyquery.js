// @ts-check
// The lobby list's filters and page (GET /api/lobby, docs/server-api.md): the path the page
// asks with, whether a table the lobby socket pushes passes the filters, and how the page
// reads. Pure: no DOM, tested under Node.

import { t } from "./i18n.js";

/** @typedef {import("./lobbytypes.js").ListedTable} ListedTable */

/**
 * @typedef {object} LobbyFilters what the list shows; "" is "any"
 * @property {string} players "2", "3", "4" or ""
 * @property {string} size a board side ("5" to "10") or ""
 * @property {string} rated "true", "false" or ""
 * @property {string} clock "untimed", "realtime", "turn_based" or "" (the server's kinds)
 */

/** @type {Readonly<LobbyFilters>} */
export const ANY = Object.freeze({ players: "", size: "", rated: "", clock: "" });

/**
 * The kind of a listed table's clock, as the server names it.
 * @example clockKind("5+5") // "realtime"
 * @example clockKind("1d+2d") // "turn_based"
 * @example clockKind(null) // "untimed"
 * @param {string | null} text the table's time_control
 * @returns {"untimed" | "realtime" | "turn_based"}
 */
export function clockKind(text) {
  if (!text) return "untimed";
  return /^\d+\+\d+$/.test(text) ? "realtime" : "turn_based";
}

/**
 * Whether no filter is set.
 * @example isAny({players: "", size: "", rated: "", clock: ""}) // true
 * @param {LobbyFilters} filters
 */
export function isAny(filters) {
  return !filters.players && !filters.size && !filters.rated && !filters.clock;
}

/**
 * The path of a page of the list: the filters set, and the offset when not the first page.
 * @example lobbyPath({players: "2", size: "", rated: "true", clock: "realtime"}, 20)
 * // "/api/lobby?players=2&rated=true&time_control=realtime&offset=20"
 * @example lobbyPath({players: "", size: "", rated: "", clock: ""}, 0) // "/api/lobby"
 * @param {LobbyFilters} filters
 * @param {number} offset
 */
export function lobbyPath(filters, offset) {
  const q = new URLSearchParams();
  if (filters.players) q.set("players", filters.players);
  if (filters.size) q.set("size", filters.size);
  if (filters.rated) q.set("rated", filters.rated);
  if (filters.clock) q.set("time_control", filters.clock);
  if (offset > 0) q.set("offset", String(offset));
  const text = q.toString();
  return text ? `/api/lobby?${text}` : "/api/lobby";
}

/**
 * Whether a table passes the filters (the server's rule for the same parameters, for the
 * tables the lobby socket pushes).
 * @example passes({players: "2", size: "", rated: "", clock: "untimed"}, {players: 2, size: 5, rated: true, time_control: null}) // true
 * @param {LobbyFilters} filters
 * @param {Pick<ListedTable, "players" | "size" | "rated" | "time_control">} table
 */
export function passes(filters, table) {
  return (!filters.players || Number(filters.players) === table.players)
    && (!filters.size || Number(filters.size) === table.size)
    && (!filters.rated || (filters.rated === "true") === table.rated)
    && (!filters.clock || filters.clock === clockKind(table.time_control));
}

/**
 * What the pager says about the tables shown.
 * @example pageText(20, 17, 37) // "Tables 21–37 of 37"
 * @example pageText(0, 3, 3) // "Tables 1–3 of 3"
 * @example pageText(0, 0, 0) // ""
 * @param {number} offset where the page starts
 * @param {number} shown tables on it
 * @param {number} total tables passing the filters
 */
export function pageText(offset, shown, total) {
  if (!shown) return "";
  return t("Tables {value}–{value2} of {value3}", { value: offset + 1, value2: offset + shown, value3: Math.max(total, offset + shown) });
}

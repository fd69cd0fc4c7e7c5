// @ts-check
// Failures as the page meets them: the server's error answers (docs/server-api.md) and
// network failures, and the sentence a person reads for each.

import { t } from "./i18n.js";

/**
 * An error answer from the server ({"error": {"code", "message"}}) or a network failure
 * (code "network").
 */
export class ApiError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {number} [status] the HTTP status, 0 when there was no answer
   */
  constructor(code, message, status = 0) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// What a person reads before the server's own message, by error code.
const FRIENDLY = {
  illegal_move: t("That move is not allowed"),
  not_your_turn: t("It is not your turn"),
  forbidden: t("This link cannot act at this table"),
  game_over: t("The game is over"),
  stale_version: t("The table changed meanwhile"),
  rate_limited: t("Too many requests; wait a moment"),
  auth_required: t("This link is not valid for this table"),
  not_found: t("No such table"),
};

/**
 * A failure as one sentence for a person: the server's message behind a friendly head.
 * `heads` replaces some heads where another page meets the codes (a tournament is not a table).
 * @example describe(new ApiError("not_your_turn", "seat 1 is to move")) // "It is not your turn: seat 1 is to move"
 * @example describe(new ApiError("forbidden", "moderators only"), {forbidden: "Not allowed"}) // "Not allowed: moderators only"
 * @param {unknown} err
 * @param {Record<string, string>} [heads]
 * @returns {string}
 */
export function describe(err, heads = {}) {
  if (!(err instanceof ApiError)) {
    const message = err instanceof Error ? err.message : "";
    return String(message || err);
  }
  if (err.code === "network") return err.message;
  const head = /** @type {Record<string, string | undefined>} */ ({ ...FRIENDLY, ...heads })[err.code];
  return head && head !== err.message ? `${head}: ${err.message}` : err.message;
}

/**
 * The code of a failure, or "" when it is not an ApiError.
 * @param {unknown} err
 */
export const codeOf = (err) => (err instanceof ApiError ? err.code : "");

/**
 * What a link that cannot open a table says, by the server's answer: a title and a sentence.
 * @example problemText("not_found", "seat", "abc").title // "No such table"
 * @param {string} code the error code ("" for a bare address without a link)
 * @param {"seat" | "watch" | null} role what the link claimed to be
 * @param {string} tableId
 * @param {string} [detail] the server's sentence, for any other refusal
 * @returns {{title: string, text: string}}
 */
export function problemText(code, role, tableId, detail = "") {
  if (code === "not_found") {
    return { title: t("No such table"), text: t("There is no table {tableId} on this server. Check that the link was copied whole, or create a new table.", { tableId }) };
  }
  if (!role || code === "auth_required") {
    return {
      title: t("This table needs a link"),
      text: t("Table {tableId} needs an invite link (…#seat=…) or a spectator link (…#watch=…). Ask the table's creator for one.", { tableId }),
    };
  }
  if (code !== "forbidden") return { title: t("This table cannot be shown"), text: detail || t("The server refused table {tableId}.", { tableId }) };
  if (role === "watch") {
    return { title: t("This spectator link does not work"), text: t("Its key does not open table {tableId}. Ask a player for the spectator link again.", { tableId }) };
  }
  return { title: t("This invite link does not work"), text: t("It holds no seat at table {tableId}. Ask the table's creator for your invite link again.", { tableId }) };
}

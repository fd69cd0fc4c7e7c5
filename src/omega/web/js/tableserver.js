// @ts-check
// The table's HTTP calls (docs/server-api.md), each with the page's seat token or
// spectator key: the table, actions, hints, the review, the links, the name, replayed
// positions (fetched once each: earlier positions never change) and the record. The
// socket is tablefeed.js's; what the answers mean is the controller's (table.js).

import { api, download } from "./api.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ActionAnswer} ActionAnswer */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./views/links.js").Renewal} Renewal */
/** @typedef {import("./views/review.js").ReviewStatus} ReviewStatus */

export class TableServer {
  /**
   * @param {string} tableId
   * @param {string} secret the seat token or spectator key ("": the account's cookie alone)
   */
  constructor(tableId, secret) {
    this.tableId = tableId;
    this.path = `/api/tables/${encodeURIComponent(tableId)}`;
    this.token = secret || null;
    /** @type {Map<number, GameView>} */
    this.replays = new Map();
  }

  /**
   * The table state (without a link the server still tells a table that needs one from
   * no table at all).
   * @returns {Promise<TableState>}
   */
  table() {
    return api("GET", this.path, { token: this.token });
  }

  /**
   * Send an action on the version the page last saw; the request id makes a retry safe.
   * @param {Action} action
   * @param {string} requestId
   * @param {number | undefined} version
   * @returns {Promise<ActionAnswer>}
   */
  act(action, requestId, version) {
    return api("POST", `${this.path}/actions`, { token: this.token, body: { ...action, request_id: requestId, version } });
  }

  /**
   * The computer's best turn for my seat.
   * @returns {Promise<{version: number, hint: HistoryEntry, state: TableState}>}
   */
  hint() {
    return api("POST", `${this.path}/hint`, { token: this.token });
  }

  /**
   * The finished game's review as far as it goes (`ask`: ask for it first).
   * @param {boolean} ask
   * @returns {Promise<ReviewStatus>}
   */
  review(ask) {
    return api(ask ? "POST" : "GET", `${this.path}/review`, { token: this.token });
  }

  /**
   * Which seat created the table (its player may make new links anywhere).
   * @returns {Promise<number | null>}
   */
  async creatorSeat() {
    /** @type {{creator_seat: number | null}} */
    const answer = await api("GET", `${this.path}/links`, { token: this.token });
    return answer.creator_seat;
  }

  /**
   * New invite links or a new spectator link (the old ones stop working).
   * @param {Renewal} what
   * @returns {Promise<{invites: Record<string, string>, spectator_key: string | null, state: TableState}>}
   */
  renewLinks(what) {
    return api("POST", `${this.path}/links`, {
      token: this.token, body: { invites: what === "invites", spectator: what === "spectator" },
    });
  }

  /**
   * Rename my seat; the answer is the table state.
   * @param {string} name
   * @returns {Promise<TableState>}
   */
  async rename(name) {
    /** @type {TableState | {state: TableState}} */
    const answer = await api("POST", `${this.path}/name`, { token: this.token, body: { name } });
    return "state" in answer ? answer.state : answer;
  }

  /**
   * The position after `k` history entries, fetched once.
   * @param {number} k
   * @returns {Promise<GameView>}
   */
  async replay(k) {
    let view = this.replays.get(k);
    if (!view) {
      view = /** @type {GameView} */ (await api("GET", `${this.path}/replay?at=${k}`, { token: this.token }));
      this.replays.set(k, view);
    }
    return view;
  }

  /**
   * Download the game's record as a file.
   * @param {"txt" | "json"} ext
   */
  record(ext) {
    return download(`${this.path}/record.${ext}`, this.token || "", `omega-${this.tableId}.${ext}`);
  }
}

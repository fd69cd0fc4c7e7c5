// @ts-check
// What the page asks of the server for the player, and what it does with the answers: actions
// (refetched and resent where a refusal calls for it), hints, replays, the name, links,
// the review, the rematch, the record. The controller (table.js) lends it `Control`.

import * as account from "./account.js";
import { api, download, randomId } from "./api.js";
import { codeOf, describe } from "./errors.js";
import { replayArrived, replayTo } from "./replay.js";
import * as S from "./staging.js";
import * as store from "./store.js";
import * as T from "./tablestate.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ActionAnswer} ActionAnswer */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./types.js").Rematch} Rematch */
/** @typedef {import("./types.js").ReviewMessage} ReviewMessage */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./views/links.js").Renewal} Renewal */
/** @typedef {import("./views/review.js").ReviewStatus} ReviewStatus */
/** @typedef {import("./tabletypes.js").Control} Control */

/**
 * The actions of one table page.
 * @param {Control} c
 */
export function tableActions(c) {
  const { page, extras } = c;
  const path = `/api/tables/${encodeURIComponent(c.link.id)}`;
  /**
   * One call of the table's API (docs/server-api.md) with the page's secret.
   * @template T
   * @param {string} method
   * @param {string} [sub] the path under the table's
   * @param {unknown} [body]
   * @returns {Promise<T>}
   */
  const call = (method, sub = "", body = undefined) => api(method, path + sub, { token: c.link.token || null, body });
  /** @type {Map<number, GameView>} earlier positions never change */
  const replays = new Map();
  let reviewLooked = false;
  // Whether this page took part in the rematch (proposed, accepted, or saw it waiting): only
  // then does its start open the new table by itself; an old table opened later stays put.
  let following = false;

  /** @param {unknown} err */
  const failed = (err) => c.set(T.noteError(c.model(), err));

  /**
   * The table state (without a link the server still tells a table that needs one from
   * no table at all).
   * @returns {Promise<TableState>}
   */
  const fetchTable = () => call("GET");

  async function refresh() {
    try {
      c.takeState(await fetchTable());
    } catch {
      // The socket's own sync will bring the state once the server is back.
    }
  }

  async function confirmTurn() {
    const M = c.model();
    if (!T.isLoaded(M)) return;
    const turn = S.prepareTurn(M, randomId());
    if (!turn) return;
    c.set(turn.model);
    await act({ type: "turn", cells: turn.cells }, turn.requestId, true);
  }

  /**
   * Send an action with the version the page last saw. A refusal that may come from a
   * view behind the table fetches the table first; a stale version on an unchanged
   * position is sent again once.
   * @param {Action} action
   * @param {string} requestId
   * @param {boolean} retryStale
   * @returns {Promise<void>}
   */
  async function act(action, requestId, retryStale) {
    if (!T.isLoaded(c.model())) return;
    c.set(S.sendStarted(c.model()));
    try {
      /** @type {ActionAnswer} */
      const answer = await call("POST", "/actions", { ...action, request_id: requestId, version: c.model().state?.version });
      const sent = S.sendSucceeded(c.model());
      c.put(sent);
      c.takeState(answer.state);
      if (c.model() === sent) c.render(); // an answer older than the socket's news still ends the sending
    } catch (err) {
      c.put(S.sendFailed(c.model()));
      const staged = c.model().staged;
      const code = codeOf(err);
      let M = c.model();
      if (S.needsRefetch(code) && T.isLoaded(M)) {
        const at = T.game(M).history.length;
        await refresh();
        M = c.model();
        if (T.isLoaded(M) && S.shouldResend(M, code, retryStale, at)) {
          c.put(S.forgetPending(M));
          if (action.type === "turn") return confirmTurn();
          return act(action, randomId(), false);
        }
      }
      M = c.model();
      if (T.isLoaded(M)) c.set(S.refused(M, staged, describe(err), code));
    }
  }

  /** Ask the computer for a turn and stage it; the player may still change it or play another. */
  async function askHint() {
    if (!T.isLoaded(c.model()) || extras.hinting) return;
    extras.hinting = true;
    c.render();
    try {
      /** @type {{version: number, hint: HistoryEntry, state: TableState}} */
      const answer = await call("POST", "/hint");
      c.takeState(answer.state);
      const M = c.model();
      if (T.isLoaded(M)) c.setStaging(S.stageHint(M, answer.hint));
    } catch (err) {
      failed(err);
    } finally {
      extras.hinting = false;
      c.render();
    }
  }

  /**
   * Show the position after `k` moves (the end or past it: live), fetching it once.
   * @param {number} k
   */
  async function goReplay(k) {
    if (!T.isLoaded(c.model())) return;
    c.set(replayTo(/** @type {Loaded} */ (c.model()), k));
    if (c.model().replayAt === null) return;
    let view = replays.get(k);
    if (!view) {
      try {
        view = /** @type {GameView} */ (await call("GET", `/replay?at=${k}`));
      } catch (err) {
        failed(err);
        return;
      }
      replays.set(k, view);
    }
    const M = c.model();
    if (T.isLoaded(M)) c.set(replayArrived(M, k, view));
  }

  /**
   * @param {string} name
   * @param {boolean} [quiet] no sentence either way (the name this device uses, taken on a first visit)
   */
  async function rename(name, quiet = false) {
    try {
      /** @type {TableState | {state: TableState}} */
      const answer = await call("POST", "/name", { name });
      if (!account.known()) store.setName(name);
      page.namePrompt.el.hidden = true;
      c.takeState("state" in answer ? answer.state : answer);
      if (!quiet) c.set(T.note(c.model(), "info", t("Name saved.")));
    } catch (err) {
      if (!quiet) failed(err);
    }
  }

  // -- new links, made by the table's creator on a device that has none --------------------
  /** Which seat created the table: its player may make new links anywhere. */
  async function lookForCreator() {
    try {
      /** @type {{creator_seat: number | null}} */
      const answer = await call("GET", "/links");
      page.links.creator = answer.creator_seat;
      c.render();
    } catch {
      // Without the answer the Links box offers nothing new: the links stay where they are.
    }
  }

  /** @param {Renewal} what */
  async function renewLinks(what) {
    if (!T.isLoaded(c.model()) || page.links.busy) return;
    page.links.busy = true;
    c.render();
    try {
      /** @type {{invites: Record<string, string>, spectator_key: string | null, state: TableState}} */
      const answer = await call("POST", "/links", { invites: what === "invites", spectator: what === "spectator" });
      if (c.link.token) store.keepLinks(c.link, answer.invites, answer.spectator_key);
      const kept = extras.invites;
      extras.invites = { invites: { ...(kept?.invites || {}), ...answer.invites },
        spectator_key: answer.spectator_key || kept?.spectator_key };
      page.links.asking = null;
      c.takeState(answer.state);
      c.set(T.note(c.model(), "info", what === "invites" ? t("New invite links made: send them to your friends.") : t("New spectator link made.")));
    } catch (err) {
      failed(err);
    } finally {
      page.links.busy = false;
      c.render();
    }
  }

  // -- the review of a finished game ---------------------------------------------------
  /** @param {ReviewStatus} status */
  function setReview(status) {
    extras.review = status;
    c.render();
  }

  /** Once the game is over: has someone already asked for its review? */
  async function lookForReview() {
    reviewLooked = true;
    try {
      setReview(await call("GET", "/review"));
    } catch {
      // Not reviewed, as far as this page knows: the button stays.
    }
  }

  /** The first time the page sees the game over, it looks for the review. */
  function reviewOnceOver() {
    const M = c.model();
    if (!reviewLooked && T.isLoaded(M) && T.isOver(M)) lookForReview();
  }

  async function askReview() {
    setReview({ status: "queued" });
    try {
      setReview(await call("POST", "/review"));
    } catch (err) {
      setReview({ status: "error", message: describe(err) });
    }
  }

  /** @param {ReviewMessage} msg */
  function reviewNotice(msg) {
    if (msg.status === "done") lookForReview();
    else if (msg.status === "running") setReview({ status: "running", done: msg.done ?? 0, total: msg.total ?? 0 });
    else if (extras.review.status === "none" || extras.review.status === "error") setReview({ status: "queued" });
  }

  // -- the rematch ---------------------------------------------------------------------
  /**
   * Propose a rematch (the others are asked; once they all accept, every page moves on),
   * accept it or decline it.
   * @param {"propose" | "accept" | "decline"} op
   */
  function rematchSay(op) {
    if (!T.isLoaded(c.model()) || c.model().seat === null) return;
    following = op !== "decline";
    c.send({ type: "rematch", op, request_id: `rematch-${randomId()}` });
  }

  /** @param {Rematch} r */
  function rematchArrived(r) {
    if (extras.rematch && extras.rematch.status === "proposed") following = true;
    extras.rematch = r;
    c.render();
    if (r.status === "started" && r.table && following) c.moveTo(r.table);
  }

  /** The rematch's table, opened by hand (a finished table opened later does not move by itself). */
  function openRematch() {
    if (extras.rematch?.table) c.moveTo(extras.rematch.table);
  }

  /** @param {"txt" | "json"} ext */
  async function record(ext) {
    try {
      await download(`${path}/record.${ext}`, c.link.token, `omega-${c.link.id}.${ext}`);
    } catch (err) {
      failed(err);
    }
  }

  /**
   * Open the finished game on a new analysis board, at the position after `at` entries
   * (null: its end); the board's module loads only then.
   * @param {number | null} at
   */
  async function analyse(at) {
    try {
      const made = /** @type {{board: import("./views/analysis.js").Board, key: string}} */ (
        await call("POST", "/analysis", at === null ? {} : { ply: at }));
      (await import("./views/analysis.js")).openMade(made);
    } catch (err) {
      failed(err);
    }
  }

  return {
    fetchTable, refresh, confirmTurn, act, askHint, goReplay, rename, lookForCreator, renewLinks, reviewOnceOver, askReview,
    reviewNotice, rematchSay, rematchArrived, openRematch, record, analyse,
  };
}

// @ts-check
// What the table page asks of the server and what it does with the answers: a turn or
// another action sent on the version the page saw (fetching the table and sending again
// where a refusal calls for it), a hint staged, a replayed position shown, the seat's
// name, new links, the review, the rematch and the record. The controller (table.js)
// holds the model and hands these the few things they need (`Control`); the model's
// steps are the pure modules' (tablestate.js, staging.js, replay.js).

import * as account from "./account.js";
import { randomId } from "./api.js";
import { codeOf, describe } from "./errors.js";
import { replayArrived, replayTo } from "./replay.js";
import * as S from "./staging.js";
import * as store from "./store.js";
import * as T from "./tablestate.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ClientMessage} ClientMessage */
/** @typedef {import("./types.js").Rematch} Rematch */
/** @typedef {import("./types.js").ReviewMessage} ReviewMessage */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./tablepage.js").PageExtras} PageExtras */
/** @typedef {import("./views/links.js").Renewal} Renewal */
/** @typedef {import("./views/review.js").ReviewStatus} ReviewStatus */

/**
 * What the actions need of the controller.
 * @typedef {object} Control
 * @property {() => Model} model the model now
 * @property {(next: Model) => void} set a new model, drawn at once
 * @property {(next: Model) => void} put a new model, drawn with the next change
 * @property {(next: Loaded) => void} setStaging a change that may stage stones (kept over a reload)
 * @property {(state: TableState | null | undefined) => void} takeState a newer table state
 * @property {() => void} render
 * @property {PageExtras} extras what the page draws besides the model, kept here up to date
 * @property {import("./tableserver.js").TableServer} server
 * @property {import("./tablepage.js").TablePage} page
 * @property {(message: ClientMessage) => void} send a message on the table's socket
 * @property {(next: {id: string, seat: number | null}) => void} moveTo open another table (the rematch's)
 * @property {{id: string, token: string}} link the table and the secret this page opened it with
 */

/**
 * The actions of one table page.
 * @param {Control} c
 */
export function tableActions(c) {
  const { server, page, extras } = c;
  let reviewLooked = false;
  // Whether this page took part in the rematch (proposed, accepted, or saw it waiting): only
  // then does its start open the new table by itself; an old table opened later stays put.
  let following = false;

  /** @param {unknown} err */
  const failed = (err) => c.set(T.noteError(c.model(), err));

  /** The table whole (the socket's own sync brings it too, once the server is back). */
  async function refresh() {
    try {
      c.takeState(await server.table());
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
      const answer = await server.act(action, requestId, c.model().state?.version);
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
      const answer = await server.hint();
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
    let view;
    try {
      view = await server.replay(k);
    } catch (err) {
      failed(err);
      return;
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
      const state = await server.rename(name);
      if (!account.known()) store.setName(name);
      page.namePrompt.el.hidden = true;
      c.takeState(state);
      if (!quiet) c.set(T.note(c.model(), "info", "Name saved."));
    } catch (err) {
      if (!quiet) failed(err);
    }
  }

  // -- new links, made by the table's creator on a device that has none --------------------
  /** Which seat created the table: its player may make new links anywhere. */
  async function lookForCreator() {
    try {
      page.links.creator = await server.creatorSeat();
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
      const answer = await server.renewLinks(what);
      if (c.link.token) store.keepLinks(c.link, answer.invites, answer.spectator_key);
      const kept = extras.invites;
      extras.invites = { invites: { ...(kept?.invites || {}), ...answer.invites },
        spectator_key: answer.spectator_key || kept?.spectator_key };
      page.links.asking = null;
      c.takeState(answer.state);
      c.set(T.note(c.model(), "info", what === "invites" ? "New invite links made: send them to your friends." : "New spectator link made."));
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
      setReview(await server.review(false));
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
      setReview(await server.review(true));
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
      await server.record(ext);
    } catch (err) {
      failed(err);
    }
  }

  return {
    refresh, confirmTurn, act, askHint, goReplay, rename, lookForCreator, renewLinks, reviewOnceOver, askReview,
    reviewNotice, rematchSay, rematchArrived, openRematch, record,
  };
}

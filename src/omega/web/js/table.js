// @ts-check
// The table page (/t/{id}#seat=TOKEN or #watch=KEY): the controller. Browser events and
// server answers go through the steps of tablestate.js; every change of the model is
// drawn by the views, each of which redraws only what changed. What talks to the server
// (api.js) and to the browser's storage (store.js) happens here and nowhere else.

import { LiveFeed, api, download, randomId } from "./api.js";
import { fill, h } from "./dom.js";
import { codeOf, describe } from "./errors.js";
import * as store from "./store.js";
import * as T from "./tablestate.js";
import { BoardView } from "./views/board.js";
import { ControlsView } from "./views/controls.js";
import { GameOverView } from "./views/gameover.js";
import { LinksView } from "./views/links.js";
import { MoveLogView } from "./views/movelog.js";
import { OptionsView } from "./views/options.js";
import { PanelsView } from "./views/panels.js";
import { ReplayView } from "./views/replay.js";
import { TopBarView } from "./views/topbar.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ActionAnswer} ActionAnswer */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */

/**
 * Open the table `tableId` in `root` with the link in the page's fragment (or one this
 * device remembers).
 * @param {HTMLElement} root
 * @param {string} tableId
 */
export function startTable(root, tableId) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  let role = fragment.get("seat") ? "seat" : fragment.get("watch") ? "watch" : null;
  let token = fragment.get("seat") || fragment.get("watch");
  if (!token) {
    // A bare /t/{id}: reopen it with a link this device remembers, if any.
    const known = store.tables().find((t) => t.id === tableId);
    if (known) {
      role = known.token ? "seat" : "watch";
      token = known.token || known.watch || null;
      history.replaceState(null, "", `/t/${tableId}#${role}=${token}`);
    }
  }
  const path = `/api/tables/${encodeURIComponent(tableId)}`;
  const prefs = store.prefs();
  /** @type {Model} */
  let M = T.initialModel();
  /** @type {import("./views/links.js").SavedLinks | null} */
  let invites = null;
  /** @type {number | null} */
  let nameMax = null;
  /** @type {Map<number, GameView>} earlier positions never change */
  const replayCache = new Map();

  // -- views -------------------------------------------------------------------------
  const topbar = new TopBarView(tableId);
  const panels = new PanelsView({
    onEnter: (color) => whenLoaded((m) => set(T.hoverPanel(m, color))),
    onLeave: (color) => whenLoaded((m) => set(T.leavePanel(m, color))),
  });
  const controls = new ControlsView({
    onUndo: () => whenLoaded((m) => setStaging(T.undoStone(m))),
    onConfirm: () => confirmTurn(),
    onSwap: () => act({ type: "swap" }, randomId(), true),
    onPlayOn: () => whenLoaded((m) => set(T.dismissPie(m))),
    onLive: () => goReplay(Infinity),
  });
  const gameover = new GameOverView({ onDownload: (ext) => record(ext) });
  const replay = new ReplayView({
    onGo: (k) => goReplay(k),
    onStep: (d) => whenLoaded((m) => goReplay(T.replayStep(m, d))),
    onLive: () => goReplay(Infinity),
  });
  const movelog = new MoveLogView({ onGo: (k) => goReplay(k) });
  const links = new LinksView(tableId, { onRename: (name) => rename(name) });
  const options = new OptionsView(prefs, {
    onDisplay: (name, on) => {
      prefs[name] = on;
      store.setPrefs(prefs);
      render();
    },
    onAskResign: (asking) => whenLoaded((m) => set(T.askResign(m, asking))),
    onResign: () => {
      whenLoaded((m) => set(T.askResign(m, false)));
      act({ type: "resign" }, randomId(), true);
    },
  });
  const boardWrap = h("div", { class: "board-wrap" });
  const tip = h("div", { class: "tooltip", hidden: true });
  const board = new BoardView(boardWrap, tip, {
    onClick: (cell) => whenLoaded((m) => setStaging(T.clickCell(m, cell))),
    onHover: (cell, e) => whenLoaded((m) => set(T.hoverCell(m, cell, e.clientX, e.clientY))),
    onLongPress: (cell, e) => whenLoaded((m) => set(T.hoverCell(m, cell, e.clientX, e.clientY))),
  });
  fill(root, h("div", { class: "table-page" },
    topbar.el,
    topbar.banner,
    h("div", { class: "layout" },
      panels.el,
      h("div", { class: "board-area" }, boardWrap),
      controls.el,
      h("div", { class: "info" }, gameover.el, replay.el, movelog.el, links.el, options.el)),
    tip));

  function render() {
    topbar.update(M);
    controls.update(M);
    if (!T.isLoaded(M)) return;
    panels.update(M);
    board.render(T.boardScene(M), prefs);
    gameover.update(M);
    replay.update(M);
    movelog.update(M);
    links.update(M, invites, nameMax);
    options.update(M);
  }

  /** @param {Model} next */
  function set(next) {
    if (next === M) return;
    M = next;
    render();
  }

  /**
   * A change that may stage or take back stones: they survive a reload of the same position.
   * @param {Loaded} next
   */
  function setStaging(next) {
    const changed = next.staged !== M.staged;
    set(next);
    if (changed) saveStaged();
  }

  /** @param {(m: Loaded) => void} step */
  function whenLoaded(step) {
    if (T.isLoaded(M)) step(M);
  }

  function saveStaged() {
    if (T.isLoaded(M)) store.saveStaged(tableId, T.game(M).history.length, M.staged);
  }

  document.addEventListener("keydown", onKey);
  // A tap anywhere off the board ends a long-press preview.
  document.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch" && M.hover && !boardWrap.contains(/** @type {Node} */ (e.target))) set(T.clearHover(M));
  });

  if (!token) {
    controls.fatal("This page needs an invite link (…#seat=…) or a spectator link (…#watch=…). Ask the table's creator for one.");
    return;
  }
  const secret = token;

  // -- reading the state -------------------------------------------------------------
  async function load() {
    /** @type {TableState} */
    let state;
    // The limits only shape the rename field: the table does not wait for them if they fail.
    const config = api("GET", "/api/config").catch(() => null);
    try {
      state = await api("GET", path, { token: secret });
    } catch (err) {
      if (codeOf(err) === "network") {
        set(T.note(M, "error", describe(err)));
        setTimeout(load, 2000);
        return;
      }
      controls.fatal(describe(err));
      return;
    }
    nameMax = (/** @type {SiteConfig | null} */ (await config))?.name_max ?? null;
    const seat = state.you ? state.you.seat : null;
    if (seat === null) role = "watch";
    const firstVisit = !store.findTable(tableId, secret);
    invites = store.invitesFor(tableId);
    set(T.loaded(M, state, store.stagedFor(tableId, state.game.history.length)));
    remember();
    feed.start();
    // Someone opening an invite for the first time takes the name they use on this device.
    const myName = store.name();
    const me = T.isLoaded(M) ? T.mySeat(M) : null;
    if (firstVisit && role === "seat" && myName && me && me.name !== myName) rename(myName, true);
  }

  function remember() {
    if (!T.isLoaded(M)) return;
    const st = M.state;
    /** @type {store.TableEntry} */
    const entry = {
      id: tableId, players: st.players, size: st.size, pie: st.pie_rule, status: st.status,
      seat: M.seat, lastSeen: Date.now(),
    };
    if (role === "seat") entry.token = secret;
    else entry.watch = secret;
    store.rememberTable(entry);
  }

  /**
   * Take a newer table state (from an action's answer, the socket, or a reload).
   * @param {TableState | null | undefined} state
   */
  function takeState(state) {
    const before = M.state;
    const next = T.applyState(M, state);
    if (next === M) return;
    set(next);
    if (before && M.state && before.status !== M.state.status) remember();
    saveStaged();
  }

  const feed = new LiveFeed({
    tableId,
    token: secret,
    version: () => (M.state ? M.state.version : null),
    onMessage: (msg) => {
      if (msg.type === "sync" || msg.type === "event") takeState(msg.state);
      else set(T.applyServerMessage(M, msg));
    },
    onStatus: (status) => {
      const { model, refresh: again } = T.connectionChanged(M, status);
      set(model);
      if (again) refresh(); // catch anything the socket could not replay
    },
  });

  async function refresh() {
    try {
      takeState(await api("GET", path, { token: secret }));
    } catch {
      // The socket's own sync will bring the state once the server is back.
    }
  }

  // -- acting ------------------------------------------------------------------------
  async function confirmTurn() {
    if (!T.isLoaded(M)) return;
    const turn = T.prepareTurn(M, randomId());
    if (!turn) return;
    set(turn.model);
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
    if (!T.isLoaded(M)) return;
    set(T.sendStarted(M));
    try {
      /** @type {ActionAnswer} */
      const answer = await api("POST", `${path}/actions`, {
        token: secret,
        body: { ...action, request_id: requestId, version: M.state?.version },
      });
      const sent = T.sendSucceeded(M);
      M = sent;
      takeState(answer.state);
      if (M === sent) render(); // an answer older than the socket's news still ends the sending
    } catch (err) {
      M = T.sendFailed(M);
      const staged = M.staged;
      const code = codeOf(err);
      if (T.needsRefetch(code) && T.isLoaded(M)) {
        const at = T.game(M).history.length;
        await refresh();
        if (T.isLoaded(M) && T.shouldResend(M, code, retryStale, at)) {
          M = T.forgetPending(M);
          if (action.type === "turn") return confirmTurn();
          return act(action, randomId(), false);
        }
      }
      if (T.isLoaded(M)) set(T.refused(M, staged, describe(err)));
    }
  }

  /**
   * @param {string} name
   * @param {boolean} [quiet] no sentence either way (the name this device uses, taken on a first visit)
   */
  async function rename(name, quiet = false) {
    try {
      /** @type {TableState | {state: TableState}} */
      const answer = await api("POST", `${path}/name`, { token: secret, body: { name } });
      store.setName(name);
      takeState("state" in answer ? answer.state : answer);
      if (!quiet) set(T.note(M, "info", "Name saved."));
    } catch (err) {
      if (!quiet) set(T.note(M, "error", describe(err)));
    }
  }

  /** @param {"txt" | "json"} ext */
  async function record(ext) {
    try {
      await download(`${path}/record.${ext}`, secret, `omega-${tableId}.${ext}`);
    } catch (err) {
      set(T.note(M, "error", describe(err)));
    }
  }

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (!T.isLoaded(M) || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = /** @type {HTMLElement | null} */ (e.target);
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    const m = M;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      if (!T.game(m).history.length) return;
      goReplay(T.replayStep(m, e.key === "ArrowLeft" ? -1 : 1));
      e.preventDefault();
      return;
    }
    if (e.key === "Escape") {
      set(T.escapeKey(m));
      return;
    }
    if (!T.canStage(m)) return;
    if (/^[a-zA-Z0-9]$/.test(e.key)) {
      set(T.typeKey(m, e.key));
      e.preventDefault();
    } else if (e.key === "Enter") {
      // With every stone placed, Enter means Confirm even if another button kept the focus;
      // otherwise a focused button (Swap, Play on, …) handles its own Enter.
      if (t && t.tagName === "BUTTON" && !m.buffer && !T.isComplete(m)) return;
      e.preventDefault();
      if (m.buffer) setStaging(T.enterTyped(m));
      else if (T.isComplete(m)) confirmTurn();
    } else if (e.key === "Backspace") {
      e.preventDefault();
      if (m.buffer) set(T.eraseKey(m));
      else setStaging(T.undoStone(m));
    }
  }

  // -- replay ------------------------------------------------------------------------
  /**
   * Show the position after `k` moves (the end or past it: live), fetching it once.
   * @param {number} k
   */
  async function goReplay(k) {
    if (!T.isLoaded(M)) return;
    set(T.replayTo(M, k));
    if (M.replayAt === null) return;
    let view = replayCache.get(k);
    if (!view) {
      try {
        view = /** @type {GameView} */ (await api("GET", `${path}/replay?at=${k}`, { token: secret }));
      } catch (err) {
        set(T.note(M, "error", describe(err)));
        return;
      }
      replayCache.set(k, view);
    }
    if (T.isLoaded(M)) set(T.replayArrived(M, k, view));
  }

  load();
}

// @ts-check
// The table page (/t/{id}#seat=TOKEN or #watch=KEY): the controller. Browser events and
// server answers go through the steps of tablestate.js; every change of the model is
// drawn by the views, each of which redraws only what changed. What talks to the server
// (api.js) and to the browser's storage (store.js) happens here and nowhere else.

import * as account from "./account.js";
import { LiveFeed, api, download, randomId } from "./api.js";
import { applyTheme, fill, h } from "./dom.js";
import { COLORS } from "./geometry.js";
import { codeOf, describe, problemText } from "./errors.js";
import * as store from "./store.js";
import * as T from "./tablestate.js";
import { AccountArea, NamePrompt } from "./views/account.js";
import { BoardView } from "./views/board.js";
import { ClocksView } from "./views/clocks.js";
import { ChatView } from "./views/chat.js";
import { ControlsView, touchOnly } from "./views/controls.js";
import { GameOverView } from "./views/gameover.js";
import { LinksView } from "./views/links.js";
import { MoveLogView } from "./views/movelog.js";
import { TurnAlert, askToNotify } from "./views/notify.js";
import { OptionsView } from "./views/options.js";
import { PanelsView } from "./views/panels.js";
import { RematchView } from "./views/rematch.js";
import { ReplayView } from "./views/replay.js";
import { ReviewView, bestGhosts } from "./views/review.js";
import { TopBarView } from "./views/topbar.js";

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ActionAnswer} ActionAnswer */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./store.js").Prefs} Prefs */

/**
 * Open the table `tableId` in `root` with the link in the page's fragment (or one this
 * device remembers).
 * @param {HTMLElement} root
 * @param {string} tableId
 */
export function startTable(root, tableId) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  /** @type {"seat" | "watch" | null} */
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
  applyTheme(prefs.theme);
  const touch = touchOnly();
  /** @type {Model} */
  let M = T.initialModel();
  /** @type {import("./views/links.js").SavedLinks | null} */
  let invites = null;
  /** @type {number | null} */
  let nameMax = null;
  /** @type {Map<number, GameView>} earlier positions never change */
  const replayCache = new Map();
  let stopped = false;
  /** @type {import("./views/review.js").ReviewStatus} the finished game's review */
  let review = { status: "none" };
  let reviewLooked = false;

  // -- views -------------------------------------------------------------------------
  const topbar = new TopBarView(tableId);
  topbar.el.append(new AccountArea().el);
  const namePrompt = new NamePrompt({ onSave: (name) => rename(name) });
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
    onStartNow: () => whenLoaded((m) => set(T.startNow(m))),
  });
  const gameover = new GameOverView({
    onDownload: (ext) => record(ext),
    onRematch: () => rematch(),
    onNewGame: () => location.assign("/"),
  });
  /** @type {import("./types.js").Rematch | null} */
  let lastRematch = null;
  // Whether this page took part in the rematch (proposed, accepted, or saw it waiting): only
  // then does its start open the new table by itself; an old table opened later stays put.
  let following = false;
  const rematchView = new RematchView({
    onAccept: () => rematchSay("accept"),
    onDecline: () => rematchSay("decline"),
    onOpen: () => lastRematch?.table && moveTo(lastRematch.table),
  });
  const chatView = new ChatView(tableId, store.muted(), {
    onSend: (text) => feed.send({ type: "chat", text, request_id: `chat-${randomId()}` }),
    onMute: () => store.setMuted([...chatView.muted]),
  });
  const replay = new ReplayView({
    onGo: (k) => goReplay(k),
    onStep: (d) => whenLoaded((m) => goReplay(T.replayStep(m, d))),
    onLive: () => goReplay(Infinity),
  }, touch);
  const movelog = new MoveLogView({ onGo: (k) => goReplay(k) });
  const clocks = new ClocksView(panels.el);
  const turnAlert = new TurnAlert(tableId);
  const reviewView = new ReviewView({ onAsk: () => askReview(), onGo: (k) => goReplay(k) });
  const hintButton = h("button", { type: "button", class: "btn small hint", hidden: true, onclick: () => askHint() }, "Hint");
  const links = new LinksView(tableId, { onRename: (name) => rename(name), onRenew: (what) => renewLinks(what) });
  links.changed = render;
  const options = new OptionsView(prefs, {
    onSetting: (name, value) => {
      prefs[name] = value;
      store.setPrefs(prefs);
      if (name === "theme") applyTheme(prefs.theme);
      if (name === "notify" && value) {
        askToNotify().then((allowed) => {
          if (allowed) return;
          prefs.notify = false;
          store.setPrefs(prefs);
          options.drawSettings();
          set(T.note(M, "info", "The browser does not allow notifications for this page."));
        });
      }
      render();
    },
    onAskResign: (asking) => whenLoaded((m) => set(T.askResign(m, asking))),
    onResign: () => {
      whenLoaded((m) => set(T.askResign(m, false)));
      act({ type: "resign" }, randomId(), true);
    },
  }, touch);
  const boardWrap = h("div", { class: "board-wrap" });
  const tip = h("div", { class: "tooltip", hidden: true });
  const board = new BoardView(boardWrap, tip, {
    onClick: (cell) => whenLoaded((m) => stageAndMaybeSend(T.clickCell(m, cell))),
    onActivate: (cell) => whenLoaded((m) => {
      // Enter on a focused cell keeps Enter's meanings first: the typed cell, then Confirm.
      if (m.buffer) stageAndMaybeSend(T.enterTyped(m));
      else if (T.isComplete(m) && T.canStage(m)) confirmTurn();
      else stageAndMaybeSend(T.clickCell(m, cell));
    }),
    onHover: (cell, e) => whenLoaded((m) => set(T.hoverCell(m, cell, e.clientX, e.clientY))),
    onLongPress: (cell, e) => whenLoaded((m) => set(T.hoverCell(m, cell, e.clientX, e.clientY))),
  });
  fill(root, h("div", { class: "table-page" },
    topbar.el,
    topbar.banner,
    h("main", { class: "layout" },
      h("div", { class: "board-area" }, board.tools, boardWrap),
      h("div", { class: "side" },
        panels.el,
        namePrompt.el,
        links.invite,
        controls.el,
        hintButton,
        h("div", { class: "info" }, gameover.el, rematchView.el, reviewView.el, chatView.el, replay.el, movelog.el, links.el, options.el))),
    tip));

  function render() {
    if (stopped) return;
    topbar.update(M);
    controls.update(M);
    if (!T.isLoaded(M)) return;
    panels.update(M);
    clocks.update(M);
    turnAlert.update(M, prefs.notify);
    const at = T.replayPosition(M).at;
    board.render(T.boardScene(M, prefs.sinceMine), prefs, review.status === "done" ? bestGhosts(review.review, at) : []);
    gameover.update(M);
    reviewView.update(M, review, at);
    const hintable = Boolean(M.state.hints) && T.isMyTurn(M) && T.isLive(M) && !T.isOver(M);
    if (hintButton.hidden === hintable) hintButton.hidden = !hintable;
    hintButton.disabled = M.sending || hinting;
    rematchView.update(lastRematch, M.seat, M.state.seats.map((s) => s.name));
    // Rated tables keep their chat to the players (the server says so too).
    const rated = Boolean(/** @type {{rated?: boolean}} */ (M.state).rated);
    chatView.setWriter(M.seat, M.seat === null && rated ? "Spectators cannot write at a rated table." : null);
    replay.update(M);
    movelog.update(M);
    links.update(M, invites, nameMax);
    options.update(M);
  }

  /** @param {Model} next */
  function set(next) {
    if (next === M) return;
    const wasMine = T.isMyTurn(M) || M.state === null;
    M = next;
    if (prefs.sound && !wasMine && T.isMyTurn(M)) chime();
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

  /**
   * Stage (or take back) a stone; with "send at the last stone", the last one sends the turn.
   * @param {Loaded} next
   */
  function stageAndMaybeSend(next) {
    const grew = next.staged.length > M.staged.length;
    setStaging(next);
    if (prefs.autoSend && grew && T.isComplete(M)) confirmTurn();
  }

  /** @param {(m: Loaded) => void} step */
  function whenLoaded(step) {
    if (T.isLoaded(M)) step(M);
  }

  function saveStaged() {
    if (T.isLoaded(M)) store.saveStaged(tableId, T.game(M).history.length, M.staged);
  }

  /**
   * The link cannot open this table: one page that says why, with a way back, instead of
   * the table's empty frame.
   * @param {string} code
   * @param {string} [detail]
   */
  function problem(code, detail) {
    stopped = true;
    feed.stop();
    document.removeEventListener("keydown", onKey);
    const { title, text } = problemText(code, role, tableId, detail);
    document.title = `${title} · Omega`;
    fill(root, h("div", { class: "problem-page" },
      h("header", { class: "topbar" }, h("a", { href: "/", class: "brand" }, "Omega")),
      h("main", { class: "problem card", "data-problem": code || "no_link" },
        h("h1", {}, title),
        h("p", {}, text),
        h("p", {}, h("a", { href: "/", class: "btn confirm" }, "Back to the lobby")))));
  }

  document.addEventListener("keydown", onKey);
  // A tap anywhere off the board ends a long-press preview.
  document.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch" && M.hover && !boardWrap.contains(/** @type {Node} */ (e.target))) set(T.clearHover(M));
  });

  const secret = token || "";
  /** @type {number | null} when the ping that measures the clock offset left */
  let pingAt = null;
  const feed = new LiveFeed({
    tableId,
    token: secret,
    version: () => (M.state ? M.state.version : null),
    onMessage: (msg) => {
      // The clocks go by the server's time: a sync and a pong carry it.
      if (msg.type === "sync" || msg.type === "pong") {
        const at = Date.now();
        M = T.measuredOffset(M, msg.server_time, msg.type === "pong" && pingAt !== null ? pingAt : at, at);
        if (msg.type === "pong" && pingAt !== null) {
          pingAt = null;
          // Says on the page that the clocks now go by a measured round trip (a test
          // waits for it before it moves the clocks; it also helps when debugging clocks).
          root.dataset.serverClock = "measured";
        }
      }
      if (msg.type === "sync") takeState(msg.state);
      else if (msg.type === "event") {
        const state = T.stateAfter(M.state, msg);
        if (state) takeState(state);
        else refresh(); // a version the changes need is missing: the table whole
      }
      else if (msg.type === "review") reviewNotice(msg);
      else if (msg.type === "chat") chatView.add(msg.messages);
      else if (msg.type === "rematch") rematchArrived(msg.rematch);
      else if (msg.type === "error" && msg.request_id && msg.request_id.startsWith("chat-")) chatView.refused(msg.error.message);
      else set(T.applyServerMessage(M, msg));
    },
    onStatus: (status) => {
      const { model, refresh: again } = T.connectionChanged(M, status);
      set(model);
      if (status === "live") {
        // Measure the offset to the server's clock at connect: a ping's round trip.
        pingAt = Date.now();
        root.dataset.serverClock = "measuring";
        feed.send({ type: "ping" });
      }
      if (again) refresh(); // catch anything the socket could not replay
    },
  });

  // -- reading the state -------------------------------------------------------------
  async function load() {
    /** @type {TableState} */
    let state;
    // The limits only shape the rename field: the table does not wait for them if they fail.
    const config = api("GET", "/api/config").catch(() => null);
    try {
      // Without a link the server still tells a table that needs one from no table at all.
      state = await api("GET", path, { token: token || null });
    } catch (err) {
      const code = codeOf(err);
      if (code === "network") {
        set(T.note(M, "error", describe(err), "network"));
        setTimeout(load, 2000);
        return;
      }
      problem(token ? code : code === "not_found" ? code : "", describe(err));
      return;
    }
    if (!token && !(state.you && state.you.seat !== null)) {
      // An open table would be a server without secrets: treat it as needing a link all the same.
      // (Without a link, only the seat the logged-in account holds opens it: the cookie proves it.)
      problem("");
      return;
    }
    if (!token) role = "seat";
    const site = /** @type {SiteConfig | null} */ (await config);
    nameMax = site?.name_max ?? null;
    if (site?.chat_max) chatView.setLimit(site.chat_max);
    const seat = state.you ? state.you.seat : null;
    if (seat === null) role = "watch";
    const firstVisit = !store.findTable(tableId, secret);
    invites = store.invitesFor(tableId);
    if (seat !== null) lookForCreator();
    set(T.loaded(M, state, store.stagedFor(tableId, state.game.history.length)));
    if (T.isLoaded(M) && T.isOver(M) && !reviewLooked) lookForReview();
    if (T.isLoaded(M) && M.message && M.message.code === "network") set({ ...M, message: null });
    remember();
    feed.start();
    const user = await account.current();
    // A seat link opened while logged in binds the seat to the account (docs/server-api.md);
    // a seat another account holds stays theirs, and this page plays it by its link only.
    let bound = true;
    if (user && role === "seat" && token) {
      const [answer] = await account.claim([{ table_id: tableId, token }]).catch(() => []);
      if (answer && answer.status === "refused" && answer.error) {
        bound = false;
        if (T.isLoaded(M)) set(T.note(M, "info", `${answer.error.message}: you play this seat by its link.`));
      }
    }
    // Someone opening an invite for the first time takes their account's name, or the name
    // they use on this device; a guest without one is asked for one.
    const myName = user ? (bound ? user.username : "") : store.name();
    const me = T.isLoaded(M) ? T.mySeat(M) : null;
    if (firstVisit && token && role === "seat" && me && me.kind === "human") {
      if (myName && me.name !== myName) rename(myName, true);
      else if (!myName && !user) namePrompt.ask(nameMax);
    }
  }

  function remember() {
    // A table opened by the account's cookie alone is in the account's lists, not this device's.
    if (!T.isLoaded(M) || !secret) return;
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
    if (!reviewLooked && T.isLoaded(M) && T.isOver(M)) lookForReview();
  }

  // -- new links, made by the table's creator on a device that has none --------------------
  /** Which seat created the table: its player may make new links anywhere. */
  async function lookForCreator() {
    try {
      /** @type {{creator_seat: number | null}} */
      const answer = await api("GET", `${path}/links`, { token: secret || null });
      links.creator = answer.creator_seat;
      render();
    } catch {
      // Without the answer the Links box offers nothing new: the links stay where they are.
    }
  }

  /** @param {import("./views/links.js").Renewal} what */
  async function renewLinks(what) {
    if (!T.isLoaded(M) || links.busy) return;
    links.busy = true;
    render();
    try {
      /** @type {{invites: Record<string, string>, spectator_key: string | null, state: TableState}} */
      const answer = await api("POST", `${path}/links`, {
        token: secret || null, body: { invites: what === "invites", spectator: what === "spectator" },
      });
      if (secret) store.keepLinks({ id: tableId, token: secret }, answer.invites, answer.spectator_key);
      invites = { invites: { ...(invites?.invites || {}), ...answer.invites },
        spectator_key: answer.spectator_key || invites?.spectator_key };
      links.asking = null;
      takeState(answer.state);
      set(T.note(M, "info", what === "invites" ? "New invite links made: send them to your friends." : "New spectator link made."));
    } catch (err) {
      set(T.note(M, "error", describe(err), codeOf(err)));
    } finally {
      links.busy = false;
      render();
    }
  }

  // -- hints -----------------------------------------------------------------------------
  let hinting = false;

  /** Ask the computer for a turn and stage it; the player may still change it or play another. */
  async function askHint() {
    if (!T.isLoaded(M) || hinting) return;
    hinting = true;
    render();
    try {
      /** @type {{version: number, hint: import("./types.js").HistoryEntry, state: TableState}} */
      const answer = await api("POST", `${path}/hint`, { token: secret });
      takeState(answer.state);
      stageHint(answer.hint);
    } catch (err) {
      set(T.note(M, "error", describe(err), codeOf(err)));
    } finally {
      hinting = false;
      render();
    }
  }

  /** @param {import("./types.js").HistoryEntry} hint */
  function stageHint(hint) {
    if (!T.isLoaded(M)) return;
    if (hint === "swap") {
      set(T.note(M, "info", "Hint: take the other colour (Swap)."));
      return;
    }
    let m = M;
    while (m.staged.length) m = T.undoStone(m);
    for (let i = 0; i < hint.length; i++) {
      const color = T.nextColor(m);
      if (!color) break;
      m = T.clickCell(m, hint[COLORS.indexOf(color)]);
    }
    setStaging(m);
    set(T.note(M, "info", "Hint staged: confirm it, or change it."));
  }

  // -- the review of a finished game ---------------------------------------------------
  /** @param {import("./views/review.js").ReviewStatus} status */
  function setReview(status) {
    review = status;
    render();
  }

  /** Once the game is over: has someone already asked for its review? */
  async function lookForReview() {
    reviewLooked = true;
    try {
      setReview(await api("GET", `${path}/review`, { token: secret }));
    } catch {
      // Not reviewed, as far as this page knows: the button stays.
    }
  }

  async function askReview() {
    setReview({ status: "queued" });
    try {
      setReview(await api("POST", `${path}/review`, { token: secret }));
    } catch (err) {
      setReview({ status: "error", message: describe(err) });
    }
  }

  /** @param {import("./types.js").ReviewMessage} msg */
  function reviewNotice(msg) {
    if (msg.status === "done") lookForReview();
    else if (msg.status === "running") setReview({ status: "running", done: msg.done ?? 0, total: msg.total ?? 0 });
    else if (review.status === "none" || review.status === "error") setReview({ status: "queued" });
  }

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
      if (T.isLoaded(M)) set(T.refused(M, staged, describe(err), code));
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
      if (!account.known()) store.setName(name);
      namePrompt.el.hidden = true;
      takeState("state" in answer ? answer.state : answer);
      if (!quiet) set(T.note(M, "info", "Name saved."));
    } catch (err) {
      if (!quiet) set(T.note(M, "error", describe(err), codeOf(err)));
    }
  }

  /** Propose a rematch: the others are asked; once they all accept, every page moves on. */
  function rematch() {
    rematchSay("propose");
  }

  /** @param {"propose" | "accept" | "decline"} op */
  function rematchSay(op) {
    if (!T.isLoaded(M) || M.seat === null) return;
    following = op !== "decline";
    feed.send({ type: "rematch", op, request_id: `rematch-${randomId()}` });
  }

  /** @param {import("./types.js").Rematch} r */
  function rematchArrived(r) {
    if (lastRematch && lastRematch.status === "proposed") following = true;
    lastRematch = r;
    render();
    if (r.status === "started" && r.table && following) moveTo(r.table);
  }

  /**
   * Go to the rematch's table with the secret this page already has: the seat token opens
   * my new seat there (the spectator key, the new table); an account's seat needs none.
   * @param {{id: string, seat: number | null}} next
   */
  function moveTo(next) {
    if (stopped) return;
    stopped = true;
    feed.stop();
    const link = !secret ? "" : next.seat === null ? `#watch=${secret}` : role === "seat" ? `#seat=${secret}` : "";
    location.assign(`/t/${encodeURIComponent(next.id)}${link}`);
  }

  /** @param {"txt" | "json"} ext */
  async function record(ext) {
    try {
      await download(`${path}/record.${ext}`, secret, `omega-${tableId}.${ext}`);
    } catch (err) {
      set(T.note(M, "error", describe(err), codeOf(err)));
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
      if (m.buffer) stageAndMaybeSend(T.enterTyped(m));
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
        set(T.note(M, "error", describe(err), codeOf(err)));
        return;
      }
      replayCache.set(k, view);
    }
    if (T.isLoaded(M)) set(T.replayArrived(M, k, view));
  }

  load();
}

/** @type {AudioContext | null} */
let audio = null;

/** A short soft tone: it is your turn. Browsers allow sound only after a first click or key. */
function chime() {
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.15, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch {
    // No sound on this device: the title and the prompt still say it.
  }
}

// @ts-check
// The table page (/t/{id}#seat=TOKEN or #watch=KEY): the controller. It opens the table by
// its link, holds the model, changes it by the pure modules' steps and has tablepage.js
// draw each change; tableactions.js sends what the player asks, api.js's LiveFeed is the socket.

import * as account from "./account.js";
import { LiveFeed, randomId, siteConfig } from "./api.js";
import { measuredOffset } from "./clocks.js";
import { applyTheme } from "./dom.js";
import { codeOf, describe } from "./errors.js";
import { activateStep, keyStep } from "./keys.js";
import { replayStep } from "./replay.js";
import * as S from "./staging.js";
import * as store from "./store.js";
import { tableActions } from "./tableactions.js";
import { TablePage, showProblem } from "./tablepage.js";
import * as T from "./tablestate.js";
import { claimWait } from "./views/claim.js";
import { mutedText } from "./views/chat.js";
import { askToNotify, chime } from "./views/notify.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./keys.js").Step} Step */
/** @typedef {import("./tablepage.js").PageExtras} PageExtras */

/**
 * The link the page opens a table with: the fragment's seat token or spectator key, or,
 * for a bare /t/{id}, one this device remembers (the address then shows it).
 * @param {string} tableId
 * @returns {{role: "seat" | "watch" | null, token: string | null}}
 */
function linkFor(tableId) {
  const given = fragmentLink();
  if (given.token) return given;
  const known = store.tables().find((t) => t.id === tableId);
  if (!known) return { role: null, token: null };
  const role = known.token ? "seat" : "watch";
  const token = known.token || known.watch || null;
  history.replaceState(null, "", `/t/${tableId}#${role}=${token}`);
  return { role, token };
}

/**
 * The seat token or spectator key in the address's fragment, if any.
 * @returns {{role: "seat" | "watch" | null, token: string | null}}
 */
function fragmentLink() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const seat = fragment.get("seat");
  const watch = fragment.get("watch");
  return seat || watch ? { role: seat ? "seat" : "watch", token: seat || watch } : { role: null, token: null };
}

/**
 * Open the table `tableId` in `root` with the link in the fragment (or one this device
 * remembers); again on another link pasted (`hashchange`: the browser loads nothing), or
 * when the session that held the seat ends (then as a visitor without it).
 * @param {HTMLElement} root
 * @param {string} tableId
 */
export function startTable(root, tableId) {
  let shown = openTable(root, tableId);
  addEventListener("hashchange", () => {
    const next = fragmentLink();
    if (!next.token || next.token === shown.secret) return;
    shown.stop();
    shown = openTable(root, tableId);
  });
  account.onChange((user) => {
    if (user || shown.secret) return; // a link still proves its seat
    shown.stop();
    shown = openTable(root, tableId);
  });
}

/**
 * One opening of the table: returns the secret it opened with and how to stop it.
 * @param {HTMLElement} root
 * @param {string} tableId
 * @returns {{secret: string, stop: () => void}}
 */
function openTable(root, tableId) {
  const { token, role: linkRole } = linkFor(tableId);
  let role = linkRole; // a seat or a watch once the table says which
  const secret = token || "";
  const prefs = store.prefs();
  applyTheme(prefs.theme);
  /** @type {Model} */
  let M = T.initialModel();
  /** @type {PageExtras} */
  const extras = { prefs, review: { status: "none" }, hinting: false, rematch: null, invites: null, nameMax: null };
  let stopped = false;

  /** @param {(m: Loaded) => Model} step a change of the model, once the table is here */
  const change = (step) => whenLoaded((m) => set(step(m)));
  const page = new TablePage(root, tableId, prefs, store.muted(), {
    onHoverPanel: (color) => change((m) => T.hoverPanel(m, color)),
    onLeavePanel: (color) => change((m) => T.leavePanel(m, color)),
    onUndo: () => whenLoaded((m) => setStaging(S.undoStone(m))),
    onConfirm: () => actions.confirmTurn(),
    onSwap: () => actions.act({ type: "swap" }, randomId(), true),
    onPlayOn: () => change(T.dismissPie),
    onLive: () => actions.goReplay(Infinity),
    onStartNow: () => change(T.startNow),
    onCell: (cell, how) => whenLoaded((m) => take(how === "click" ? { kind: "stage", model: S.clickCell(m, cell) } : activateStep(m, cell))),
    onHover: (cell, x, y) => change((m) => T.hoverCell(m, cell, x, y)),
    onGo: (k) => actions.goReplay(k),
    onStep: (delta) => whenLoaded((m) => actions.goReplay(replayStep(m, delta))),
    onDownload: (ext) => actions.record(ext),
    onRematch: (op) => actions.rematchSay(op),
    onOpenRematch: () => actions.openRematch(),
    onChat: (text) => feed.send({ type: "chat", text, request_id: `chat-${randomId()}` }),
    onMute: (muted) => store.setMuted(muted),
    onAskReview: () => actions.askReview(),
    onAnalyse: (at) => actions.analyse(at),
    onHint: () => actions.askHint(),
    onClaim: () => actions.act({ type: "claim" }, randomId(), false),
    onRename: (name) => actions.rename(name),
    onRenew: (what) => actions.renewLinks(what),
    onSetting: (name, value) => {
      prefs[name] = value;
      store.setPrefs(prefs);
      if (name === "theme") applyTheme(prefs.theme);
      if (name === "notify" && value) {
        askToNotify().then((allowed) => {
          if (allowed) return;
          prefs.notify = false;
          store.setPrefs(prefs);
          page.options.drawSettings();
          set(T.note(M, "info", t("The browser does not allow notifications for this page.")));
        });
      }
      render();
    },
    onAskResign: (asking) => change((m) => T.askResign(m, asking)),
    onResign: () => {
      change((m) => T.askResign(m, false));
      actions.act({ type: "resign" }, randomId(), true);
    },
  });
  page.links.changed = render;

  /** @type {ReturnType<typeof setTimeout> | null} */
  let claimTimer = null;

  function render() {
    if (stopped) return;
    page.render(M, extras);
    // An absent player's seat becomes claimable at a time, not on news: draw again then.
    if (claimTimer !== null) clearTimeout(claimTimer);
    const wait = T.isLoaded(M) ? claimWait(M, Date.now()) : null;
    claimTimer = wait === null ? null : setTimeout(render, wait + 50);
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
    if (prefs.autoSend && grew && S.isComplete(M)) actions.confirmTurn();
  }

  /** @param {Step} step what a key or a cell's Enter means (keys.js) */
  function take(step) {
    if (step.kind === "replay") actions.goReplay(step.at);
    else if (step.kind === "confirm") actions.confirmTurn();
    else if (step.kind === "stage") stageAndMaybeSend(step.model);
    else if (step.kind === "unstage") setStaging(step.model);
    else set(step.model);
  }

  /** @param {(m: Loaded) => void} step */
  function whenLoaded(step) {
    if (T.isLoaded(M)) step(M);
  }

  function saveStaged() {
    if (T.isLoaded(M)) store.saveStaged(tableId, T.game(M).history.length, M.staged);
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
    actions.reviewOnceOver();
  }

  const actions = tableActions({
    model: () => M,
    set,
    put: (next) => (M = next),
    setStaging,
    takeState,
    render,
    extras,
    page,
    send: (message) => feed.send(message),
    moveTo,
    link: { id: tableId, token: secret },
  });

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    const meant = keyStep(M, e, /** @type {HTMLElement | null} */ (e.target));
    if (!meant) return;
    if (meant.prevent) e.preventDefault();
    if (meant.step) take(meant.step);
  }

  document.addEventListener("keydown", onKey);
  // A tap anywhere off the board ends a long-press preview.
  /** @param {PointerEvent} e */
  const onPointer = (e) => {
    if (e.pointerType === "touch" && M.hover && !page.boardWrap.contains(/** @type {Node} */ (e.target))) set(T.clearHover(M));
  };
  document.addEventListener("pointerdown", onPointer);

  const feed = new LiveFeed({
    tableId,
    token: secret,
    version: () => (M.state ? M.state.version : null),
    // The clocks go by the server's time. The page says when a round trip measured it (a
    // test waits for it before it moves the clocks; it also helps when debugging clocks).
    onServerTime: (time, sentAt, receivedAt, roundTrip) => {
      M = measuredOffset(M, time, sentAt, receivedAt);
      if (roundTrip) root.dataset.serverClock = "measured";
    },
    onMessage: (msg) => {
      if (msg.type === "sync") takeState(msg.state);
      else if (msg.type === "event") {
        const state = T.stateAfter(M.state, msg);
        if (state) takeState(state);
        else actions.refresh(); // a version the changes need is missing: the table whole
      }
      else if (msg.type === "review") actions.reviewNotice(msg);
      else if (msg.type === "chat") page.chat.add(msg.messages);
      else if (msg.type === "rematch") actions.rematchArrived(msg.rematch);
      else if (msg.type === "chat_removed") page.chat.remove(msg.id);
      else if (msg.type === "error" && msg.request_id && msg.request_id.startsWith("chat-")) {
        page.chat.refused(msg.error.code === "muted" && msg.error.until ? mutedText(msg.error.until) : msg.error.message);
      }
      else set(T.applyServerMessage(M, msg));
    },
    onStatus: (status) => {
      // Refused: the session may have ended elsewhere.
      if (status === "refused" && !secret) account.recheck();
      const { model, refresh: again } = T.connectionChanged(M, status);
      set(model);
      if (status === "live") root.dataset.serverClock = "measuring";
      if (again) actions.refresh(); // catch anything the socket could not replay
    },
  });

  // -- opening the table ----------------------------------------------------------------
  /**
   * The link cannot open this table: one page that says why, with a way back.
   * @param {string} code
   * @param {string} [detail]
   */
  function problem(code, detail) {
    stop();
    showProblem(root, code, role, tableId, detail);
  }

  /** No socket, keys, timers or drawing from this opening any more. */
  function stop() {
    stopped = true;
    feed.stop();
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("pointerdown", onPointer);
    if (claimTimer !== null) clearTimeout(claimTimer);
    page.stop();
  }

  async function load() {
    /** @type {TableState} */
    let state;
    // The limits only shape the rename field: the table does not wait for them if they fail.
    const config = siteConfig().catch(() => null);
    try {
      state = await actions.fetchTable();
    } catch (err) {
      const code = codeOf(err);
      if (stopped) return;
      if (code === "network") {
        set(T.noteError(M, err));
        setTimeout(() => stopped || load(), 2000);
        return;
      }
      problem(token ? code : code === "not_found" ? code : "", describe(err));
      return;
    }
    // Without a link the server answers for the seat the logged-in account holds (the cookie
    // proves it), or to anyone for a table anyone may watch (listed in the lobby, rated, or a
    // tournament's game, linked from its page); any other table it refuses (401) above.
    if (stopped) return;
    if (!token) role = state.you && state.you.seat !== null ? "seat" : "watch";
    const site = /** @type {SiteConfig | null} */ (await config);
    if (stopped) return;
    extras.nameMax = site?.name_max ?? null;
    if (site?.chat_max) page.chat.setLimit(site.chat_max);
    const seat = state.you ? state.you.seat : null;
    if (seat === null) role = "watch";
    const firstVisit = !store.findTable(tableId, secret);
    extras.invites = store.invitesFor(tableId);
    if (seat !== null) actions.lookForCreator();
    set(T.loaded(M, state, store.stagedFor(tableId, state.game.history.length)));
    actions.reviewOnceOver();
    if (T.isLoaded(M) && M.message && M.message.code === "network") set({ ...M, message: null });
    remember();
    feed.start();
    const user = await account.current();
    if (stopped) return;
    // A seat link opened while logged in binds the seat to the account (docs/server-api.md);
    // a seat another account holds stays theirs, and this page plays it by its link only.
    let bound = true;
    if (user && role === "seat" && token) {
      const [answer] = await account.claim([{ table_id: tableId, token }]).catch(() => []);
      if (answer && answer.status === "refused" && answer.error) {
        bound = false;
        if (T.isLoaded(M)) set(T.note(M, "info", t("{message}: you play this seat by its link.", { message: answer.error.message })));
      }
    }
    // Someone opening an invite for the first time takes their account's name, or the name
    // they use on this device; a guest without one is asked for one.
    const myName = user ? (bound ? user.username : "") : store.name();
    const me = T.isLoaded(M) ? T.mySeat(M) : null;
    if (firstVisit && token && role === "seat" && me && me.kind === "human") {
      if (myName && me.name !== myName) actions.rename(myName, true);
      else if (!myName && !user) page.namePrompt.ask(extras.nameMax);
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

  load();
  return { secret, stop };
}

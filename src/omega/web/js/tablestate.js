// @ts-check
// The table page's model as plain data: what the page knows, the facts every part reads
// (whose turn, my seat, over or not), and how server states and socket messages change it.
// No DOM, fetch or timers: each step returns a new model, never changing the old, so views
// tell what changed by identity. Staging, replay, clocks and scene are their own modules.

import { ApiError, codeOf, describe } from "./errors.js";
import { COLORS } from "./geometry.js";
import { applyChanges } from "./patch.js";
import { colorName, t, tm } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Seat} Seat */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./types.js").ServerMessage} ServerMessage */
/** @typedef {import("./types.js").EventMessage} EventMessage */
/** @typedef {import("./api.js").ConnStatus} ConnStatus */
/** @typedef {import("./tabletypes.js").Note} Note */
/** @typedef {import("./tabletypes.js").Model} Model */
/** @typedef {import("./tabletypes.js").Loaded} Loaded */

/**
 * The model before the table state arrives.
 * @example initialModel().staged // []
 * @returns {Model}
 */
export function initialModel() {
  return {
    state: null, seat: null, staged: [], buffer: "", message: null, hover: null,
    replayAt: null, replayWanted: null, replayView: null, conn: "connecting", everLive: false,
    sending: false, pending: null, pieDismissed: false, confirmResign: false, startNow: false, offset: null,
  };
}

/**
 * Whether the table state has arrived.
 * @param {Model} m
 * @returns {m is Loaded}
 */
export const isLoaded = (m) => m.state !== null;

// -- facts every part reads ------------------------------------------------------------

/** @param {Loaded} m */
export const game = (m) => m.state.game;

/**
 * The colours in play, in turn order.
 * @param {Loaded} m
 * @returns {Color[]}
 */
export const colorsInPlay = (m) => COLORS.slice(0, m.state.players);

/**
 * The seat holding `color` now (a pie swap changes it).
 * @param {Loaded} m
 * @param {Color} color
 * @returns {Seat | undefined}
 */
export const seatOf = (m, color) => m.state.seats.find((s) => s.color === color);

/**
 * @param {Loaded} m
 * @returns {Seat | null}
 */
export const mySeat = (m) => (m.seat === null ? null : m.state.seats[m.seat] ?? null);

/**
 * A seat's name as shown: a default name ("Player 2", "Computer (Easy)") in the reader's
 * language, a name its player wrote as written.
 * @example seatLabel({index: 1, name: ""}) // "Seat 2"
 * @example seatLabel({index: 1, name: "Player 2", name_text: {id: "Player {number}", params: {number: 2}}}) // "Spieler 2" in German
 * @param {Pick<Seat, "index" | "name" | "name_text">} seat
 */
export const seatLabel = (seat) => (seat.name_text ? tm(seat.name_text) : seat.name || t("Seat {value}", { value: seat.index + 1 }));

/** @param {Model} m */
export const isLive = (m) => m.replayAt === null;

/**
 * Whether the game is over for the page (the table says so, or the game view does).
 * @param {Loaded} m
 */
export const isOver = (m) => m.state.status === "over" || m.state.game.over;

/**
 * Whether my seat is to move now.
 * @param {Model} m
 */
export function isMyTurn(m) {
  if (!isLoaded(m)) return false;
  const me = mySeat(m);
  return m.state.status === "playing" && !m.state.game.over && m.seat !== null &&
    m.state.game.current_seat === m.seat && !(me && me.resigned);
}

/**
 * The people the first turn waits for: human seats other than mine whose invite has not
 * been opened yet, while no move is made (a table for friends starts once they are here,
 * unless its first player chooses to start at once).
 * @param {Loaded} m
 * @returns {Seat[]}
 */
export function awaited(m) {
  if (m.seat === null || m.state.status !== "playing" || game(m).history.length) return [];
  return m.state.seats.filter((s) => s.kind === "human" && !s.joined && s.index !== m.seat);
}

/**
 * Whether my first turn waits for people to join (until they do, or I start anyway).
 * @param {Model} m
 */
export const waitsForJoin = (m) => isLoaded(m) && isMyTurn(m) && !m.startNow && awaited(m).length > 0;

// -- the server's states ---------------------------------------------------------------

/**
 * A sentence for the person under the buttons.
 * @template {Model} M
 * @param {M} m
 * @param {Note["kind"]} kind
 * @param {string} text
 * @param {string} [code] the failure it reports, if any
 * @returns {M}
 */
export const note = (m, kind, text, code) => ({ ...m, message: code ? { kind, text, code } : { kind, text } });

/**
 * A call that failed, told: the error's sentence, with its code.
 * @template {Model} M
 * @param {M} m
 * @param {unknown} err
 * @returns {M}
 */
export const noteError = (m, err) => note(m, "error", describe(err), codeOf(err));

/**
 * The first table state: my seat from it, and the stones staged before a reload (`saved`)
 * that are still playable on my turn.
 * @param {Model} m
 * @param {TableState} state
 * @param {Cell[]} saved
 * @returns {Loaded}
 */
export function loaded(m, state, saved) {
  const seat = state.you ? state.you.seat : null;
  /** @type {Loaded} */
  const next = { ...m, state, seat };
  const staged = saved.filter((c) => !state.game.stones[c]);
  return { ...next, staged: isMyTurn(next) ? staged : [] };
}

/**
 * Take a newer table state (an action's answer, the socket, a reload). An older version
 * than the one held changes nothing; any newer one is whole, so versions skipped between
 * (a lagging socket) need no catching up. Off my turn the staging is dropped; still on it
 * (the position may have moved under a lagging socket), stones on cells taken meanwhile
 * are dropped and the others kept.
 * @template {Model} M
 * @param {M} m
 * @param {TableState | null | undefined} state
 * @returns {M | Loaded}
 */
export function applyState(m, state) {
  if (!state || (m.state && state.version < m.state.version)) return m;
  const before = m.state;
  /** @type {Loaded} */
  let next = { ...m, state };
  if (state.you && state.you.seat !== undefined && before === null) next.seat = state.you.seat;
  const moved = !before || before.game.history.length !== state.game.history.length;
  if (!isMyTurn(next)) next = { ...next, staged: [], buffer: "" };
  else next = { ...next, staged: next.staged.filter((c) => !state.game.stones[c]) };
  if (moved) next.pending = null;
  if (moved && before) next.message = null;
  const swapped = swapNotice(before, state, next.seat);
  return swapped ? note(next, "info", swapped) : next;
}

/**
 * The sentence for a swap that just happened, told to the players whose colour it changed.
 * @param {TableState | null} before
 * @param {TableState} after
 * @param {number | null} seat my seat
 * @returns {string | null}
 */
function swapNotice(before, after, seat) {
  const hist = after.game.history;
  if (!before || seat === null || hist.length !== before.game.history.length + 1 || hist[hist.length - 1] !== "swap") return null;
  const mine = after.seats[seat];
  if (!mine || !before.seats[seat] || before.seats[seat].color === mine.color) return null;
  const swapper = after.seats.find((s) => s.color === "White");
  if (!swapper || swapper.index === seat) return t("You swapped colours: you now play {mine}.", { mine: colorName(mine.color) });
  return t("{seatLabel} swapped colours: you now play {mine}.", { seatLabel: seatLabel(swapper), mine: colorName(mine.color) });
}

/**
 * Who is connected now (a `presence` message): only the seats' `connected` change; the
 * version and everything else stay, so no staging or pending action is disturbed.
 * @template {Model} M
 * @param {M} m
 * @param {boolean[]} seats
 * @returns {M}
 */
export function applyPresence(m, seats) {
  if (!m.state || !Array.isArray(seats) || seats.length !== m.state.seats.length) return m;
  if (m.state.seats.every((s, i) => s.connected === seats[i])) return m;
  const state = { ...m.state, seats: m.state.seats.map((s, i) => ({ ...s, connected: Boolean(seats[i]) })) };
  return { ...m, state };
}

/**
 * The table state after a socket event (protocol omega.v2: the event carries the changes
 * from the version before). `held` when the page already holds that version or a newer one
 * (an action's answer may come before its event); null when the changes cannot be applied
 * (a version missing between): the page then fetches the table whole.
 * @param {TableState | null} held
 * @param {EventMessage} msg
 * @returns {TableState | null}
 */
export function stateAfter(held, msg) {
  if (msg.state) return msg.state; // omega.v1: the whole state
  if (!held || !Array.isArray(msg.changes)) return null;
  if (msg.version <= held.version) return held;
  if (msg.version !== held.version + 1) return null;
  try {
    const state = applyChanges(held, msg.changes);
    return state.version === msg.version ? state : null;
  } catch {
    return null;
  }
}

/**
 * What a socket message changes: `sync` and `event` bring a state, `presence` who is
 * here, `error` a sentence.
 * @template {Model} M
 * @param {M} m
 * @param {ServerMessage} msg
 * @returns {M | Loaded}
 */
export function applyServerMessage(m, msg) {
  if (msg.type === "sync" && msg.state) return applyState(m, msg.state);
  if (msg.type === "event") return applyState(m, stateAfter(m.state, msg));
  if (msg.type === "presence") return applyPresence(m, msg.seats);
  if (msg.type === "error" && msg.error) return note(m, "error", describe(new ApiError(msg.error.code, msg.error.message)));
  return m;
}

/**
 * The socket's status changed. `refresh` says to fetch the table again: a socket live
 * again after a loss may have missed what it could not replay.
 * @template {Model} M
 * @param {M} m
 * @param {ConnStatus} status
 * @returns {{model: M, refresh: boolean}}
 */
export function connectionChanged(m, status) {
  const live = status === "live";
  // A "cannot reach the server" sentence is wrong once the server answers again.
  const message = live && m.message && m.message.code === "network" ? null : m.message;
  return { model: { ...m, conn: status, everLive: m.everLive || live, message }, refresh: live && m.everLive };
}

// -- small steps of the page ------------------------------------------------------------

/**
 * Start the first turn without waiting for the others to join.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export const startNow = (m) => ({ ...m, startNow: true, message: null });

/**
 * The pointer is on `cell` (null: off the board) at (x, y).
 * @param {Loaded} m
 * @param {Cell | null} cell
 * @param {number} x
 * @param {number} y
 * @returns {Loaded}
 */
export const hoverCell = (m, cell, x, y) => ({ ...m, hover: cell ? { kind: "cell", cell, x, y } : null });

/**
 * The pointer or the focus is on a player's panel.
 * @param {Loaded} m
 * @param {Color} color
 * @returns {Loaded}
 */
export const hoverPanel = (m, color) => ({ ...m, hover: { kind: "panel", color } });

/**
 * The pointer or the focus left a player's panel.
 * @param {Loaded} m
 * @param {Color} color
 * @returns {Loaded}
 */
export const leavePanel = (m, color) =>
  m.hover && m.hover.kind === "panel" && m.hover.color === color ? { ...m, hover: null } : m;

/**
 * The outline and tooltip end (a tap off the board on a touch screen).
 * @template {Model} M
 * @param {M} m
 * @returns {M}
 */
export const clearHover = (m) => (m.hover ? { ...m, hover: null } : m);

/**
 * "Play on" instead of swapping: the pie offer goes away.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export const dismissPie = (m) => ({ ...m, pieDismissed: true });

/**
 * Whether the "Resign this game?" question is open.
 * @param {Loaded} m
 * @param {boolean} asking
 * @returns {Loaded}
 */
export const askResign = (m, asking) => ({ ...m, confirmResign: asking });

// @ts-check
// The table page's state as plain data: what the page knows (the newest table state, my
// seat, the staged stones, the replay position, ...), what follows from it (whose turn,
// the staging order, previews), and how it changes (staging, keys, server states). No DOM,
// no fetch, no timers: every step takes a model and returns a new one, never changing the
// old, so views can tell what changed by identity and Node's test runner can run it all.
// Every rule decision stays the server's; the page only counts groups for previews.

import { ApiError, describe } from "./errors.js";
import { COLORS, Geometry } from "./geometry.js";
import { applyChanges } from "./patch.js";
import { findGroups, groupOf, scoresOf, sizesOf } from "./score.js";
import { clockText, serverOffset } from "./timecontrol.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Decimal} Decimal */
/** @typedef {import("./types.js").Seat} Seat */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./types.js").ServerMessage} ServerMessage */
/** @typedef {import("./types.js").EventMessage} EventMessage */
/** @typedef {import("./api.js").ConnStatus} ConnStatus */
/** @typedef {import("./score.js").Stones} Stones */
/** @typedef {import("./score.js").Groups} Groups */

/**
 * A sentence under the buttons; `code` names the failure it reports ("network": the server
 * could not be reached, a sentence that goes once the page is live again).
 * @typedef {{kind: "error" | "info", text: string, code?: string}} Note
 */
/**
 * What the pointer is on: a cell (with the pointer's place, for the tooltip) or a player panel.
 * @typedef {{kind: "cell", cell: Cell, x: number, y: number} | {kind: "panel", color: Color}} Hover
 */
/** @typedef {{key: string, id: string}} Pending a turn being sent, retried with the same request id */

/**
 * @typedef {object} Model
 * @property {TableState | null} state the newest table state the page has
 * @property {number | null} seat my seat, null when watching
 * @property {Cell[]} staged in staging order: my own colour first, then the others in turn order
 * @property {string} buffer a cell name being typed
 * @property {Note | null} message
 * @property {Hover | null} hover
 * @property {number | null} replayAt null = live; k = the position after the first k history entries
 * @property {number | null} replayWanted the replay position asked for last; answers for others are late
 * @property {GameView | null} replayView
 * @property {ConnStatus} conn
 * @property {boolean} everLive whether the socket was ever live (a later "live" is a reconnection)
 * @property {boolean} sending
 * @property {Pending | null} pending
 * @property {boolean} pieDismissed
 * @property {boolean} confirmResign
 * @property {boolean} startNow the first turn may be played before everyone has joined
 * @property {number | null} offset ms the server's clock is ahead of the page's (null: not measured yet)
 */
/** @typedef {Model & {state: TableState}} Loaded a model once the table state has arrived */

/** @typedef {{cell: Cell, color: Color}} StagedStone */

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

// -- derived values --------------------------------------------------------------------

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
 * A seat's name as shown.
 * @example seatLabel({index: 1, name: ""}) // "Seat 2"
 * @param {Pick<Seat, "index" | "name">} seat
 */
export const seatLabel = (seat) => seat.name || `Seat ${seat.index + 1}`;

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

/**
 * Whether a click or a key may stage a stone now.
 * @param {Model} m
 */
export const canStage = (m) => isMyTurn(m) && isLive(m) && !m.sending && !waitsForJoin(m);

/**
 * The colours in the order this turn stages them: the mover's own first, then the others
 * in turn order (Black's turn with 3 players: Black, Red, White).
 * @param {Loaded} m
 * @returns {Color[]}
 */
export function stagingOrder(m) {
  const all = colorsInPlay(m);
  const mover = game(m).to_move;
  if (!mover) return [];
  const t = all.indexOf(mover);
  return all.map((_, k) => all[(t + k) % all.length]);
}

/**
 * The colour of the next stone to stage, null once every colour is placed.
 * @param {Loaded} m
 * @returns {Color | null}
 */
export const nextColor = (m) => stagingOrder(m)[m.staged.length] || null;

/**
 * Whether one stone of every colour is staged.
 * @param {Model} m
 */
export const isComplete = (m) => isLoaded(m) && m.staged.length === m.state.players;

/**
 * The position on the board now: the live game, or the replayed one (null while it loads).
 * @param {Loaded} m
 * @returns {GameView | null}
 */
export function shownView(m) {
  if (isLive(m)) return game(m);
  return m.replayView && m.replayAt !== null ? m.replayView : null;
}

/**
 * The staged stones with their colours (none while replaying).
 * @param {Loaded} m
 * @returns {StagedStone[]}
 */
export function stagedStones(m) {
  if (!isLive(m) || !m.staged.length) return [];
  const order = stagingOrder(m);
  return m.staged.map((cell, k) => ({ cell, color: order[k] }));
}

// Models are never changed in place, so one remembered answer per question is enough:
// hovering and re-rendering the same position count its groups once.
/** @type {{view: GameView | null, staged: Cell[], live: boolean, stones: Stones} | null} */
let lastPreview = null;
/** @type {{stones: Stones, size: number, groups: Groups} | null} */
let lastGroups = null;

/**
 * The stones shown with the staged ones added: what previews and hover outlines count.
 * The same object comes back while the position and the staging stay the same.
 * @param {Loaded} m
 * @returns {Stones}
 */
export function previewStones(m) {
  const view = shownView(m);
  const live = isLive(m);
  if (lastPreview && lastPreview.view === view && lastPreview.staged === m.staged && lastPreview.live === live) {
    return lastPreview.stones;
  }
  /** @type {Stones} */
  const stones = { ...(view ? view.stones : {}) };
  for (const { cell, color } of stagedStones(m)) stones[cell] = color;
  lastPreview = { view, staged: m.staged, live, stones };
  return stones;
}

/**
 * Every group of the previewed position, counted once per position (not per hover).
 * @param {Loaded} m
 * @returns {Groups}
 */
export function positionGroups(m) {
  const stones = previewStones(m);
  const size = m.state.size;
  if (!lastGroups || lastGroups.stones !== stones || lastGroups.size !== size) {
    lastGroups = { stones, size, groups: findGroups(Geometry.of(size), stones) };
  }
  return lastGroups.groups;
}

/**
 * Every colour's score with the staged stones, or null when nothing is staged.
 * @param {Loaded} m
 * @returns {Partial<Record<Color, Decimal>> | null}
 */
export function previewScores(m) {
  return isLive(m) && m.staged.length ? scoresOf(positionGroups(m), colorsInPlay(m)) : null;
}

/**
 * The replay position: `at` history entries shown of `total`.
 * @param {Loaded} m
 */
export function replayPosition(m) {
  const total = game(m).history.length;
  return { at: m.replayAt === null ? total : m.replayAt, total, live: m.replayAt === null };
}

/**
 * The replay position `delta` entries away from the one shown, within the game.
 * @param {Loaded} m
 * @param {number} delta
 */
export function replayStep(m, delta) {
  const { at, total } = replayPosition(m);
  return Math.max(0, Math.min(total, at + delta));
}

/**
 * @typedef {object} PanelFacts what one player panel shows
 * @property {Color} color
 * @property {Seat | null} seat
 * @property {string} label
 * @property {boolean} toMove
 * @property {boolean} mine
 * @property {boolean} hovered
 * @property {boolean} resigned
 * @property {"online" | "offline" | null} presence null for computers
 * @property {Decimal} score
 * @property {{value: Decimal, up: boolean} | null} preview the score the staged stones would give, when it differs
 * @property {number[] | null} factors group sizes while the panel is hovered
 */

/**
 * What each player panel shows, in turn order.
 * @param {Loaded} m
 * @returns {PanelFacts[]}
 */
export function panelFacts(m) {
  const view = shownView(m) || game(m);
  const preview = previewScores(m);
  return colorsInPlay(m).map((color) => {
    const seat = seatOf(m, color) ?? null;
    const score = view.scores[color] ?? "0";
    const hovered = m.hover !== null && m.hover.kind === "panel" && m.hover.color === color;
    const after = preview ? preview[color] : undefined;
    return {
      color,
      seat,
      label: seat ? seatLabel(seat) : color,
      toMove: view.to_move === color && !view.over,
      mine: m.seat !== null && seat !== null && seat.index === m.seat,
      hovered,
      resigned: Boolean(seat && seat.resigned),
      presence: seat && seat.kind === "computer" ? null : seat && seat.connected ? "online" : "offline",
      score,
      preview: after !== undefined && after !== score ? { value: after, up: BigInt(after) > BigInt(score) } : null,
      factors: hovered ? sizesOf(positionGroups(m), color) : null,
    };
  });
}

/** @typedef {"board_full" | "resignation" | "abandoned" | "timeout" | "aborted"} EndReason */

/**
 * @typedef {object} ClockFacts one seat's clock as the page shows it
 * @property {Color} color
 * @property {number} left ms left now (for the running clock: until its flag, by the server's time)
 * @property {string} text
 * @property {boolean} running
 * @property {boolean} low in its last 10 % (or 20 s): shown red
 * @property {boolean} out the seat ran out of time
 */

/**
 * The clocks at a timed table (null untimed), at the page's time `pageNow` corrected by the
 * offset to the server's clock measured when the socket connected: the running clock counts
 * down to the server's flag time, never by the page's own idea of time. Seats without a
 * clock (computers, resigned) are left out.
 * @param {Loaded} m
 * @param {number} pageNow the page's time (Date.now())
 * @returns {ClockFacts[] | null}
 */
export function clockFacts(m, pageNow) {
  const c = m.state.clock;
  if (!c) return null;
  const now = pageNow + (m.offset ?? 0);
  /** @type {ClockFacts[]} */
  const out = [];
  for (const color of colorsInPlay(m)) {
    const seat = seatOf(m, color);
    if (!seat) continue;
    const stored = c.left_ms[seat.index];
    const running = c.running === seat.index && c.flag_at !== null && !isOver(m);
    const timedOut = Boolean(seat.timed_out);
    if (stored === null && !timedOut) continue;
    const left = timedOut ? 0 : running ? Date.parse(/** @type {string} */ (c.flag_at)) - now : /** @type {number} */ (stored);
    out.push({ color, left, text: clockText(left, c.kind), running, low: left <= c.low_ms, out: timedOut });
  }
  return out;
}

/**
 * The server's time arrived (a sync or a pong): measure the offset from it. `sentAt` is
 * when the question left, when known (a ping), so half the round trip is allowed for.
 * @template {Model} M
 * @param {M} m
 * @param {string | undefined} serverTime
 * @param {number} sentAt
 * @param {number} receivedAt
 * @returns {M}
 */
export function measuredOffset(m, serverTime, sentAt, receivedAt) {
  const offset = serverTime ? serverOffset(serverTime, sentAt, receivedAt) : null;
  return offset === null ? m : { ...m, offset };
}

/**
 * @typedef {{kind: "replay", at: number, total: number}
 *   | {kind: "over", winner: Color | null, name: string | null, reason: EndReason | null}
 *   | {kind: "join", names: string[]}
 *   | {kind: "complete"}
 *   | {kind: "stage", color: Color | null, index: number, order: Color[]}
 *   | {kind: "wait", color: Color | null, name: string | null, computer: number | null, watching: boolean}} PromptFacts
 */

/**
 * What the prompt says: replaying, game over, my turn (the next colour, or all placed),
 * the people my first turn waits for, or who the table waits for.
 * @param {Loaded} m
 * @returns {PromptFacts}
 */
export function promptFacts(m) {
  const g = game(m);
  if (m.replayAt !== null) return { kind: "replay", at: m.replayAt, total: g.history.length };
  if (isOver(m)) {
    const seat = g.winner ? seatOf(m, g.winner) : undefined;
    return { kind: "over", winner: g.winner, name: seat ? seatLabel(seat) : null, reason: endReason(m) };
  }
  if (waitsForJoin(m)) return { kind: "join", names: awaited(m).map(seatLabel) };
  if (m.state.status === "waiting" || m.state.status === "cancelled") {
    // An open table of the lobby before every seat is taken, or called off: nobody moves.
    return { kind: "wait", color: null, name: null, computer: null, watching: m.seat === null };
  }
  if (isMyTurn(m)) {
    if (isComplete(m)) return { kind: "complete" };
    return { kind: "stage", color: nextColor(m), index: m.staged.length, order: stagingOrder(m) };
  }
  const color = g.to_move;
  const seat = color ? seatOf(m, color) : undefined;
  return {
    kind: "wait", color, name: seat ? seatLabel(seat) : color,
    computer: seat && seat.kind === "computer" ? seat.level : null, watching: m.seat === null,
  };
}

/**
 * The buttons under the prompt: hidden for spectators, replays and finished games.
 * @param {Loaded} m
 */
export function buttonFacts(m) {
  const me = mySeat(m);
  const playing = m.state.status === "playing" && !game(m).over;
  const myTurn = isMyTurn(m);
  return {
    hidden: m.seat === null || !playing || !isLive(m) || Boolean(me && me.resigned),
    canUndo: m.staged.length > 0 && !m.sending && myTurn,
    canConfirm: isComplete(m) && !m.sending && myTurn,
    sending: m.sending,
    pieOffer: myTurn && game(m).can_swap && isLive(m) && !m.pieDismissed && !m.staged.length,
  };
}

/**
 * Whether my seat may resign now.
 * @param {Loaded} m
 */
export function canResign(m) {
  const me = mySeat(m);
  return m.seat !== null && m.state.status === "playing" && me !== null && !me.resigned;
}

/**
 * @typedef {object} BoardScene what the board draws
 * @property {number} size
 * @property {Stones} stones
 * @property {StagedStone[]} staged
 * @property {Cell[]} last the last turn's cells
 * @property {Cell[]} recent the cells of the other turns marked since my last one
 * @property {Record<Cell, number>} numbers each marked stone's turn number, when more than one turn is marked
 * @property {Cell[]} outline cells whose outer edges are outlined
 * @property {StagedStone | null} ghost the faint next stone under the pointer
 * @property {boolean} interactive
 * @property {{text: string, x: number, y: number} | null} tip
 */

/**
 * What the board shows: the position, the staged stones, the last turn (with `sinceMine`,
 * every turn since my own, numbered), and what the pointer is on (the group under it, a
 * player's groups, or the next stone's ghost).
 * @param {Loaded} m
 * @param {boolean} [sinceMine]
 * @returns {BoardScene}
 */
export function boardScene(m, sinceMine = false) {
  const view = shownView(m);
  const stones = previewStones(m);
  const hover = m.hover;
  /** @type {Cell[]} */
  let outline = [];
  let tip = null;
  if (hover && hover.kind === "cell" && stones[hover.cell]) {
    outline = groupOf(positionGroups(m), hover.cell);
    tip = { text: `${stones[hover.cell]} group of ${outline.length}`, x: hover.x, y: hover.y };
  } else if (hover && hover.kind === "panel") {
    outline = Geometry.of(m.state.size).cells.filter((c) => stones[c] === hover.color);
  }
  const staging = canStage(m) && !isComplete(m);
  const next = nextColor(m);
  const ghost = hover && hover.kind === "cell" && staging && next && !stones[hover.cell]
    ? { cell: hover.cell, color: next } : null;
  const last = view && view.last_turn ? /** @type {Cell[]} */ (Object.values(view.last_turn.cells)) : [];
  const marked = sinceMine ? markedTurns(m, true) : [];
  /** @type {Record<Cell, number>} */
  const numbers = {};
  if (marked.length > 1) for (const t of marked) for (const c of t.cells) numbers[c] = t.entry;
  const recent = marked.slice(0, -1).flatMap((t) => t.cells);
  return {
    size: m.state.size, stones: view ? view.stones : {}, staged: stagedStones(m), last, recent, numbers, outline, ghost,
    interactive: staging, tip,
  };
}

/**
 * Why the game ended: the board filled (fewer than N x N cells empty, RULES.md's end), a
 * resignation left too few players, a clock ran out (`timeout`; `aborted` when its seat had
 * never moved), or the table was abandoned unfinished. Null while on.
 * @param {Loaded} m
 * @returns {EndReason | null}
 */
export function endReason(m) {
  if (!isOver(m)) return null;
  if (m.state.end_reason) return m.state.end_reason;
  const g = game(m);
  const empty = Geometry.of(m.state.size).cells.length - Object.keys(g.stones).length;
  if (empty < m.state.players * m.state.players) return "board_full";
  return g.resigned.length ? "resignation" : "abandoned";
}

/**
 * My place in the final ranking (1 = won) and the number of players, or null when I hold
 * no seat or the game is on.
 * @param {Loaded} m
 * @returns {{place: number, of: number} | null}
 */
export function myPlace(m) {
  const me = mySeat(m);
  if (!me || !isOver(m)) return null;
  const i = game(m).ranking.indexOf(me.color);
  return i < 0 ? null : { place: i + 1, of: m.state.players };
}

/**
 * The colour that placed first in each history entry (the mover), null for a swap.
 * @example moversOf([["e5", "a1"], "swap", ["c3", "d4"]], 2) // ["White", null, "Black"]
 * @param {import("./types.js").HistoryEntry[]} history
 * @param {number} players
 * @returns {(Color | null)[]}
 */
export function moversOf(history, players) {
  let turns = 0;
  return history.map((entry) => (entry === "swap" ? null : COLORS[turns++ % players]));
}

/**
 * A history turn's cells in the order the mover placed them: the mover's colour first,
 * then the others in turn order (history keeps colour order).
 * @example placedOrder(["e5", "a1", "c3"], "Black") // [{cell: "a1", color: "Black"}, {cell: "c3", color: "Red"}, {cell: "e5", color: "White"}]
 * @param {Cell[]} cells
 * @param {Color} mover
 * @returns {StagedStone[]}
 */
export function placedOrder(cells, mover) {
  const t = COLORS.indexOf(mover);
  return cells.map((_, k) => {
    const c = (t + k) % cells.length;
    return { cell: cells[c], color: COLORS[c] };
  });
}

/**
 * The turns to mark on the board: the last one always; with `sinceMine`, every turn
 * played after my own last turn (all of them before my first). Each is its history
 * entry's number (as in the move log) with its cells. None while replaying.
 * @param {Loaded} m
 * @param {boolean} sinceMine
 * @returns {{entry: number, cells: Cell[]}[]}
 */
export function markedTurns(m, sinceMine) {
  if (!isLive(m)) return [];
  const g = game(m);
  const movers = moversOf(g.history, m.state.players);
  const me = sinceMine ? mySeat(m) : null;
  /** @type {{entry: number, cells: Cell[]}[]} */
  const out = [];
  for (let i = g.history.length - 1; i >= 0; i--) {
    const entry = g.history[i];
    if (entry === "swap") continue;
    const mine = me !== null && movers[i] === me.color;
    if (out.length && mine) break;
    out.unshift({ entry: i + 1, cells: entry });
    if (!me || mine) break;
  }
  return out;
}

/**
 * The staged cells as the API takes a turn: one per colour in colour order (White, Black, Red, Blue).
 * @param {Loaded} m
 * @returns {Cell[]}
 */
export function turnCells(m) {
  /** @type {Partial<Record<Color, Cell>>} */
  const byColor = {};
  stagingOrder(m).forEach((color, k) => (byColor[color] = m.staged[k]));
  return colorsInPlay(m).map((color) => /** @type {Cell} */ (byColor[color]));
}

// -- changes ---------------------------------------------------------------------------

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
  if (!swapper || swapper.index === seat) return `You swapped colours: you now play ${mine.color}.`;
  return `${seatLabel(swapper)} swapped colours: you now play ${mine.color}.`;
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

/**
 * Stage the next colour's stone on `cell`, or say why not.
 * @param {Loaded} m
 * @param {Cell} cell
 * @returns {Loaded}
 */
export function stage(m, cell) {
  if (!canStage(m)) return m;
  if (game(m).stones[cell] || m.staged.includes(cell)) return note(m, "info", `${cell} is not empty.`);
  if (isComplete(m)) return note(m, "info", "All stones are placed: Confirm, or Undo to move one.");
  return { ...m, staged: [...m.staged, cell], message: null };
}

/**
 * Take back the last staged stone.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export function undoStone(m) {
  if (!m.staged.length || m.sending) return m;
  return { ...m, staged: m.staged.slice(0, -1), message: null };
}

/**
 * A click on a cell: stage there, or take back the stone just staged there.
 * @param {Loaded} m
 * @param {Cell} cell
 * @returns {Loaded}
 */
export function clickCell(m, cell) {
  if (!canStage(m)) {
    const why = whyNoStaging(m);
    return why ? note(m, "info", why) : m;
  }
  if (m.staged.length && m.staged[m.staged.length - 1] === cell) return undoStone(m);
  return stage(m, cell);
}

/**
 * Why a click on the board stages nothing now, said to the person who clicked (nothing
 * while a turn is being sent: the answer comes by itself).
 * @param {Loaded} m
 * @returns {string | null}
 */
export function whyNoStaging(m) {
  if (m.seat === null) return "You are watching this table.";
  if (m.sending) return null;
  if (!isLive(m)) return "This is an earlier position: go back to live to play.";
  if (isOver(m)) return "The game is over.";
  const me = mySeat(m);
  if (me && me.resigned) return "You resigned: the computer plays your colour on.";
  if (waitsForJoin(m)) return `Waiting for ${awaited(m).map(seatLabel).join(" and ")} to join. Send the invite link, or start now.`;
  const color = game(m).to_move;
  const seat = color ? seatOf(m, color) : undefined;
  if (!color || !seat) return null;
  return `It is not your turn: ${color} (${seatLabel(seat)}) is to move.`;
}

/**
 * Start the first turn without waiting for the others to join.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export const startNow = (m) => ({ ...m, startNow: true, message: null });

/**
 * A letter or digit typed (the last three are kept, lower case).
 * @param {Loaded} m
 * @param {string} key
 * @returns {Loaded}
 */
export const typeKey = (m, key) => ({ ...m, buffer: (m.buffer + key.toLowerCase()).slice(-3) });

/**
 * Backspace over what was typed.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export const eraseKey = (m) => ({ ...m, buffer: m.buffer.slice(0, -1) });

/**
 * Escape: forget what was typed and any outline.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export const escapeKey = (m) => ({ ...m, buffer: "", hover: null });

/**
 * Enter after a typed cell name: stage there, or say the name is not a cell.
 * @param {Loaded} m
 * @returns {Loaded}
 */
export function enterTyped(m) {
  const typed = m.buffer;
  const cell = Geometry.of(m.state.size).parse(typed);
  const next = { ...m, buffer: "" };
  return cell ? stage(next, cell) : note(next, "info", `"${typed}" is not a cell on this board.`);
}

/**
 * The turn to send once every colour is staged: the cells in colour order and a request
 * id, the same as last time for the same turn, so a retry cannot play twice.
 * @param {Loaded} m
 * @param {string} freshId used when this turn was not sent before
 * @returns {{model: Loaded, cells: Cell[], requestId: string} | null}
 */
export function prepareTurn(m, freshId) {
  if (!isComplete(m) || !canStage(m)) return null;
  const cells = turnCells(m);
  const key = `${game(m).history.length}:${cells.join(",")}`;
  const pending = m.pending && m.pending.key === key ? m.pending : { key, id: freshId };
  return { model: { ...m, pending }, cells, requestId: pending.id };
}

/**
 * @template {Model} M
 * @param {M} m
 * @returns {M}
 */
export const sendStarted = (m) => ({ ...m, sending: true, message: null });

/**
 * @template {Model} M
 * @param {M} m
 * @returns {M}
 */
export const sendSucceeded = (m) => ({ ...m, pending: null, sending: false });

/**
 * @template {Model} M
 * @param {M} m
 * @returns {M}
 */
export const sendFailed = (m) => ({ ...m, sending: false });

/**
 * @template {Model} M
 * @param {M} m
 * @returns {M}
 */
export const forgetPending = (m) => ({ ...m, pending: null });

// Refusals after which the page's view may be behind: it fetches the table before it says anything.
const REFETCH_ON = new Set(["not_your_turn", "game_over", "illegal_move", "stale_version", "forbidden", "too_late"]);

/**
 * Whether a refusal with this code calls for fetching the table again.
 * @param {string} code
 */
export const needsRefetch = (code) => REFETCH_ON.has(code);

/**
 * After a `stale_version` refusal and a fresh table: send again when the position is the
 * one the action was chosen on (only someone's presence moved the version) and it is
 * still my turn.
 * @param {Loaded} m
 * @param {string} code
 * @param {boolean} retryStale whether this action may still be sent again
 * @param {number} historyBefore the history length the action was chosen on
 */
export const shouldResend = (m, code, retryStale, historyBefore) =>
  code === "stale_version" && retryStale && game(m).history.length === historyBefore && isMyTurn(m);

/**
 * A refused action explained: the reason, then what became of the staged stones (those on
 * cells taken meanwhile are named).
 * @param {Loaded} m the model after the refusal (and the fresh table, if any)
 * @param {Cell[]} stagedBefore the staged stones when the action was sent
 * @param {string} reason
 * @param {string} [code] the refusal's code ("network" goes once the page is live again)
 * @returns {Loaded}
 */
export function refused(m, stagedBefore, reason, code) {
  const lost = stagedBefore.filter((c) => !m.staged.includes(c));
  let text = reason;
  if (m.staged.length && lost.length) text += ` ${lost.join(", ")} ${lost.length > 1 ? "were" : "was"} taken meanwhile; your other staged stones are kept.`;
  else if (m.staged.length) text += " Your staged stones are kept.";
  else if (lost.length) text += " The position changed, so the staged stones were taken back.";
  return note(m, "error", text, code);
}

/**
 * Show the position after `k` history entries; `k` at or past the end goes back to live.
 * The replayed view stays the previous one until `replayArrived` brings the new one.
 * @param {Loaded} m
 * @param {number} k
 * @returns {Loaded}
 */
export function replayTo(m, k) {
  if (k >= game(m).history.length) return { ...m, replayAt: null, replayView: null };
  return { ...m, replayAt: k, replayWanted: k };
}

/**
 * The replayed position `k` arrived; it is shown only if it is still the one wanted.
 * @param {Loaded} m
 * @param {number} k
 * @param {GameView} view
 * @returns {Loaded}
 */
export const replayArrived = (m, k, view) => (m.replayWanted === k ? { ...m, replayView: view } : m);

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

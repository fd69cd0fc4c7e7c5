// @ts-check
// Earlier positions and the history's turns, pure: the replay position and its late
// answers, who moved each turn, the order its stones were placed in, the turns marked.

import { COLORS } from "./geometry.js";
import { game, isLive, mySeat } from "./tablestate.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./staging.js").StagedStone} StagedStone */

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

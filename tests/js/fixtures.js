// Table states as the server sends them (docs/server-api.md), built by hand for the tests.

import { COLORS, Geometry } from "../../src/omega/web/js/geometry.js";
import { scores } from "../../src/omega/web/js/score.js";
import { clickCell } from "../../src/omega/web/js/staging.js";
import { initialModel, loaded } from "../../src/omega/web/js/tablestate.js";

/**
 * A table state. Scores are the engine's products of the given stones; the rest is what
 * each test says (White to move at seat 0 by default, read by seat 0).
 */
export function table({
  players = 2, size = 5, version = 1, toMove = "White", seat = 0, you = 0, stones = {}, history = [],
  status = "playing", over = false, canSwap = false, lastTurn = null, seats = {},
} = {}) {
  const colors = COLORS.slice(0, players);
  return {
    id: "t1", version, created_at: "2026-05-01T10:00:00+00:00", players, size, pie_rule: false, status,
    seats: colors.map((color, index) => ({
      index, color, kind: "human", level: null, name: `Player ${index + 1}`, resigned: false,
      connected: true, joined: true, ...(seats[index] || {}),
    })),
    you: { seat: you },
    game: {
      to_move: over ? null : toMove, current_seat: over ? null : seat, can_swap: canSwap,
      turn_number: history.length + 1, over, stones, history, last_turn: lastTurn,
      scores: scores(Geometry.of(size), stones, colors), factors: {}, ranking: colors,
      winner: over ? colors[0] : null, tiebreak: false, resigned: [],
    },
  };
}

/** `cells` all of one colour: {"a1": "White", ...}. */
export function stonesOf(color, cells) {
  return Object.fromEntries(cells.map((c) => [c, color]));
}

/** The model after the first table state, with stones staged by clicks. */
export function opened(state, ...clicks) {
  let m = loaded(initialModel(), state, []);
  for (const cell of clicks) m = clickCell(m, cell);
  return m;
}

// @ts-check
// Staging a turn and sending it, as pure steps on the model: the staging order, clicks and
// typed cells, Undo, why nothing stages, a hint staged, the request id kept for a retry, refusals.

import { COLORS, Geometry } from "./geometry.js";
import { awaited, colorsInPlay, game, isLive, isLoaded, isMyTurn, isOver, mySeat, note, seatLabel, seatOf, waitsForJoin } from "./tablestate.js";
import { colorName, t } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./tabletypes.js").StagedStone} StagedStone */

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
 * The staged stones with their colours (none while replaying).
 * @param {Loaded} m
 * @returns {StagedStone[]}
 */
export function stagedStones(m) {
  if (!isLive(m) || !m.staged.length) return [];
  const order = stagingOrder(m);
  return m.staged.map((cell, k) => ({ cell, color: order[k] }));
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

// -- staging steps ---------------------------------------------------------------------

/**
 * Stage the next colour's stone on `cell`, or say why not.
 * @param {Loaded} m
 * @param {Cell} cell
 * @returns {Loaded}
 */
export function stage(m, cell) {
  if (!canStage(m)) return m;
  if (game(m).stones[cell] || m.staged.includes(cell)) return note(m, "info", t("{cell} is not empty.", { cell }));
  if (isComplete(m)) return note(m, "info", t("All stones are placed: Confirm, or Undo to move one."));
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
  if (m.seat === null) return t("You are watching this table.");
  if (m.sending) return null;
  if (!isLive(m)) return t("This is an earlier position: go back to live to play.");
  if (isOver(m)) return t("The game is over.");
  const me = mySeat(m);
  if (me && me.resigned) return t("You resigned: the computer plays your colour on.");
  if (waitsForJoin(m)) return t("Waiting for {awaited} to join. Send the invite link, or start now.", { awaited: awaited(m).map(seatLabel).join(" and ") });
  const color = game(m).to_move;
  const seat = color ? seatOf(m, color) : undefined;
  if (!color || !seat) return null;
  return t("It is not your turn: {color} ({seatLabel}) is to move.", { color: colorName(color), seatLabel: seatLabel(seat) });
}

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
  return cell ? stage(next, cell) : note(next, "info", t("\"{typed}\" is not a cell on this board.", { typed }));
}

/**
 * A computer's hint staged in place of whatever was staged: its stones in staging order
 * (the player may still undo any or play another turn), or, for a swap, a sentence.
 * @param {Loaded} m
 * @param {HistoryEntry} hint
 * @returns {Loaded}
 */
export function stageHint(m, hint) {
  if (hint === "swap") return note(m, "info", t("Hint: take the other colour (Swap)."));
  /** @type {Loaded} */
  let next = { ...m, staged: [], message: null };
  for (let i = 0; i < hint.length; i++) {
    const color = nextColor(next);
    if (!color) break;
    next = clickCell(next, hint[COLORS.indexOf(color)]);
  }
  return note(next, "info", t("Hint staged: confirm it, or change it."));
}

// -- sending the turn ------------------------------------------------------------------

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
  if (m.staged.length && lost.length) text += (lost.length > 1 ? t(" {cells} were taken meanwhile; your other staged stones are kept.", { cells: lost.join(", ") }) : t(" {cells} was taken meanwhile; your other staged stones are kept.", { cells: lost.join(", ") }));
  else if (m.staged.length) text += t(" Your staged stones are kept.");
  else if (lost.length) text += t(" The position changed, so the staged stones were taken back.");
  return note(m, "error", text, code);
}

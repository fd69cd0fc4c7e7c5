// @ts-check
// The puzzle page's rules, without the page (docs/web.md, Puzzles): which stones the player
// places and in what order (their own colour first, then the others in turn order, as at a
// table), what a click does to the stones placed so far, the turn sent, and the words of the
// verdict and the ratings.  Pure: tests/js/puzzles.test.js runs it under node.

import { t } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */

/**
 * A puzzle as the server shows it (never with its answer).
 * @typedef {object} PuzzleView
 * @property {string} id
 * @property {number} players
 * @property {number} size
 * @property {Record<Cell, Color>} stones
 * @property {Color} to_move
 * @property {Color[]} colors the colours in play, in turn order
 * @property {(Cell | null)[]} given the turn's stones the puzzle places (colour order), null where the player must find one
 * @property {string[]} themes
 * @property {"win" | "save"} goal
 * @property {number} rating
 * @property {number} attempts
 * @property {number} solved
 */

/**
 * A player's puzzle rating as the server shows it.
 * @typedef {{rating: number, deviation: number, provisional: boolean, attempts: number, solved: number, change?: number}} PuzzlePlayer
 */

/**
 * The verdict on an attempt.
 * @typedef {object} Verdict
 * @property {boolean} correct
 * @property {boolean} rated
 * @property {Cell[]} answer
 * @property {Cell[][]} line
 * @property {PuzzlePlayer | null} player
 * @property {{rating: number, change: number}} puzzle
 */

/**
 * The colours of the turn in the order a player places them: their own first.
 * @example placingOrder("Black", ["White", "Black", "Red"]) // ["Black", "Red", "White"]
 * @param {Color} toMove
 * @param {Color[]} colors
 * @returns {Color[]}
 */
export function placingOrder(toMove, colors) {
  const first = colors.indexOf(toMove);
  return colors.map((_, i) => colors[(first + i) % colors.length]);
}

/**
 * The colours the player must place (not given), in placing order.
 * @example toFind({to_move: "White", colors: ["White", "Black"], given: [null, "e5"]}) // ["White"]
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given">} p
 * @returns {Color[]}
 */
export function toFind(p) {
  return placingOrder(p.to_move, p.colors).filter((c) => p.given[p.colors.indexOf(c)] === null);
}

/**
 * The given stones, as staged stones to draw.
 * @param {Pick<PuzzleView, "colors" | "given">} p
 * @returns {{cell: Cell, color: Color}[]}
 */
export function givenStones(p) {
  /** @type {{cell: Cell, color: Color}[]} */
  const out = [];
  p.given.forEach((cell, i) => { if (cell !== null) out.push({ cell, color: p.colors[i] }); });
  return out;
}

/**
 * The stones the player placed so far (one cell each, in placing order), as staged stones.
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given">} p
 * @param {Cell[]} placed
 * @returns {{cell: Cell, color: Color}[]}
 */
export function placedStones(p, placed) {
  const order = toFind(p);
  return placed.map((cell, i) => ({ cell, color: order[i] }));
}

/**
 * The colour of the next stone to place, or null once every one is placed.
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given">} p
 * @param {Cell[]} placed
 * @returns {Color | null}
 */
export function nextColor(p, placed) {
  const order = toFind(p);
  return placed.length < order.length ? order[placed.length] : null;
}

/**
 * What a click on `cell` leaves placed: a placed stone is taken back (with those after it),
 * a free cell takes the next stone, anything else changes nothing.
 * @example click(p, ["e5"], "e5") // []
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given" | "stones">} p
 * @param {Cell[]} placed
 * @param {Cell} cell
 * @returns {Cell[]}
 */
export function click(p, placed, cell) {
  const at = placed.indexOf(cell);
  if (at >= 0) return placed.slice(0, at);
  if (p.stones[cell] || p.given.includes(cell) || nextColor(p, placed) === null) return placed;
  return [...placed, cell];
}

/**
 * The whole turn to send (cells in colour order, the given stones in), or null while a
 * stone is still to place.
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given">} p
 * @param {Cell[]} placed
 * @returns {Cell[] | null}
 */
export function turnOf(p, placed) {
  if (nextColor(p, placed) !== null) return null;
  const turn = [...p.given];
  for (const { cell, color } of placedStones(p, placed)) turn[p.colors.indexOf(color)] = cell;
  return /** @type {Cell[]} */ (turn);
}

/**
 * What the puzzle asks, in words.
 * @param {Pick<PuzzleView, "to_move" | "colors" | "given" | "goal">} p
 * @returns {string}
 */
export function taskText(p) {
  const goal = p.goal === "win" ? t("{color} to move: find the turn that wins.", { color: t(p.to_move) })
    : t("{color} to move: find the turn that saves the game.", { color: t(p.to_move) });
  const given = givenStones(p).map((s) => t("{color} on {cell}", { color: t(s.color), cell: s.cell }));
  return given.length ? `${goal} ${t("Given: {stones}. Place the rest.", { stones: given.join(", ") })}` : goal;
}

/**
 * A puzzle rating, with "?" while it is provisional.
 * @example ratingText({rating: 1612, provisional: true}) // "1612?"
 * @param {{rating: number, provisional: boolean} | null} r
 * @returns {string}
 */
export function ratingText(r) {
  if (!r) return t("unrated");
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

/**
 * A rating's change with its sign.
 * @example changeText(12) // "+12"
 * @param {number} change
 * @returns {string}
 */
export function changeText(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}

/**
 * The verdict in words.
 * @param {Verdict} v
 * @returns {string}
 */
export function verdictText(v) {
  const head = v.correct ? t("Right! That is the best turn.") : t("Not the best turn: the answer is shown on the board.");
  if (!v.rated) return `${head} ${t("This attempt was not rated.")}`;
  return head;
}

/**
 * The search's line after the answer, in words: whose turn, then each colour's cell.
 * @example lineText({answer: ["e5", "a1"], line: [["b2", "c3"]]}, ["White", "Black"], "White") // "Black's turn: White b2, Black c3"
 * @param {Pick<Verdict, "line" | "answer">} v
 * @param {Color[]} colors
 * @param {Color} toMove
 * @returns {string}
 */
export function lineText(v, colors, toMove) {
  let at = colors.indexOf(toMove);
  return v.line.map((turn) => {
    at = (at + 1) % colors.length;
    const cells = turn.map((cell, i) => `${t(colors[i])} ${cell}`).join(", ");
    return `${t("{color}'s turn", { color: t(colors[at]) })}: ${cells}`;
  }).join(" · ");
}

/**
 * A theme's name.
 * @param {string} theme
 * @returns {string}
 */
export function themeName(theme) {
  /** @type {Record<string, string>} */
  const names = { split: t("Split"), merge: t("Merge"), sacrifice: t("Sacrifice"), endgame: t("Endgame count") };
  return names[theme] || theme;
}

// @ts-check
// The page's own small group count, used for instant previews while stones are staged
// and for hover outlines. The server's scores (omega.Game) stay the reference; an e2e
// test holds this file equal to Game.scores() on shared random positions.

import { formatNumber, language, t } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Decimal} Decimal */
/** @typedef {import("./geometry.js").Geometry} Geometry */
/** @typedef {Partial<Record<Cell, Color>>} Stones cell name -> colour name ({"e5": "White"}) */

/**
 * Every group of a position, found once: the groups in board order, and each stone's group.
 * @typedef {object} Groups
 * @property {{color: Color, cells: Cell[]}[]} list
 * @property {Map<Cell, number>} indexOf cell -> its group's place in `list`
 */

/**
 * All groups of every colour by one flood fill over the board, so that looking up the
 * group under the pointer or a colour's sizes costs no further fill.
 * @example findGroups(Geometry.of(5), {a1: "White", a2: "White", e5: "Black"}).list.length // 2
 * @param {Geometry} geo
 * @param {Stones} stones
 * @returns {Groups}
 */
export function findGroups(geo, stones) {
  /** @type {Map<Cell, number>} */
  const indexOf = new Map();
  /** @type {Groups["list"]} */
  const list = [];
  for (const start of geo.cells) {
    const color = stones[start];
    if (!color || indexOf.has(start)) continue;
    const index = list.length;
    indexOf.set(start, index);
    const cells = [start];
    for (let i = 0; i < cells.length; i++) {
      for (const nb of geo.neighbours.get(cells[i]) || []) {
        if (!indexOf.has(nb) && stones[nb] === color) {
          indexOf.set(nb, index);
          cells.push(nb);
        }
      }
    }
    list.push({ color, cells });
  }
  return { list, indexOf };
}

/**
 * The group holding the stone on `cell` in already found groups (empty for an empty cell).
 * @param {Groups} groups
 * @param {Cell} cell
 * @returns {Cell[]}
 */
export function groupOf(groups, cell) {
  const i = groups.indexOf.get(cell);
  return i === undefined ? [] : groups.list[i].cells;
}

/**
 * Group sizes of `color` in already found groups, largest first.
 * @example sizesOf(findGroups(Geometry.of(5), {a1: "White", a2: "White", c3: "White"}), "White") // [2, 1]
 * @param {Groups} groups
 * @param {Color} color
 * @returns {number[]}
 */
export function sizesOf(groups, color) {
  return groups.list.filter((g) => g.color === color).map((g) => g.cells.length).sort((a, b) => b - a);
}

/**
 * Every colour's exact score from already found groups, as decimal strings.
 * @param {Groups} groups
 * @param {readonly Color[]} colors
 * @returns {Partial<Record<Color, Decimal>>}
 */
export function scoresOf(groups, colors) {
  /** @type {Partial<Record<Color, Decimal>>} */
  const out = {};
  for (const color of colors) out[color] = product(sizesOf(groups, color)).toString();
  return out;
}

/**
 * The groups of `color`: arrays of cell names.
 * @param {Geometry} geo
 * @param {Stones} stones
 * @param {Color} color
 * @returns {Cell[][]}
 */
export function groupsOf(geo, stones, color) {
  return findGroups(geo, stones).list.filter((g) => g.color === color).map((g) => g.cells);
}

/**
 * The group holding the stone on `cell` (empty array for an empty cell).
 * @example groupAt(Geometry.of(5), {a1: "White", a2: "White"}, "a2") // ["a1", "a2"]
 * @param {Geometry} geo
 * @param {Stones} stones
 * @param {Cell} cell
 * @returns {Cell[]}
 */
export function groupAt(geo, stones, cell) {
  return groupOf(findGroups(geo, stones), cell);
}

/**
 * Group sizes of `color`, largest first.
 * @param {Geometry} geo
 * @param {Stones} stones
 * @param {Color} color
 * @returns {number[]}
 */
export function groupSizes(geo, stones, color) {
  return sizesOf(findGroups(geo, stones), color);
}

/**
 * The exact score for these group sizes, a BigInt: their product, 0 with no stones.
 * @example product([5, 4, 3]) // 60n
 * @param {number[]} sizes
 * @returns {bigint}
 */
export function product(sizes) {
  if (!sizes.length) return 0n;
  return sizes.reduce((acc, n) => acc * BigInt(n), 1n);
}

/**
 * Every colour's exact score as a decimal string, like the server's "scores".
 * @example scores(Geometry.of(5), {a1: "White", a2: "White", e5: "White"}, ["White", "Black"]) // {White: "2", Black: "0"}
 * @param {Geometry} geo
 * @param {Stones} stones
 * @param {readonly Color[]} colors
 * @returns {Partial<Record<Color, Decimal>>}
 */
export function scores(geo, stones, colors) {
  return scoresOf(findGroups(geo, stones), colors);
}

const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
/** @param {number} n */
const superscript = (n) => String(n).replace(/\d/g, (d) => SUPERSCRIPT[Number(d)]);

/**
 * Digits grouped in threes by thin spaces.
 * @example groupDigits("1234567") // "1 234 567"
 * @param {string | number | bigint} decimal
 */
export function groupDigits(decimal) {
  return String(decimal).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
}

/**
 * A score for display: grouped digits, or scientific form once it stops being readable.
 * @example formatScore("348678440100000000000") // "3.486 × 10²⁰"
 * @param {string | number | bigint} decimal
 */
export function formatScore(decimal) {
  const s = String(decimal);
  // English keeps its thin-space grouping; another language writes digits as it does (12.600, 12 600).
  const english = language() === "en";
  if (s.length <= 12) return english ? groupDigits(s) : formatNumber(Number(s));
  const mantissa = english ? `${s[0]}.${s.slice(1, 4)}` : formatNumber(Number(`${s[0]}.${s.slice(1, 4)}`));
  return `${mantissa} × 10${superscript(s.length - 1)}`;
}

/**
 * Sizes as factors with their product; a single group is just its size ("12 (one group)"),
 * not a product of one factor. Long runs of equal factors are written as powers so a big
 * board stays readable.
 * @example factorsText([5, 4, 3]) // "5 × 4 × 3 = 60"
 * @param {number[]} sizes
 */
export function factorsText(sizes) {
  if (!sizes.length) return t("no stones = 0");
  if (sizes.length === 1) return t("{formatScore} (one group)", { formatScore: formatScore(String(sizes[0])) });
  let body;
  if (sizes.length <= 10) {
    body = sizes.join(" × ");
  } else {
    /** @type {[number, number][]} */
    const runs = [];
    for (const n of sizes) {
      if (runs.length && runs[runs.length - 1][0] === n) runs[runs.length - 1][1]++;
      else runs.push([n, 1]);
    }
    body = runs.map(([n, k]) => (k > 1 ? `${n}${superscript(k)}` : String(n))).join(" × ");
  }
  return `${body} = ${formatScore(product(sizes).toString())}`;
}

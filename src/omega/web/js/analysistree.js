// @ts-check
// The analysis board's study, pure: a tree of turns from the empty board (the first child of
// each position is its main line), the position shown, the stones staged for the next turn,
// and what the move list shows. The flat form it comes and goes in is records.md's
// (Variations): [parent, action] pairs, parents first, parent 0 the empty board.

import { COLORS, Geometry } from "./geometry.js";

/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Color} Color */
/** @typedef {Cell[] | "swap"} Action a turn's cells in colour order, or the pie rule's swap */
/** @typedef {[number, Action]} FlatNode */
/**
 * @typedef {object} TreeNode
 * @property {number} parent -1 for the empty board
 * @property {Action | null} action null for the empty board
 * @property {number[]} children the main line first
 */
/**
 * @typedef {object} Study
 * @property {number} players
 * @property {number} size
 * @property {boolean} pie
 * @property {TreeNode[]} nodes node 0 is the empty board; a removed node has no parent's link
 * @property {number} at the position shown
 * @property {Cell[]} staged the next turn's stones placed so far, the mover's colour first
 */
/**
 * A position: its stones, who is to move (null once over), whether a swap is possible.
 * @typedef {{stones: Record<Cell, Color>, toMove: Color | null, canSwap: boolean, over: boolean, turns: number}} Position
 */
/**
 * A line of the move list: an entry (its node, number and text), or where a variation opens
 * or closes; `depth` is how deep in variations it sits.
 * @typedef {{kind: "move", node: number, number: number, text: string, depth: number} | {kind: "open" | "close", depth: number}} Row
 */

/**
 * A study of an empty board, or of the flat form `flat`, opened at `start` main-line entries.
 * @example fromFlat(2, 5, false, [[0, ["e5", "a1"]]], 1).at // 1
 * @param {number} players
 * @param {number} size
 * @param {boolean} pie
 * @param {FlatNode[]} [flat]
 * @param {number} [start]
 * @returns {Study}
 */
export function fromFlat(players, size, pie, flat = [], start = 0) {
  /** @type {TreeNode[]} */
  const nodes = [{ parent: -1, action: null, children: [] }];
  for (const [parent, action] of flat) {
    nodes.push({ parent, action, children: [] });
    nodes[parent].children.push(nodes.length - 1);
  }
  let at = 0;
  for (let k = 0; k < start && nodes[at].children.length; k++) at = nodes[at].children[0];
  return { players, size, pie, nodes, at, staged: [] };
}

/**
 * The flat form of the study: every entry, each before its lines, in order.
 * @example toFlat(play(play(fromFlat(2, 5, false), ["e5", "a1"]), ["c3", "c4"])) // [[0, ["e5", "a1"]], [1, ["c3", "c4"]]]
 * @param {Study} s
 * @returns {FlatNode[]}
 */
export function toFlat(s) {
  /** @type {FlatNode[]} */
  const out = [];
  /** @type {Map<number, number>} node -> its index in the flat form */
  const index = new Map([[0, 0]]);
  const stack = [...s.nodes[0].children].reverse();
  while (stack.length) {
    const id = /** @type {number} */ (stack.pop());
    const node = s.nodes[id];
    out.push([/** @type {number} */ (index.get(node.parent)), /** @type {Action} */ (node.action)]);
    index.set(id, out.length);
    stack.push(...[...node.children].reverse());
  }
  return out;
}

/**
 * The actions from the empty board to node `id`.
 * @param {Study} s
 * @param {number} id
 * @returns {Action[]}
 */
export function pathTo(s, id) {
  /** @type {Action[]} */
  const out = [];
  for (let n = id; n > 0; n = s.nodes[n].parent) out.unshift(/** @type {Action} */ (s.nodes[n].action));
  return out;
}

/**
 * The entry's number of node `id` (how many entries lead to it).
 * @param {Study} s
 * @param {number} id
 */
export const depthOf = (s, id) => pathTo(s, id).length;

/**
 * The position after `actions` from the empty board (the rules of RULES.md: no stone is ever
 * taken; the game ends before a White turn with fewer than N x N empty cells).
 * @example positionAfter(2, 5, false, [["e5", "a1"]]).toMove // "Black"
 * @param {number} players
 * @param {number} size
 * @param {boolean} pie
 * @param {Action[]} actions
 * @returns {Position}
 */
export function positionAfter(players, size, pie, actions) {
  const cells = Geometry.of(size).cells.length;
  /** @type {Record<Cell, Color>} */
  const stones = {};
  let turn = 0;
  let placed = 0;
  for (const action of actions) {
    if (action === "swap") continue;
    action.forEach((cell, k) => (stones[cell] = COLORS[k]));
    placed += action.length;
    turn = (turn + 1) % players;
  }
  const over = turn === 0 && cells - placed < players * players;
  const canSwap = pie && players === 2 && actions.length === 1 && actions[0] !== "swap";
  return { stones, toMove: over ? null : COLORS[turn], canSwap, over, turns: actions.length };
}

/**
 * The position shown.
 * @param {Study} s
 */
export const shown = (s) => positionAfter(s.players, s.size, s.pie, pathTo(s, s.at));

/**
 * The colours in the order the mover places them: their own first, then the others in turn
 * order after them.
 * @example stagingColors(3, "Black") // ["Black", "Red", "White"]
 * @param {number} players
 * @param {Color} mover
 * @returns {Color[]}
 */
export function stagingColors(players, mover) {
  const first = COLORS.indexOf(mover);
  return Array.from({ length: players }, (_, k) => COLORS[(first + k) % players]);
}

/**
 * The next stone's colour, null when none may be placed (the position is over).
 * @param {Study} s
 * @returns {Color | null}
 */
export function nextColor(s) {
  const p = shown(s);
  return p.toMove ? stagingColors(s.players, p.toMove)[s.staged.length] || null : null;
}

/**
 * Play `action` at the position shown: the line that goes on with it (a new one, last among
 * the position's lines, unless it is there already) becomes the position shown.
 * @param {Study} s
 * @param {Action} action cells in colour order, or "swap"
 * @returns {Study}
 */
export function play(s, action) {
  const key = JSON.stringify(action);
  const here = s.nodes[s.at];
  const found = here.children.find((c) => JSON.stringify(s.nodes[c].action) === key);
  if (found !== undefined) return { ...s, at: found, staged: [] };
  const nodes = s.nodes.slice();
  nodes.push({ parent: s.at, action, children: [] });
  nodes[s.at] = { ...here, children: [...here.children, nodes.length - 1] };
  return { ...s, nodes, at: nodes.length - 1, staged: [] };
}

/**
 * A click on `cell`: stage the next colour there (an empty cell not staged yet); the last
 * stone plays the turn. Anything else changes nothing.
 * @param {Study} s
 * @param {Cell} cell
 * @returns {Study}
 */
export function clickCell(s, cell) {
  const p = shown(s);
  if (!p.toMove || p.stones[cell] || s.staged.includes(cell)) return s;
  const staged = [...s.staged, cell];
  if (staged.length < s.players) return { ...s, staged };
  // The staged stones go mover first; the turn lists them in colour order.
  const colors = stagingColors(s.players, p.toMove);
  /** @type {Cell[]} */
  const turn = [];
  colors.forEach((color, k) => (turn[COLORS.indexOf(color)] = staged[k]));
  return play(s, turn);
}

/**
 * The staged stones with their colours (for the board).
 * @param {Study} s
 * @returns {{cell: Cell, color: Color}[]}
 */
export function stagedStones(s) {
  const p = shown(s);
  if (!p.toMove) return [];
  const colors = stagingColors(s.players, p.toMove);
  return s.staged.map((cell, k) => ({ cell, color: colors[k] }));
}

/**
 * Show node `id` (staged stones are dropped).
 * @param {Study} s
 * @param {number} id
 * @returns {Study}
 */
export const goTo = (s, id) => (s.nodes[id] ? { ...s, at: id, staged: [] } : s);

/**
 * One step back: a staged stone first, else the position before.
 * @param {Study} s
 * @returns {Study}
 */
export function back(s) {
  if (s.staged.length) return { ...s, staged: s.staged.slice(0, -1) };
  return s.at > 0 ? goTo(s, s.nodes[s.at].parent) : s;
}

/**
 * One step forward along the line shown (its main line from here).
 * @param {Study} s
 * @returns {Study}
 */
export function forward(s) {
  const next = s.nodes[s.at].children[0];
  return next === undefined ? s : goTo(s, next);
}

/**
 * Make the line of node `id` the main one where it branches off.
 * @param {Study} s
 * @param {number} id
 * @returns {Study}
 */
export function promote(s, id) {
  const parent = s.nodes[id].parent;
  if (parent < 0) return s;
  const nodes = s.nodes.slice();
  nodes[parent] = { ...nodes[parent], children: [id, ...nodes[parent].children.filter((c) => c !== id)] };
  return { ...s, nodes };
}

/**
 * Take node `id` and every line after it out (undo a turn played, or drop a variation); the
 * position before it is shown. The empty board stays.
 * @param {Study} s
 * @param {number} id
 * @returns {Study}
 */
export function remove(s, id) {
  const parent = s.nodes[id].parent;
  if (parent < 0) return s;
  const nodes = s.nodes.slice();
  nodes[parent] = { ...nodes[parent], children: nodes[parent].children.filter((c) => c !== id) };
  // Rebuilt from the flat form, so the removed nodes are gone, not only unlinked.
  const kept = { ...s, nodes };
  const again = fromFlat(s.players, s.size, s.pie, toFlat(kept));
  const where = pathTo(kept, parent);
  let at = 0;
  for (const action of where) {
    at = again.nodes[at].children.find((c) => JSON.stringify(again.nodes[c].action) === JSON.stringify(action)) ?? at;
  }
  return { ...again, at };
}

/**
 * An entry as the move list writes it.
 * @example actionText(["e5", "a1"]) // "e5 a1"
 * @param {Action} action
 */
export const actionText = (action) => (action === "swap" ? "swap" : action.join(" "));

/**
 * The move list: the main line, each other line in parentheses after the entry it replaces,
 * as the text record with variations writes it.
 * @param {Study} s
 * @returns {Row[]}
 */
export function moveRows(s) {
  /** @type {Row[]} */
  const rows = [];
  /** @type {({node: number, depth: number} | Row)[]} */
  const todo = [];
  const first = s.nodes[0].children[0];
  if (first !== undefined) todo.push({ node: first, depth: 0 });
  while (todo.length) {
    const item = /** @type {{node: number, depth: number} | Row} */ (todo.pop());
    if ("kind" in item) {
      rows.push(item);
      continue;
    }
    const node = s.nodes[item.node];
    rows.push({ kind: "move", node: item.node, number: depthOf(s, item.node), text: actionText(/** @type {Action} */ (node.action)), depth: item.depth });
    /** @type {({node: number, depth: number} | Row)[]} */
    const after = [];
    const siblings = s.nodes[node.parent].children;
    if (siblings[0] === item.node) {
      for (const other of siblings.slice(1)) {
        after.push({ kind: "open", depth: item.depth }, { node: other, depth: item.depth + 1 }, { kind: "close", depth: item.depth });
      }
    }
    if (node.children.length) after.push({ node: node.children[0], depth: item.depth });
    todo.push(...after.reverse());
  }
  return rows;
}

/**
 * How many lines the study has (positions with no line after them).
 * @param {Study} s
 */
export function leaves(s) {
  let count = 0;
  const stack = [0];
  while (stack.length) {
    const node = s.nodes[/** @type {number} */ (stack.pop())];
    if (!node.children.length) count++;
    stack.push(...node.children);
  }
  return count;
}

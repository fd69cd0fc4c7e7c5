// The analysis board's study without a browser: stones staged in the mover's order make a
// turn in colour order, variations branch, the move list reads like the record with
// variations, promote and take back, and the flat form goes and comes back unchanged.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as A from "../../src/omega/web/js/analysistree.js";

/**
 * Click the cells one after another.
 * @param {A.Study} s
 * @param {string[]} cells
 */
const clicks = (s, cells) => cells.reduce(A.clickCell, s);

describe("analysis board", () => {
  test("a turn is staged mover first and played in colour order", () => {
    let s = A.fromFlat(3, 5, false);
    s = clicks(s, ["e5", "a1", "i9"]);  // White: White, Black, Red
    assert.deepEqual(A.pathTo(s, s.at), [["e5", "a1", "i9"]]);
    assert.equal(A.nextColor(s), "Black");
    s = clicks(s, ["c3", "c4"]);  // Black places Black, then Red ...
    assert.deepEqual(A.stagedStones(s), [{ cell: "c3", color: "Black" }, { cell: "c4", color: "Red" }]);
    s = A.clickCell(s, "e5");  // taken: nothing happens
    assert.equal(s.staged.length, 2);
    s = A.back(s);  // a staged stone goes first
    assert.deepEqual(s.staged, ["c3"]);
    s = clicks(s, ["c5", "d4"]);  // ... then White: the turn is White d4, Black c3, Red c5
    assert.deepEqual(A.pathTo(s, s.at).at(-1), ["d4", "c3", "c5"]);
    assert.equal(A.shown(s).toMove, "Red");
  });

  test("two branches, the move list, promote and take back", () => {
    let s = A.fromFlat(2, 5, false);
    s = clicks(s, ["e5", "a1", "c3", "c4"]);
    const main = s.at;
    s = A.back(s);
    s = clicks(s, ["d4", "d5"]);  // a second line from the position after 1. e5 a1
    s = clicks(s, ["b2", "b3"]);
    assert.equal(A.leaves(s), 2);
    assert.deepEqual(A.moveRows(s).map((r) => (r.kind === "move" ? `${"  ".repeat(r.depth)}${r.number}. ${r.text}` : `${"  ".repeat(r.depth)}${r.kind === "open" ? "(" : ")"}`)),
      ["1. e5 a1", "2. c4 c3", "(", "  2. d5 d4", "  3. b2 b3", ")"]);  // Black's turns: Black first
    // Playing a line that is there goes along it, it adds nothing.
    const again = clicks(A.goTo(s, s.nodes[main].parent), ["c3", "c4"]);
    assert.equal(again.at, main);
    assert.equal(again.nodes.length, s.nodes.length);
    // Promote the variation: it becomes the main line.
    const variation = s.nodes[s.nodes[main].parent].children[1];
    const promoted = A.promote(s, variation);
    assert.deepEqual(A.toFlat(promoted), [[0, ["e5", "a1"]], [1, ["d5", "d4"]], [2, ["b2", "b3"]], [1, ["c4", "c3"]]]);
    // Take back the variation's first turn: its line goes, the position before it shows.
    const removed = A.remove(promoted, variation);
    assert.deepEqual(A.toFlat(removed), [[0, ["e5", "a1"]], [1, ["c4", "c3"]]]);
    assert.deepEqual(A.pathTo(removed, removed.at), [["e5", "a1"]]);
  });

  test("the flat form comes back unchanged, opened at its start", () => {
    /** @type {A.FlatNode[]} */
    const flat = [[0, ["e5", "a1"]], [1, ["c3", "c4"]], [2, ["d4", "d5"]], [1, ["b2", "b3"]], [0, ["a2", "a3"]]];
    const s = A.fromFlat(2, 5, false, flat, 2);
    assert.deepEqual(A.toFlat(s), flat);
    assert.deepEqual(A.pathTo(s, s.at), [["e5", "a1"], ["c3", "c4"]]);
    assert.deepEqual(A.pathTo(A.forward(s), A.forward(s).at).length, 3);
    assert.equal(A.forward(A.forward(s)).at, A.forward(s).at);  // the end of the line
  });

  test("the pie rule's swap, and the end of the game", () => {
    let s = A.fromFlat(2, 2, true);
    s = clicks(s, ["a1", "b2"]);
    assert.equal(A.shown(s).canSwap, true);
    s = A.play(s, "swap");
    assert.deepEqual({ ...A.shown(s), stones: null }, { stones: null, toMove: "Black", canSwap: false, over: false, turns: 2 });
    s = clicks(s, ["c3", "a2"]);
    // Side 2 has 7 cells: after one round 3 are empty, fewer than 4: over.
    assert.equal(A.shown(s).over, true);
    assert.equal(A.nextColor(s), null);
    assert.equal(A.clickCell(s, "b1"), s);
  });
});

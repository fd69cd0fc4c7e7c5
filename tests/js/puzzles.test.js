// The puzzle page's rules (src/omega/web/js/puzzles.js): the stones a player places and in
// what order, what a click does, the turn sent, and the words of the verdict and the ratings.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  changeText, click, givenStones, lineText, nextColor, placingOrder, ratingText, taskText, toFind, turnOf, verdictText,
} from "../../src/omega/web/js/puzzles.js";

/** @type {import("../../src/omega/web/js/puzzles.js").PuzzleView} */
const whole = {
  id: "p", players: 2, size: 5, stones: { e5: "White", a1: "Black" }, to_move: "Black", colors: ["White", "Black"],
  given: [null, null], themes: ["merge"], goal: "win", rating: 1500, attempts: 0, solved: 0,
};
const oneStone = { ...whole, to_move: /** @type {const} */ ("White"), given: [null, "c3"] };

test("the mover places their own colour first, then the others in turn order", () => {
  assert.deepEqual(placingOrder("Black", ["White", "Black", "Red"]), ["Black", "Red", "White"]);
  assert.deepEqual(toFind(whole), ["Black", "White"]);
  assert.deepEqual(toFind(oneStone), ["White"]);
  assert.deepEqual(givenStones(oneStone), [{ cell: "c3", color: "Black" }]);
});

test("a click places the next stone, takes a placed one back, and leaves stones alone", () => {
  let placed = click(whole, [], "b2");
  assert.deepEqual(placed, ["b2"]);
  assert.equal(nextColor(whole, placed), "White");
  assert.deepEqual(click(whole, placed, "e5"), ["b2"]);   // a stone of the position
  placed = click(whole, placed, "d4");
  assert.equal(nextColor(whole, placed), null);
  assert.deepEqual(click(whole, placed, "c2"), placed);   // every stone is placed
  assert.deepEqual(click(whole, placed, "b2"), []);       // taking back the first takes back what followed
  assert.deepEqual(click(oneStone, [], "c3"), []);        // the given stone's cell
});

test("the turn sent is in colour order, with the given stones in", () => {
  assert.equal(turnOf(whole, ["b2"]), null);
  assert.deepEqual(turnOf(whole, ["b2", "d4"]), ["d4", "b2"]);   // Black placed b2 first, White d4
  assert.deepEqual(turnOf(oneStone, ["b2"]), ["b2", "c3"]);
});

test("the words of the task, the verdict, the line and the ratings", () => {
  assert.equal(taskText(whole), "Black to move: find the turn that wins.");
  assert.equal(taskText({ ...oneStone, goal: "save" }),
    "White to move: find the turn that saves the game. Given: Black on c3. Place the rest.");
  assert.equal(ratingText({ rating: 1612, provisional: true }), "1612?");
  assert.equal(ratingText(null), "unrated");
  assert.deepEqual([changeText(12), changeText(-8), changeText(0)], ["+12", "−8", "±0"]);
  const base = { answer: ["e5", "a1"], line: [["b2", "c3"], ["d4", "d5"]], player: null, puzzle: { rating: 1500, change: 0 } };
  assert.equal(verdictText({ ...base, correct: true, rated: true }), "Right! That is the best turn.");
  assert.match(verdictText({ ...base, correct: false, rated: false }), /^Not the best turn.*not rated\.$/);
  assert.equal(lineText(base, ["White", "Black"], "White"), "Black's turn: White b2, Black c3 · White's turn: White d4, Black d5");
});

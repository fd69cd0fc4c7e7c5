// The review view's pure parts: the graph's points, the texts, the best turn's ghosts.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bestGhosts, evaluationPoints, graphPoints, mistakesOf, turnText } from "../../src/omega/web/js/views/review.js";
import { marginHeights, marginSpan, pictureSquares, signed } from "../../src/omega/web/js/views/reviewscore.js";

const turns = [
  { index: 0, number: 1, player: 0, color: "White", played: ["e5", "a1"], best: ["e5", "a1"],
    before: { White: 0.5, Black: 0.5 }, after: { White: 0.6, Black: 0.4 }, loss: 0, mark: null },
  { index: 1, number: 2, player: 1, color: "Black", played: ["c3", "d4"], best: ["b2", "d5"],
    before: { White: 0.6, Black: 0.4 }, after: { White: 0.9, Black: 0.1 }, loss: 0.3, mark: "blunder" },
  { index: 2, number: 3, player: 0, color: "White", played: ["a2", "b1"], best: ["a2", "c1"],
    before: { White: 0.9, Black: 0.1 }, after: { White: 0.8, Black: 0.2 }, loss: 0.1, mark: "mistake" },
];
const review = { players: 2, turns, thresholds: { mistake: 0.1, blunder: 0.25 } };

test("one point per position, from the empty board to the end, 1 at the top", () => {
  assert.equal(evaluationPoints(turns, "White"), "6,55 102,45.2 198,15.8 294,25.6");
  assert.equal(evaluationPoints(turns, "Black").split(" ").length, 4);
  assert.equal(evaluationPoints([], "White"), "");
});

test("a player's mistakes, biggest first", () => {
  assert.deepEqual(mistakesOf(review, 1).map((t) => t.number), [2]);
  assert.deepEqual(mistakesOf(review, 0).map((t) => t.number), [3]);
});

test("the turn played beside the best one found", () => {
  assert.equal(turnText(turns[1]), "Turn 2, Black: played c3 d4; best b2 d5 (−0.30, blunder)");
  assert.equal(turnText(turns[0]), "Turn 1, White: played e5 a1 (the best found)");
  assert.equal(turnText({ ...turns[1], played: "swap", best: ["c3", "b4"], loss: 0.47 }),
    "Turn 2, Black: played swap; best c3 b4 (−0.47, blunder)");
});

test("ghosts show the best turn after the turn played, unless they are the same", () => {
  assert.deepEqual(bestGhosts(review, 2), [{ cell: "b2", color: "White" }, { cell: "d5", color: "Black" }]);
  assert.deepEqual(bestGhosts(review, 1), []);
  assert.deepEqual(bestGhosts(review, 0), []);
  assert.deepEqual(bestGhosts(null, 2), []);
  assert.deepEqual(bestGhosts({ ...review, turns: [{ ...turns[1], best: "swap" }] }, 1), []);
});

test("the score scale: 0 in the middle, the biggest margin at an edge", () => {
  const margins = [{ White: 0, Black: 0 }, { White: 0.69, Black: -0.69 }, { White: -1.38, Black: 1.38 }];
  assert.equal(marginSpan(margins), 1.38);
  assert.deepEqual(marginHeights(margins, "Black", 1.38), [0.5, 0.25, 1]);
  assert.equal(graphPoints(marginHeights(margins, "Black", 1.38)), "6,55 150,79.5 294,6");
  assert.equal(graphPoints(marginHeights(margins, "White", 1.38)).split(" ")[2], "294,104");
  assert.equal(marginSpan([{ White: 0, Black: 0 }]), 1);  // nothing placed yet: a flat line in the middle
});

test("who cost whom what: signed amounts, and squares whose area follows the amount", () => {
  assert.equal(signed(0.84731), "+0.85");
  assert.equal(signed(-0.2513), "−0.25");
  assert.equal(signed(-0.0001), "0.00");
  const row = (player, net) => ({ player, color: "White", net, gain: {}, cost: {} });
  const account = { players: [row(0, { White: 1.0, Black: -0.25, Red: 0 }), row(1, { White: 0.0625, Black: 0, Red: 0 })], final: {} };
  assert.deepEqual(pictureSquares(account, ["White", "Black", "Red"]), [
    { player: 0, color: "White", side: 22, gain: true },
    { player: 0, color: "Black", side: 11, gain: false },
    { player: 1, color: "White", side: 5.5, gain: true },
  ]);
  assert.deepEqual(pictureSquares({ players: [row(0, { White: 0 })], final: {} }, ["White"]), []);
});

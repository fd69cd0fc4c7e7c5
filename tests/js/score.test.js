// The page's own group count on positions a person can check by eye (side 5).

import assert from "node:assert/strict";
import { test } from "node:test";

import { Geometry } from "../../src/omega/web/js/geometry.js";
import {
  factorsText, findGroups, formatScore, groupAt, groupOf, groupSizes, product, scores, sizesOf,
} from "../../src/omega/web/js/score.js";
import { stonesOf } from "./fixtures.js";

const geo = Geometry.of(5);
// Rows a, c and e never touch: a row of 5, a row of 4 and a row of 3.
const WHITE_60 = stonesOf("White", ["a1", "a2", "a3", "a4", "a5", "c1", "c2", "c3", "c4", "e1", "e2", "e3"]);

test("groups of 5, 4 and 3 score 5 x 4 x 3 = 60", () => {
  assert.deepEqual(groupSizes(geo, WHITE_60, "White"), [5, 4, 3]);
  assert.deepEqual(scores(geo, WHITE_60, ["White", "Black"]), { White: "60", Black: "0" });
  assert.equal(factorsText(groupSizes(geo, WHITE_60, "White")), "5 × 4 × 3 = 60");
});

test("one group of 12 scores only 12", () => {
  const line = stonesOf("White", ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "d1", "d2", "d3"]);
  assert.deepEqual(groupSizes(geo, line, "White"), [12]);
  assert.equal(product(groupSizes(geo, line, "White")), 12n);
});

test("stones of another colour split a group", () => {
  const stones = { ...stonesOf("White", ["e4", "e6"]), e5: "Black" };
  assert.deepEqual(groupSizes(geo, stones, "White"), [1, 1]);
  assert.deepEqual(groupAt(geo, stones, "e4"), ["e4"]);
  assert.deepEqual(groupAt(geo, stones, "a1"), []);
});

test("groups are found once and looked up by cell", () => {
  const groups = findGroups(geo, { ...WHITE_60, i9: "Black" });
  assert.equal(groups.list.length, 4);
  assert.deepEqual(groupOf(groups, "c3"), ["c1", "c2", "c3", "c4"]);
  assert.deepEqual(groupOf(groups, "i9"), ["i9"]);
  assert.deepEqual(groupOf(groups, "i8"), []);
  assert.deepEqual(sizesOf(groups, "Black"), [1]);
});

test("a product beyond JavaScript's exact numbers stays exact", () => {
  const sizes = Array(20).fill(7);
  assert.equal(product(sizes).toString(), "79792266297612001");
  assert.equal(formatScore("79792266297612001"), "7.979 × 10¹⁶");
  assert.equal(factorsText(sizes), "7²⁰ = 7.979 × 10¹⁶");
});

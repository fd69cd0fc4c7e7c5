// The page's rating texts and chart geometry (src/omega/web/js/ratings.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { changeText, chartGeometry, ratingText } from "../../src/omega/web/js/ratings.js";

test("a rating reads with its provisional mark", () => {
  assert.equal(ratingText({ display: 1000, games: 1, wins: 0, provisional: true }), "1000?");
  assert.equal(ratingText({ display: 1412, games: 30, wins: 12, provisional: false }), "1412");
  assert.equal(ratingText(null), "unrated");
});

test("a change says its sign", () => {
  assert.equal(changeText(1000, 1043), "1000 → 1043 (+43)");
  assert.equal(changeText(1043, 1000), "1043 → 1000 (−43)");
  assert.equal(changeText(1000, 1000), "1000 → 1000 (±0)");
});

test("the chart starts before the first game and spans the box", () => {
  const g = chartGeometry([{ before: 1000, after: 1040 }, { before: 1040, after: 1020 }], 100, 50, 0);
  assert.equal(g.points, "0,50 50,0 100,25");
  assert.deepEqual([g.low, g.high, g.values], [1000, 1040, [1000, 1040, 1020]]);
  assert.equal(chartGeometry([], 100, 50, 0).points, "");
  // One flat game still draws inside the box.
  assert.equal(chartGeometry([{ before: 1000, after: 1000 }], 100, 50, 10).points, "10,40 90,40");
});

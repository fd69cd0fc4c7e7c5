// The live list's logic (src/omega/web/js/live.js): seats named, filters as a query string.
import assert from "node:assert/strict";
import { test } from "node:test";

import { liveQuery, seatText } from "../../src/omega/web/js/live.js";

test("a seat is its username with its rating, a computer its level, else a guest", () => {
  assert.equal(seatText({ index: 0, kind: "human", level: null, username: "Ann", rating: 1117 }), "Ann (1117)");
  assert.equal(seatText({ index: 1, kind: "human", level: null, username: "Bob", rating: null }), "Bob");
  assert.equal(seatText({ index: 2, kind: "computer", level: 3, username: null, rating: null }), "computer level 3");
  assert.equal(seatText({ index: 3, kind: "human", level: null, username: null, rating: null }), "guest");
});

test("the filters' query leaves empty ones out and trims the rest", () => {
  assert.equal(liveQuery({ username: " Ann ", players: "", size: "7", rated: "true" }), "?username=Ann&size=7&rated=true");
  assert.equal(liveQuery({ username: "", players: "" }), "");
  assert.equal(liveQuery({ username: "a&b" }), "?username=a%26b");
});

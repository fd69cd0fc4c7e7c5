// The lobby list's filters and pages on the page (src/omega/web/js/lobbyquery.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { ANY, clockKind, isAny, lobbyPath, pageText, passes } from "../../src/omega/web/js/lobbyquery.js";

const table = (players, size, rated, time_control) => ({ players, size, rated, time_control });

test("a clock's kind is the server's word for it", () => {
  assert.equal(clockKind(null), "untimed");
  assert.equal(clockKind("3+2"), "realtime");
  assert.equal(clockKind("180+60"), "realtime");
  assert.equal(clockKind("12h"), "turn_based");
  assert.equal(clockKind("3d+7d"), "turn_based");
});

test("the path names only the filters set, and the offset past the first page", () => {
  assert.equal(lobbyPath(ANY, 0), "/api/lobby");
  assert.equal(lobbyPath({ ...ANY, size: "7" }, 0), "/api/lobby?size=7");
  assert.equal(lobbyPath({ players: "3", size: "6", rated: "false", clock: "turn_based" }, 40),
    "/api/lobby?players=3&size=6&rated=false&time_control=turn_based&offset=40");
  assert.ok(isAny(ANY) && !isAny({ ...ANY, rated: "true" }));
});

test("a pushed table passes the filters the server would pass it by", () => {
  const rated5 = table(2, 5, true, "5+5");
  assert.ok(passes(ANY, rated5));
  assert.ok(passes({ players: "2", size: "5", rated: "true", clock: "realtime" }, rated5));
  assert.ok(!passes({ ...ANY, players: "3" }, rated5));
  assert.ok(!passes({ ...ANY, size: "6" }, rated5));
  assert.ok(!passes({ ...ANY, rated: "false" }, rated5));
  assert.ok(!passes({ ...ANY, clock: "untimed" }, rated5));
  assert.ok(passes({ ...ANY, rated: "false", clock: "untimed" }, table(4, 10, false, null)));
  assert.ok(passes({ ...ANY, clock: "turn_based" }, table(3, 6, false, "1d")));
});

test("the pager counts from one", () => {
  assert.equal(pageText(0, 20, 153), "Tables 1–20 of 153");
  assert.equal(pageText(140, 13, 153), "Tables 141–153 of 153");
  assert.equal(pageText(0, 0, 0), "");
  // A table pushed live onto a full page never reads as more than the total.
  assert.equal(pageText(0, 4, 3), "Tables 1–4 of 4");
});

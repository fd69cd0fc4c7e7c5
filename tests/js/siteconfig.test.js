// The lobby's choices come from the server's limits (GET /api/config), not from the page.

import assert from "node:assert/strict";
import { test } from "node:test";

import { levelOption, playerCounts, sizeOption } from "../../src/omega/web/js/siteconfig.js";

test("the form offers what the server allows", () => {
  assert.deepEqual(playerCounts({ players: { min: 2, max: 4 } }), [2, 3, 4]);
  assert.deepEqual(playerCounts({ players: { min: 2, max: 6 } }), [2, 3, 4, 5, 6]);
  assert.deepEqual(sizeOption({ size: 7, cells: 127 }), { value: "7", text: "7 (127 cells)" });
});

test("a level shows its name when it has one, and its description as the title", () => {
  assert.deepEqual(levelOption({ level: 2 }), { value: "2", text: "level 2", title: null });
  assert.deepEqual(levelOption({ level: 5, name: "Master", description: "Searches for five seconds" }),
    { value: "5", text: "level 5 · Master", title: "Searches for five seconds" });
});

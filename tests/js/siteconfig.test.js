// The lobby's choices come from the server's limits (GET /api/config), not from the page.

import assert from "node:assert/strict";
import { test } from "node:test";

import { computerText, levelOption, playerCounts, quickClock, quickClocks, sizeOption } from "../../src/omega/web/js/siteconfig.js";

test("the form offers what the server allows", () => {
  assert.deepEqual(playerCounts({ players: { min: 2, max: 4 } }), [2, 3, 4]);
  assert.deepEqual(playerCounts({ players: { min: 2, max: 6 } }), [2, 3, 4, 5, 6]);
  assert.deepEqual(sizeOption({ size: 7, cells: 127 }), { value: "7", text: "7 (127 cells)" });
});

test("a level shows its name when it has one, and its description as the title", () => {
  assert.deepEqual(levelOption({ level: 2 }), { value: "2", text: "level 2", title: null });
  assert.deepEqual(levelOption({ level: 5, name: "Master", description: "Searches for five seconds" }),
    { value: "5", text: "level 5 · Master", title: "Searches for five seconds" });
  assert.deepEqual(levelOption({ level: 3, name: "Learner", description: "Slips", rating: 1000 }),
    { value: "3", text: "level 3 · Learner · rating 1000", title: "Slips" });
});

test("a computer opponent is named by its level, with its rating where there is one", () => {
  assert.equal(computerText(12, 3600), "computer level 12 (rating 3600)");
  assert.equal(computerText(4, null), "computer level 4");
});

/** Quick play's part of GET /api/config's time_controls, as the server sends it. */
const CONTROLS = {
  quickplay: { default: "5+5", presets: ["3+2", "5+5", "10+10"] },
  realtime: { presets: [{ text: "3+2", label: "3 minutes + 2 seconds a move" }, { text: "5+5", label: "5 minutes + 5 seconds a move" }] },
};

test("quick play offers the server's clocks in its order, each in the server's words", () => {
  assert.deepEqual(quickClocks(CONTROLS), [
    { value: "3+2", text: "3 minutes + 2 seconds a move" },
    { value: "5+5", text: "5 minutes + 5 seconds a move" },
    // A preset the server gave no words for reads as its text.
    { value: "10+10", text: "10+10" },
  ]);
});

test("quick play preselects this device's last clock while offered, else the server's default", () => {
  assert.equal(quickClock(CONTROLS.quickplay, null), "5+5");
  assert.equal(quickClock(CONTROLS.quickplay, "10+10"), "10+10");
  // A clock the server stopped offering is not sent: it would be refused.
  assert.equal(quickClock(CONTROLS.quickplay, "1+0"), "5+5");
  assert.equal(quickClock({ default: "3+2", presets: ["3+2"] }, null), "3+2");
});

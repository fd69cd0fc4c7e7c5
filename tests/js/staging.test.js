// Staging a turn and sending it, without a browser: the staging order, undo, typed cells,
// a reload mid-turn, the request id kept for a retry, refusals, a stale version sent again, a hint.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { opened, table } from "./fixtures.js";

describe("staging a turn", () => {
  test("the mover's own colour comes first, then the others in turn order", () => {
    // Black's turn with 3 players, read by Black's seat: Black, Red, White.
    const m = opened(table({ players: 3, toMove: "Black", seat: 1, you: 1 }));
    assert.deepEqual(Staging.stagingOrder(m), ["Black", "Red", "White"]);
    assert.equal(Staging.nextColor(m), "Black");
    const staged = Staging.clickCell(Staging.clickCell(Staging.clickCell(m, "c3"), "d4"), "e5");
    assert.deepEqual(Staging.stagedStones(staged), [
      { cell: "c3", color: "Black" }, { cell: "d4", color: "Red" }, { cell: "e5", color: "White" },
    ]);
    assert.equal(Staging.nextColor(staged), null);
    assert.ok(Staging.isComplete(staged));
    // The API takes colour order: White, Black, Red.
    assert.deepEqual(Staging.turnCells(staged), ["e5", "c3", "d4"]);
  });

  test("undo takes back the last stone, and so does a click on it", () => {
    const m = opened(table(), "e5", "a1");
    assert.deepEqual(Staging.undoStone(m).staged, ["e5"]);
    assert.deepEqual(Staging.clickCell(m, "a1").staged, ["e5"]);
    assert.deepEqual(Staging.undoStone(Staging.undoStone(Staging.undoStone(m))).staged, []);
    // Nothing is taken back while the turn is being sent.
    const sending = Staging.sendStarted(m);
    assert.equal(Staging.undoStone(sending), sending);
  });

  test("a taken cell, a cell staged already and a full turn are refused with a reason", () => {
    const m = opened(table({ stones: { e5: "White" } }));
    assert.deepEqual(Staging.stage(m, "e5").message, { kind: "info", text: "e5 is not empty." });
    const one = Staging.stage(m, "a1");
    assert.deepEqual(Staging.stage(one, "a1").message, { kind: "info", text: "a1 is not empty." });
    const full = Staging.stage(one, "i9");
    assert.deepEqual(Staging.stage(full, "b2").staged, ["a1", "i9"]);
    assert.equal(Staging.stage(full, "b2").message.text, "All stones are placed: Confirm, or Undo to move one.");
  });

  test("off my turn nothing stages, and the click is told why; a spectator is told they are watching", () => {
    const waiting = opened(table({ toMove: "Black", seat: 1, you: 0 }), "e5");
    assert.deepEqual(waiting.staged, []);
    assert.deepEqual(waiting.message, { kind: "info", text: "It is not your turn: Black (Player 2) is to move." });
    const watching = opened(table({ you: null }), "e5");
    assert.equal(watching.seat, null);
    assert.deepEqual(watching.staged, []);
    assert.deepEqual(watching.message, { kind: "info", text: "You are watching this table." });
  });

  test("a typed cell name stages with Enter; a wrong one is named", () => {
    let m = opened(table());
    assert.equal(["x", "y", "z", "1"].reduce(Staging.typeKey, m).buffer, "yz1"); // the last three keys
    m = Staging.typeKey(Staging.typeKey(m, "E"), "5");
    assert.equal(m.buffer, "e5");
    m = Staging.enterTyped(m);
    assert.deepEqual([m.staged, m.buffer], [["e5"], ""]);
    m = Staging.enterTyped(Staging.typeKey(Staging.typeKey(m, "z"), "9"));
    assert.deepEqual(m.message, { kind: "info", text: '"z9" is not a cell on this board.' });
    assert.equal(Staging.eraseKey(Staging.typeKey(m, "a")).buffer, "");
  });

  test("staged stones kept over a reload stay only where the cell is still free, on my turn", () => {
    const state = table({ stones: { a1: "Black" } });
    assert.deepEqual(T.loaded(T.initialModel(), state, ["e5", "a1"]).staged, ["e5"]);
    const notMine = table({ toMove: "Black", seat: 1 });
    assert.deepEqual(T.loaded(T.initialModel(), notMine, ["e5"]).staged, []);
  });
});

describe("confirming", () => {
  test("a retry of the same turn keeps its request id; another turn gets a new one", () => {
    const m = opened(table(), "e5", "a1");
    const first = Staging.prepareTurn(m, "id-1");
    assert.deepEqual([first.cells, first.requestId], [["e5", "a1"], "id-1"]);
    const again = Staging.prepareTurn(Staging.sendFailed(first.model), "id-2");
    assert.equal(again.requestId, "id-1");
    const other = Staging.prepareTurn(Staging.clickCell(Staging.clickCell(again.model, "a1"), "b2"), "id-3");
    assert.deepEqual([other.cells, other.requestId], [["e5", "b2"], "id-3"]);
    assert.equal(Staging.prepareTurn(Staging.undoStone(m), "id-4"), null); // not every colour is placed
  });

  test("a refusal names the staged stones lost to cells taken meanwhile", () => {
    const before = opened(table(), "e5", "b2");
    // Another device of the same player played e5; the computer answered; my turn again.
    const after = T.applyState(before, table({ version: 4, stones: { e5: "White", a1: "Black", c3: "White", i9: "Black" }, history: [["e5", "a1"], ["c3", "i9"]] }));
    assert.deepEqual(after.staged, ["b2"]);
    const told = Staging.refused(after, before.staged, "The table changed meanwhile");
    assert.deepEqual(told.message, {
      kind: "error", text: "The table changed meanwhile e5 was taken meanwhile; your other staged stones are kept.",
    });
    assert.equal(Staging.refused(before, before.staged, "Cannot reach the server.").message.text, "Cannot reach the server. Your staged stones are kept.");
  });

  test("a stale version on an unchanged position is sent again", () => {
    const m = opened(table({ version: 3 }), "e5", "a1");
    assert.ok(Staging.needsRefetch("stale_version"));
    assert.ok(!Staging.needsRefetch("network"));
    assert.ok(Staging.shouldResend(m, "stale_version", true, 0));
    assert.ok(!Staging.shouldResend(m, "stale_version", false, 0));
    assert.ok(!Staging.shouldResend(m, "stale_version", true, 1)); // the position moved
    assert.ok(!Staging.shouldResend(m, "illegal_move", true, 0));
  });
});

describe("a hint", () => {
  test("replaces what was staged with its stones in staging order, and says so", () => {
    // Black's turn with 3 players: the hint comes in colour order (White, Black, Red), staged
    // Black first.
    const m = opened(table({ players: 3, toMove: "Black", seat: 1, you: 1 }), "a1");
    const hinted = Staging.stageHint(m, ["e5", "c3", "d4"]);
    assert.deepEqual(Staging.stagedStones(hinted), [
      { cell: "c3", color: "Black" }, { cell: "d4", color: "Red" }, { cell: "e5", color: "White" },
    ]);
    assert.deepEqual(Staging.turnCells(hinted), ["e5", "c3", "d4"]);
    assert.equal(hinted.message.text, "Hint staged: confirm it, or change it.");
  });

  test("a swap is told, and the staging stays", () => {
    const m = opened(table({ toMove: "Black", seat: 1, you: 1, canSwap: true }), "a1");
    const hinted = Staging.stageHint(m, "swap");
    assert.deepEqual(hinted.staged, ["a1"]);
    assert.equal(hinted.message.text, "Hint: take the other colour (Swap).");
  });
});

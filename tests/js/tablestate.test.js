// The table page's state without a browser: staging, keys, server states, previews, replay.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as T from "../../src/omega/web/js/tablestate.js";
import { stonesOf, table } from "./fixtures.js";

/** The model after the first table state, with stones staged by clicks. */
function opened(state, ...clicks) {
  let m = T.loaded(T.initialModel(), state, []);
  for (const cell of clicks) m = T.clickCell(m, cell);
  return m;
}

describe("staging a turn", () => {
  test("the mover's own colour comes first, then the others in turn order", () => {
    // Black's turn with 3 players, read by Black's seat: Black, Red, White.
    const m = opened(table({ players: 3, toMove: "Black", seat: 1, you: 1 }));
    assert.deepEqual(T.stagingOrder(m), ["Black", "Red", "White"]);
    assert.equal(T.nextColor(m), "Black");
    const staged = T.clickCell(T.clickCell(T.clickCell(m, "c3"), "d4"), "e5");
    assert.deepEqual(T.stagedStones(staged), [
      { cell: "c3", color: "Black" }, { cell: "d4", color: "Red" }, { cell: "e5", color: "White" },
    ]);
    assert.equal(T.nextColor(staged), null);
    assert.ok(T.isComplete(staged));
    // The API takes colour order: White, Black, Red.
    assert.deepEqual(T.turnCells(staged), ["e5", "c3", "d4"]);
  });

  test("undo takes back the last stone, and so does a click on it", () => {
    const m = opened(table(), "e5", "a1");
    assert.deepEqual(T.undoStone(m).staged, ["e5"]);
    assert.deepEqual(T.clickCell(m, "a1").staged, ["e5"]);
    assert.deepEqual(T.undoStone(T.undoStone(T.undoStone(m))).staged, []);
    // Nothing is taken back while the turn is being sent.
    const sending = T.sendStarted(m);
    assert.equal(T.undoStone(sending), sending);
  });

  test("a taken cell, a cell staged already and a full turn are refused with a reason", () => {
    const m = opened(table({ stones: { e5: "White" } }));
    assert.deepEqual(T.stage(m, "e5").message, { kind: "info", text: "e5 is not empty." });
    const one = T.stage(m, "a1");
    assert.deepEqual(T.stage(one, "a1").message, { kind: "info", text: "a1 is not empty." });
    const full = T.stage(one, "i9");
    assert.deepEqual(T.stage(full, "b2").staged, ["a1", "i9"]);
    assert.equal(T.stage(full, "b2").message.text, "All stones are placed: Confirm, or Undo to move one.");
  });

  test("off my turn nothing stages; a spectator is told they are watching", () => {
    const waiting = opened(table({ toMove: "Black", seat: 1, you: 0 }), "e5");
    assert.deepEqual(waiting.staged, []);
    assert.equal(waiting.message, null);
    const watching = opened(table({ you: null }), "e5");
    assert.equal(watching.seat, null);
    assert.deepEqual(watching.staged, []);
    assert.deepEqual(watching.message, { kind: "info", text: "You are watching this table." });
  });

  test("a typed cell name stages with Enter; a wrong one is named", () => {
    let m = opened(table());
    assert.equal(["x", "y", "z", "1"].reduce(T.typeKey, m).buffer, "yz1"); // the last three keys
    m = T.typeKey(T.typeKey(m, "E"), "5");
    assert.equal(m.buffer, "e5");
    m = T.enterTyped(m);
    assert.deepEqual([m.staged, m.buffer], [["e5"], ""]);
    m = T.enterTyped(T.typeKey(T.typeKey(m, "z"), "9"));
    assert.deepEqual(m.message, { kind: "info", text: '"z9" is not a cell on this board.' });
    assert.equal(T.eraseKey(T.typeKey(m, "a")).buffer, "");
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
    const first = T.prepareTurn(m, "id-1");
    assert.deepEqual([first.cells, first.requestId], [["e5", "a1"], "id-1"]);
    const again = T.prepareTurn(T.sendFailed(first.model), "id-2");
    assert.equal(again.requestId, "id-1");
    const other = T.prepareTurn(T.clickCell(T.clickCell(again.model, "a1"), "b2"), "id-3");
    assert.deepEqual([other.cells, other.requestId], [["e5", "b2"], "id-3"]);
    assert.equal(T.prepareTurn(T.undoStone(m), "id-4"), null); // not every colour is placed
  });

  test("a refusal names the staged stones lost to cells taken meanwhile", () => {
    const before = opened(table(), "e5", "b2");
    // Another device of the same player played e5; the computer answered; my turn again.
    const after = T.applyState(before, table({ version: 4, stones: { e5: "White", a1: "Black", c3: "White", i9: "Black" }, history: [["e5", "a1"], ["c3", "i9"]] }));
    assert.deepEqual(after.staged, ["b2"]);
    const told = T.refused(after, before.staged, "The table changed meanwhile");
    assert.deepEqual(told.message, {
      kind: "error", text: "The table changed meanwhile e5 was taken meanwhile; your other staged stones are kept.",
    });
    assert.equal(T.refused(before, before.staged, "Cannot reach the server.").message.text, "Cannot reach the server. Your staged stones are kept.");
  });

  test("a stale version on an unchanged position is sent again", () => {
    const m = opened(table({ version: 3 }), "e5", "a1");
    assert.ok(T.needsRefetch("stale_version"));
    assert.ok(!T.needsRefetch("network"));
    assert.ok(T.shouldResend(m, "stale_version", true, 0));
    assert.ok(!T.shouldResend(m, "stale_version", false, 0));
    assert.ok(!T.shouldResend(m, "stale_version", true, 1)); // the position moved
    assert.ok(!T.shouldResend(m, "illegal_move", true, 0));
  });
});

describe("server states and events", () => {
  test("an older version changes nothing; a newer one replaces the state, even past a gap", () => {
    const m = opened(table({ version: 5 }), "e5");
    assert.equal(T.applyState(m, table({ version: 4 })), m);
    const joined = T.applyState(m, table({ version: 5, seats: { 1: { name: "Bo" } } }));
    assert.equal(joined.state.seats[1].name, "Bo"); // the same version again is taken
    assert.deepEqual(joined.staged, ["e5"]);
    const later = T.applyState(m, table({ version: 9, seats: { 1: { connected: false } } }));
    assert.equal(later.state.version, 9);
    assert.deepEqual(later.staged, ["e5"]); // only presence moved: the staging stays
  });

  test("sync and event messages bring states; stale events are ignored", () => {
    let m = T.initialModel();
    m = T.applyServerMessage(m, { type: "sync", version: 2, state: table({ version: 2 }) });
    assert.equal(m.seat, 0);
    const event = { type: "event", version: 3, event: { kind: "turn", seat: 0, color: "White", cells: ["e5", "a1"], computer: false } };
    m = T.applyServerMessage(m, { ...event, state: table({ version: 3, toMove: "Black", seat: 1, stones: { e5: "White", a1: "Black" }, history: [["e5", "a1"]] }) });
    assert.equal(m.state.game.to_move, "Black");
    assert.equal(T.applyServerMessage(m, { ...event, version: 2, state: table({ version: 2 }) }), m);
    assert.equal(T.applyServerMessage(m, { type: "ack", request_id: "r", version: 3 }), m);
    assert.equal(T.applyServerMessage(m, { type: "pong" }), m);
    const refusedMsg = T.applyServerMessage(m, { type: "error", request_id: null, error: { code: "rate_limited", message: "slow down" } });
    assert.deepEqual(refusedMsg.message, { kind: "error", text: "Too many requests; wait a moment: slow down" });
  });

  test("a presence message changes who is connected, nothing else", () => {
    const m = opened(table({ version: 5 }), "e5");
    const gone = T.applyServerMessage(m, { type: "presence", version: 5, seats: [true, false] });
    assert.deepEqual(gone.state.seats.map((s) => s.connected), [true, false]);
    assert.equal(gone.state.version, 5);
    assert.deepEqual(gone.staged, ["e5"]);
    // The same news again, or news that does not fit the table, changes nothing.
    assert.equal(T.applyServerMessage(gone, { type: "presence", version: 5, seats: [true, false] }), gone);
    assert.equal(T.applyServerMessage(gone, { type: "presence", version: 5, seats: [true] }), gone);
    assert.equal(T.applyServerMessage(T.initialModel(), { type: "presence", version: 1, seats: [true, true] }).state, null);
  });

  test("when the turn passes, the staging, the typing and the old sentence go", () => {
    let m = T.typeKey(opened(table(), "e5"), "a");
    m = T.note(m, "info", "hello");
    const passed = T.applyState(m, table({ version: 2, toMove: "Black", seat: 1, stones: { e5: "White", a1: "Black" }, history: [["e5", "a1"]] }));
    assert.deepEqual([passed.staged, passed.buffer, passed.message, passed.pending], [[], "", null, null]);
  });

  test("a live socket after a loss asks for the table again", () => {
    let { model, refresh } = T.connectionChanged(T.initialModel(), "live");
    assert.equal(refresh, false);
    ({ model, refresh } = T.connectionChanged(model, "reconnecting"));
    assert.deepEqual([model.conn, model.everLive, refresh], ["reconnecting", true, false]);
    ({ model, refresh } = T.connectionChanged(model, "live"));
    assert.equal(refresh, true);
  });
});

describe("previews", () => {
  // White: a row of 5 and a row of 4 and a row of 2 (5 x 4 x 2 = 40); Black: nothing yet.
  const stones = stonesOf("White", ["a1", "a2", "a3", "a4", "a5", "c1", "c2", "c3", "c4", "e1", "e2"]);

  test("staging e3 makes groups of 5, 4 and 3: the panel previews 60", () => {
    const m = opened(table({ stones }), "e3", "i5");
    assert.deepEqual(T.previewScores(m), { White: "60", Black: "1" });
    const [white, black] = T.panelFacts(m);
    assert.deepEqual([white.score, white.preview], ["40", { value: "60", up: true }]);
    assert.deepEqual([black.score, black.preview], ["0", { value: "1", up: true }]);
  });

  test("a stone that joins two groups lowers the product", () => {
    // b1 joins a1-a5 and c1-c4: one group of 10 and one of 2 = 20 instead of 40.
    const m = opened(table({ stones }), "b1");
    assert.deepEqual(T.panelFacts(m)[0].preview, { value: "20", up: false });
  });

  test("nothing staged, no preview; a hovered panel shows its factors", () => {
    const m = opened(table({ stones }));
    assert.equal(T.previewScores(m), null);
    const hovered = T.hoverPanel(m, "White");
    const [white, black] = T.panelFacts(hovered);
    assert.deepEqual([white.preview, white.factors, black.factors], [null, [5, 4, 2], null]);
    assert.equal(T.leavePanel(hovered, "Black"), hovered);
    assert.equal(T.leavePanel(hovered, "White").hover, null);
  });

  test("groups are counted once per position, not once per hover", () => {
    const m = opened(table({ stones }), "e3");
    const groups = T.positionGroups(m);
    assert.equal(T.positionGroups(T.hoverCell(m, "a2", 10, 10)), groups);
    assert.notEqual(T.positionGroups(T.clickCell(m, "i5")), groups);
  });

  test("the board outlines the hovered group and names its size", () => {
    const m = opened(table({ stones }), "e3");
    const scene = T.boardScene(T.hoverCell(m, "e1", 100, 50));
    assert.deepEqual(scene.outline, ["e1", "e2", "e3"]); // the staged stone counts
    assert.deepEqual(scene.tip, { text: "White group of 3", x: 100, y: 50 });
    assert.equal(scene.ghost, null);
    const empty = T.boardScene(T.hoverCell(m, "i9", 0, 0));
    assert.deepEqual([empty.outline, empty.ghost, empty.tip], [[], { cell: "i9", color: "Black" }, null]);
    assert.equal(T.boardScene(T.hoverPanel(m, "White")).outline.length, 12);
  });
});

describe("replay", () => {
  const history = [["e5", "a1"], ["c3", "i9"], ["b2", "h8"]];
  const played = table({ version: 7, history, stones: { e5: "White", a1: "Black", c3: "White", i9: "Black", b2: "White", h8: "Black" } });

  test("steps stay within the game; the end is the live position", () => {
    const m = opened(played);
    assert.deepEqual(T.replayPosition(m), { at: 3, total: 3, live: true });
    assert.equal(T.replayStep(m, 1), 3);
    assert.equal(T.replayStep(m, -1), 2);
    const back = T.replayTo(m, 1);
    assert.deepEqual(T.replayPosition(back), { at: 1, total: 3, live: false });
    assert.equal(T.replayStep(back, -5), 0);
    assert.equal(T.replayTo(back, 3).replayAt, null);
  });

  test("a replayed position is shown once it arrives, unless another was asked for meanwhile", () => {
    const view = { ...played.game, stones: { e5: "White", a1: "Black" }, history: history.slice(0, 1) };
    const asked = T.replayTo(opened(played), 1);
    assert.equal(T.shownView(asked), null); // loading
    assert.deepEqual(T.promptFacts(asked), { kind: "replay", at: 1, total: 3 });
    const shown = T.replayArrived(asked, 1, view);
    assert.deepEqual(T.boardScene(shown).stones, { e5: "White", a1: "Black" });
    const moved = T.replayTo(asked, 2);
    assert.equal(T.replayArrived(moved, 1, view), moved);
    assert.ok(T.buttonFacts(shown).hidden); // no staging while replaying
  });

  test("staged stones are not shown over a replayed position", () => {
    const m = T.replayArrived(T.replayTo(opened(played, "d4"), 0), 0, { ...played.game, stones: {}, history: [] });
    assert.deepEqual(m.staged, ["d4"]);
    assert.deepEqual(T.boardScene(m).staged, []);
    assert.equal(T.previewScores(m), null);
  });
});

describe("prompt and buttons", () => {
  test("the prompt follows the turn", () => {
    assert.deepEqual(T.promptFacts(opened(table({ players: 3 }))),
      { kind: "stage", color: "White", index: 0, order: ["White", "Black", "Red"] });
    assert.deepEqual(T.promptFacts(opened(table(), "e5", "a1")), { kind: "complete" });
    const bot = table({ toMove: "Black", seat: 1, seats: { 1: { kind: "computer", level: 3, name: "Computer 2, level 3" } } });
    assert.deepEqual(T.promptFacts(opened(bot)),
      { kind: "wait", color: "Black", name: "Computer 2, level 3", computer: 3, watching: false });
    assert.deepEqual(T.promptFacts(opened(table({ status: "over", over: true }))), { kind: "over", winner: "White", name: "Player 1" });
  });

  test("the pie offer goes once a stone is staged or it is turned down", () => {
    const m = opened(table({ toMove: "Black", seat: 1, you: 1, canSwap: true }));
    assert.ok(T.buttonFacts(m).pieOffer);
    assert.ok(!T.buttonFacts(T.clickCell(m, "e5")).pieOffer);
    assert.ok(!T.buttonFacts(T.dismissPie(m)).pieOffer);
  });

  test("a resigned seat has no buttons and cannot resign again", () => {
    const m = opened(table({ seats: { 0: { resigned: true } } }));
    assert.ok(T.buttonFacts(m).hidden);
    assert.ok(!T.canResign(m));
    assert.ok(T.canResign(opened(table())));
  });
});

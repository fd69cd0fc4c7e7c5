// What a new player meets, without a browser: waiting for friends, why a click does
// nothing, a swap told, an error that goes once the page is live, how a game ended and
// where I finished, the move log's order, the marks since my turn, and the wording.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { factorsText } from "../../src/omega/web/js/score.js";
import * as Replay from "../../src/omega/web/js/replay.js";
import * as Scene from "../../src/omega/web/js/scene.js";
import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { cellLabel } from "../../src/omega/web/js/views/board.js";
import { ordinal, placeLine } from "../../src/omega/web/js/views/gameover.js";
import { replayText } from "../../src/omega/web/js/views/replay.js";
import { table } from "./fixtures.js";

const open = (state) => T.loaded(T.initialModel(), state, []);

describe("a table for friends", () => {
  const waiting = table({ seats: { 1: { joined: false } } });

  test("the first turn waits until the others open their invites, unless started at once", () => {
    const m = open(waiting);
    assert.deepEqual(T.awaited(m).map((s) => s.index), [1]);
    assert.ok(T.waitsForJoin(m));
    assert.deepEqual(Scene.promptFacts(m), { kind: "join", names: ["Player 2"] });
    const clicked = Staging.clickCell(m, "e5");
    assert.deepEqual(clicked.staged, []);
    assert.match(clicked.message.text, /^Waiting for Player 2 to join/);
    const started = Staging.clickCell(T.startNow(m), "e5");
    assert.deepEqual(started.staged, ["e5"]);
    // Once Player 2 is here (a join event), the turn is simply mine.
    const joined = T.applyState(m, table({ version: 2 }));
    assert.ok(!T.waitsForJoin(joined));
  });

  test("nobody waits once a move is made, nor for computers", () => {
    assert.ok(!T.waitsForJoin(open(table({ history: [["e5", "a1"]], seats: { 1: { joined: false } } }))));
    assert.ok(!T.waitsForJoin(open(table({ seats: { 1: { kind: "computer", joined: false } } }))));
  });
});

describe("clicks that stage nothing say why", () => {
  test("replay, the end, a resigned seat", () => {
    const m = open(table({ history: [["e5", "a1"]], stones: { e5: "White", a1: "Black" } }));
    assert.match(Staging.whyNoStaging(Replay.replayTo(m, 0)), /earlier position/);
    assert.equal(Staging.whyNoStaging(open(table({ status: "over", over: true }))), "The game is over.");
    assert.match(Staging.whyNoStaging(open(table({ seats: { 0: { resigned: true } } }))), /^You resigned/);
    assert.equal(Staging.whyNoStaging(Staging.sendStarted(m)), null);
  });
});

describe("a swap", () => {
  const before = table({ version: 3, toMove: "Black", seat: 1, you: 0, history: [["e5", "a1"]], stones: { e5: "White", a1: "Black" } });
  const after = table({
    version: 4, toMove: "Black", seat: 0, you: 0, history: [["e5", "a1"], "swap"], stones: { e5: "White", a1: "Black" },
    seats: { 0: { color: "Black" }, 1: { color: "White", name: "Bo" } },
  });

  test("tells the other player which colour they now play", () => {
    assert.deepEqual(T.applyState(open(before), after).message,
      { kind: "info", text: "Bo swapped colours: you now play Black." });
  });

  test("tells the swapper too, and nobody on a later state", () => {
    const mine = T.loaded(T.initialModel(), { ...before, you: { seat: 1 } }, []);
    const swapped = T.applyState(mine, { ...after, you: { seat: 1 } });
    assert.equal(swapped.message.text, "You swapped colours: you now play White.");
    const later = T.applyState(T.applyState(open(before), after), { ...after, version: 5 });
    assert.equal(later.message.text, "Bo swapped colours: you now play Black.");
  });
});

describe("the connection", () => {
  test("a network error goes once the socket is live again; other errors stay", () => {
    let m = T.note(open(table()), "error", "Cannot reach the server.", "network");
    ({ model: m } = T.connectionChanged(m, "reconnecting"));
    assert.equal(m.message.code, "network");
    ({ model: m } = T.connectionChanged(m, "live"));
    assert.equal(m.message, null);
    const other = T.note(open(table()), "error", "That move is not allowed", "illegal_move");
    assert.equal(T.connectionChanged(other, "live").model.message.text, "That move is not allowed");
    assert.equal(Staging.refused(open(table()), [], "Cannot reach the server.", "network").message.code, "network");
  });
});

describe("the end of a game", () => {
  test("a full board, a resignation or an abandoned table", () => {
    // Side 2 has 7 cells; 2 players end below 4 empty cells.
    const full = { a1: "White", a2: "Black", b1: "White", b2: "Black" };
    assert.equal(Scene.endReason(open(table({ size: 2, status: "over", over: true, stones: full }))), "board_full");
    const resigned = table({ status: "over", over: true });
    resigned.game.resigned = ["White"];
    assert.equal(Scene.endReason(open(resigned)), "resignation");
    assert.equal(Scene.promptFacts(open(resigned)).reason, "resignation");
    assert.equal(Scene.endReason(open(table({ status: "over", over: true }))), "abandoned");
    assert.equal(Scene.endReason(open(table())), null);
  });

  test("where I finished", () => {
    const over = table({ players: 4, status: "over", over: true, you: 2 });
    over.game.ranking = ["Blue", "Red", "White", "Black"];
    assert.deepEqual(Scene.myPlace(open(over)), { place: 2, of: 4 });
    assert.equal(placeLine({ place: 2, of: 4 }), "You finished 2nd of 4.");
    assert.equal(placeLine({ place: 1, of: 2 }), "You won! You finished 1st of 2.");
    assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal), ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]);
    assert.equal(Scene.myPlace(open(table({ you: null, status: "over", over: true }))), null);
  });
});

describe("the move log and the marks", () => {
  const history = [["e5", "a1", "c3"], ["e4", "a2", "c4"], ["e3", "a3", "c5"], ["e2", "a4", "c1"]];

  test("each turn lists its stones in the order the mover placed them", () => {
    assert.deepEqual(Replay.moversOf([["e5", "a1"], "swap", ["c3", "d4"]], 2), ["White", null, "Black"]);
    assert.deepEqual(Replay.placedOrder(["e4", "a2", "c4"], "Black").map((s) => `${s.color} ${s.cell}`),
      ["Black a2", "Red c4", "White e4"]);
  });

  test("every turn since mine is marked; a spectator sees the last one only", () => {
    // Three players, four turns: White, Black, Red, White. Read by Black (seat 1).
    const m = open(table({ players: 3, history, toMove: "Black", seat: 1, you: 1 }));
    assert.deepEqual(Replay.markedTurns(m, true).map((t) => t.entry), [3, 4]);
    assert.deepEqual(Replay.markedTurns(m, false).map((t) => t.entry), [4]);
    const watcher = open(table({ players: 3, history, you: null }));
    assert.deepEqual(Replay.markedTurns(watcher, true).map((t) => t.entry), [4]);
    // My own turn last: only it.
    const white = open(table({ players: 3, history, toMove: "Black", seat: 1, you: 0 }));
    assert.deepEqual(Replay.markedTurns(white, true).map((t) => t.entry), [4]);
    const scene = Scene.boardScene(m, true);
    assert.deepEqual(scene.numbers, { e3: 3, a3: 3, c5: 3, e2: 4, a4: 4, c1: 4 });
    assert.deepEqual(scene.recent, ["e3", "a3", "c5"]);
  });
});

describe("screen readers", () => {
  test("every cell has a name that says what is on it", () => {
    assert.equal(cellLabel("e5", { stone: null, staged: null, last: false }), "e5, empty");
    assert.equal(cellLabel("e5", { stone: "White", staged: null, last: true }), "e5, White stone, last turn");
    assert.equal(cellLabel("a1", { stone: null, staged: "Black", last: false }), "a1, Black stone staged");
  });
});

describe("wording", () => {
  test("one move, one group", () => {
    assert.equal(replayText(1, 1, true), "Live: 1 move (← → step through)");
    assert.equal(replayText(3, 3, true), "Live: 3 moves (← → step through)");
    assert.equal(replayText(0, 0, true), "No moves yet.");
    assert.equal(replayText(2, 2, true, false), "Live: 2 moves");
    assert.equal(factorsText([2]), "2 (one group)");
    assert.equal(factorsText([3, 2]), "3 × 2 = 6");
  });
});

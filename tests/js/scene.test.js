// What the table page shows, without a browser: previews of the staged stones, the hover
// outline, the prompt and the buttons.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Scene from "../../src/omega/web/js/scene.js";
import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { opened, stonesOf, table } from "./fixtures.js";

describe("previews", () => {
  // White: a row of 5 and a row of 4 and a row of 2 (5 x 4 x 2 = 40); Black: nothing yet.
  const stones = stonesOf("White", ["a1", "a2", "a3", "a4", "a5", "c1", "c2", "c3", "c4", "e1", "e2"]);

  test("staging e3 makes groups of 5, 4 and 3: the panel previews 60", () => {
    const m = opened(table({ stones }), "e3", "i5");
    assert.deepEqual(Scene.previewScores(m), { White: "60", Black: "1" });
    const [white, black] = Scene.panelFacts(m);
    assert.deepEqual([white.score, white.preview], ["40", { value: "60", up: true }]);
    assert.deepEqual([black.score, black.preview], ["0", { value: "1", up: true }]);
  });

  test("a stone that joins two groups lowers the product", () => {
    // b1 joins a1-a5 and c1-c4: one group of 10 and one of 2 = 20 instead of 40.
    const m = opened(table({ stones }), "b1");
    assert.deepEqual(Scene.panelFacts(m)[0].preview, { value: "20", up: false });
  });

  test("nothing staged, no preview; a hovered panel shows its factors", () => {
    const m = opened(table({ stones }));
    assert.equal(Scene.previewScores(m), null);
    const hovered = T.hoverPanel(m, "White");
    const [white, black] = Scene.panelFacts(hovered);
    assert.deepEqual([white.preview, white.factors, black.factors], [null, [5, 4, 2], null]);
    assert.equal(T.leavePanel(hovered, "Black"), hovered);
    assert.equal(T.leavePanel(hovered, "White").hover, null);
  });

  test("groups are counted once per position, not once per hover", () => {
    const m = opened(table({ stones }), "e3");
    const groups = Scene.positionGroups(m);
    assert.equal(Scene.positionGroups(T.hoverCell(m, "a2", 10, 10)), groups);
    assert.notEqual(Scene.positionGroups(Staging.clickCell(m, "i5")), groups);
  });

  test("the board outlines the hovered group and names its size", () => {
    const m = opened(table({ stones }), "e3");
    const scene = Scene.boardScene(T.hoverCell(m, "e1", 100, 50));
    assert.deepEqual(scene.outline, ["e1", "e2", "e3"]); // the staged stone counts
    assert.deepEqual(scene.tip, { text: "White group of 3", x: 100, y: 50 });
    assert.equal(scene.ghost, null);
    const empty = Scene.boardScene(T.hoverCell(m, "i9", 0, 0));
    assert.deepEqual([empty.outline, empty.ghost, empty.tip], [[], { cell: "i9", color: "Black" }, null]);
    assert.equal(Scene.boardScene(T.hoverPanel(m, "White")).outline.length, 12);
  });
});

describe("prompt and buttons", () => {
  test("the prompt follows the turn", () => {
    assert.deepEqual(Scene.promptFacts(opened(table({ players: 3 }))),
      { kind: "stage", color: "White", index: 0, order: ["White", "Black", "Red"] });
    assert.deepEqual(Scene.promptFacts(opened(table(), "e5", "a1")), { kind: "complete" });
    const bot = table({ toMove: "Black", seat: 1, seats: { 1: { kind: "computer", level: 3, name: "Computer (Medium)" } } });
    assert.deepEqual(Scene.promptFacts(opened(bot)),
      { kind: "wait", color: "Black", name: "Computer (Medium)", computer: 3, watching: false });
    assert.deepEqual(Scene.promptFacts(opened(table({ status: "over", over: true }))),
      { kind: "over", winner: "White", name: "Player 1", reason: "abandoned", claimed: false });
  });

  test("the pie offer goes once a stone is staged or it is turned down", () => {
    const m = opened(table({ toMove: "Black", seat: 1, you: 1, canSwap: true }));
    assert.ok(Scene.buttonFacts(m).pieOffer);
    assert.ok(!Scene.buttonFacts(Staging.clickCell(m, "e5")).pieOffer);
    assert.ok(!Scene.buttonFacts(T.dismissPie(m)).pieOffer);
  });

  test("a resigned seat has no buttons and cannot resign again", () => {
    const m = opened(table({ seats: { 0: { resigned: true } } }));
    assert.ok(Scene.buttonFacts(m).hidden);
    assert.ok(!Scene.canResign(m));
    assert.ok(Scene.canResign(opened(table())));
  });
});

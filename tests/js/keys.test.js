// What a key means at the table, without a browser (docs/web.md's Keyboard table): the step
// keys.js gives the controller, and whether the browser's own meaning is kept back.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { activateStep, keyStep } from "../../src/omega/web/js/keys.js";
import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { opened, table } from "./fixtures.js";

/** A key press without modifiers. */
const press = (key, mods = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });
const BODY = { tagName: "BODY", isContentEditable: false };
const played = table({ version: 3, history: [["e5", "a1"]], stones: { e5: "White", a1: "Black" } });

describe("keys", () => {
  test("letters and digits type a cell name; Enter stages it; Backspace erases, then undoes", () => {
    let m = opened(table());
    const typed = keyStep(m, press("E"), BODY);
    assert.equal(typed.prevent, true);
    assert.equal(typed.step.kind, "set");
    m = typed.step.model;
    m = keyStep(m, press("5"), BODY).step.model;
    assert.equal(m.buffer, "e5");
    const entered = keyStep(m, press("Enter"), BODY).step;
    assert.equal(entered.kind, "stage");
    assert.deepEqual(entered.model.staged, ["e5"]);
    const typing = Staging.typeKey(entered.model, "a");
    assert.equal(keyStep(typing, press("Backspace"), BODY).step.model.buffer, "");
    const undo = keyStep(entered.model, press("Backspace"), BODY).step;
    assert.equal(undo.kind, "unstage");
    assert.deepEqual(undo.model.staged, []);
  });

  test("Enter with every stone placed confirms, even from a button; otherwise a button keeps its Enter", () => {
    const full = opened(table(), "e5", "a1");
    const button = { tagName: "BUTTON", isContentEditable: false };
    assert.deepEqual(keyStep(full, press("Enter"), button), { step: { kind: "confirm" }, prevent: true });
    assert.equal(keyStep(opened(table(), "e5"), press("Enter"), button), null);
    // Nothing typed and stones still to place: Enter does nothing, and nothing else happens.
    assert.deepEqual(keyStep(opened(table(), "e5"), press("Enter"), BODY), { step: null, prevent: true });
  });

  test("the arrows step the replay once there is a move; Escape clears the typing and the outline", () => {
    const m = opened(played);
    assert.deepEqual(keyStep(m, press("ArrowLeft"), BODY), { step: { kind: "replay", at: 0 }, prevent: true });
    assert.equal(keyStep(opened(table()), press("ArrowLeft"), BODY), null);
    const hovered = T.hoverCell(Staging.typeKey(m, "b"), "e5", 1, 2);
    const esc = keyStep(hovered, press("Escape"), BODY);
    assert.equal(esc.prevent, false);
    assert.equal(esc.step.model.buffer, "");
    assert.equal(esc.step.model.hover, null);
  });

  test("keys are not the table's in a text field, with a modifier, off my turn, or before the table", () => {
    const m = opened(table());
    assert.equal(keyStep(m, press("e"), { tagName: "INPUT", isContentEditable: false }), null);
    assert.equal(keyStep(m, press("e"), { tagName: "DIV", isContentEditable: true }), null);
    assert.equal(keyStep(m, press("e", { ctrlKey: true }), BODY), null);
    assert.equal(keyStep(opened(table({ toMove: "Black", seat: 1 })), press("e"), BODY), null);
    assert.equal(keyStep(T.initialModel(), press("e"), BODY), null);
  });
});

describe("Enter or Space on a focused cell", () => {
  test("stages there; a typed name goes first; a complete turn confirms", () => {
    const m = opened(table());
    const here = activateStep(m, "c3");
    assert.equal(here.kind, "stage");
    assert.deepEqual(here.model.staged, ["c3"]);
    assert.deepEqual(activateStep(Staging.typeKey(Staging.typeKey(m, "e"), "5"), "c3").model.staged, ["e5"]);
    assert.deepEqual(activateStep(opened(table(), "e5", "a1"), "c3"), { kind: "confirm" });
  });
});

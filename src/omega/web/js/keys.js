// @ts-check
// What a key, or Enter on a focused cell, means at the table: a step for the controller
// (docs/web.md's Keyboard table). Pure.

import { canStage, clickCell, enterTyped, eraseKey, escapeKey, isComplete, typeKey, undoStone } from "./staging.js";
import { game, isLoaded } from "./tablestate.js";
import { replayStep } from "./replay.js";

/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./tabletypes.js").Step} Step */
/** @typedef {import("./tabletypes.js").KeyPress} KeyPress */
/** @typedef {import("./tabletypes.js").KeyTarget} KeyTarget */

/**
 * What a key press means now: the step, and whether the browser's own meaning of the key
 * is to be kept from happening. Null: the key is not the table's (a text field has the
 * focus, a modifier is held, or the key means nothing here).
 * @param {Model} m
 * @param {KeyPress} press
 * @param {KeyTarget | null} target
 * @returns {{step: Step | null, prevent: boolean} | null}
 */
export function keyStep(m, press, target) {
  if (!isLoaded(m) || press.ctrlKey || press.metaKey || press.altKey) return null;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return null;
  const key = press.key;
  if (key === "ArrowLeft" || key === "ArrowRight") {
    if (!game(m).history.length) return null;
    return { step: { kind: "replay", at: replayStep(m, key === "ArrowLeft" ? -1 : 1) }, prevent: true };
  }
  if (key === "Escape") return { step: { kind: "set", model: escapeKey(m) }, prevent: false };
  if (!canStage(m)) return null;
  if (/^[a-zA-Z0-9]$/.test(key)) return { step: { kind: "set", model: typeKey(m, key) }, prevent: true };
  if (key === "Enter") {
    // With every stone placed, Enter means Confirm even if another button kept the focus;
    // otherwise a focused button (Swap, Play on, …) handles its own Enter.
    if (target && target.tagName === "BUTTON" && !m.buffer && !isComplete(m)) return null;
    return { step: enterStep(m), prevent: true };
  }
  if (key === "Backspace") {
    return { step: m.buffer ? { kind: "set", model: eraseKey(m) } : { kind: "unstage", model: undoStone(m) }, prevent: true };
  }
  return null;
}

/**
 * Enter (or Space) on a focused cell: Enter's own meanings first (the typed cell, then
 * Confirm), else the cell is clicked.
 * @param {Loaded} m
 * @param {Cell} cell
 * @returns {Step}
 */
export function activateStep(m, cell) {
  if (m.buffer || (isComplete(m) && canStage(m))) return /** @type {Step} */ (enterStep(m));
  return { kind: "stage", model: clickCell(m, cell) };
}

/**
 * Enter: stage the typed cell, or Confirm once every stone is placed (null: nothing to do).
 * @param {Loaded} m
 * @returns {Step | null}
 */
function enterStep(m) {
  if (m.buffer) return { kind: "stage", model: enterTyped(m) };
  return isComplete(m) ? { kind: "confirm" } : null;
}

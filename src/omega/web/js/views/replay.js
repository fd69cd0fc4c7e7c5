// @ts-check
// The replay bar: a slider and buttons stepping through the positions after each move.
// It is there from the start (disabled before the first move), so nothing below it moves
// when the first turn is played.

import { h } from "../dom.js";
import { replayPosition } from "../replay.js";
import { t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

/**
 * The line under the slider.
 * @example replayText(1, 1, true) // "Live: 1 move (← → step through)"
 * @param {number} at
 * @param {number} total
 * @param {boolean} live
 * @param {boolean} [keys] whether to mention the arrow keys (not on a touch screen)
 */
export function replayText(at, total, live, keys = true) {
  if (!total) return t("No moves yet.");
  const moves = total === 1 ? t("{n} move", { n: total }) : t("{n} moves", { n: total });
  return live ? t("Live: {moves}{value}", { moves, value: keys ? t(" (← → step through)") : "" }) : t("After move {at} of {total}", { at, total });
}

export class ReplayView {
  /**
   * @param {{onGo: (k: number) => void, onStep: (delta: number) => void, onLive: () => void}} handlers
   *   show the position after k moves; step from the one shown; back to the live position
   * @param {boolean} touch whether to leave out the keyboard's keys
   */
  constructor(handlers, touch) {
    this.keys = !touch;
    const { onGo, onStep, onLive } = handlers;
    this.slider = h("input", { type: "range", min: "0", max: "0", step: "1", value: "0", "aria-label": t("Replay position") });
    this.slider.addEventListener("input", () => onGo(Number(this.slider.value)));
    this.position = h("div", { class: "replay-pos muted" }, replayText(0, 0, true));
    this.buttons = [
      h("button", { type: "button", class: "btn small", "aria-label": t("Start"), onclick: () => onGo(0) }, "«"),
      h("button", { type: "button", class: "btn small", "aria-label": t("Back one move"), onclick: () => onStep(-1) }, "‹"),
      h("button", { type: "button", class: "btn small", "aria-label": t("Forward one move"), onclick: () => onStep(1) }, "›"),
      h("button", { type: "button", class: "btn small", "aria-label": t("Live position"), onclick: onLive }, "»"),
    ];
    const [start, back, forward, live] = this.buttons;
    this.el = h("section", { class: "replay", "aria-label": t("Replay") },
      h("h2", {}, t("Replay")),
      h("div", { class: "row" }, start, back, this.slider, forward, live),
      this.position);
    this.setEnabled(false);
  }

  /** @param {boolean} on */
  setEnabled(on) {
    for (const b of [...this.buttons, this.slider]) if (b.disabled === on) b.disabled = !on;
  }

  /** @param {Loaded} m */
  update(m) {
    const { at, total, live } = replayPosition(m);
    this.setEnabled(total > 0);
    if (this.slider.max !== String(total)) this.slider.max = String(total);
    if (this.slider.value !== String(at)) this.slider.value = String(at);
    const text = replayText(at, total, live, this.keys);
    if (this.position.textContent !== text) this.position.textContent = text;
  }
}

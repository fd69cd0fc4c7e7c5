// @ts-check
// The replay bar: a slider and buttons stepping through the positions after each move.

import { h } from "../dom.js";
import { replayPosition } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

export class ReplayView {
  /**
   * @param {{onGo: (k: number) => void, onStep: (delta: number) => void, onLive: () => void}} handlers
   *   show the position after k moves; step from the one shown; back to the live position
   */
  constructor(handlers) {
    this.el = h("section", { class: "replay", hidden: true });
    this.slider = h("input", { type: "range", min: "0", step: "1", "aria-label": "Replay position" });
    this.slider.addEventListener("input", () => handlers.onGo(Number(this.slider.value)));
    this.position = h("div", { class: "replay-pos muted" });
    this.built = false;
    this.handlers = handlers;
  }

  build() {
    const { onGo, onStep, onLive } = this.handlers;
    this.el.append(
      h("h2", {}, "Replay"),
      h("div", { class: "row" },
        h("button", { type: "button", class: "btn small", "aria-label": "Start", onclick: () => onGo(0) }, "«"),
        h("button", { type: "button", class: "btn small", "aria-label": "Back one move", onclick: () => onStep(-1) }, "‹"),
        this.slider,
        h("button", { type: "button", class: "btn small", "aria-label": "Forward one move", onclick: () => onStep(1) }, "›"),
        h("button", { type: "button", class: "btn small", "aria-label": "Live position", onclick: onLive }, "»")),
      this.position);
    this.built = true;
  }

  /** @param {Loaded} m */
  update(m) {
    const { at, total, live } = replayPosition(m);
    this.el.hidden = total === 0;
    if (!total) return;
    if (!this.built) this.build();
    if (this.slider.max !== String(total)) this.slider.max = String(total);
    if (this.slider.value !== String(at)) this.slider.value = String(at);
    const text = live ? `Live: ${total} moves (← → step through)` : `After move ${at} of ${total}`;
    if (this.position.textContent !== text) this.position.textContent = text;
  }
}

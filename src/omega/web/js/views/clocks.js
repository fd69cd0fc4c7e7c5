// @ts-check
// The clocks of a timed table, one in each player panel: the running one counts down to
// the server's flag time (by the server's clock, through the offset measured when the
// socket connected), red in its last 10 % or 20 s. Turn-based clocks read in days and
// hours. The server alone decides a flag: at 0:00 the page waits for its timeout event.

import { clockFacts } from "../clocks.js";
import { isLoaded } from "../tablestate.js";
import { t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Model} Model */

export class ClocksView {
  /** @param {HTMLElement} panels the player panels, each with its `.clock` slot */
  constructor(panels) {
    this.panels = panels;
    /** @type {Model | null} */
    this.model = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.timer = undefined;
    this.every = 0;
  }

  /** Stop ticking (the page is left). */
  stop() {
    clearInterval(this.timer);
    this.every = 0;
    this.model = null;
  }

  /** @param {Model} m */
  update(m) {
    this.model = m;
    this.draw();
  }

  draw() {
    const m = this.model;
    const facts = m && isLoaded(m) ? clockFacts(m, Date.now()) : null;
    for (const f of facts || []) {
      const slot = /** @type {HTMLElement | null} */ (this.panels.querySelector(`.panel[data-color="${f.color}"] .clock`));
      if (!slot) continue;
      if (slot.textContent !== f.text) slot.textContent = f.text;
      slot.classList.toggle("running", f.running);
      slot.classList.toggle("low", f.low);
      slot.classList.toggle("out", f.out);
      slot.title = f.out ? t("out of time") : f.running ? t("time left on this turn") : t("time for the next turn");
    }
    // Tick only while a clock runs: ten times a second in real time, once a second turn-based.
    const running = facts && m && m.state && m.state.clock ? facts.some((f) => f.running) : false;
    const every = !running ? 0 : m && m.state && m.state.clock && m.state.clock.kind === "realtime" ? 100 : 1000;
    if (every !== this.every) {
      clearInterval(this.timer);
      this.every = every;
      this.timer = every ? setInterval(() => this.draw(), every) : undefined;
    }
  }
}

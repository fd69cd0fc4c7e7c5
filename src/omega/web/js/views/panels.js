// @ts-check
// The player panels, one per colour in turn order: name, tags, presence, score and the
// preview of the staged stones; the factors while hovered. A panel is redrawn only when
// what it shows changed.

import { fill, h, keyed, swatch } from "../dom.js";
import { factorsText, formatScore } from "../score.js";
import { panelFacts } from "../scene.js";
import { colorsInPlay } from "../tablestate.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../types.js").Color} Color */
/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../scene.js").PanelFacts} PanelFacts */

export class PanelsView {
  /**
   * @param {{onEnter: (color: Color) => void, onLeave: (color: Color) => void}} handlers
   *   the pointer or the focus entered or left a panel
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.el = h("div", { class: "panels", "aria-label": t("Players") });
    /** @type {Map<Color, HTMLElement>} */
    this.panels = new Map();
  }

  /** @param {Loaded} m */
  update(m) {
    const colors = colorsInPlay(m);
    if (this.panels.size !== colors.length) this.build(colors);
    for (const facts of panelFacts(m)) {
      const el = /** @type {HTMLElement} */ (this.panels.get(facts.color));
      el.classList.toggle("to-move", facts.toMove);
      el.classList.toggle("mine", facts.mine);
      el.classList.toggle("hovered", facts.hovered);
      el.classList.toggle("resigned", facts.resigned);
      keyed(el, JSON.stringify(facts), () => drawPanel(el, facts));
    }
  }

  /** @param {Color[]} colors */
  build(colors) {
    this.panels.clear();
    this.el.replaceChildren();
    for (const color of colors) {
      const el = h("div", { class: "panel", "data-color": color, tabindex: "0" });
      const enter = () => this.handlers.onEnter(color);
      const leave = () => this.handlers.onLeave(color);
      el.addEventListener("mouseenter", enter);
      el.addEventListener("mouseleave", leave);
      el.addEventListener("focus", enter);
      el.addEventListener("blur", leave);
      this.el.append(el);
      this.panels.set(color, el);
    }
  }
}

/**
 * @param {HTMLElement} el
 * @param {PanelFacts} f
 */
function drawPanel(el, f) {
  const seat = f.seat;
  const tags = [];
  if (seat && f.mine) tags.push(h("span", { class: "tag you" }, t("you")));
  if (seat && seat.kind === "computer") tags.push(h("span", { class: "tag bot" }, seat.rating ? t("computer · level {level} · rating {rating}", { level: seat.level, rating: seat.rating }) : t("computer · level {level}", { level: seat.level })));
  // A claimed seat did not give up: its player left and kept the others waiting.
  if (f.resigned) tags.push(h("span", { class: "tag resigned" }, seat && seat.claimed ? "left" : "resigned"));
  if (seat && seat.timed_out) tags.push(h("span", { class: "tag resigned" }, t("out of time")));
  // A paused clock: the server says why ("vacation" is the one reason there is today).
  if (seat && seat.paused) tags.push(h("span", { class: "tag paused", "data-paused": seat.paused }, seat.paused === "vacation" ? t("on vacation") : t("clock paused")));
  if (seat && seat.hints_used) tags.push(h("span", { class: "tag hints" }, `${seat.hints_used} ${seat.hints_used === 1 ? "hint" : "hints"}`));
  const preview = f.preview
    ? h("span", { class: `preview ${f.preview.up ? "up" : "down"}`, title: t("{value} after the staged stones", { value: f.preview.value }) }, `→ ${formatScore(f.preview.value)}`)
    : null;
  fill(
    el,
    h("div", { class: "row1" },
      swatch(f.color),
      h("span", { class: "pname", title: f.label }, f.label),
      f.presence ? h("span", { class: `dot ${f.presence === "online" ? "on" : "off"}`, title: f.presence, role: "img", "aria-label": f.presence }) : null,
      h("span", { class: "score" },
        h("span", { class: "value", title: f.score, "data-score": f.score }, formatScore(f.score)),
        preview)),
    h("div", { class: "row2" },
      h("span", { class: "cname" }, colorName(f.color)),
      ...tags,
      f.toMove ? h("span", { class: "turn-flag" }, t("to move")) : null,
      // Filled and ticked by the clocks view (views/clocks.js) at a timed table.
      h("span", { class: "clock", role: "timer", "data-clock": f.color })),
    f.factors ? h("div", { class: "factors" }, factorsText(f.factors)) : null,
  );
}

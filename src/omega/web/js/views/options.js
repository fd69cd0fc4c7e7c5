// @ts-check
// The display options (coordinates, colour-blind marks), Resign… with its second question,
// and the keys.

import { fill, h, keyed } from "../dom.js";
import { canResign } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("./board.js").Display} Display */

/**
 * @typedef {object} OptionHandlers
 * @property {(name: keyof Display, on: boolean) => void} onDisplay
 * @property {(asking: boolean) => void} onAskResign
 * @property {() => void} onResign
 */

export class OptionsView {
  /**
   * @param {Display} display the options as the page starts with them
   * @param {OptionHandlers} handlers
   */
  constructor(display, handlers) {
    this.display = display;
    this.handlers = handlers;
    this.el = h("section", { class: "options" });
  }

  /** @param {Loaded} m */
  update(m) {
    const resign = canResign(m);
    keyed(this.el, `${resign}|${m.confirmResign}`, () => this.draw(resign, m.confirmResign));
  }

  /**
   * @param {boolean} resignable
   * @param {boolean} asking
   */
  draw(resignable, asking) {
    const { onDisplay, onAskResign, onResign } = this.handlers;
    /**
     * @param {keyof Display} name
     * @param {string} label
     */
    const toggle = (name, label) => {
      const box = h("input", { type: "checkbox", checked: this.display[name] });
      box.addEventListener("change", () => onDisplay(name, box.checked));
      return h("label", { class: "toggle" }, box, ` ${label}`);
    };
    let resign = null;
    if (resignable) {
      resign = asking
        ? h("span", {}, "Resign this game? ",
          h("button", { type: "button", class: "btn small undo", onclick: onResign }, "Yes, resign"),
          " ",
          h("button", { type: "button", class: "btn small", onclick: () => onAskResign(false) }, "No"))
        : h("button", { type: "button", class: "btn small", onclick: () => onAskResign(true) }, "Resign…");
    }
    fill(this.el,
      h("div", { class: "row" }, toggle("coords", "Coordinates"), toggle("markers", "Colour-blind marks")),
      resign ? h("div", { class: "row" }, resign) : null,
      h("p", { class: "muted keys" }, "Keys: type a cell (e5) + Enter to place · Enter to confirm · Backspace to undo · ← → replay"));
  }
}

// @ts-check
// The settings panel (kept on this device: sound, how a turn is sent, coordinates,
// colour-blind marks, the marks since my last turn, the theme), Resign… with its second
// question, and the keys.

import { fill, h, keyed } from "../dom.js";
import { canResign } from "../scene.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../store.js").Prefs} Prefs */
/** @typedef {import("../store.js").Toggle} Toggle */

/**
 * @typedef {object} OptionHandlers
 * @property {<K extends keyof Prefs>(name: K, value: Prefs[K]) => void} onSetting
 * @property {(asking: boolean) => void} onAskResign
 * @property {() => void} onResign
 */

/** @type {[Toggle, string, string][]} each on-off setting: its name, label and what it does */
const TOGGLES = [
  ["sound", "Sound", "a short tone when it becomes your turn"],
  ["notify", "Notifications", "a browser notification when it becomes your move while this tab is hidden"],
  ["coords", "Coordinates", "row letters and column numbers, cell names in empty cells"],
  ["markers", "Colour-blind marks", "ring White, cross Black, triangle Red, square Blue"],
  ["sinceMine", "Marks since my last turn", "number every turn played since yours, not only the last"],
];

export class OptionsView {
  /**
   * @param {Prefs} prefs the settings as the page starts with them
   * @param {OptionHandlers} handlers
   * @param {boolean} touch whether to leave out the keyboard's keys
   */
  constructor(prefs, handlers, touch) {
    this.prefs = prefs;
    this.handlers = handlers;
    this.settings = h("div", { class: "settings" });
    this.resign = h("div", { class: "row resign-row" });
    this.el = h("section", { class: "options", "aria-label": "Settings" },
      h("h2", {}, "Settings"), this.settings, this.resign,
      touch ? null : h("p", { class: "muted keys" }, "Keys: type a cell (e5) + Enter to place · Enter to confirm · Backspace to undo · ← → replay · Tab to the board, then arrows between cells"));
    this.drawSettings();
  }

  drawSettings() {
    const { onSetting } = this.handlers;
    const toggles = TOGGLES.map(([name, label, title]) => {
      const box = h("input", { type: "checkbox", checked: this.prefs[name], "data-setting": name });
      box.addEventListener("change", () => onSetting(name, box.checked));
      // Notifications are offered at timed tables, where a clock runs against the player.
      return h("label", { class: "toggle", title, hidden: name === "notify" }, box, ` ${label}`);
    });
    const send = h("select", { "aria-label": "Sending a turn", "data-setting": "autoSend" },
      h("option", { value: "confirm", selected: !this.prefs.autoSend }, "Confirm each turn"),
      h("option", { value: "auto", selected: this.prefs.autoSend }, "Send at the last stone"));
    send.addEventListener("change", () => onSetting("autoSend", send.value === "auto"));
    const theme = h("select", { "aria-label": "Theme", "data-setting": "theme" },
      ["system", "light", "dark"].map((t) => h("option", { value: t, selected: this.prefs.theme === t }, t === "system" ? "Theme as the system" : `${t[0].toUpperCase()}${t.slice(1)} theme`)));
    theme.addEventListener("change", () => onSetting("theme", theme.value === "light" || theme.value === "dark" ? theme.value : "system"));
    fill(this.settings, h("div", { class: "toggles" }, toggles), h("div", { class: "row" }, send, theme));
  }

  /** @param {Loaded} m */
  update(m) {
    const notify = /** @type {HTMLElement | null} */ (this.settings.querySelector('[data-setting="notify"]'));
    if (notify && notify.parentElement) notify.parentElement.hidden = !m.state.clock;
    const resign = canResign(m);
    keyed(this.resign, `${resign}|${m.confirmResign}`, () => this.drawResign(resign, m.confirmResign));
  }

  /**
   * @param {boolean} resignable
   * @param {boolean} asking
   */
  drawResign(resignable, asking) {
    const { onAskResign, onResign } = this.handlers;
    this.resign.hidden = !resignable;
    if (!resignable) {
      fill(this.resign);
      return;
    }
    fill(this.resign, asking
      ? h("span", {}, "Resign this game? ",
        h("button", { type: "button", class: "btn small undo", onclick: onResign }, "Yes, resign"),
        " ",
        h("button", { type: "button", class: "btn small", onclick: () => onAskResign(false) }, "No"))
      : h("button", { type: "button", class: "btn small", onclick: () => onAskResign(true) }, "Resign…"));
  }
}

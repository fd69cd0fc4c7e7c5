// @ts-check
// The settings panel (kept on this device: sound, how a turn is sent, coordinates,
// colour-blind marks, the marks since my last turn, the theme), Resign… with its second
// question, and the keys.

import { fill, h, keyed } from "../dom.js";
import { canResign } from "../scene.js";
import { languageSelect } from "./language.js";
import { t } from "../i18n.js";

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
  ["sound", t("Sound"), t("a short tone when it becomes your turn")],
  ["notify", t("Notifications"), t("a browser notification when it becomes your move while this tab is hidden")],
  ["coords", t("Coordinates"), t("row letters and column numbers, cell names in empty cells")],
  ["markers", t("Colour-blind marks"), t("ring White, cross Black, triangle Red, square Blue")],
  ["sinceMine", t("Marks since my last turn"), t("number every turn played since yours, not only the last")],
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
    this.el = h("section", { class: "options", "aria-label": t("Settings") },
      h("h2", {}, t("Settings")), this.settings, this.resign,
      touch ? null : h("p", { class: "muted keys" }, t("Keys: type a cell (e5) + Enter to place · Enter to confirm · Backspace to undo · ← → replay · Tab to the board, then arrows between cells")));
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
    const send = h("select", { "aria-label": t("Sending a turn"), "data-setting": "autoSend" },
      h("option", { value: "confirm", selected: !this.prefs.autoSend }, t("Confirm each turn")),
      h("option", { value: "auto", selected: this.prefs.autoSend }, t("Send at the last stone")));
    send.addEventListener("change", () => onSetting("autoSend", send.value === "auto"));
    const theme = h("select", { "aria-label": t("Theme"), "data-setting": "theme" },
      ["system", "light", "dark"].map((name) => h("option", { value: name, selected: this.prefs.theme === name }, name === "system" ? t("Theme as the system") : name === "light" ? t("Light theme") : t("Dark theme"))));
    theme.addEventListener("change", () => onSetting("theme", theme.value === "light" || theme.value === "dark" ? theme.value : "system"));
    fill(this.settings, h("div", { class: "toggles" }, toggles), h("div", { class: "row" }, send, theme, languageSelect()));
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
      ? h("span", {}, t("Resign this game? "),
        h("button", { type: "button", class: "btn small undo", onclick: onResign }, t("Yes, resign")),
        " ",
        h("button", { type: "button", class: "btn small", onclick: () => onAskResign(false) }, t("No")))
      : h("button", { type: "button", class: "btn small", onclick: () => onAskResign(true) }, t("Resign…")));
  }
}

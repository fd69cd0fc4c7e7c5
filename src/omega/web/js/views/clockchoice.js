// @ts-check
// The lobby's "Clock" field: untimed, a real-time preset or custom minutes + seconds, or a
// turn-based limit per move with an optional reserve, and whether a player's vacation may
// pause a turn-based clock (docs/server-api.md, Vacation). The choices and limits come from
// GET /api/config (time_controls); the page keeps no copy of them.

import { fill, h } from "../dom.js";
import { controlChoices, controlText } from "../timecontrol.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").TimeControlConfig} TimeControlConfig */

export class ClockChoice {
  /**
   * @param {string} [id] the field's id, and the prefix of its parts' (one page may hold two)
   * @param {string} [label] its accessible name, told apart from another one's
   * @param {{timed?: boolean}} [options] timed: no "Untimed" choice (a tournament's games need
   *   a clock), quick play's default clock first chosen
   */
  constructor(id = "clock", label = t("Clock"), { timed = false } = {}) {
    this.timed = timed;
    this.select = h("select", { id, "aria-label": label });
    this.minutes = h("input", { type: "number", id: `${id}-minutes`, "aria-label": t("Minutes per player"), value: "5", class: "num" });
    this.seconds = h("input", { type: "number", id: `${id}-seconds`, "aria-label": t("Seconds added per move"), value: "5", class: "num" });
    this.reserve = h("select", { id: `${id}-reserve`, "aria-label": t("Reserve") });
    this.custom = h("span", { class: "clock-custom", hidden: true }, this.minutes, t(" min + "), this.seconds, t(" s a move"));
    this.vacation = h("input", { type: "checkbox", id: `${id}-pausable`, checked: true });
    this.reserveRow = h("span", { class: "clock-reserve", hidden: true }, t(" reserve "), this.reserve,
      h("label", { class: "toggle", title: t("A player on vacation has this clock paused") }, " ", this.vacation, t(" vacation allowed")));
    this.el = h("span", { class: "clock-choice" }, this.select, " ", this.custom, this.reserveRow);
    this.select.addEventListener("change", () => this.draw());
  }

  /** @param {TimeControlConfig | undefined} config */
  setConfig(config) {
    if (!config) {
      this.el.hidden = true;
      return;
    }
    const choices = controlChoices(config);
    const chosen = this.timed ? config.quickplay.default : config.default;
    /** @param {string} group @param {string} label */
    const group = (group, label) => h("optgroup", { label },
      choices.filter((c) => c.group === group).map((c) => h("option", { value: c.value, selected: c.value === chosen }, c.label)));
    fill(this.select, this.timed ? [] : choices.filter((c) => c.group === "none").map((c) => h("option", { value: c.value }, c.label)),
      group("realtime", t("Real time (minutes + seconds a move)")), group("turn_based", t("Turn-based")));
    const r = config.realtime;
    Object.assign(this.minutes, { min: String(r.base_minutes.min), max: String(r.base_minutes.max) });
    Object.assign(this.seconds, { min: String(r.increment_seconds.min), max: String(r.increment_seconds.max) });
    const days = [];
    for (const d of [0, 1, 3, 7, 14, 30]) if (d >= config.turn_based.reserve_days.min && d <= config.turn_based.reserve_days.max) days.push(d);
    fill(this.reserve, days.map((d) => h("option", { value: String(d) }, d ? (d > 1 ? t("{days} days", { days: d }) : t("{days} day", { days: d })) : t("none"))));
    this.draw();
  }

  draw() {
    const v = this.select.value;
    this.custom.hidden = v !== "custom";
    this.reserveRow.hidden = !/^\d+[hd]$/.test(v);
  }

  /** Whether a player's vacation may pause the clock (POST /api/tables' `pausable`). */
  pausable() {
    return this.reserveRow.hidden || this.vacation.checked;
  }

  /** The chosen time control's text, as POST /api/tables takes it. */
  value() {
    return controlText(this.select.value || "untimed", Number(this.minutes.value), Number(this.seconds.value), Number(this.reserve.value || 0));
  }
}

// @ts-check
// The account panel's vacation section (docs/server-api.md, Vacation): the days left this
// year, going on vacation now (until a day, or until coming back), coming back, and the
// setting that lets a vacation start by itself when a turn-based clock is about to run out.
// The server says everything shown; the page only asks again after each change.

import * as account from "../account.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").Vacation} Vacation */

/**
 * A day and time as the section says them, in the player's own zone.
 * @param {string} iso
 */
function when(iso) {
  return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

/**
 * The start of the day `day` (a date input's `YYYY-MM-DD`) in the player's zone, as an ISO
 * time with its offset (the server refuses a time without one).
 * @param {string} day
 */
export function startOfDay(day) {
  return new Date(`${day}T00:00:00`).toISOString();
}

export class VacationSection {
  constructor() {
    this.el = h("section", { class: "vacation", "aria-label": t("Vacation") });
    this.note = h("div", { class: "account-note", role: "status" });
  }

  /** Ask the server where the vacation stands, and draw it. */
  async refresh() {
    try {
      this.draw(await account.vacation());
    } catch (err) {
      this.fail(err);
    }
  }

  /** @param {unknown} err */
  fail(err) {
    this.note.className = "account-note is-error";
    this.note.textContent = describe(err);
    if (!this.note.isConnected) this.el.append(this.note);
  }

  /**
   * Run a change, then draw what the server answers.
   * @param {() => Promise<Vacation>} change
   */
  async change(change) {
    try {
      this.draw(await change());
    } catch (err) {
      this.fail(err);
    }
  }

  /** @param {Vacation} v */
  draw(v) {
    this.note.className = "account-note";
    this.note.textContent = "";
    const left = h("p", { class: "vacation-left", "data-vacation": "left" },
      t("Vacation: {left} left of {allowance_days} days in {year}", { left: v.left, allowance_days: v.allowance_days, year: v.year }));
    const auto = h("input", { type: "checkbox", name: "automatic-vacation", checked: v.automatic });
    auto.addEventListener("change", () => this.change(() => account.setAutomaticVacation(auto.checked)));
    const automatic = h("label", { class: "toggle vacation-auto" }, auto,
      t(" Start it by itself when a turn-based clock has less than {automatic_before_hours} hours left", { automatic_before_hours: v.automatic_before_hours }));
    if (v.on_vacation) {
      const back = h("button", { type: "button", class: "btn small", "data-action": "end-vacation" }, t("End vacation"));
      back.addEventListener("click", () => this.change(() => account.endVacation()));
      const since = v.since ? when(v.since) : "";
      const until = v.until ? t("until {when}", { when: when(v.until) }) : t("until you come back");
      fill(this.el, h("h3", {}, t("Vacation")), left,
        h("p", { class: "vacation-on", "data-vacation": "on" },
          t("On vacation{value} since {since}, {until}. ", { value: v.started_automatically ? t(" (started by itself)") : "", since, until })
          + t("Your turn-based clocks are paused.")),
        back, automatic, this.note);
      return;
    }
    const day = h("input", { type: "date", name: "vacation-until", class: "account-input" });
    const field = h("label", { class: "account-field" }, h("span", {}, t("Until (empty: until I come back)")), day);
    const start = h("button", { type: "button", class: "btn small", "data-action": "start-vacation",
      disabled: v.left_hours < 1 }, t("Start vacation"));
    start.addEventListener("click", () =>
      this.change(() => account.startVacation(day.value ? startOfDay(day.value) : null)));
    fill(this.el, h("h3", {}, t("Vacation")), left,
      h("p", { class: "muted" }, t("On vacation your turn-based clocks are paused; real-time games go on.")),
      field, start, automatic, this.note);
  }
}

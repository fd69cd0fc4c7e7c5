// @ts-check
// The "New tournament" form of /tournaments, for a logged-in player: name, format, players
// per table, board, clock (the lobby's clock choice, a clock required), rated, rounds (Swiss)
// or length (arena), start in the viewer's own time, an optional round deadline, public or
// private. The limits come from GET /api/config (`tournaments`); a refusal, the page's or
// the server's, is said in words next to the button and points at its field, and what was
// typed stays.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { sizeOption } from "../siteconfig.js";
import { FORMATS, TOURNAMENT_HEADS, fieldOfError, localInputValue, offsetAt, tournamentBody } from "../tournaments.js";
import { ClockChoice } from "./clockchoice.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").SiteConfig} SiteConfig */
/** @typedef {import("../tournamenttypes.js").TournamentLimits} TournamentLimits */
/** @typedef {import("../tournamenttypes.js").TournamentView} TournamentView */

/** A new tournament starts this long from now unless the player says otherwise (ms). */
const DEFAULT_LEAD = 10 * 60_000;

/**
 * A labelled field of the form: its label, the control, and a line of help under it.
 * @param {string} id the control's id
 * @param {string} label
 * @param {HTMLElement} control
 * @param {string} [help]
 */
function field(id, label, control, help) {
  return h("div", { class: "field", "data-field": id },
    h("label", { class: "label", for: id }, label), control,
    help ? h("span", { class: "muted small" }, help) : null);
}

export class NewTournamentForm {
  /** @param {{onCreated: (t: TournamentView) => void}} on */
  constructor(on) {
    this.on = on;
    /** @type {TournamentLimits | null} */
    this.limits = null;
    this.name = h("input", { type: "text", id: "t-name", autocomplete: "off", placeholder: t("Friday Swiss") });
    /** @type {"swiss" | "arena" | "round_robin"} */
    this.format = "swiss";
    this.formats = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("Format") });
    this.formatHelp = h("p", { class: "muted small format-help" });
    this.players = h("select", { id: "t-players" });
    this.size = h("select", { id: "t-size" });
    this.clock = new ClockChoice("t-clock", t("Clock"), { timed: true });
    // A player's vacation pausing a turn-based clock is the tournament's `vacation`.
    this.rated = h("input", { type: "checkbox", id: "t-rated", checked: true });
    this.rounds = h("input", { type: "number", id: "t-rounds", class: "num", value: "5", inputmode: "numeric" });
    this.minutes = h("input", { type: "number", id: "t-minutes", class: "num", value: "30", inputmode: "numeric" });
    this.roundMinutes = h("input", { type: "number", id: "t-round_minutes", class: "num", placeholder: "none", inputmode: "numeric" });
    this.starts = h("input", { type: "datetime-local", id: "t-starts" });
    this.zone = h("span", { class: "muted small" });
    this.public = h("input", { type: "checkbox", id: "t-public" });
    this.error = h("div", { class: "message is-error", role: "alert", "data-form-error": "" });
    this.button = h("button", { type: "submit", class: "btn confirm" }, t("Create tournament"));
    this.roundsField = field("t-rounds", t("Rounds"), this.rounds);
    this.minutesField = field("t-minutes", t("Length (minutes)"), this.minutes);
    this.roundMinutesField = field("t-round_minutes", t("Round deadline (minutes, optional)"), this.roundMinutes,
      t("A round lasts at most this long: the next one starts then, and whoever is still playing sits it out. Empty: a round waits for its last game."));
    this.form = h("form", {
      class: "create tournament-form", "aria-label": t("New tournament"), novalidate: true,
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        this.submit();
      },
    },
    field("t-name", t("Name"), this.name),
    h("div", { class: "field" }, h("span", { class: "label" }, t("Format")), this.formats, this.formatHelp),
    field("t-players", t("Players per table"), this.players),
    field("t-size", t("Board side"), this.size),
    h("div", { class: "field", "data-field": "t-clock" }, h("label", { class: "label", for: "t-clock" }, t("Clock")), this.clock.el),
    h("div", { class: "field" }, h("label", { class: "toggle" }, this.rated, t(" Rated"),
      h("span", { class: "muted" }, t(" — the games change the players' ratings")))),
    this.roundsField, this.minutesField,
    h("div", { class: "field", "data-field": "t-starts" }, h("label", { class: "label", for: "t-starts" }, t("Start")), this.starts, this.zone),
    this.roundMinutesField,
    h("div", { class: "field" }, h("label", { class: "toggle" }, this.public, t(" Public")),
      h("span", { class: "muted small" }, t("Listed for everyone; only a moderator may make a public tournament. A private one is not listed: players join it by its link, shown on its page."))),
    this.error, this.button);
    this.guest = h("p", { class: "muted" }, t("Log in (top right) to make a tournament."));
    this.el = h("section", { class: "card new-tournament" }, h("h2", {}, t("New tournament")), this.guest, this.form);
    this.form.addEventListener("input", (e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      target.removeAttribute("aria-invalid");
    });
    this.starts.addEventListener("input", () => this.drawZone());
    account.onChange((user) => this.showFor(user));
    this.showFor(account.known());
  }

  /** @param {import("../types.js").User | null} user */
  showFor(user) {
    this.form.hidden = !user;
    this.guest.hidden = Boolean(user);
  }

  /**
   * The limits and choices of the site (GET /api/config).
   * @param {SiteConfig} config
   */
  setConfig(config) {
    const limits = config.tournaments;
    if (!limits) {
      this.el.hidden = true;
      return;
    }
    this.limits = limits;
    this.name.maxLength = limits.name_max;
    const counts = [];
    for (let n = limits.players[0]; n <= limits.players[1]; n++) counts.push(n);
    fill(this.players, counts.map((n) => h("option", { value: String(n) }, t("{n} players", { n }))));
    fill(this.size, config.sizes.map((s) => {
      const o = sizeOption(s);
      return h("option", { value: o.value, selected: s.size === config.default_size }, o.text);
    }));
    this.clock.setConfig(config.time_controls);
    Object.assign(this.rounds, { min: String(limits.rounds[0]), max: String(limits.rounds[1]) });
    this.rounds.value = String(Math.min(Math.max(5, limits.rounds[0]), limits.rounds[1]));
    Object.assign(this.minutes, { min: String(limits.arena_minutes[0]), max: String(limits.arena_minutes[1]) });
    Object.assign(this.roundMinutes, { min: String(limits.round_minutes[0]), max: String(limits.round_minutes[1]) });
    this.roundsField.append(h("span", { class: "muted small" }, t("From {value} to {value2}.", { value: limits.rounds[0], value2: limits.rounds[1] })));
    this.minutesField.append(h("span", { class: "muted small" }, t("From {value} to {value2} minutes.", { value: limits.arena_minutes[0], value2: limits.arena_minutes[1] })));
    // The next five minutes' mark at least ten minutes ahead, in the viewer's own time.
    const at = Math.ceil((Date.now() + DEFAULT_LEAD) / 300_000) * 300_000;
    this.starts.value = localInputValue(at, -new Date(at).getTimezoneOffset());
    this.drawZone();
    this.draw();
  }

  /** The viewer's time zone, said under the start: the time typed is theirs. */
  drawZone() {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const offset = offsetAt(this.starts.value);
    const sign = offset < 0 ? "−" : "+";
    const hours = `${Math.floor(Math.abs(offset) / 60)}${Math.abs(offset) % 60 ? `:${String(Math.abs(offset) % 60).padStart(2, "0")}` : ""}`;
    this.zone.textContent = t("Your time ({value}, UTC{sign}{hours}); each player sees it in their own.", { value: zone || "local", sign, hours });
  }

  draw() {
    fill(this.formats, FORMATS.map((f) => {
      const input = h("input", { type: "radio", name: "t-format", value: f.value, checked: this.format === f.value });
      input.addEventListener("change", () => {
        this.format = f.value;
        this.draw();
      });
      return h("label", { class: this.format === f.value ? "on" : "" }, input, ` ${f.label}`);
    }));
    const chosen = FORMATS.find((f) => f.value === this.format);
    this.formatHelp.textContent = chosen ? chosen.help : "";
    this.roundsField.hidden = this.format !== "swiss";
    this.minutesField.hidden = this.format !== "arena";
    this.roundMinutesField.hidden = this.format === "arena";
  }

  /**
   * Say what is wrong, at its field.
   * @param {string} message
   * @param {string | null} name a field of tournamentBody's (null: none in particular)
   */
  refuse(message, name) {
    this.error.textContent = message;
    const control = name ? /** @type {HTMLElement | null} */ (this.form.querySelector(`#t-${name}`)) : null;
    if (control) {
      control.setAttribute("aria-invalid", "true");
      control.focus();
    }
  }

  async submit() {
    if (!this.limits) return;
    this.error.textContent = "";
    for (const el of this.form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    const checked = tournamentBody({
      name: this.name.value, format: this.format, players: Number(this.players.value), size: Number(this.size.value),
      time_control: this.clock.value(), vacation: !this.clock.reserveRow.hidden && this.clock.vacation.checked,
      rated: this.rated.checked, public: this.public.checked, rounds: this.rounds.value, minutes: this.minutes.value,
      round_minutes: this.roundMinutes.value, starts: this.starts.value, offset: offsetAt(this.starts.value),
    }, this.limits);
    if ("error" in checked) {
      this.refuse(checked.error.message, checked.error.field);
      return;
    }
    this.button.disabled = true;
    try {
      /** @type {TournamentView} */
      const made = await api("POST", "/api/tournaments", { body: checked.body });
      this.on.onCreated(made);
    } catch (err) {
      this.refuse(describe(err, TOURNAMENT_HEADS), fieldOfError(err instanceof Error ? err.message : ""));
    } finally {
      this.button.disabled = false;
    }
  }
}

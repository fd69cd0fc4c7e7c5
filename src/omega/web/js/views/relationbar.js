// @ts-check
// A profile's buttons (/u/{name}) for the logged-in viewer: Follow / Unfollow, Block /
// Unblock, and Challenge, which opens a small form (players, board, pie rule, rated, the
// clock as the lobby's form offers it, the computers' level past two players). A challenge
// sent waits here; accepted, the table opens. A refusal (one of you blocked the other) is
// said under the buttons.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { RELATION_HEADS, challengeBody } from "../relations.js";
import { levelOption, sizeOption } from "../siteconfig.js";
import { ClockChoice } from "./clockchoice.js";
import { watchChallenges } from "./friends.js";
import { t } from "../i18n.js";

/** @typedef {import("../relations.js").Relation} Relation */
/** @typedef {import("../relations.js").Challenge} Challenge */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */

/** The bar of buttons for `username`'s profile (empty for a guest, or on one's own). */
export class RelationBar {
  /** @param {string} username */
  constructor(username) {
    this.username = username;
    this.name = encodeURIComponent(username);
    this.follow = h("button", { type: "button", class: "btn small", "data-action": "follow" }, t("Follow"));
    this.block = h("button", { type: "button", class: "btn small ghost", "data-action": "block" }, t("Block"));
    this.open = h("button", { type: "button", class: "btn small confirm", "data-action": "challenge", "aria-expanded": "false" }, t("Challenge"));
    this.note = h("div", { class: "account-note", role: "status" });
    this.players = h("select", { "aria-label": t("Challenge: players"), class: "challenge-players" },
      [2, 3, 4].map((n) => h("option", { value: String(n) }, n === 2 ? t("2 players") : (n > 3 ? t("{players} players ({computers} computers)", { players: n, computers: n - 2 }) : t("{players} players ({computers} computer)", { players: n, computers: n - 2 })))));
    this.size = h("select", { "aria-label": t("Challenge: board side"), class: "challenge-size" });
    this.level = h("select", { "aria-label": t("Challenge: computer level"), class: "challenge-level", hidden: true });
    this.pie = h("input", { type: "checkbox", class: "challenge-pie" });
    this.rated = h("input", { type: "checkbox", class: "challenge-rated" });
    this.clock = new ClockChoice("challenge-clock", t("Challenge: clock"));
    this.form = h("form", {
      class: "challenge-form", hidden: true, "aria-label": t("Challenge {username}", { username }),
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        this.send();
      },
    }, this.players, " ", this.size, " ", this.level,
    h("label", { class: "toggle" }, this.pie, t(" Pie rule")), h("label", { class: "toggle" }, this.rated, t(" Rated")),
    h("span", { class: "field" }, t("Clock "), this.clock.el),
    h("button", { type: "submit", class: "btn small confirm" }, t("Send challenge")));
    this.el = h("div", { class: "relation-bar", hidden: true, role: "group", "aria-label": t("You and {username}", { username }) },
      h("div", { class: "row" }, this.follow, this.block, this.open), this.form, this.note);
    /** @type {Relation | null} */
    this.relation = null;
    /** @type {Set<string>} the challenges sent from this page (their news is listened to) */
    this.sent = new Set();
    this.watching = false;
    this.follow.addEventListener("click", () => this.change("follows", !this.relation?.following));
    this.block.addEventListener("click", () => this.change("blocks", !this.relation?.blocking));
    this.open.addEventListener("click", () => {
      this.form.hidden = !this.form.hidden;
      this.open.setAttribute("aria-expanded", String(!this.form.hidden));
    });
    this.players.addEventListener("change", () => this.drawForm());
    account.current().then((user) => {
      if (user && user.username.toLowerCase() !== username.toLowerCase()) this.load();
    });
  }

  async load() {
    try {
      /** @type {SiteConfig} */
      const config = await api("GET", "/api/config");
      fill(this.size, config.sizes.map((s) => {
        const o = sizeOption(s);
        return h("option", { value: o.value, selected: s.size === config.default_size }, o.text);
      }));
      fill(this.level, config.levels.map((info) => {
        const o = levelOption(info);
        return h("option", { value: o.value, selected: info.level === config.default_level, title: o.title }, o.text);
      }));
      this.clock.setConfig(config.time_controls);
      this.draw(await api("GET", `/api/relations/${this.name}`));
      this.el.hidden = false;
    } catch (err) {
      this.say(describe(err, RELATION_HEADS), true);
      this.el.hidden = false;
    }
  }

  drawForm() {
    const two = this.players.value === "2";
    this.level.hidden = two;
    this.pie.disabled = !two;
    this.rated.disabled = !two;
    if (!two) this.pie.checked = this.rated.checked = false;
  }

  /** @param {Relation} relation */
  draw(relation) {
    this.relation = relation;
    this.follow.textContent = relation.following ? t("Unfollow") : t("Follow");
    this.follow.dataset.action = relation.following ? "unfollow" : "follow";
    this.block.textContent = relation.blocking ? t("Unblock") : t("Block");
    this.block.dataset.action = relation.blocking ? "unblock" : "block";
    this.drawForm();
  }

  /**
   * @param {string} text
   * @param {boolean} [error]
   */
  say(text, error = false) {
    this.note.className = `account-note ${error ? "is-error" : "is-info"}`;
    this.note.setAttribute("role", error ? "alert" : "status");
    this.note.textContent = text;
  }

  /**
   * Make (on) or end a follow or a block.
   * @param {"follows" | "blocks"} what
   * @param {boolean} on
   */
  async change(what, on) {
    try {
      this.draw(await api(on ? "PUT" : "DELETE", `/api/${what}/${this.name}`));
      const done = what === "follows" ? (on ? t("You follow") : t("You no longer follow")) : (on ? t("You blocked") : t("You unblocked"));
      this.say(`${done} ${this.username}.`);
    } catch (err) {
      this.say(describe(err, RELATION_HEADS), true);
    }
  }

  async send() {
    const body = challengeBody({
      to: this.username, players: Number(this.players.value), size: Number(this.size.value), pie: this.pie.checked,
      rated: this.rated.checked, clock: this.clock.value(), level: Number(this.level.value),
    });
    // Listening before sending: accepted, the table opens (watchChallenges); any other
    // answer is said here.
    if (!this.watching) {
      this.watching = true;
      watchChallenges((c) => {
        if (this.sent.has(c.id) && c.status !== "pending" && c.status !== "accepted") this.say(t("{username}'s answer: {status}.", { username: this.username, status: c.status }));
      });
    }
    try {
      /** @type {Challenge} */
      const sent = await api("POST", "/api/challenges", { body });
      this.sent.add(sent.id);
      this.form.hidden = true;
      this.say(t("Challenge sent ({describe}): waiting for {username} to answer…", { describe: sent.describe, username: this.username }));
    } catch (err) {
      this.say(describe(err, RELATION_HEADS), true);
    }
  }
}

// @ts-check
// Quick play: choose the players, the board and the clock (the server's presets, its
// default first chosen, this device's last choice remembered), press Play, wait to be
// matched with players who chose the same; the match moves this page to the new table
// (told by the lobby's socket), once: a match this device followed, or whose game is over
// (the server says idle then), leaves the lobby as it is. A guest sees the form with Play
// off and why. A player may ask for the computer at their level (the level whose rating is
// nearest theirs) if nobody comes soon: that game is casual. Also the account's ratings,
// with the last change, and the links to the leaderboards.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { onLobby } from "../lobbyfeed.js";
import { changeText, ratingText } from "../ratings.js";
import { quickClock, quickClocks, sizeOption } from "../siteconfig.js";
import * as store from "../store.js";
import { t } from "../i18n.js";

/** @typedef {import("../lobbytypes.js").QuickPlayState} QuickPlayState */
/** @typedef {import("../lobbytypes.js").UserRatings} UserRatings */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */

const RATED_PLAYERS = [2, 3, 4];

export class QuickPlayView {
  constructor() {
    this.players = h("select", { "aria-label": t("Quick play: players"), class: "quick-players" },
      RATED_PLAYERS.map((n) => h("option", { value: String(n) }, t("{n} players", { n }))));
    this.size = h("select", { "aria-label": t("Quick play: board side"), class: "quick-size" });
    // Hidden until the server says which clocks quick play takes.
    this.clock = h("select", { "aria-label": t("Quick play: clock"), class: "quick-clock", hidden: true });
    this.clock.addEventListener("change", () => store.setQuickClock(this.clock.value));
    this.computer = h("input", { type: "checkbox", class: "quick-computer" });
    this.play = h("button", { type: "submit", class: "btn confirm" }, t("Play"));
    this.leave = h("button", { type: "button", class: "btn ghost", hidden: true }, t("Leave the queue"));
    this.status = h("div", { class: "quick-status", role: "status" });
    this.mine = h("div", { class: "my-ratings", role: "group", "aria-label": t("Your ratings") });
    this.leave.addEventListener("click", () => this.call("/api/quickplay/leave"));
    this.form = h("form", {
      class: "quick-form row",
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        const body = { players: Number(this.players.value), size: Number(this.size.value), computer: this.computer.checked };
        this.call("/api/quickplay", this.clock.hidden ? body : { ...body, time_control: this.clock.value });
      },
    }, this.players, this.size, this.clock,
    h("label", { class: "small" }, this.computer, " ", t("or the computer at my level (casual), if nobody comes soon")),
    this.play, this.leave);
    this.el = h("section", { class: "card quick-play", id: "quick-play" },
      h("h2", {}, t("Quick play")),
      h("p", { class: "muted small" }, t("A rated game with whoever waits for the same players, board and clock, the closest ratings first.")),
      this.form, this.status, this.mine,
      h("p", { class: "small" }, t("Leaderboards: "), RATED_PLAYERS.map((n) => [h("a", { href: `/leaderboard/${n}` }, t("{n} players", { n })), " "])));
    onLobby((msg) => {
      if (msg.type === "lobby") this.show(msg.quickplay);
      else if (msg.type === "matched") this.show({ status: "matched", table_id: msg.table_id, seat: msg.seat });
    });
    /** @type {QuickPlayState | null} the state last shown (it stands while the account does) */
    this.last = null;
    // A guest sees the choice too, with Play off and the reason beside it.
    account.onChange((user) => {
      this.show(user ? this.last : null);
      this.ratings();
    });
    this.show(null);
  }

  /** @param {SiteConfig} config */
  setConfig(config) {
    fill(this.size, config.sizes.map((s) => {
      const o = sizeOption(s);
      return h("option", { value: o.value, selected: s.size === config.default_size }, o.text);
    }));
    const controls = config.time_controls;
    this.clock.hidden = !controls;
    if (!controls) return;
    const chosen = quickClock(controls.quickplay, store.quickClock());
    fill(this.clock, quickClocks(controls).map((c) => h("option", { value: c.value, selected: c.value === chosen }, c.text)));
  }

  /** @param {QuickPlayState | null} state */
  show(state) {
    this.last = state;
    const waiting = state !== null && state.status === "waiting";
    this.leave.hidden = !waiting;
    this.play.disabled = waiting || !account.known();
    // While waiting the choice stands (leave the queue to change it).
    for (const field of [this.players, this.size, this.clock, this.computer]) field.disabled = waiting;
    if (!account.known()) fill(this.status, h("span", { class: "muted" }, t("Log in to play rated games.")));
    else if (state && state.status === "waiting") {
      fill(this.status, (state.players > 2 ? t("Waiting for {others} other players · side {size} · {time_control} · ", { others: state.players - 1, size: state.size, time_control: state.time_control }) : t("Waiting for {others} other player · side {size} · {time_control} · ", { others: state.players - 1, size: state.size, time_control: state.time_control })) +
        t("your rating {rating} · {others_waiting} waiting with you", { rating: state.rating, others_waiting: state.others_waiting }) +
        (state.computer ? t(" · then the computer") : ""));
    } else if (state && state.status === "matched" && store.followedMatches().includes(state.table_id)) {
      // Followed once already: the lobby stays, with a way back.
      fill(this.status, t("Your quick-play game: "), h("a", { href: `/t/${state.table_id}` }, t("Table {table_id}", { table_id: state.table_id })));
    } else if (state && state.status === "matched") {
      fill(this.status, t("Matched: opening the table…"));
      store.followMatch(state.table_id);
      location.assign(`/t/${state.table_id}`);
    } else fill(this.status);
  }

  /**
   * @param {string} path
   * @param {unknown} [body]
   */
  async call(path, body) {
    try {
      /** @type {QuickPlayState} */
      const state = await api("POST", path, { body });
      this.show(state);
    } catch (err) {
      fill(this.status, h("span", { class: "is-error" }, describe(err)));
    }
  }

  /** The account's ratings, each with its last change. */
  async ratings() {
    const user = account.known();
    if (!user) {
      fill(this.mine);
      return;
    }
    try {
      /** @type {UserRatings} */
      const r = await api("GET", `/api/users/${encodeURIComponent(user.username)}/ratings`);
      const rows = Object.entries(r.ratings).map(([n, rating]) => {
        const last = [...r.history].reverse().find((c) => String(c.players) === n);
        return h("li", { "data-rating-players": n }, t("{players} players: ", { players: n }), h("strong", {}, ratingText(rating)),
          (rating.games === 1 ? t(" · {games} game", { games: rating.games }) : t(" · {games} games", { games: rating.games })),
          last ? t(" · last {change}", { change: changeText(last.before, last.after) }) : "");
      });
      fill(this.mine, h("a", { href: `/u/${encodeURIComponent(user.username)}` }, t("Your profile")),
        rows.length ? h("ul", { class: "rating-lines" }, rows) : h("span", { class: "muted" }, t(" · no rated game yet")));
    } catch {
      fill(this.mine);
    }
  }
}

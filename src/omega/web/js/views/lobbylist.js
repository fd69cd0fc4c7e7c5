// @ts-check
// The lobby's open tables, live (lobbyfeed.js): each with its players, board, pie rule,
// rated or not, time control, free seats and the seated players' ratings; a logged-in
// player takes a free seat with one click, the creator cancels; and the small form that
// opens a table in the lobby.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h, swatch } from "../dom.js";
import { describe } from "../errors.js";
import { onLobby } from "../lobbyfeed.js";
import { ratingText } from "../ratings.js";
import { playerCounts, sizeOption } from "../siteconfig.js";
import * as store from "../store.js";
import { ClockChoice } from "./clockchoice.js";

/** @typedef {import("../lobbytypes.js").ListedTable} ListedTable */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */
/** @typedef {import("../types.js").CreatedTable} CreatedTable */

/** The open tables of the lobby, and the form that adds one. */
export class LobbyList {
  constructor() {
    /** @type {Map<string, ListedTable>} */
    this.tables = new Map();
    this.list = h("ul", { class: "open-tables", "aria-label": "Open tables", "aria-live": "polite" });
    this.note = h("div", { class: "account-note", role: "status" });
    this.players = h("select", { "aria-label": "Players at the open table", class: "open-players" });
    this.size = h("select", { "aria-label": "Board side of the open table", class: "open-size" });
    this.pie = h("input", { type: "checkbox", class: "open-pie" });
    this.rated = h("input", { type: "checkbox", class: "open-rated", checked: true });
    this.clock = new ClockChoice("open-clock", "Clock of the open table");
    this.openBtn = h("button", { type: "submit", class: "btn confirm small" }, "Open table");
    this.players.addEventListener("change", () => this.drawForm());
    this.form = h("form", {
      class: "open-form row", "aria-label": "Open a table in the lobby",
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        this.openTable();
      },
    }, this.players, this.size, h("label", { class: "toggle" }, this.pie, " pie"), h("label", { class: "toggle" }, this.rated, " rated"),
    this.clock.el, this.openBtn);
    this.el = h("section", { class: "card lobby-tables" },
      h("h2", {}, "Open tables"),
      h("p", { class: "muted small" }, "Tables waiting for players. Take a free seat; the game starts when every seat is taken."),
      this.list, this.form, this.note);
    onLobby((msg) => {
      if (msg.type === "lobby") {
        this.tables = new Map(msg.tables.map((t) => [t.id, t]));
      } else if (msg.type === "table") {
        this.tables.set(msg.table.id, msg.table);
      } else if (msg.type === "removed") {
        this.tables.delete(msg.id);
      } else return;
      this.draw();
    });
    account.onChange(() => this.draw());
    this.draw();
  }

  /**
   * The limits the form offers, once known.
   * @param {SiteConfig} config
   */
  setConfig(config) {
    fill(this.players, playerCounts(config).map((n) => h("option", { value: String(n) }, `${n} players`)));
    this.clock.setConfig(config.time_controls);
    fill(this.size, config.sizes.map((s) => {
      const o = sizeOption(s);
      return h("option", { value: o.value, selected: s.size === config.default_size }, o.text);
    }));
    this.drawForm();
  }

  drawForm() {
    const two = this.players.value === "2";
    this.pie.disabled = !two;
    if (!two) this.pie.checked = false;
    this.form.hidden = !account.known();
  }

  draw() {
    this.drawForm();
    const me = account.known();
    const rows = [...this.tables.values()].map((t) => this.row(t, me ? me.username : null));
    fill(this.list, rows.length ? rows : h("li", { class: "muted" }, "No open table right now: open one, or press Play below."));
  }

  /**
   * @param {ListedTable} t
   * @param {string | null} me
   */
  row(t, me) {
    const mine = me !== null && t.seats.some((s) => s.user === me);
    const host = t.host !== null ? t.seats[t.host] : undefined;
    const seats = t.seats.map((s) => h("span", { class: `listed-seat ${s.user ? "taken" : s.computer ? "computer" : "free"}` },
      swatch(s.color), " ",
      s.user ? `${s.user} ${ratingText(s.rating)}` : s.computer ? `computer ${s.computer}` : "free"));
    const buttons = [];
    if (mine) {
      buttons.push(h("a", { class: "btn small", href: `/t/${t.id}` }, "Open"));
      if (host && host.user === me) {
        const cancel = h("button", { type: "button", class: "btn small ghost" }, "Cancel");
        cancel.addEventListener("click", () => this.act(`/api/lobby/tables/${encodeURIComponent(t.id)}/cancel`, cancel));
        buttons.push(cancel);
      }
    } else if (me) {
      const take = h("button", { type: "button", class: "btn confirm small take-seat" }, "Take a seat");
      take.addEventListener("click", async () => {
        const answer = await this.act(`/api/lobby/tables/${encodeURIComponent(t.id)}/take`, take, {});
        if (answer) location.assign(`/t/${t.id}`);
      });
      buttons.push(take);
    } else buttons.push(h("span", { class: "muted" }, "log in to join"));
    const settings = `${t.players} players · side ${t.size}${t.pie_rule ? " · pie" : ""} · ${t.rated ? "rated" : "casual"} · ${t.time_control || "untimed"}`;
    return h("li", { class: "open-table", "data-open-table": t.id },
      h("div", { class: "row" }, h("strong", {}, settings), h("span", { class: "muted" }, ` ${t.free} free`)),
      h("div", { class: "row seats-line" }, seats), h("div", { class: "row" }, buttons));
  }

  /**
   * A POST of the lobby; its error is shown by the list.
   * @param {string} path
   * @param {HTMLButtonElement} button
   * @param {unknown} [body]
   */
  async act(path, button, body) {
    button.disabled = true;
    this.note.textContent = "";
    this.note.className = "account-note";
    try {
      return await api("POST", path, { body });
    } catch (err) {
      this.note.className = "account-note is-error";
      this.note.textContent = describe(err);
      return null;
    } finally {
      button.disabled = false;
    }
  }

  async openTable() {
    const players = Number(this.players.value);
    const body = { players, size: Number(this.size.value), pie_rule: this.pie.checked && players === 2, rated: this.rated.checked,
      time_control: this.clock.value() };
    const t = /** @type {CreatedTable | null} */ (await this.act("/api/lobby/tables", this.openBtn, body));
    if (!t) return;
    store.rememberTable({
      id: t.id, token: t.token, seat: t.seat, invites: {}, spectator_key: t.spectator_key,
      players, size: body.size, pie: body.pie_rule, status: t.state ? t.state.status : "waiting",
    });
    location.assign(`/t/${t.id}`);
  }
}

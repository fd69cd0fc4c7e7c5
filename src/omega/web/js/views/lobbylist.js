// @ts-check
// The lobby's open tables, live (lobbyfeed.js): each with its players, board, pie rule,
// rated or not, time control, free seats and the seated players' ratings; a logged-in
// player takes a free seat with one click, the creator cancels; filters (players, board,
// rated, clock) and pages of the list, in the server's order (every creator's newest table
// first). A table is opened in the lobby by the lobby's one create form (lobby.js).

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h, swatch } from "../dom.js";
import { describe } from "../errors.js";
import { onLobby } from "../lobbyfeed.js";
import { ANY, isAny, lobbyPath, pageText, passes } from "../lobbyquery.js";
import { ratingText } from "../ratings.js";
import { playerCounts } from "../siteconfig.js";
import { t, tm } from "../i18n.js";

/** @typedef {import("../lobbytypes.js").ListedTable} ListedTable */
/** @typedef {import("../lobbytypes.js").LobbyPage} LobbyPage */
/** @typedef {import("../lobbyquery.js").LobbyFilters} LobbyFilters */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */

/** The open tables of the lobby. */
export class LobbyList {
  constructor() {
    /** @type {Map<string, ListedTable>} */
    this.tables = new Map();
    /** @type {string[]} the shown tables' ids in the server's order (new ones pushed live on top) */
    this.order = [];
    /** @type {LobbyFilters} */
    this.filters = { ...ANY };
    this.offset = 0;
    this.limit = 0;
    this.total = 0;
    /** the last list asked for by HTTP: a slower, older answer is dropped */
    this.asked = 0;
    this.list = h("ul", { class: "open-tables", "aria-label": t("Open tables"), "aria-live": "polite" });
    /** @param {string} label @param {string} cls */
    const filter = (label, cls) => {
      const select = h("select", { "aria-label": label, class: cls });
      select.addEventListener("change", () => this.setFilters());
      return select;
    };
    this.fPlayers = filter(t("Show tables for players"), "filter-players");
    this.fSize = filter(t("Show tables of board side"), "filter-size");
    this.fRated = filter(t("Show rated or casual tables"), "filter-rated");
    this.fClock = filter(t("Show tables with clock"), "filter-clock");
    fill(this.fRated, h("option", { value: "" }, t("rated or casual")), h("option", { value: "true" }, t("rated")),
      h("option", { value: "false" }, t("casual")));
    fill(this.fClock, h("option", { value: "" }, t("any clock")), h("option", { value: "untimed" }, t("untimed")),
      h("option", { value: "realtime" }, t("real time")), h("option", { value: "turn_based" }, t("turn-based")));
    this.filterForm = h("form", {
      class: "lobby-filters row", role: "search", "aria-label": t("Filter open tables"),
      /** @param {Event} e */
      onsubmit: (e) => e.preventDefault(),
    }, h("span", { class: "muted" }, t("Show")), this.fPlayers, this.fSize, this.fRated, this.fClock);
    this.prevBtn = h("button", { type: "button", class: "btn small ghost" }, t("Previous"));
    this.nextBtn = h("button", { type: "button", class: "btn small ghost" }, t("Next"));
    this.pageStatus = h("span", { class: "muted page-status", role: "status" });
    this.prevBtn.addEventListener("click", () => this.turnPage(-1));
    this.nextBtn.addEventListener("click", () => this.turnPage(1));
    this.pager = h("nav", { class: "lobby-pager row", "aria-label": t("Pages of open tables") },
      this.prevBtn, this.pageStatus, this.nextBtn);
    this.note = h("div", { class: "account-note", role: "status" });
    this.el = h("section", { class: "card lobby-tables", id: "open-tables" },
      h("h2", {}, t("Open tables")),
      h("p", { class: "muted small" }, t("Tables waiting for players. Take a free seat; the game starts when every seat is taken.")),
      this.filterForm, this.list, this.pager, this.note);
    onLobby((msg) => {
      if (msg.type === "lobby") {
        // The socket's list is the first page without filters; any other is asked for.
        if (isAny(this.filters) && this.offset === 0) {
          this.show({ tables: msg.tables, total: msg.total, offset: 0, limit: msg.limit });
        } else this.refresh();
      } else if (msg.type === "table") {
        this.live(msg.table);
      } else if (msg.type === "removed") {
        this.drop(msg.id);
      }
    });
    account.onChange(() => this.draw());
    this.draw();
  }

  /**
   * The filters' choices, once known.
   * @param {SiteConfig} config
   */
  setConfig(config) {
    fill(this.fPlayers, h("option", { value: "" }, t("any players")),
      playerCounts(config).map((n) => h("option", { value: String(n) }, t("{players} players", { players: n }))));
    fill(this.fSize, h("option", { value: "" }, t("any side")),
      config.sizes.map((s) => h("option", { value: String(s.size) }, t("side {size}", { size: s.size }))));
  }

  /**
   * Show a page of the list as the server answered it.
   * @param {LobbyPage} page
   */
  show(page) {
    this.tables = new Map(page.tables.map((tbl) => [tbl.id, tbl]));
    this.order = page.tables.map((tbl) => tbl.id);
    this.total = page.total;
    this.offset = page.offset;
    this.limit = page.limit;
    this.draw();
  }

  /** Ask the server for the page the filters and offset name. */
  async refresh() {
    const asked = ++this.asked;
    try {
      const page = /** @type {LobbyPage} */ (await api("GET", lobbyPath(this.filters, this.offset)));
      if (asked === this.asked) this.show(page);
    } catch (err) {
      if (asked !== this.asked) return;
      this.note.className = "account-note is-error";
      this.note.textContent = describe(err);
    }
  }

  /** The filters changed: the first page of what they pass. */
  setFilters() {
    this.filters = { players: this.fPlayers.value, size: this.fSize.value, rated: this.fRated.value, clock: this.fClock.value };
    this.offset = 0;
    this.refresh();
  }

  /** @param {number} step -1: the page before, 1: the page after */
  async turnPage(step) {
    this.offset = Math.max(0, this.offset + step * (this.limit || this.order.length));
    await this.refresh();
    // A phone scrolled down to the pager would be left below a shorter page: back to its top.
    if (this.el.getBoundingClientRect().top < 0) this.el.scrollIntoView({ block: "start" });
  }

  /**
   * A table opened or changed, pushed by the lobby socket: shown at once if it passes the
   * filters (a new one on top of the first page: it is the newest), dropped if it no longer does.
   * @param {ListedTable} tbl
   */
  live(tbl) {
    const known = this.tables.has(tbl.id);
    if (!passes(this.filters, tbl)) {
      if (known) this.drop(tbl.id);
      return;
    }
    if (!known) {
      if (this.offset > 0) return; // a later page stays as it was asked for
      this.order.unshift(tbl.id);
      this.total += 1;
      // The page keeps its size: the last table shown moves on to the next page.
      if (this.limit > 0) for (const id of this.order.splice(this.limit)) this.tables.delete(id);
    }
    this.tables.set(tbl.id, tbl);
    this.draw();
  }

  /** @param {string} id a table that left the lobby */
  drop(id) {
    if (!this.tables.delete(id)) return;
    this.order = this.order.filter((tbl) => tbl !== id);
    this.total = Math.max(0, this.total - 1);
    this.draw();
  }

  draw() {
    const me = account.known();
    const rows = this.order.flatMap((id) => {
      const tbl = this.tables.get(id);
      return tbl ? [this.row(tbl, me ? me.username : null)] : [];
    });
    const empty = isAny(this.filters) ? t("No open table right now: open one with New table (Play against: Anyone), or try Quick play.")
      : t("No open table matches these filters.");
    fill(this.list, rows.length ? rows : h("li", { class: "muted" }, this.offset > 0 ? t("No more open tables.") : empty));
    this.pageStatus.textContent = pageText(this.offset, rows.length, this.total);
    this.prevBtn.disabled = this.offset === 0;
    this.nextBtn.disabled = this.offset + rows.length >= this.total;
    this.pager.hidden = this.offset === 0 && rows.length >= this.total;
  }

  /**
   * @param {ListedTable} tbl
   * @param {string | null} me
   */
  row(tbl, me) {
    const mine = me !== null && tbl.seats.some((s) => s.user === me);
    const host = tbl.host !== null ? tbl.seats[tbl.host] : undefined;
    const seats = tbl.seats.map((s) => h("span", { class: `listed-seat ${s.user ? "taken" : s.computer ? "computer" : "free"}` },
      swatch(s.color), " ",
      s.user ? `${s.user} ${ratingText(s.rating)}` : s.computer ? (s.name_text ? tm(s.name_text) : s.name || t("Computer")) : "free"));
    const buttons = [];
    if (mine) {
      buttons.push(h("a", { class: "btn small", href: `/t/${tbl.id}` }, t("Open")));
      if (host && host.user === me) {
        const cancel = h("button", { type: "button", class: "btn small ghost" }, t("Cancel"));
        cancel.addEventListener("click", () => this.act(`/api/lobby/tables/${encodeURIComponent(tbl.id)}/cancel`, cancel));
        buttons.push(cancel);
      }
    } else if (me) {
      const take = h("button", { type: "button", class: "btn confirm small take-seat" }, t("Take a seat"));
      take.addEventListener("click", async () => {
        const answer = await this.act(`/api/lobby/tables/${encodeURIComponent(tbl.id)}/take`, take, {});
        if (answer) location.assign(`/t/${tbl.id}`);
      });
      buttons.push(take);
    } else buttons.push(h("span", { class: "muted" }, t("log in to join")));
    const settings = t("{players} players · side {size}", { players: tbl.players, size: tbl.size }) + (tbl.pie_rule ? t(" · pie") : "")
      + ` · ${tbl.rated ? t("rated") : t("casual")} · ${tbl.time_control || t("untimed")}`;
    return h("li", { class: "open-table", "data-open-table": tbl.id },
      h("div", { class: "row" }, h("strong", {}, settings), h("span", { class: "muted" }, t(" {free} free", { free: tbl.free }))),
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
}

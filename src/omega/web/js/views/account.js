// @ts-check
// The account's parts of the page: the top bar's account area (log in, register, log out,
// change password, the user's name), the lobby's "My tables" and "History" lists, and the
// card that asks a guest joining a seat for a display name.

import * as account from "../account.js";
import { answeringForm, fill, h } from "../dom.js";
import { siteConfig } from "../api.js";
import { ApiError, describe } from "../errors.js";
import { ruleSentence } from "../siteconfig.js";
import { COLORS } from "../geometry.js";
import { clockText } from "../timecontrol.js";
import { emailSection, forgotSection } from "./email.js";
import { colorName, t, tm } from "../i18n.js";

/** @typedef {import("../types.js").User} User */
/** @typedef {import("../types.js").MyTable} MyTable */
/** @typedef {import("../types.js").PlayedGame} PlayedGame */
/** @typedef {import("../types.js").ListedSeat} ListedSeat */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */

/**
 * A labelled input of an account form (with `data-limit`, its served rule under it).
 * @param {string} label
 * @param {Record<string, unknown>} attrs
 */
function field(label, attrs) {
  const input = h("input", { class: "account-input", required: true, ...attrs });
  const limit = attrs["data-limit"];
  const rule = typeof limit === "string"
    ? h("span", { class: "account-rule muted small", "data-rule": limit, id: `rule-${limit}-${++ruleIds}` }) : null;
  if (rule) input.setAttribute("aria-describedby", rule.id);
  const labelled = h("label", { class: "account-field" }, h("span", {}, label), input);
  return { input, row: rule ? h("div", { class: "account-field-ruled" }, labelled, rule) : labelled };
}
let ruleIds = 0;

/**
 * A form of the account area: its fields, a submit button and a line for the answer.
 * @param {string} name what the form is (data-form)
 * @param {{input: HTMLInputElement, row: HTMLElement}[]} fields
 * @param {string} submit
 * @param {() => Promise<string | void>} run what the form does; a returned sentence is shown
 */
function accountForm(name, fields, submit, run) {
  return answeringForm(name, fields.map((f) => f.row), submit, run, describe);
}

/** The top bar's account area: who is logged in, and the forms to change it. */
export class AccountArea {
  constructor() {
    this.el = h("div", { class: "account", role: "group", "aria-label": t("Account") });
    /** @type {SiteConfig | null} */
    this.config = null;
    /** @type {string | null} who the area was drawn for (an open form survives other news) */
    this.drawn = null;
    account.onChange((user) => this.draw(user));
    this.draw(account.known());
    account.current();
    siteConfig().then((c) => this.config || this.setConfig(c)).catch(() => {});
  }

  /**
   * The limits the forms offer (GET /api/config), once known.
   * @param {SiteConfig | null} config
   */
  setConfig(config) {
    this.config = config;
    this.applyLimits();
  }

  /** The served rules in words under their fields; the server says a broken one in the same
   * words (no minlength or maxlength: the browser's own words, or a paste cut silently). */
  applyLimits() {
    const config = this.config;
    if (!config) return;
    for (const rule of this.el.querySelectorAll("[data-rule]")) {
      const limit = rule.getAttribute("data-rule") === "username" ? config.username : config.password;
      if (limit) rule.textContent = ruleSentence(limit.rule);
    }
  }


  /** @param {User | null} user */
  draw(user) {
    const key = user ? `${user.id}:${user.username}` : "";
    if (key === this.drawn) return;
    this.drawn = key;
    this.drawUser(user);
    this.applyLimits();
  }

  /** @param {User | null} user */
  drawUser(user) {
    if (user) {
      const current = field(t("Current password"), { type: "password", autocomplete: "current-password", name: "current" });
      const next = field(t("New password"), { type: "password", autocomplete: "new-password", name: "new", "data-limit": "password" });
      const change = accountForm("password", [current, next], t("Change password"), async () => {
        await account.changePassword(current.input.value, next.input.value);
        current.input.value = "";
        next.input.value = "";
        return t("Password changed. Your other devices are logged out.");
      });
      const everywhere = h("button", { type: "button", class: "btn small ghost", "data-action": "logout-everywhere" }, t("Log out everywhere"));
      everywhere.addEventListener("click", () => account.logoutEverywhere().catch(() => {}));
      const logout = h("button", { type: "button", class: "btn small", "data-action": "logout" }, t("Log out"));
      logout.addEventListener("click", () => account.logout().catch(() => {}));
      // The settings (notifications, push, vacation, leaving) load when the panel first
      // opens (views/accountpanel.js): few visits open it, every visit would carry them.
      const before = h("div", { class: "account-slot" });
      const after = h("div", { class: "account-slot" });
      const last = h("div", { class: "account-slot leaving-slot" });
      const menu = this.menu(t("Account"), "account", h("div", { class: "account-panel" },
        emailSection(), before, change, after, everywhere, last));
      /** @type {Promise<{refresh: () => void}> | null} */
      let sections = null;
      menu.addEventListener("toggle", () => {
        if (!menu.open) return;
        sections ??= import("./accountpanel.js").then((m) => {
          const made = m.accountSections();
          fill(before, ...made.before);
          fill(after, ...made.after);
          fill(last, ...made.last);
          return made;
        });
        // Asked each time the panel opens: a vacation may have started or ended by itself.
        sections.then((made) => made.refresh(), () => {
          sections = null;
          fill(last, h("p", { class: "account-note is-error" }, t("This part could not be loaded; reopen the panel.")));
        });
      });
      fill(this.el, h("span", { class: "account-name", title: t("Logged in") }, user.username), menu, logout);
      return;
    }
    const loginName = field(t("Username"), { type: "text", autocomplete: "username", name: "username" });
    const loginPassword = field(t("Password"), { type: "password", autocomplete: "current-password", name: "password" });
    // A closed account's log-in is told until when it may be reopened, and offered to.
    const reopen = h("button", { type: "button", class: "btn small confirm", hidden: true, "data-action": "reopen" },
      t("Reopen my account"));
    const login = accountForm("login", [loginName, loginPassword], t("Log in"),
      () => account.login(loginName.input.value.trim(), loginPassword.input.value).then(() => {}, (err) => {
        reopen.hidden = !(err instanceof ApiError && err.code === "account_closed" && !/removed/.test(err.message));
        throw err;
      }));
    reopen.addEventListener("click", () => {
      reopen.disabled = true;
      account.reopenAccount(loginName.input.value.trim(), loginPassword.input.value)
        .catch((err) => {
          const note = login.querySelector(".account-note");
          if (note) { note.className = "account-note is-error"; note.textContent = describe(err); }
        })
        .finally(() => { reopen.disabled = false; });
    });
    login.append(reopen);
    const newName = field(t("Username"), { type: "text", autocomplete: "username", name: "username", "data-limit": "username" });
    const newPassword = field(t("Password"), { type: "password", autocomplete: "new-password", name: "password", "data-limit": "password" });
    const register = accountForm("register", [newName, newPassword], t("Register"),
      () => account.register(newName.input.value.trim(), newPassword.input.value).then(() => {}));
    fill(this.el,
      this.menu(t("Log in"), "login", h("div", { class: "account-panel" }, login, forgotSection())),
      this.menu(t("Register"), "register", h("div", { class: "account-panel" }, register)));
  }

  /**
   * A button that opens a panel under it (one open at a time).
   * @param {string} label
   * @param {string} name
   * @param {HTMLElement} panel
   */
  menu(label, name, panel) {
    const details = h("details", { class: "account-menu", "data-menu": name }, h("summary", { class: "btn small" }, label), panel);
    details.addEventListener("toggle", () => {
      if (!details.open) return;
      for (const other of this.el.querySelectorAll("details")) if (other !== details) other.open = false;
      const first = panel.querySelector("input");
      if (first) first.focus();
    });
    return details;
  }
}

/**
 * Who sits at a listed table, besides the account: usernames, "guest" or the computer.
 * @param {ListedSeat[]} seats
 * @param {number} mine
 */
function others(seats, mine) {
  const names = seats.filter((s) => s.index !== mine)
    .map((s) => (s.kind === "computer" ? (s.name_text ? tm(s.name_text) : s.name || t("Computer")) : s.user || "guest"));
  return names.length ? t("with {value}", { value: names.join(", ") }) : "";
}

/** @param {{players: number, size: number, pie_rule: boolean, time_control?: {text: string, kind: string}}} tbl */
const settings = (tbl) => t("{players} players · side {size}", { players: tbl.players, size: tbl.size }) + (tbl.pie_rule ? t(" · pie") : "")
  + (tbl.time_control && tbl.time_control.kind !== "untimed" ? ` · ${tbl.time_control.text}` : "");

/** @param {PlayedGame} g */
function result(g) {
  if (g.reason === "aborted") return "aborted"; // nobody placed, whatever colour ranks first
  if (g.won) return "won";
  if (g.place === null) return "finished";
  return `${g.place}${["st", "nd", "rd"][g.place - 1] || "th"} of ${g.players}`;
}

/** The lobby's lists of the logged-in user: unfinished tables (their turn first) and history. */
export class AccountLists {
  constructor() {
    this.tables = h("ul", { class: "account-list account-tables", "aria-label": t("My tables") });
    this.games = h("ul", { class: "account-list account-history", "aria-label": t("History") });
    this.more = h("button", { type: "button", class: "btn small", hidden: true }, t("Older games"));
    /** @type {string | null} */
    this.next = null;
    this.more.addEventListener("click", () => this.loadHistory(false));
    this.el = h("section", { class: "card account-lists", hidden: true },
      h("h2", {}, t("My tables")), this.tables,
      h("h2", {}, t("History")), this.games, this.more);
    account.onChange((user) => this.show(user));
    account.current().then((user) => this.show(user));
  }

  /** @param {User | null} user */
  show(user) {
    this.el.hidden = !user;
    if (!user) {
      fill(this.tables);
      fill(this.games);
      return;
    }
    this.loadTables();
    this.loadHistory(true);
  }

  async loadTables() {
    try {
      const { tables, offset } = await account.myTables();
      fill(this.tables, tables.length ? tables.map((tbl) => this.tableRow(tbl, Date.now() + offset))
        : h("li", { class: "muted" }, t("No unfinished tables. Tables you create or join while logged in appear here.")));
    } catch (err) {
      fill(this.tables, h("li", { class: "account-note is-error" }, describe(err)));
    }
  }

  /** @param {boolean} fresh from the newest game */
  async loadHistory(fresh) {
    try {
      const page = await account.history(fresh ? null : this.next);
      const rows = page.games.map((g) => this.gameRow(g));
      if (fresh) fill(this.games, rows.length ? rows : h("li", { class: "muted" }, t("Finished games appear here.")));
      else this.games.append(...rows);
      this.next = page.next;
      this.more.hidden = !page.next;
    } catch (err) {
      fill(this.games, h("li", { class: "account-note is-error" }, describe(err)));
    }
  }

  /**
   * @param {MyTable} tbl
   * @param {number} now the server's time, as well as the page can tell
   */
  tableRow(tbl, now) {
    // Turn-based time left is worth a glance in a list; a real-time clock is watched at the table.
    const left = tbl.your_turn && tbl.flag_at && tbl.time_control && tbl.time_control.kind === "turn_based"
      ? t(" · {time} left", { time: clockText(Date.parse(tbl.flag_at) - now, "turn_based") }) : "";
    const status = tbl.your_turn ? t("your turn{left}", { left }) : t("waiting");
    return h("li", { class: `account-row ${tbl.your_turn ? "your-turn" : "playing"}`, "data-account-table": tbl.id },
      h("a", { href: `/t/${tbl.id}`, class: "open" }, t("Table {id}", { id: tbl.id })),
      h("span", { class: "muted" }, ` ${settings(tbl)} · ${COLORS[tbl.seat] || ""} ${others(tbl.seats, tbl.seat)} `),
      h("span", { class: "status" }, status));
  }

  /** @param {PlayedGame} g */
  gameRow(g) {
    const outcome = g.reason === "aborted" ? "aborted" : g.won ? "won" : "lost";
    return h("li", { class: `account-row ${outcome}`, "data-account-game": g.id },
      h("a", { href: `/t/${g.id}`, class: "open", title: t("Open the game and its replay") }, t("Table {id}", { id: g.id })),
      h("span", { class: "muted" }, ` ${settings(g)} · ${colorName(g.color)} ${others(g.seats, g.seat)} · ${g.finished_at.slice(0, 10)} `),
      h("span", { class: "status" }, result(g)));
  }
}

/** The card that asks a guest who opens a seat for the name to play under. */
export class NamePrompt {
  /** @param {{onSave: (name: string) => void}} handlers */
  constructor(handlers) {
    // Worded apart from the Links box's rename field ("Your name", "Save"), which stays.
    this.input = h("input", { type: "text", "aria-label": t("Name to play under"), autocomplete: "nickname", required: true });
    this.el = h("section", { class: "name-prompt", hidden: true, "aria-label": t("Choose a name") },
      h("h2", {}, t("What should the others call you?")),
      h("p", {}, t("Your name is shown next to your colour. Log in to play under your account's name.")),
      h("form", {
        class: "name-prompt-form row",
        /** @param {Event} e */
        onsubmit: (e) => {
          e.preventDefault();
          const name = this.input.value.trim();
          if (!name) return;
          this.el.hidden = true;
          handlers.onSave(name);
        },
      }, this.input, h("button", { type: "submit", class: "btn confirm small" }, t("Use this name")),
      h("button", { type: "button", class: "btn small ghost", onclick: () => (this.el.hidden = true) }, t("Not now"))));
  }

  /**
   * Ask, with the longest name the server takes.
   * @param {number | null} nameMax
   */
  ask(nameMax) {
    if (nameMax) this.input.maxLength = nameMax;
    this.el.hidden = false;
  }
}

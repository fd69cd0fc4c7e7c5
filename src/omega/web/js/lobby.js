// @ts-check
// The lobby (/): the ways to play now (a person, the computer), the one form that creates
// a table (for a guest and an account alike: invite links, the computer, or an open table in
// the lobby, rated or not), the tables this device remembers, join by link. The form offers
// what the server allows (GET /api/config); what a guest cannot choose says why.

import * as account from "./account.js";
import { api, siteConfig } from "./api.js";
import { codeOf } from "./errors.js";
import { copyButton, fill, h, keyed, navLink, siteBar, swatch } from "./dom.js";
import { COLORS } from "./geometry.js";
import { levelOption, playerCounts, sizeOption } from "./siteconfig.js";
import * as store from "./store.js";
import { languageSelect } from "./views/language.js";
import { AccountArea, AccountLists } from "./views/account.js";
import { clockText } from "./timecontrol.js";
import { ClockChoice } from "./views/clockchoice.js";
import { LobbyList } from "./views/lobbylist.js";
import { QuickPlayView } from "./views/quickplay.js";
import { colorName, t } from "./i18n.js";

/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").CreatedTable} CreatedTable */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./store.js").TableEntry} TableEntry */
/** @typedef {{kind: "human" | "computer", level: number}} SeatChoice */
/**
 * The form's choice. `lobby`: the other people take free seats in the lobby (an account's
 * open table, POST /api/lobby/tables) rather than by invite links; `rated` only then.
 * @typedef {{players: number, size: number, pie: boolean, seats: SeatChoice[], me: number, lobby: boolean, rated: boolean}} Form
 */

/**
 * How a remembered table's status reads in "Your tables" (any other: "playing"). A lobby
 * table waits for players until every seat is taken, and its creator may cancel it.
 * @type {Record<string, string>}
 */
const REMEMBERED_STATUS = { over: "finished", waiting: t("waiting for players"), cancelled: "cancelled" };

/** @param {TableEntry} tbl */
const rowKey = (tbl) => `${tbl.id}|${tbl.token || ""}|${tbl.watch || ""}`;

/**
 * The form as it opens: the fewest players, the default side, the first seat a person and
 * the others computers of the default level.
 * @param {SiteConfig} config
 * @returns {Form}
 */
function newForm(config) {
  return {
    players: config.players.min,
    size: config.default_size,
    pie: false,
    seats: Array.from({ length: config.players.max }, (_, i) => ({
      kind: i === 0 ? "human" : "computer", level: config.default_level,
    })),
    me: 0,
    lobby: false,
    rated: false,
  };
}

/**
 * Draw the lobby into `root`.
 * @param {HTMLElement} root
 */
export function startLobby(root) {
  /** @type {SiteConfig | null} */
  let config = null;
  /** @type {Form} */
  let form = { players: 0, size: 0, pie: false, seats: [], me: 0, lobby: false, rated: false };
  const seatsBox = h("div", { class: "seats" });
  const pieRow = h("label", { class: "toggle pie-row" });
  // A casual table's choice: the players may ask the computer for a hint on their turn.
  const hintsBox = h("input", { type: "checkbox", id: "hints" });
  const hintsRow = h("label", { class: "toggle hints-row" }, hintsBox, t(" Allow hints"),
    h("span", { class: "muted" }, t(" — a player may ask the computer for a turn; the table sees it")));
  const ratedBox = h("input", { type: "checkbox", id: "rated" });
  const ratedNote = h("span", { class: "muted" });
  const ratedRow = h("label", { class: "toggle rated-row" }, ratedBox, t(" Rated"), ratedNote);
  ratedBox.addEventListener("change", () => {
    form.rated = ratedBox.checked;
    // A rated table is an open table between people, with a clock: the form says so at once.
    if (form.rated) {
      form.lobby = true;
      form.seats.forEach((seat) => (seat.kind = "human"));
      hintsBox.checked = false;
      clockForRated();
    }
    draw();
  });
  const guestNote = h("p", { class: "muted small guest-note" },
    t("Open tables and rated games need an account (log in at the top): their players play under their usernames. A guest plays friends by invite link, or the computer."));
  const error = h("div", { class: "message is-error", role: "alert", hidden: true });
  const nameInput = h("input", { type: "text", id: "name", placeholder: t("Your name"), value: store.name(), autocomplete: "nickname" });
  const playersSeg = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("Players") });
  const againstSeg = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("Play against") });
  const sizeSelect = h("select", { id: "size", "aria-label": t("Board side") });
  sizeSelect.addEventListener("change", () => (form.size = Number(sizeSelect.value)));
  const createBtn = h("button", { type: "submit", class: "btn confirm big", disabled: true }, t("Create table"));
  const accountArea = new AccountArea();
  const accountLists = new AccountLists();
  const openTables = new LobbyList();
  const quickPlay = new QuickPlayView();
  // Logged in, a player's name is their account's: the form does not ask for one.
  const nameField = h("div", { class: "field" }, h("label", { class: "label", for: "name" }, t("Your name")), nameInput);
  account.onChange((user) => {
    nameField.hidden = Boolean(user);
    // A guest's table is never in the lobby nor rated.
    if (!user) form.lobby = form.rated = false;
    draw();
  });
  const clockChoice = new ClockChoice();
  /** A rated table needs a clock: from untimed it goes to quick play's default (GET /api/config). */
  function clockForRated() {
    const timed = config && config.time_controls ? config.time_controls.quickplay.default : null;
    if (timed !== null && clockChoice.select.value === "untimed" && [...clockChoice.select.options].some((o) => o.value === timed)) {
      clockChoice.select.value = timed;
      clockChoice.draw();
    }
  }

  async function loadConfig() {
    try {
      config = await siteConfig();
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
      error.hidden = false;
      return;
    }
    const c = /** @type {SiteConfig} */ (config);
    accountArea.setConfig(c);
    openTables.setConfig(c);
    quickPlay.setConfig(c);
    form = newForm(c);
    nameInput.maxLength = c.name_max;
    clockChoice.setConfig(c.time_controls);
    fill(sizeSelect, c.sizes.map((size) => {
      const o = sizeOption(size);
      return h("option", { value: o.value, selected: size.size === form.size }, o.text);
    }));
    draw();
  }

  function drawPlayers() {
    if (!config) return;
    const counts = playerCounts(config);
    keyed(playersSeg, counts.join(","), () => fill(playersSeg, counts.map((n) => {
      const input = h("input", { type: "radio", name: "players", value: String(n) });
      input.addEventListener("change", () => {
        form.players = n;
        if (form.me >= n) form.me = 0;
        draw();
      });
      return h("label", {}, input, t(" {n} players", { n }));
    })));
    // The choice is shown on the radios already there: made anew at every draw, they lost
    // the keyboard's focus, and a click that came as the account was read (a draw) landed
    // on a radio already replaced.
    for (const input of playersSeg.querySelectorAll("input")) {
      const on = Number(input.value) === form.players;
      input.checked = on;
      input.parentElement?.classList.toggle("on", on);
    }
  }

  /** The other seats' people, if any: friends by invite links or anyone in the lobby. */
  function opponents() {
    const others = form.seats.slice(0, form.players).filter((_, i) => i !== form.me);
    if (others.every((s) => s.kind === "computer")) return "computer";
    return form.lobby ? "lobby" : "friends";
  }

  /**
   * Everyone else the computer, friends by invite links, or anyone in the lobby (an account's).
   * @param {"computer" | "friends" | "lobby"} value
   */
  function playAgainst(value) {
    form.seats.forEach((seat, i) => {
      if (i !== form.me) seat.kind = value === "computer" ? "computer" : "human";
    });
    form.lobby = value === "lobby";
    if (!form.lobby) form.rated = false;
    draw();
  }

  function drawAgainst() {
    const now = opponents();
    const guest = !account.known();
    /** @type {["computer" | "friends" | "lobby", string][]} */
    const choices = [["computer", t("The computer")], ["friends", t("Friends (invite links)")], ["lobby", t("Anyone (an open table in the lobby)")]];
    keyed(againstSeg, "choices", () => fill(againstSeg, choices.map(([value, text]) => {
      const input = h("input", { type: "radio", name: "against", value });
      input.addEventListener("change", () => playAgainst(value));
      return h("label", {}, input, ` ${text}`);
    })));
    // Shown on the radios already there (see drawPlayers).
    for (const input of againstSeg.querySelectorAll("input")) {
      const off = guest && input.value === "lobby";
      input.checked = now === input.value;
      input.disabled = off;
      input.parentElement?.classList.toggle("on", now === input.value);
      input.parentElement?.classList.toggle("off", off);
    }
    guestNote.hidden = !guest;
  }

  function drawRated() {
    const user = account.known();
    const people = form.seats.slice(0, form.players).every((s) => s.kind === "human");
    ratedBox.disabled = !user;
    ratedBox.checked = Boolean(user) && form.rated;
    ratedNote.textContent = !user ? t(" — log in to play rated: a rating belongs to an account")
      : form.rated || people ? t(" — the result changes the players' ratings: an open table in the lobby, people only, with a clock and no hints")
        : t(" — people only: a rated table has no computer seats");
    hintsBox.disabled = form.rated;
    if (form.rated) hintsBox.checked = false;
  }

  function drawSeats() {
    const rows = [];
    for (let i = 0; i < form.players; i++) {
      const seat = form.seats[i];
      const kind = h("select", { "aria-label": t("Seat {value} player", { value: i + 1 }), "data-seat": String(i), class: "seat-kind" },
        h("option", { value: "human", selected: seat.kind === "human" }, t("Person")),
        h("option", { value: "computer", selected: seat.kind === "computer" }, t("Computer")));
      kind.addEventListener("change", () => {
        seat.kind = kind.value === "human" ? "human" : "computer";
        if (seat.kind === "computer") form.rated = false;
        if (seat.kind !== "human" && form.me === i) form.me = form.seats.slice(0, form.players).findIndex((s) => s.kind === "human");
        if (seat.kind === "human" && form.me < 0) form.me = i;
        draw();
      });
      const level = h("select", { "aria-label": t("Seat {value} level", { value: i + 1 }), class: "seat-level", "data-seat": String(i), disabled: seat.kind !== "computer" },
        (config ? config.levels : []).map((info) => {
          const o = levelOption(info);
          return h("option", { value: o.value, selected: seat.level === info.level, title: o.title }, o.text);
        }));
      level.addEventListener("change", () => {
        seat.level = Number(level.value);
        draw();
      });
      const me = h("input", { type: "radio", name: "me", "aria-label": t("I play seat {value}", { value: i + 1 }), checked: form.me === i, disabled: seat.kind !== "human" });
      me.addEventListener("change", () => {
        form.me = i;
        draw();
      });
      const info = config ? config.levels.find((l) => l.level === seat.level) : undefined;
      let note = "";
      if (seat.kind === "computer") note = info && info.description ? t("Level {level}: {description}", { level: seat.level, description: info.description }) : "";
      else if (form.me === i) note = t("You");
      else note = t("A friend: gets an invite link to open");
      rows.push(h("div", { class: "seat-row", "data-seat": String(i) },
        swatch(COLORS[i]), h("span", { class: "cname" }, colorName(COLORS[i])), kind,
        seat.kind === "computer" ? level : h("label", { class: "me" }, me, t(" me")),
        h("span", { class: "seat-note muted" }, note),
      ));
    }
    fill(seatsBox, rows);
  }

  function drawPie() {
    const box = h("input", { type: "checkbox", id: "pie", checked: form.pie && form.players === 2, disabled: form.players !== 2 });
    box.addEventListener("change", () => (form.pie = box.checked));
    fill(pieRow, box, t(" Pie rule"), h("span", { class: "muted" }, form.players === 2 ? t(" — the second player may swap colours after the first turn") : t(" (2 players only)")));
  }

  function draw() {
    if (!config) return;
    drawPlayers();
    drawAgainst();
    drawSeats();
    drawPie();
    drawRated();
    createBtn.disabled = !form.seats.slice(0, form.players).some((s) => s.kind === "human");
  }

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    if (!config) return;
    error.hidden = true;
    const user = account.known();
    const name = user ? user.username : nameInput.value.trim() || t("Player");
    if (!user) store.setName(nameInput.value.trim());
    const seats = form.seats.slice(0, form.players).map((s) => (s.kind === "human" ? { kind: "human" } : { kind: "computer", level: s.level }));
    // Others join in the lobby (an open table, maybe rated) or by the invite links made here.
    const lobby = Boolean(user) && form.lobby && opponents() !== "computer";
    /** @type {Record<string, unknown>} */
    const body = { players: form.players, size: form.size, pie_rule: form.players === 2 && form.pie, seats,
      time_control: clockChoice.value() };
    if (lobby) body.rated = form.rated;
    else body.name = name;
    if (hintsBox.checked && !form.rated) body.hints = true;
    if (!clockChoice.pausable()) body.pausable = false;
    if (form.me >= 0 && seats[form.me] && seats[form.me].kind === "human") body.creator_seat = form.me;
    createBtn.disabled = true;
    try {
      /** @type {CreatedTable} */
      const tbl = await api("POST", lobby ? "/api/lobby/tables" : "/api/tables", { body });
      store.rememberTable({
        id: tbl.id, token: tbl.token, seat: tbl.seat, invites: lobby ? {} : tbl.invites, spectator_key: tbl.spectator_key,
        players: form.players, size: form.size, pie: Boolean(body.pie_rule), status: tbl.state ? tbl.state.status : "playing",
      });
      // An open table's seat is the account's (its cookie): its address carries no token.
      location.assign(lobby ? `/t/${tbl.id}` : `/t/${tbl.id}#seat=${tbl.token}`);
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
      error.hidden = false;
      createBtn.disabled = false;
    }
  }

  const joinInput = h("input", { type: "text", id: "join", placeholder: t("Paste an invite or spectator link"), autocomplete: "off" });
  /** @param {Event} e */
  function join(e) {
    e.preventDefault();
    const text = joinInput.value.trim();
    const m = /\/t\/([A-Za-z0-9_-]+)(#(?:seat|watch)=[A-Za-z0-9_-]+)?/.exec(text);
    if (m) location.assign(`/t/${m[1]}${m[2] || ""}`);
    else {
      error.textContent = t("That does not look like a table link (…/t/<id>#seat=… or #watch=…).");
      error.hidden = false;
    }
  }

  const list = h("ul", { class: "my-tables", "aria-label": t("Your tables on this device") });
  account.onChange(() => store.tables().length || drawTables());
  async function drawTables() {
    const known = store.tables();
    if (!known.length) {
      fill(list, h("li", { class: "muted" }, account.known()
        ? t("Your account's tables are under My tables. Tables opened on this device by a link appear here too.")
        : t("Tables you create or join on this device appear here. Log in to find them on any device.")));
      return;
    }
    fill(list, known.map((tbl) => tableRow(tbl, null)));
    /** @param {TableEntry} tbl */
    const rowOf = (tbl) => /** @type {HTMLElement[]} */ ([...list.children]).find((li) => li.dataset.key === rowKey(tbl));
    // Refresh the status of the most recent ones (a handful of small requests).
    await Promise.all(known.slice(0, 12).map(async (tbl) => {
      try {
        /** @type {TableState} */
        const st = await api("GET", `/api/tables/${encodeURIComponent(tbl.id)}`, { token: tbl.token || tbl.watch });
        store.rememberTable({ ...tbl, status: st.status });
        const row = rowOf(tbl);
        if (row) row.replaceWith(tableRow({ ...tbl, status: st.status }, st));
      } catch (err) {
        const row = rowOf(tbl);
        const code = codeOf(err);
        if (row && (code === "not_found" || code === "auth_required")) row.classList.add("gone");
      }
    }));
  }

  /**
   * @param {TableEntry} tbl
   * @param {TableState | null} st its state when just fetched
   */
  function tableRow(tbl, st) {
    const href = `/t/${tbl.id}#${tbl.token ? `seat=${tbl.token}` : `watch=${tbl.watch}`}`;
    let status = (tbl.status && REMEMBERED_STATUS[tbl.status]) || "playing";
    if (st && st.status === "playing" && tbl.seat !== null && tbl.seat !== undefined && st.game.current_seat === tbl.seat) status = t("your turn");
    // A turn-based table waiting for my move says how long I have (days and hours).
    const clock = st && st.clock;
    const left = status === "your turn" && clock && clock.kind === "turn_based" && clock.flag_at
      ? t(" · {time} left", { time: clockText(Date.parse(clock.flag_at) - Date.now(), "turn_based") }) : "";
    const copies = [];
    if (tbl.invites) {
      for (const [i, tok] of Object.entries(tbl.invites)) {
        if (Number(i) === tbl.seat) continue;
        copies.push(h("span", { class: "copy-item" }, swatch(COLORS[Number(i)]), copyButton(`${location.origin}/t/${tbl.id}#seat=${tok}`, t("Invite {value}", { value: colorName(COLORS[Number(i)]) }))));
      }
    }
    if (tbl.spectator_key) copies.push(copyButton(`${location.origin}/t/${tbl.id}#watch=${tbl.spectator_key}`, t("Spectator link")));
    const forget = h("button", { type: "button", class: "btn small ghost", title: t("Forget this table on this device") }, t("Forget"));
    forget.addEventListener("click", () => {
      store.forgetTable(tbl);
      drawTables();
    });
    return h("li", { class: `table-row ${status.replaceAll(" ", "-")}${tbl.status === "cancelled" ? " gone" : ""}`, "data-table": tbl.id, "data-key": rowKey(tbl) },
      h("a", { href, class: "open" }, t("Table {id}", { id: tbl.id })),
      h("span", { class: "muted" }, " ", t("{players} players · side {size}", { players: tbl.players, size: tbl.size }), tbl.pie ? t(" · pie") : "",
        clock ? ` · ${clock.control}` : "", tbl.token ? "" : t(" · watching"), " "),
      h("span", { class: "status" }, status === "your turn" && clock ? t("your move{left}", { left }) : status),
      h("div", { class: "row copies" }, copies, forget));
  }

  const joinCard = h("section", { class: "card join-card" },
    h("h2", {}, t("Join by link")),
    h("form", { class: "join row", onsubmit: join }, joinInput, h("button", { type: "submit", class: "btn" }, t("Open"))),
    h("h2", {}, t("Your tables")),
    list);
  const newTable = h("section", { class: "card new-table", id: "new-table" },
    h("h1", {}, t("New table")),
    h("form", { class: "create", onsubmit: create, "aria-label": t("New table") },
      h("div", { class: "field" }, h("span", { class: "label" }, t("Players")), playersSeg),
      h("div", { class: "field" }, h("span", { class: "label" }, t("Play against")), againstSeg, guestNote),
      h("div", { class: "field" }, h("label", { class: "label", for: "size" }, t("Board side")), sizeSelect),
      h("div", { class: "field" }, pieRow),
      h("div", { class: "field" }, ratedRow),
      h("div", { class: "field" }, h("label", { class: "label", for: "clock" }, t("Clock")), clockChoice.el),
      h("div", { class: "field" }, hintsRow),
      h("div", { class: "field" }, h("span", { class: "label" }, t("Seats")), seatsBox),
      nameField,
      error,
      createBtn));
  /**
   * A way in of "Play now": the form set for it, in view, its button focused.
   * @param {"computer" | "friends" | "lobby"} value
   */
  const startWith = (value) => () => {
    if (!config) return;
    playAgainst(value);
    newTable.scrollIntoView({ block: "start" });
    createBtn.focus({ preventScroll: true });
  };
  const playNow = h("section", { class: "card play-now", "aria-labelledby": "play-now" },
    h("h2", { id: "play-now" }, t("Play now")),
    h("div", { class: "way" }, h("strong", {}, t("A person")),
      h("div", { class: "row" },
        h("a", { class: "btn", href: "#quick-play" }, t("Quick play")),
        h("a", { class: "btn", href: "#open-tables" }, t("Open tables")),
        h("button", { type: "button", class: "btn", onclick: startWith("friends") }, t("Invite a friend"))),
      h("p", { class: "muted small" }, t("Quick play and the open tables are rated or casual games with an account; a friend invited by a link plays as a guest, no account needed."))),
    h("div", { class: "way" }, h("strong", {}, t("The computer")),
      h("div", { class: "row" }, h("button", { type: "button", class: "btn confirm", onclick: startWith("computer") }, t("Play the computer"))),
      h("p", { class: "muted small" }, t("Levels from a quick beginner to the strongest; no account needed."))));
  fill(root, h("div", { class: "lobby" },
    siteBar(h("span", { class: "muted tagline" }, t("place every colour, multiply your groups")),
      navLink("/watch", t("Watch")),
      navLink("/puzzles", t("Puzzles")),
      navLink("/tournaments", t("Tournaments")),
      navLink("/analysis", t("Analysis board")), languageSelect(), accountArea.el),
    // A player's own lists first, then the ways to play now, before the long form.
    h("main", { class: "lobby-grid" },
      accountLists.el,
      playNow,
      quickPlay.el,
      openTables.el,
      newTable,
      joinCard,
      h("section", { class: "card rules" },
        h("h2", {}, t("How to play")),
        h("p", {}, t("On your turn place one stone of every colour in play: your own first, then each opponent's in turn order. Your score is the product of the sizes of your groups — groups of 3, 4 and 5 score 60, one group of 12 scores 12. Highest product wins; ties go to the colour that plays later."))))));
  drawTables();
  loadConfig();
  // Friends and challenges load after the lobby (not preloaded: the first load's budget),
  // and sit beside the player's own tables: a challenge waits for an answer there, in view
  // on a phone too.
  import("./views/friends.js").then((m) => accountLists.el.after(new m.FriendsCard().el)).catch(() => {});
}

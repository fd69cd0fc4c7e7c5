// @ts-check
// A tournament's page (/tournaments/{id}): its name, format and settings, its status with a
// countdown to the start (or an arena's end), Join / Withdraw / Pause-Resume as the viewer
// may, a private tournament's link to invite by, the standings (each tie-break a column in
// words, explained under the table), the games being played to watch, and every round's
// games with their results. Live by the tournament's socket: each part is drawn again only
// when what it shows changed, so focus and scroll stay. When a round seats the viewer, the
// page opens their game (once: coming back here during it stays here), remembering on this
// device which tournament that table is of, so the table page links back.

import * as account from "../account.js";
import { api } from "../api.js";
import { copyButton, fill, h, keyed, swatch } from "../dom.js";
import { codeOf, describe } from "../errors.js";
import { COLORS } from "../geometry.js";
import * as store from "../store.js";
import { TournamentFeed } from "../tournamentfeed.js";
import {
  TOURNAMENT_HEADS, actionsFor, countdownText, gameLine, numberText, roundsOf, standingColumns, tableToOpen,
  tiebreakInfo, whenText,
} from "../tournaments.js";
import { AccountArea } from "./account.js";

/** @typedef {import("../tournamenttypes.js").TournamentView} TournamentView */
/** @typedef {import("../tournamenttypes.js").TournamentGame} TournamentGame */
/** @typedef {import("../types.js").User} User */

const CONN_LABELS = { live: "live", connecting: "connecting…", reconnecting: "reconnecting…", refused: "not connected" };

/**
 * Replace an element's children, keeping the focus on the control of the same `data-key`
 * when the focused one is among those replaced (a live redraw must not steal a player's focus).
 * @param {HTMLElement} el
 * @param {...import("../dom.js").Child} children
 */
function refill(el, ...children) {
  const focused = document.activeElement instanceof HTMLElement && el.contains(document.activeElement)
    ? document.activeElement.dataset.key : undefined;
  fill(el, ...children);
  if (focused) /** @type {HTMLElement | null} */ (el.querySelector(`[data-key="${focused}"]`))?.focus();
}

/**
 * The settings in words, as a list of facts.
 * @param {TournamentView} t
 */
function settings(t) {
  /** @type {[string, string][]} */
  const facts = [
    ["Tables", `${t.players} players a table, board side ${t.size}${t.pie_rule && t.players === 2 ? ", pie rule" : ""}`],
    ["Clock", `${t.time_control}${t.vacation ? ", vacation pauses it" : ""}`],
    ["Rated", t.rated ? "yes: the games change the players' ratings" : "no (casual)"],
    ["Players", `${t.min_players} to ${t.max_players}; ${t.entrants} in`],
  ];
  if (t.format === "arena" && t.minutes) facts.push(["Length", `${t.minutes} minutes`]);
  if (t.format !== "arena") {
    facts.push(["Rounds", t.rounds ? String(t.rounds) : "as many as the players need (known at the start)"]);
    if (t.round_minutes) facts.push(["Round deadline", `${t.round_minutes} minutes; who is still playing then sits the next round out`]);
    if (t.gap_seconds) facts.push(["Between rounds", `${t.gap_seconds} s`]);
  }
  facts.push(["Missed games", `${t.max_missed} lost on time without a move withdraw a player`]);
  facts.push(["Made by", `${t.creator} · ${t.public ? "public" : "private: joined by its link"}`]);
  return h("dl", { class: "tournament-settings" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

/**
 * The status line: what the tournament is doing, and the moment the countdown runs to.
 * @param {TournamentView} t
 * @returns {{text: string, to: string | null}}
 */
function statusOf(t) {
  if (t.status === "upcoming") return { text: `Starts ${whenText(t.starts_at)}`, to: t.starts_at };
  if (t.status === "cancelled") {
    return { text: `Cancelled: fewer than ${t.min_players} players had joined at its start (${whenText(t.starts_at)})`, to: null };
  }
  if (t.status === "finished") return { text: `Finished ${t.finished_at ? whenText(t.finished_at) : ""}`, to: null };
  const started = t.started_at ? `started ${whenText(t.started_at)}` : "started";
  if (t.format === "arena") {
    return { text: `Playing: ${started}; ends ${t.ends_at ? whenText(t.ends_at) : "soon"}`, to: t.ends_at };
  }
  return { text: `Round ${t.round} of ${t.rounds ?? "?"}: ${started}`, to: null };
}

/**
 * Draw the tournament `id` into `root`, live.
 * @param {HTMLElement} root
 * @param {string} id
 */
export function startTournament(root, id) {
  document.title = "Tournament · Omega";
  const accountArea = new AccountArea();
  const conn = h("span", { class: "conn", "data-state": "connecting" }, CONN_LABELS.connecting);
  const path = `/api/tournaments/${encodeURIComponent(id)}`;
  const title = h("h1", {}, "Tournament");
  const facts = h("p", { class: "tournament-describe" });
  const status = h("p", { class: "tournament-status", role: "status" });
  const countdown = h("strong", { class: "countdown", "aria-live": "off" });
  const statusRow = h("div", { class: "row status-row" }, status, countdown);
  const actions = h("div", { class: "row tournament-actions" });
  const said = h("div", { class: "message is-error", role: "alert", "data-said": "" });
  const myGame = h("div", { class: "my-game", hidden: true });
  const invite = h("div", { class: "tournament-invite", hidden: true });
  const settingsBox = h("details", { class: "tournament-settings-box" });
  const head = h("section", { class: "card tournament-head" }, title, facts, statusRow, myGame, actions, said, invite, settingsBox);
  const standingsHead = h("thead", {});
  const standingsBody = h("tbody", {});
  const notes = h("dl", { class: "tiebreak-notes small" });
  const standings = h("section", { class: "card tournament-standings" },
    h("h2", {}, "Standings"),
    h("div", { class: "standings-box", tabindex: "0", role: "region", "aria-label": "Standings table" },
      h("table", { class: "ratings-table standings" }, standingsHead, standingsBody)),
    notes);
  const playing = h("section", { class: "card tournament-playing", hidden: true });
  const rounds = h("section", { class: "card tournament-rounds", hidden: true });
  const main = h("main", { class: "tournament-page" }, head, standings, playing, rounds);
  fill(root, h("div", { class: "lobby" },
    h("header", { class: "topbar" }, h("a", { href: "/", class: "brand" }, "Omega"),
      h("a", { href: "/tournaments", class: "nav-link" }, "Tournaments"), conn, accountArea.el),
    main));

  /** @type {TournamentView | null} */
  let shown = null;
  /** @type {number | null} when the countdown ends (ms, the page's clock) */
  let countTo = null;
  let busy = false;

  function tick() {
    const text = countTo === null ? "" : countTo - Date.now() > 0 ? `in ${countdownText(countTo - Date.now())}` : "any moment now";
    if (countdown.textContent !== text) countdown.textContent = text;
  }
  setInterval(tick, 1000);

  /**
   * A game's line: the players in seat order with their colours and places, and its link.
   * @param {TournamentGame} g
   * @param {TournamentView} t
   * @param {User | null} user
   */
  function gameItem(g, t, user) {
    const mine = Boolean(user && g.players.includes(user.username));
    const link = h("a", {
      href: `/t/${encodeURIComponent(g.table)}`, class: "game-link", "data-key": `game-${g.table}`,
      onclick: () => store.rememberTournamentTable(g.table, t),
    }, g.places ? "replay" : mine ? "play" : "watch");
    return h("li", { class: `tournament-game${g.places ? "" : " on"}${mine ? " mine" : ""}`, "data-game": g.table },
      h("span", { class: "game-seats" }, gameLine(g).map((p, seat) => h("span", { class: `game-seat${p.won ? " won" : ""}`, "data-player": p.name },
        swatch(COLORS[seat]), " ", p.name, p.place ? h("span", { class: "muted" }, ` ${p.place}`) : null))),
      g.places ? null : h("span", { class: "tag" }, "playing"), link);
  }

  /**
   * @param {TournamentView} t
   * @param {User | null} user
   */
  function drawActions(t, user) {
    const can = actionsFor(t, user);
    keyed(actions, JSON.stringify([can, busy]), () => refill(actions,
      can.join ? h("button", { type: "button", class: "btn confirm", "data-key": "entry", disabled: busy, onclick: () => act("join") }, "Join") : null,
      can.login ? h("span", { class: "muted" }, "Log in (top right) to join.") : null,
      can.pause === "pause" ? h("button", { type: "button", class: "btn", "data-key": "pause-toggle", disabled: busy, title: "You are not paired again until you come back", onclick: () => act("pause", { paused: true }) }, "Pause") : null,
      can.pause === "resume" ? h("button", { type: "button", class: "btn confirm", "data-key": "pause-toggle", disabled: busy, onclick: () => act("pause", { paused: false }) }, "Resume") : null,
      can.withdraw ? h("button", { type: "button", class: "btn ghost", "data-key": "entry", disabled: busy, onclick: () => act("withdraw") }, "Withdraw") : null,
      t.me && t.me.joined ? h("span", { class: "tag you" }, !can.withdraw ? "you played" : t.me.paused ? "you are in, paused" : "you are in") : null,
      t.me && t.me.withdrawn ? h("span", { class: "tag" }, t.me.missed >= t.max_missed ? "withdrawn for missed games" : "withdrawn") : null));
  }

  /**
   * Draw a view of the tournament (from the first answer, the socket, or an action's answer).
   * @param {TournamentView} t
   */
  function show(t) {
    shown = t;
    const user = account.known();
    const opened = tableToOpen(t, new Set(Object.keys(store.tournamentTables())));
    if (opened && t.status === "running") {
      // A round seated this player: to their game, with the way back remembered.
      store.rememberTournamentTable(opened, t);
      location.assign(`/t/${encodeURIComponent(opened)}`);
    }
    if (document.title !== `${t.name} · Omega`) document.title = `${t.name} · Omega`;
    keyed(title, t.name, () => (title.textContent = t.name));
    const line = `${t.describe} · ${t.players} per table · side ${t.size} · ${t.time_control} · ${t.rated ? "rated" : "casual"}`;
    if (facts.textContent !== line) facts.textContent = line;
    const st = statusOf(t);
    if (status.textContent !== st.text) status.textContent = st.text;
    status.dataset.status = t.status;
    countTo = st.to ? Date.parse(st.to) : null;
    tick();
    const table = t.me ? t.me.table : null;
    keyed(myGame, table || "", () => {
      myGame.hidden = !table;
      if (table) {
        refill(myGame, h("strong", {}, "Your game is being played. "), h("a", {
          href: `/t/${encodeURIComponent(table)}`, class: "btn confirm small", "data-key": "my-game",
          onclick: () => store.rememberTournamentTable(table, t),
        }, "Open your game"));
      }
    });
    drawActions(t, user);
    keyed(invite, t.public ? "" : t.id, () => {
      invite.hidden = t.public;
      if (t.public) return;
      const link = `${location.origin}/tournaments/${encodeURIComponent(t.id)}`;
      refill(invite, h("span", { class: "label" }, "Invite by link: "),
        h("input", { type: "text", readonly: true, value: link, class: "invite-link", "aria-label": "The tournament's link" }),
        copyButton(link, "Copy link"),
        h("span", { class: "muted small" }, "This tournament is private: it is not listed, and whoever has this link may join."));
    });
    const list = settings(t);
    keyed(settingsBox, list.textContent || "", () => fill(settingsBox, h("summary", {}, "Settings"), list));
    drawStandings(t, user);
    drawGames(t, user);
  }

  /**
   * @param {TournamentView} t
   * @param {User | null} user
   */
  function drawStandings(t, user) {
    const columns = standingColumns(t, COLORS);
    keyed(standingsHead, JSON.stringify(columns.map((c) => [c.head, c.title])), () => fill(standingsHead, h("tr", {},
      h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player"),
      h("th", { scope: "col", title: "one for each opponent you finished above in a game" }, "Points"),
      columns.map((c) => h("th", { scope: "col", title: c.title, "data-column": c.key }, c.head)))));
    keyed(standingsBody, JSON.stringify([t.standings, user && user.username]), () => fill(standingsBody,
      t.standings.length ? t.standings.map((r) => h("tr", { "data-player": r.user, class: user && user.username === r.user ? "mine" : "" },
        h("td", {}, String(r.rank)),
        h("td", { class: "player" }, h("a", { href: `/u/${encodeURIComponent(r.user)}` }, r.user),
          h("span", { class: "muted small" }, ` ${r.rating}`),
          r.withdrawn ? [" ", h("span", { class: "tag" }, "withdrawn")] : null,
          r.paused ? [" ", h("span", { class: "tag paused" }, "paused")] : null),
        h("td", { class: "points", "data-column": "points" }, numberText(r.points)),
        columns.map((c) => h("td", { "data-column": c.key }, c.cell(r)))))
        : h("tr", {}, h("td", { colspan: String(columns.length + 3), class: "muted" }, "Nobody has joined yet."))));
    keyed(notes, JSON.stringify([t.tiebreaks, t.format]), () => fill(notes,
      h("dt", {}, "Points"), h("dd", {}, `one for each opponent you finished above in a game (a win, with 2 players)${t.format === "arena" ? "; doubled while you are on fire (after two wins in a row, until a game that is not a win)" : ""}.`),
      t.tiebreaks.map((key) => [h("dt", {}, tiebreakInfo(key).name), h("dd", {}, `${tiebreakInfo(key).explain}.`)]),
      h("dd", { class: "muted" }, `Ties in points are broken by ${t.tiebreaks.map((k) => tiebreakInfo(k).name).join(", then ") || "nothing"}.`)));
  }

  /**
   * The games being played, and every round.
   * @param {TournamentView} t
   * @param {User | null} user
   */
  function drawGames(t, user) {
    const on = t.games.filter((g) => !g.places);
    keyed(playing, JSON.stringify([on, user && user.username]), () => {
      playing.hidden = !on.length;
      refill(playing, h("h2", {}, "Now playing"), h("ul", { class: "tournament-games" }, on.map((g) => gameItem(g, t, user))));
    });
    const all = roundsOf(t);
    keyed(rounds, JSON.stringify([all, user && user.username]), () => {
      rounds.hidden = !all.length;
      refill(rounds, h("h2", {}, t.format === "arena" ? "Games" : "Rounds"), all.map((r) => h("section", { class: "tournament-round", "data-round": r.round === null ? "" : String(r.round) },
        r.round === null ? null : h("h3", {}, `Round ${r.round}`),
        h("ul", { class: "tournament-games" }, r.games.map((g) => gameItem(g, t, user)),
          r.byes.map((name) => h("li", { class: "tournament-bye muted" }, `${name}: no table this round`))))));
    });
  }

  /**
   * Join, withdraw or pause; the answer is the tournament, drawn at once.
   * @param {"join" | "withdraw" | "pause"} what
   * @param {unknown} [body]
   */
  async function act(what, body) {
    said.textContent = "";
    // The button pressed turns into its opposite (Join into Withdraw, Pause into Resume),
    // which keeps the focus: the same key.
    const pressed = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.key : undefined;
    busy = true;
    if (shown) drawActions(shown, account.known());
    try {
      show(await api("POST", `${path}/${what}`, { body }));
    } catch (err) {
      said.textContent = describe(err, TOURNAMENT_HEADS);
    } finally {
      busy = false;
      if (shown) drawActions(shown, account.known());
      if (pressed) /** @type {HTMLElement | null} */ (actions.querySelector(`[data-key="${pressed}"]`))?.focus();
    }
  }

  const feed = new TournamentFeed(id, {
    onView: show,
    onStatus: (s, detail) => {
      conn.dataset.state = s;
      conn.textContent = CONN_LABELS[s];
      if (s === "refused" && detail) said.textContent = detail;
    },
  });
  account.onChange(() => shown && drawActions(shown, account.known()));
  /** @type {Promise<TournamentView>} */
  const first = api("GET", path);
  first.then((t) => {
    show(t);
    feed.start();
  }).catch((err) => {
    document.title = "No such tournament · Omega";
    fill(main, h("section", { class: "problem card", "data-problem": "no_tournament" },
      h("h1", {}, "No such tournament"),
      h("p", {}, codeOf(err) === "not_found"
        ? "There is no tournament at this address. Check that its link was copied whole."
        : describe(err, TOURNAMENT_HEADS)),
      h("p", {}, h("a", { href: "/tournaments", class: "btn confirm" }, "All tournaments"))));
  });
  api("GET", "/api/config").then((c) => accountArea.setConfig(/** @type {import("../types.js").SiteConfig} */ (c))).catch(() => {});
}

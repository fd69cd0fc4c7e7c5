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
import { copyButton, fill, h, keyed, navLink, siteBar, swatch } from "../dom.js";
import { codeOf, describe } from "../errors.js";
import { COLORS } from "../geometry.js";
import * as store from "../store.js";
import { TournamentFeed } from "../tournamentfeed.js";
import {
  TOURNAMENT_HEADS, actionsFor, countdownText, gameLine, numberText, roundsOf, standingColumns, tableToOpen,
  tiebreakInfo, whenText,
} from "../tournaments.js";
import { AccountArea } from "./account.js";
import { t } from "../i18n.js";

/** @typedef {import("../tournamenttypes.js").TournamentView} TournamentView */
/** @typedef {import("../tournamenttypes.js").TournamentGame} TournamentGame */
/** @typedef {import("../types.js").User} User */

const CONN_LABELS = { live: "live", connecting: t("connecting…"), reconnecting: t("reconnecting…"), refused: t("not connected") };

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
 * @param {TournamentView} tour
 */
function settings(tour) {
  /** @type {[string, string][]} */
  const facts = [
    [t("Tables"), t("{players} players a table, board side {size}{value}", { players: tour.players, size: tour.size, value: tour.pie_rule && tour.players === 2 ? t(", pie rule") : "" })],
    [t("Clock"), `${tour.time_control}${tour.vacation ? ", vacation pauses it" : ""}`],
    [t("Rated"), tour.rated ? t("yes: the games change the players' ratings") : "no (casual)"],
    [t("Players"), `${tour.min_players} to ${tour.max_players}; ${tour.entrants} in`],
  ];
  if (tour.format === "arena" && tour.minutes) facts.push([t("Length"), t("{minutes} minutes", { minutes: tour.minutes })]);
  if (tour.format !== "arena") {
    facts.push([t("Rounds"), tour.rounds ? String(tour.rounds) : t("as many as the players need (known at the start)")]);
    if (tour.round_minutes) facts.push([t("Round deadline"), t("{round_minutes} minutes; who is still playing then sits the next round out", { round_minutes: tour.round_minutes })]);
    if (tour.gap_seconds) facts.push([t("Between rounds"), `${tour.gap_seconds} s`]);
  }
  facts.push([t("Missed games"), t("{max_missed} lost on time without a move withdraw a player", { max_missed: tour.max_missed })]);
  facts.push([t("Made by"), `${tour.creator} · ${tour.public ? "public" : "private: joined by its link"}`]);
  return h("dl", { class: "tournament-settings" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

/**
 * The status line: what the tournament is doing, and the moment the countdown runs to.
 * @param {TournamentView} tour
 * @returns {{text: string, to: string | null}}
 */
function statusOf(tour) {
  if (tour.status === "upcoming") return { text: t("Starts {whenText}", { whenText: whenText(tour.starts_at) }), to: tour.starts_at };
  if (tour.status === "cancelled") {
    return { text: t("Cancelled: fewer than {min_players} players had joined at its start ({whenText})", { min_players: tour.min_players, whenText: whenText(tour.starts_at) }), to: null };
  }
  if (tour.status === "finished") return { text: t("Finished {value}", { value: tour.finished_at ? whenText(tour.finished_at) : "" }), to: null };
  const started = tour.started_at ? t("started {whenText}", { whenText: whenText(tour.started_at) }) : "started";
  if (tour.format === "arena") {
    return { text: t("Playing: {started}; ends {value}", { started, value: tour.ends_at ? whenText(tour.ends_at) : "soon" }), to: tour.ends_at };
  }
  return { text: t("Round {round} of {value}: {started}", { round: tour.round, value: tour.rounds ?? "?", started }), to: null };
}

/**
 * Draw the tournament `id` into `root`, live.
 * @param {HTMLElement} root
 * @param {string} id
 */
export function startTournament(root, id) {
  document.title = t("Tournament · Omega");
  const accountArea = new AccountArea();
  const conn = h("span", { class: "conn", "data-state": "connecting" }, CONN_LABELS.connecting);
  const path = `/api/tournaments/${encodeURIComponent(id)}`;
  const title = h("h1", {}, t("Tournament"));
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
    h("h2", {}, t("Standings")),
    h("div", { class: "standings-box", tabindex: "0", role: "region", "aria-label": t("Standings table") },
      h("table", { class: "ratings-table standings" }, standingsHead, standingsBody)),
    notes);
  const playing = h("section", { class: "card tournament-playing", hidden: true });
  const rounds = h("section", { class: "card tournament-rounds", hidden: true });
  const main = h("main", { class: "tournament-page" }, head, standings, playing, rounds);
  fill(root, h("div", { class: "lobby" },
    siteBar(
      navLink("/tournaments", t("Tournaments")), conn, accountArea.el),
    main));

  /** @type {TournamentView | null} */
  let shown = null;
  /** @type {number | null} when the countdown ends (ms, the page's clock) */
  let countTo = null;
  let busy = false;

  function tick() {
    const text = countTo === null ? "" : countTo - Date.now() > 0 ? `in ${countdownText(countTo - Date.now())}` : t("any moment now");
    if (countdown.textContent !== text) countdown.textContent = text;
  }
  setInterval(tick, 1000);

  /**
   * A game's line: the players in seat order with their colours and places, and its link.
   * @param {TournamentGame} g
   * @param {TournamentView} tour
   * @param {User | null} user
   */
  function gameItem(g, tour, user) {
    const mine = Boolean(user && g.players.includes(user.username));
    const link = h("a", {
      href: `/t/${encodeURIComponent(g.table)}`, class: "game-link", "data-key": `game-${g.table}`,
      onclick: () => store.rememberTournamentTable(g.table, tour),
    }, g.places ? "replay" : mine ? "play" : "watch");
    return h("li", { class: `tournament-game${g.places ? "" : " on"}${mine ? " mine" : ""}`, "data-game": g.table },
      h("span", { class: "game-seats" }, gameLine(g).map((p, seat) => h("span", { class: `game-seat${p.won ? " won" : ""}`, "data-player": p.name },
        swatch(COLORS[seat]), " ", p.name, p.place ? h("span", { class: "muted" }, ` ${p.place}`) : null))),
      g.places ? null : h("span", { class: "tag" }, t("playing")), link);
  }

  /**
   * @param {TournamentView} tour
   * @param {User | null} user
   */
  function drawActions(tour, user) {
    const can = actionsFor(tour, user);
    keyed(actions, JSON.stringify([can, busy]), () => refill(actions,
      can.join ? h("button", { type: "button", class: "btn confirm", "data-key": "entry", disabled: busy, onclick: () => act("join") }, t("Join")) : null,
      can.login ? h("span", { class: "muted" }, t("Log in (top right) to join.")) : null,
      can.pause === "pause" ? h("button", { type: "button", class: "btn", "data-key": "pause-toggle", disabled: busy, title: t("You are not paired again until you come back"), onclick: () => act("pause", { paused: true }) }, t("Pause")) : null,
      can.pause === "resume" ? h("button", { type: "button", class: "btn confirm", "data-key": "pause-toggle", disabled: busy, onclick: () => act("pause", { paused: false }) }, t("Resume")) : null,
      can.withdraw ? h("button", { type: "button", class: "btn ghost", "data-key": "entry", disabled: busy, onclick: () => act("withdraw") }, t("Withdraw")) : null,
      tour.me && tour.me.joined ? h("span", { class: "tag you" }, !can.withdraw ? t("you played") : tour.me.paused ? t("you are in, paused") : t("you are in")) : null,
      tour.me && tour.me.withdrawn ? h("span", { class: "tag" }, tour.me.missed >= tour.max_missed ? t("withdrawn for missed games") : "withdrawn") : null));
  }

  /**
   * Draw a view of the tournament (from the first answer, the socket, or an action's answer).
   * @param {TournamentView} tour
   */
  function show(tour) {
    shown = tour;
    const user = account.known();
    const opened = tableToOpen(tour, new Set(Object.keys(store.tournamentTables())));
    if (opened && tour.status === "running") {
      // A round seated this player: to their game, with the way back remembered.
      store.rememberTournamentTable(opened, tour);
      location.assign(`/t/${encodeURIComponent(opened)}`);
    }
    if (document.title !== `${tour.name} · Omega`) document.title = t("{name} · Omega", { name: tour.name });
    keyed(title, tour.name, () => (title.textContent = tour.name));
    const line = t("{describe} · {players} per table · side {size} · {time_control} · {value}", { describe: tour.describe, players: tour.players, size: tour.size, time_control: tour.time_control, value: tour.rated ? "rated" : "casual" });
    if (facts.textContent !== line) facts.textContent = line;
    const st = statusOf(tour);
    if (status.textContent !== st.text) status.textContent = st.text;
    status.dataset.status = tour.status;
    countTo = st.to ? Date.parse(st.to) : null;
    tick();
    const table = tour.me ? tour.me.table : null;
    keyed(myGame, table || "", () => {
      myGame.hidden = !table;
      if (table) {
        refill(myGame, h("strong", {}, t("Your game is being played. ")), h("a", {
          href: `/t/${encodeURIComponent(table)}`, class: "btn confirm small", "data-key": "my-game",
          onclick: () => store.rememberTournamentTable(table, tour),
        }, t("Open your game")));
      }
    });
    drawActions(tour, user);
    keyed(invite, tour.public ? "" : tour.id, () => {
      invite.hidden = tour.public;
      if (tour.public) return;
      const link = `${location.origin}/tournaments/${encodeURIComponent(tour.id)}`;
      refill(invite, h("span", { class: "label" }, t("Invite by link: ")),
        h("input", { type: "text", readonly: true, value: link, class: "invite-link", "aria-label": t("The tournament's link") }),
        copyButton(link, t("Copy link")),
        h("span", { class: "muted small" }, t("This tournament is private: it is not listed, and whoever has this link may join.")));
    });
    const list = settings(tour);
    keyed(settingsBox, list.textContent || "", () => fill(settingsBox, h("summary", {}, t("Settings")), list));
    drawStandings(tour, user);
    drawGames(tour, user);
  }

  /**
   * @param {TournamentView} tour
   * @param {User | null} user
   */
  function drawStandings(tour, user) {
    const columns = standingColumns(tour, COLORS);
    keyed(standingsHead, JSON.stringify(columns.map((c) => [c.head, c.title])), () => fill(standingsHead, h("tr", {},
      h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("Player")),
      h("th", { scope: "col", title: t("one for each opponent you finished above in a game") }, t("Points")),
      columns.map((c) => h("th", { scope: "col", title: c.title, "data-column": c.key }, c.head)))));
    keyed(standingsBody, JSON.stringify([tour.standings, user && user.username]), () => fill(standingsBody,
      tour.standings.length ? tour.standings.map((r) => h("tr", { "data-player": r.user, class: user && user.username === r.user ? "mine" : "" },
        h("td", {}, String(r.rank)),
        h("td", { class: "player" }, h("a", { href: `/u/${encodeURIComponent(r.user)}` }, r.user),
          h("span", { class: "muted small" }, ` ${r.rating}`),
          r.withdrawn ? [" ", h("span", { class: "tag" }, t("withdrawn"))] : null,
          r.paused ? [" ", h("span", { class: "tag paused" }, t("paused"))] : null),
        h("td", { class: "points", "data-column": "points" }, numberText(r.points)),
        columns.map((c) => h("td", { "data-column": c.key }, c.cell(r)))))
        : h("tr", {}, h("td", { colspan: String(columns.length + 3), class: "muted" }, t("Nobody has joined yet.")))));
    keyed(notes, JSON.stringify([tour.tiebreaks, tour.format]), () => fill(notes,
      h("dt", {}, t("Points")), h("dd", {}, t("one for each opponent you finished above in a game (a win, with 2 players){value}.", { value: tour.format === "arena" ? t("; doubled while you are on fire (after two wins in a row, until a game that is not a win)") : "" })),
      tour.tiebreaks.map((key) => [h("dt", {}, tiebreakInfo(key).name), h("dd", {}, `${tiebreakInfo(key).explain}.`)]),
      h("dd", { class: "muted" }, t("Ties in points are broken by {value}.", { value: tour.tiebreaks.map((k) => tiebreakInfo(k).name).join(", then ") || "nothing" }))));
  }

  /**
   * The games being played, and every round.
   * @param {TournamentView} tour
   * @param {User | null} user
   */
  function drawGames(tour, user) {
    const on = tour.games.filter((g) => !g.places);
    keyed(playing, JSON.stringify([on, user && user.username]), () => {
      playing.hidden = !on.length;
      refill(playing, h("h2", {}, t("Now playing")), h("ul", { class: "tournament-games" }, on.map((g) => gameItem(g, tour, user))));
    });
    const all = roundsOf(tour);
    keyed(rounds, JSON.stringify([all, user && user.username]), () => {
      rounds.hidden = !all.length;
      refill(rounds, h("h2", {}, tour.format === "arena" ? t("Games") : t("Rounds")), all.map((r) => h("section", { class: "tournament-round", "data-round": r.round === null ? "" : String(r.round) },
        r.round === null ? null : h("h3", {}, t("Round {round}", { round: r.round })),
        h("ul", { class: "tournament-games" }, r.games.map((g) => gameItem(g, tour, user)),
          r.byes.map((name) => h("li", { class: "tournament-bye muted" }, t("{name}: no table this round", { name })))))));
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
  first.then((tour) => {
    show(tour);
    feed.start();
  }).catch((err) => {
    document.title = t("No such tournament · Omega");
    fill(main, h("section", { class: "problem card", "data-problem": "no_tournament" },
      h("h1", {}, t("No such tournament")),
      h("p", {}, codeOf(err) === "not_found"
        ? t("There is no tournament at this address. Check that its link was copied whole.")
        : describe(err, TOURNAMENT_HEADS)),
      h("p", {}, h("a", { href: "/tournaments", class: "btn confirm" }, t("All tournaments")))));
  });
  api("GET", "/api/config").then((c) => accountArea.setConfig(/** @type {import("../types.js").SiteConfig} */ (c))).catch(() => {});
}

// @ts-check
// A player's profile page (/u/{username}): games played and won, the game they play now with a
// Watch button (unless a player keeps it off the live list), the ratings per player count with
// their history as an SVG chart, and the recent games with their opponents, results and replays;
// for a logged-in viewer, Follow, Block and Challenge (views/relationbar.js) and Report.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { changeText, chartGeometry, ratingText } from "../ratings.js";
import { AccountArea } from "./account.js";
import { RelationBar } from "./relationbar.js";
import { computerText } from "../siteconfig.js";
import { reportForm } from "./report.js";
import { t } from "../i18n.js";

/** @typedef {import("../lobbytypes.js").UserRatings} UserRatings */
/** @typedef {import("../lobbytypes.js").RatingChange} RatingChange */
/** @typedef {import("../lobbytypes.js").Opponent} Opponent */
/** @typedef {import("../live.js").LiveGame} LiveGame */

const SVG = "http://www.w3.org/2000/svg";

/**
 * @param {number} n
 * @param {string} word
 */
const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * An SVG element (h() makes HTML ones).
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {...Node} children
 */
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/**
 * The rating history of one player count as a line chart.
 * @param {RatingChange[]} history oldest first
 * @param {string} players
 */
function chart(history, players) {
  const width = 320;
  const height = 120;
  const g = chartGeometry(history, width, height, 12);
  const title = document.createElementNS(SVG, "title");
  title.textContent = t("Rating with {players} players: {value}", { players, value: g.values.join(", ") });
  return svg("svg", { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "data-chart-players": players },
    title,
    svg("polyline", { points: g.points, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    svg("text", { x: 4, y: 10, "font-size": 10 }, document.createTextNode(String(g.high))),
    svg("text", { x: 4, y: height - 2, "font-size": 10 }, document.createTextNode(String(g.low))));
}

/**
 * An opponent of a recent game: a linked username, else what the seat was.
 * @param {Opponent} o
 */
function opponent(o) {
  if (o.username && o.kind === "human") return h("a", { href: `/u/${encodeURIComponent(o.username)}`, class: "opponent" }, o.username);
  return h("span", { class: "opponent" }, o.kind === "computer" ? computerText(o.level, o.rating) : "guest");
}

/**
 * The opponents of a recent game, as "vs A, B".
 * @param {Opponent[]} list
 */
function opponents(list) {
  /** @type {(Node | string)[]} */
  const out = list.length ? [" vs "] : [];
  list.forEach((o, i) => out.push(...(i ? [", ", opponent(o)] : [opponent(o)])));
  return out;
}

/**
 * The game the player plays now, with its Watch button (nothing when none is listed).
 * @param {LiveGame | null} game
 * @param {string} username
 */
function nowPlaying(game, username) {
  if (!game) return h("p", { class: "muted profile-live", "data-live": "" }, t("Not playing a game others may watch right now."));
  const others = game.seats.filter((s) => s.username !== username).map((s) => s.username || (s.kind === "computer" ? t("computer level {level}", { level: s.level }) : t("guest")));
  return h("p", { class: "profile-live", "data-live": game.id },
    t("Playing now: {players} players · side {size} · {kind}", { players: game.players, size: game.size, kind: game.rated ? t("rated") : t("casual") }),
    others.length ? t(" vs {others}", { others: others.join(", ") }) : "", " ",
    h("a", { href: game.path, class: "btn small confirm", "data-action": "watch" }, t("Watch")));
}

/**
 * Draw `username`'s profile into `root`.
 * @param {HTMLElement} root
 * @param {string} username
 */
export function startProfile(root, username) {
  document.title = t("{username} · Omega", { username });
  const main = h("main", { class: "card profile" }, h("h1", {}, username), h("p", { class: "muted" }, t("Loading…")));
  fill(root, h("div", { class: "lobby" },
    siteBar(new AccountArea().el), main));
  const name = encodeURIComponent(username);
  /** @type {Promise<{username: string, games_played: number, games_won: number, created_at: string}>} */
  const profile = api("GET", `/api/users/${name}`);
  /** @type {Promise<UserRatings>} */
  const ratings = api("GET", `/api/users/${name}/ratings`);
  /** @type {Promise<{game: LiveGame | null}>} */
  const asked = api("GET", `/api/users/${name}/live`);
  const live = asked.catch(() => ({ game: null })); // the profile shows without it
  Promise.all([profile, ratings, live])
    .then(([p, r, l]) => {
      const counts = Object.keys(r.ratings).sort();
      fill(main,
        h("h1", {}, p.username),
        new RelationBar(p.username).el,
        h("p", { class: "profile-record" }, t("{count} played, {games_won} won · playing since {value}", { count: count(p.games_played, "game"), games_won: p.games_won, value: p.created_at.slice(0, 10) })),
        reportArea(p.username),
        nowPlaying(l.game, p.username),
        h("h2", {}, t("Ratings")),
        counts.length ? counts.map((n) => h("section", { class: "profile-rating", "data-players": n },
          h("h3", {}, t("{players} players: ", { players: n }), h("strong", {}, ratingText(r.ratings[n])),
            t(" · {games}, {wins} won ", { games: count(r.ratings[n].games, "game"), wins: r.ratings[n].wins }),
            h("a", { href: `/leaderboard/${n}`, class: "small" }, t("leaderboard"))),
          chart(r.history.filter((c) => String(c.players) === n), n)))
          : h("p", { class: "muted" }, t("No rated game yet.")),
        h("h2", {}, t("Recent games")),
        h("ul", { class: "account-list recent-games" }, r.games.length ? r.games.map((g) => h("li", { "data-game": g.id },
          h("a", { href: `/t/${g.id}`, title: t("The game and its replay") }, t("Table {id}", { id: g.id })),
          ...opponents(g.opponents),
          h("span", { class: "muted" }, " · ", t("{players} players · side {size}", { players: g.players, size: g.size }),
            ` · ${g.rated ? t("rated") : t("casual")} · ${(g.finished_at || "").slice(0, 10)} `),
          h("span", { class: "result" }, g.result),
          g.rating ? h("span", { class: "rating-change" }, ` · ${changeText(g.rating.before, g.rating.after)}`) : ""))
          : h("li", { class: "muted" }, t("No finished game yet."))));
    })
    .catch((err) => fill(main, h("h1", {}, username), h("p", { class: "problem", "data-problem": "no_player" }, describe(err))));
}

/**
 * A Report button for a logged-in visitor of someone else's profile, which opens the form.
 * @param {string} username
 */
function reportArea(username) {
  const area = h("div", { class: "profile-report" });
  const open = () => fill(area, reportForm({ username }, closed));
  const closed = () => fill(area, h("button", { type: "button", class: "btn small ghost profile-report-open", onclick: open },
    t("Report")));
  account.current().then((me) => {
    if (me && me.username.toLowerCase() !== username.toLowerCase()) closed();
  });
  return area;
}

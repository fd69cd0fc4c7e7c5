// @ts-check
// The tournaments page (/tournaments): the public tournaments and the viewer's own private
// ones, upcoming (soonest first), running and finished, each with its format, tables, board,
// clock, rated or not, entrants and start in the viewer's own time; and the "New tournament"
// form for a logged-in player. The list is read again when the account changes (a private
// tournament shows to its players only).

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h, navLink, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { TOURNAMENT_HEADS, whenText } from "../tournaments.js";
import { AccountArea } from "./account.js";
import { NewTournamentForm } from "./tournamentform.js";
import { t } from "../i18n.js";

/** @typedef {import("../tournamenttypes.js").TournamentSummary} TournamentSummary */
/** @typedef {import("../tournamenttypes.js").TournamentList} TournamentList */
/** @typedef {import("../types.js").SiteConfig} SiteConfig */

/** @type {[keyof TournamentList["tournaments"], string, string][]} */
const SECTIONS = [
  ["upcoming", t("Upcoming"), t("No tournament is coming up.")],
  ["running", t("Running"), t("No tournament is being played.")],
  ["finished", t("Finished"), t("No tournament has finished yet.")],
];

/**
 * One tournament of the list.
 * @param {TournamentSummary} tour
 */
function row(tour) {
  const entrants = (tour.entrants === 1 ? t("{entrants} player", { entrants: tour.entrants }) : t("{entrants} players", { entrants: tour.entrants }));
  const when = tour.status === "upcoming" ? t("starts {whenText}", { whenText: whenText(tour.starts_at) })
    : tour.status === "running" ? (tour.rounds ? t("round {round} of {rounds}", { round: tour.round, rounds: tour.rounds }) : t("playing now"))
      : tour.status === "cancelled" ? t("cancelled (was to start {whenText})", { whenText: whenText(tour.starts_at) }) : t("started {whenText}", { whenText: whenText(tour.starts_at) });
  return h("li", { class: "tournament-row", "data-tournament": tour.id },
    h("div", { class: "row" },
      h("a", { href: `/tournaments/${encodeURIComponent(tour.id)}`, class: "tournament-name" }, tour.name),
      tour.public ? null : h("span", { class: "tag", title: t("Not listed for others: joined by its link") }, t("private")),
      tour.mine ? h("span", { class: "tag you" }, t("yours")) : null),
    h("div", { class: "muted small tournament-facts" },
      t("{describe} · {players} per table · side {size} · {time_control} · {value}", { describe: tour.describe, players: tour.players, size: tour.size, time_control: tour.time_control, value: tour.rated ? "rated" : "casual" })),
    h("div", { class: "small tournament-when" }, `${entrants} · ${when}`));
}

/**
 * Draw the tournaments page into `root`.
 * @param {HTMLElement} root
 */
export function startTournaments(root) {
  document.title = t("Tournaments · Omega");
  const accountArea = new AccountArea();
  const note = h("p", { class: "muted", role: "status" }, t("Loading…"));
  const lists = SECTIONS.map(([key, title]) => ({
    key, section: h("section", { class: "tournament-section", "data-section": key }, h("h2", {}, title)),
    list: h("ul", { class: "tournament-list", "aria-label": t("{title} tournaments", { title }) }),
  }));
  for (const l of lists) l.section.append(l.list);
  const form = new NewTournamentForm({ onCreated: (tour) => location.assign(`/tournaments/${encodeURIComponent(tour.id)}`) });
  fill(root, h("div", { class: "lobby" },
    siteBar(
      navLink("/tournaments", t("Tournaments"), true), accountArea.el),
    h("main", { class: "lobby-grid tournaments" },
      h("section", { class: "card tournament-lists" },
        h("h1", {}, t("Tournaments")),
        h("p", { class: "muted small" }, t("Swiss, arena and round robin for 2 to 4 players a table. Times are in your own time zone.")),
        note, lists.map((l) => l.section)),
      form.el)));

  let asked = 0;
  async function load() {
    const mine = ++asked;
    try {
      /** @type {TournamentList} */
      const answer = await api("GET", "/api/tournaments");
      if (mine !== asked) return; // a later question (another account) answers for the page
      note.textContent = "";
      for (const l of lists) {
        const items = answer.tournaments[l.key];
        const empty = SECTIONS.find(([key]) => key === l.key)?.[2] || "";
        fill(l.list, items.length ? items.map(row) : h("li", { class: "muted" }, empty));
      }
    } catch (err) {
      if (mine === asked) note.textContent = describe(err, TOURNAMENT_HEADS);
    }
  }
  /** @type {number | null | undefined} */
  let listedFor;
  account.onChange((user) => {
    const id = user ? user.id : null;
    if (id !== listedFor) {
      listedFor = id;
      load();
    }
  });
  account.current().then((user) => {
    if (listedFor === undefined) {
      listedFor = user ? user.id : null;
      load();
    }
  });
  /** @type {Promise<SiteConfig>} */
  const config = api("GET", "/api/config");
  config.then((c) => {
    accountArea.setConfig(c);
    form.setConfig(c);
  }).catch((err) => (note.textContent = describe(err)));
}

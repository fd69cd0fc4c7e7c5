// @ts-check
// The leaderboard page (/leaderboard/{players}): the accounts rated at one player count,
// best display rating first, each linked to its profile.

import { api } from "../api.js";
import { fill, h, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { ratingText } from "../ratings.js";
import { AccountArea } from "./account.js";
import { t } from "../i18n.js";

/** @typedef {import("../lobbytypes.js").LeaderboardRow} LeaderboardRow */

const COUNTS = [2, 3, 4];

/**
 * Draw the leaderboard of `players` into `root`.
 * @param {HTMLElement} root
 * @param {number} players
 */
export function startLeaderboard(root, players) {
  document.title = t("Leaderboard, {players} players · Omega", { players });
  const body = h("tbody", {});
  const note = h("p", { class: "muted" });
  fill(root, h("div", { class: "lobby" },
    siteBar(new AccountArea().el),
    h("main", { class: "card leaderboard" },
      h("h1", {}, t("Leaderboard · {players} players", { players })),
      h("nav", { class: "row", "aria-label": t("Player counts") }, COUNTS.map((n) => n === players
        ? h("strong", { "aria-current": "page" }, t("{n} players", { n })) : h("a", { href: `/leaderboard/${n}` }, t("{n} players", { n })))),
      h("table", { class: "ratings-table" },
        h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("Player")), h("th", {}, t("Rating")), h("th", {}, t("Games")), h("th", {}, t("Won")))),
        body),
      note,
      h("p", { class: "muted small" }, t("A rating marked ? is provisional (fewer than ten games). 2-, 3- and 4-player games are rated apart.")))));
  /** @type {Promise<{ratings: LeaderboardRow[], total: number}>} */
  const asked = api("GET", `/api/ratings/${players}`);
  asked.then((page) => {
    fill(body, page.ratings.map((r) => h("tr", { "data-player": r.username },
      h("td", {}, String(r.rank)), h("td", {}, h("a", { href: `/u/${encodeURIComponent(r.username)}` }, r.username)),
      h("td", {}, ratingText(r)), h("td", {}, String(r.games)), h("td", {}, String(r.wins)))));
    note.textContent = page.total ? (page.total === 1 ? t("{total} rated player", { total: page.total }) : t("{total} rated players", { total: page.total })) : t("Nobody is rated at this player count yet.");
  }).catch((err) => (note.textContent = describe(err)));
}

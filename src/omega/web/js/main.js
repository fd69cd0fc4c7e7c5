// @ts-check
// Entry point: one page, its views chosen by the path (/ = lobby, /t/{id} = table,
// /leaderboard/{players}, /u/{username} = a profile, /tournaments and /tournaments/{id},
// /challenges/{id} = a challenge's link, /mod = the moderators' console, /watch = the live list,
// /analysis and /analysis/{id} = the analysis board, /puzzles and /puzzles/{id} = the puzzles);
// any other path the server hands this page gets a "not found" page, never the lobby.
// Every page loads its modules when opened, so that a table's first load carries neither the
// lobby's nor the other pages'; the server has the browser fetch the modules of the lobby and
// of the table, where nearly every visit starts, with the page itself (index.html's preloads).

import { applyTheme, fill, h, siteBar } from "./dom.js";
import * as store from "./store.js";
import { openMailedLink } from "./views/email.js";
import { t } from "./i18n.js";

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
applyTheme(store.prefs().theme);
const match = /^\/t\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
const board = /^\/leaderboard(?:\/([2-4]))?\/?$/.exec(location.pathname);
const player = /^\/u\/([^/]+)\/?$/.exec(location.pathname);
const tournament = /^\/tournaments(?:\/([A-Za-z0-9_-]+))?\/?$/.exec(location.pathname);
const challenge = /^\/challenges\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
const analysis = /^\/analysis(?:\/([A-Za-z0-9_-]+))?\/?$/.exec(location.pathname);
const puzzle = /^\/puzzles(?:\/([A-Za-z0-9_-]+))?\/?$/.exec(location.pathname);
if (match) opened(import("./table.js").then((m) => m.startTable(root, match[1])));
else if (location.pathname === "/") {
  opened(import("./lobby.js").then((m) => {
    m.startLobby(root);
    // A link from a mail (docs/server-api.md, Email and password reset), also when it opens
    // in a tab that already shows the lobby (only the fragment changes then).
    openMailedLink(location.hash);
    addEventListener("hashchange", () => openMailedLink(location.hash));
  }));
}
else if (board) {
  opened(import("./views/leaderboard.js").then((m) => m.startLeaderboard(root, Number(board[1] || 2))));
}
else if (player) {
  opened(import("./views/profile.js").then((m) => m.startProfile(root, decodeURIComponent(player[1]))));
}
else if (tournament) {
  const id = tournament[1];
  if (id) opened(import("./views/tournament.js").then((m) => m.startTournament(root, id)));
  else opened(import("./views/tournamentlist.js").then((m) => m.startTournaments(root)));
}
else if (challenge) {
  opened(import("./views/challenge.js").then((m) => m.startChallenge(root, challenge[1])));
}
else if (/^\/mod\/?$/.test(location.pathname)) {
  opened(import("./views/moderation.js").then((m) => m.startModeration(root)));
}
else if (analysis) {
  opened(import("./views/analysis.js").then((m) => m.startAnalysis(root, analysis[1] || null)));
}
else if (/^\/watch\/?$/.test(location.pathname)) {
  opened(import("./views/watch.js").then((m) => m.startWatch(root)));
}
else if (puzzle) {
  opened(import("./views/puzzles.js").then((m) => m.startPuzzles(root, puzzle[1] || null)));
}
else {
  document.title = t("Page not found · Omega");
  problem("no_page", t("Page not found"), t("There is nothing at this address. Table links look like …/t/<id>#seat=…"));
}

/**
 * A page whose modules could not be fetched (the network dropped) says so, instead of
 * staying blank.
 * @param {Promise<unknown>} loading
 */
function opened(loading) {
  loading.catch(() => problem("unreachable", t("This page could not be loaded"),
    t("The connection to the server dropped while the page was loading. Reload to try again.")));
}

/**
 * @param {string} code
 * @param {string} title
 * @param {string} text
 */
function problem(code, title, text) {
  fill(root, h("div", { class: "problem-page" },
    siteBar(),
    h("main", { class: "problem card", "data-problem": code },
      h("h1", {}, title),
      h("p", {}, text),
      h("p", {}, h("a", { href: "/", class: "btn confirm" }, t("Back to the lobby"))))));
}

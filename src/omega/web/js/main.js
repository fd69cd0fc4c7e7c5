// @ts-check
// Entry point: one page, its views chosen by the path (/ = lobby, /t/{id} = table,
// /leaderboard/{players}, /u/{username} = a profile, /tournaments and /tournaments/{id});
// any other path the server hands this page gets a "not found" page, never the lobby.

import { applyTheme, fill, h } from "./dom.js";
import { startLobby } from "./lobby.js";
import * as store from "./store.js";
import { startTable } from "./table.js";
import { openMailedLink } from "./views/email.js";
import { startLeaderboard } from "./views/leaderboard.js";
import { startProfile } from "./views/profile.js";
import { startTournament } from "./views/tournament.js";
import { startTournaments } from "./views/tournamentlist.js";

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
applyTheme(store.prefs().theme);
const match = /^\/t\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
const board = /^\/leaderboard(?:\/([2-4]))?\/?$/.exec(location.pathname);
const player = /^\/u\/([^/]+)\/?$/.exec(location.pathname);
const tournament = /^\/tournaments(?:\/([A-Za-z0-9_-]+))?\/?$/.exec(location.pathname);
if (match) startTable(root, match[1]);
else if (location.pathname === "/") {
  startLobby(root);
  // A link from a mail (docs/server-api.md, Email and password reset), also when it opens in
  // a tab that already shows the lobby (only the fragment changes then).
  openMailedLink(location.hash);
  addEventListener("hashchange", () => openMailedLink(location.hash));
}
else if (board) startLeaderboard(root, Number(board[1] || 2));
else if (player) startProfile(root, decodeURIComponent(player[1]));
else if (tournament) {
  if (tournament[1]) startTournament(root, tournament[1]);
  else startTournaments(root);
}
else {
  document.title = "Page not found · Omega";
  fill(root, h("div", { class: "problem-page" },
    h("header", { class: "topbar" }, h("a", { href: "/", class: "brand" }, "Omega")),
    h("main", { class: "problem card", "data-problem": "no_page" },
      h("h1", {}, "Page not found"),
      h("p", {}, "There is nothing at this address. Table links look like …/t/<id>#seat=…"),
      h("p", {}, h("a", { href: "/", class: "btn confirm" }, "Back to the lobby")))));
}

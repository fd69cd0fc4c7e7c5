// @ts-check
// The live list (/watch; docs/server-api.md, Watching): the public games being played now,
// highest rated first, read again every few seconds, filtered by a player, the board's side,
// rated or casual and the player count; each opens as a spectator without a link (/t/{id}).

import { api } from "../api.js";
import { fill, h, navLink, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { liveQuery, seatText } from "../live.js";
import { AccountArea } from "./account.js";
import { t } from "../i18n.js";

/** @typedef {import("../live.js").LiveGame} LiveGame */

/** How often the list is read again, in milliseconds. */
export const POLL_MS = 4000;

/**
 * A select of the filters.
 * @param {string} name
 * @param {string} label
 * @param {[string, string][]} options value, text
 */
function choice(name, label, options) {
  return h("label", { class: "account-field" }, h("span", {}, label),
    h("select", { name }, options.map(([v, t]) => h("option", { value: v }, t))));
}

/**
 * One game of the list.
 * @param {LiveGame} g
 */
function row(g) {
  const facts = t("{players} players · side {size}", { players: g.players, size: g.size }) + ` · ${g.rated ? t("rated") : t("casual")}`
    + (g.time_control.kind !== "untimed" ? ` · ${g.time_control.text}` : "");
  return h("li", { class: "live-game", "data-live": g.id },
    h("div", { class: "row" },
      h("span", { class: "live-players" }, g.seats.map(seatText).join(" vs ")),
      g.rating !== null ? h("span", { class: "tag", title: t("The players' mean rating") }, String(g.rating)) : null),
    h("div", { class: "muted small" }, facts),
    h("a", { href: g.path, class: "btn small confirm", "data-action": "watch" }, t("Watch")));
}

/**
 * Draw the live list into `root`, and keep it fresh.
 * @param {HTMLElement} root
 */
export function startWatch(root) {
  document.title = t("Watch · Omega");
  const accountArea = new AccountArea();
  const note = h("p", { class: "muted", role: "status" }, t("Loading…"));
  const list = h("ul", { class: "account-list live-list", "aria-label": t("Games being played") });
  const form = /** @type {HTMLFormElement} */ (h("form", { class: "live-filters row", "aria-label": t("Filters") },
    h("label", { class: "account-field" }, h("span", {}, t("Player")),
      h("input", { type: "search", name: "username", class: "account-input", maxlength: 20, autocomplete: "off" })),
    choice("players", t("Players"), [["", "any"], ["2", "2"], ["3", "3"], ["4", "4"]]),
    choice("size", t("Side"), [["", "any"], ...[5, 6, 7, 8, 9, 10].map((n) => /** @type {[string, string]} */ ([String(n), String(n)]))]),
    choice("rated", t("Rated"), [["", "any"], ["true", "rated"], ["false", "casual"]])));
  fill(root, h("div", { class: "lobby" },
    siteBar(
      navLink("/watch", t("Watch"), true),
      navLink("/tournaments", t("Tournaments")), accountArea.el),
    h("main", { class: "lobby-grid" },
      h("section", { class: "card live" },
        h("h1", {}, t("Watch")),
        h("p", { class: "muted small" }, t("Games being played now, the highest rated first. Open one to watch it live.")),
        form, note, list))));

  let asked = 0;
  async function load() {
    const mine = ++asked;
    /** @type {Record<string, string>} */
    const values = {};
    for (const [k, v] of new FormData(form).entries()) values[k] = String(v);
    try {
      /** @type {{games: LiveGame[]}} */
      const answer = await api("GET", `/api/games/live${liveQuery(values)}`);
      if (mine !== asked) return; // the filters changed meanwhile: a later answer counts
      note.textContent = answer.games.length ? "" : t("No game is being played that others may watch right now.");
      fill(list, answer.games.map(row));
    } catch (err) {
      if (mine === asked) note.textContent = describe(err);
    }
  }
  form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
  form.addEventListener("change", () => load());
  load();
  // Polled, and only while the page is seen: a hidden tab costs the server nothing.
  setInterval(() => { if (document.visibilityState === "visible") load(); }, POLL_MS);
}

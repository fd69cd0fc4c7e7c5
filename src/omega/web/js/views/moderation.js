// @ts-check
// The moderators' console (/mod): the report queue (open reports oldest first, each with the
// evidence it copied: the reported message, the reported player's messages at the table, the
// game's record) with an action or a dismissal for each; the fair-play flags (accounts of a
// shared origin that met at a rated table); a player's history with the actions that may be
// taken; and the log of actions. Everything comes from /api/moderation (docs/server-api.md),
// which refuses anyone who is not a moderator.

import { api } from "../api.js";
import { fill, h, navLink, siteBar } from "../dom.js";
import { describe } from "../errors.js";
import { AccountArea } from "./account.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").SiteConfig} SiteConfig */

/**
 * @typedef {object} EvidenceLine a chat message as a report copied it
 * @property {number} id
 * @property {string} at
 * @property {string} name
 * @property {string | null} user
 * @property {string} text
 * @property {string} table_id
 * @property {boolean} removed
 */
/**
 * @typedef {object} Report
 * @property {number} id
 * @property {string} reporter
 * @property {string} username
 * @property {string} reason
 * @property {string | null} text
 * @property {string | null} table_id
 * @property {number | null} message_id
 * @property {{message?: EvidenceLine | null, messages?: EvidenceLine[], record?: string,
 *   table?: {id: string, rated: boolean, status: string}}} evidence
 * @property {"open" | "actioned" | "dismissed"} status
 * @property {string} created_at
 * @property {string | null} closed_by
 * @property {string | null} resolution
 */
/**
 * @typedef {object} Action
 * @property {number} id
 * @property {string} username
 * @property {string} action
 * @property {string} reason
 * @property {string} at
 * @property {string | null} until
 * @property {string | null} lifted_at
 * @property {string} [moderator]
 */

/**
 * A time as the console shows it: the reader's own.
 * @example when(null) // ""
 * @param {string | null} iso
 */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

/**
 * One line of the log: who did what to whom, why, until when.
 * @example actionText({id: 1, username: "bob", action: "mute", reason: "insults", at: "", until: null, lifted_at: null, moderator: "ann"})
 * // "ann: mute bob (insults)"
 * @param {Action} a
 */
export function actionText(a) {
  const until = a.until ? t(" until {when}", { when: when(a.until) }) : "";
  const lifted = a.lifted_at ? t(", lifted {when}", { when: when(a.lifted_at) }) : "";
  return `${a.moderator ? `${a.moderator}: ` : ""}${a.action.replace("_", " ")} ${a.username}${until} (${a.reason})${lifted}`;
}

/**
 * Draw the console into `root`.
 * @param {HTMLElement} root
 */
export function startModeration(root) {
  document.title = t("Moderation · Omega");
  const note = h("p", { class: "muted", role: "status" }, t("Loading…"));
  const queue = h("ul", { class: "report-queue account-list", "aria-label": t("Reports") });
  const flags = h("ul", { class: "flag-list account-list", "aria-label": t("Fair-play flags") });
  const log = h("ul", { class: "action-log account-list", "aria-label": t("Actions") });
  const player = h("div", { class: "player-history" });
  const who = /** @type {HTMLInputElement} */ (h("input", { type: "text", "aria-label": t("Username"), placeholder: t("Username") }));
  /** @type {Record<string, string>} */
  let actions = {};
  /** @type {Record<string, string>} */
  let reasons = {};
  fill(root, h("div", { class: "lobby" },
    siteBar(
      navLink("/mod", t("Moderation"), true), new AccountArea().el),
    h("main", { class: "card moderation" },
      h("h1", {}, t("Moderation")), note,
      h("section", { class: "mod-reports" }, h("h2", {}, t("Reports")), queue),
      h("section", { class: "mod-player" }, h("h2", {}, t("A player")),
        h("form", { class: "row", onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          if (who.value.trim()) showPlayer(who.value.trim());
        } }, who, h("button", { type: "submit", class: "btn small" }, t("Look up"))), player),
      h("section", { class: "mod-flags" }, h("h2", {}, t("Fair-play flags")), flags),
      h("section", { class: "mod-log" }, h("h2", {}, t("Actions")), log))));

  /**
   * The form that acts on `username` (closing `report`, if given).
   * @param {string} username
   * @param {Report | null} report
   */
  function actionForm(username, report) {
    const messageId = report?.message_id ?? null;
    const kind = /** @type {HTMLSelectElement} */ (h("select", { class: "mod-action", "aria-label": t("Action") },
      Object.entries(actions).filter(([k]) => k !== "remove_message" || messageId !== null)
        .map(([k, what]) => h("option", { value: k, title: what }, k.replace("_", " ")))));
    const minutes = /** @type {HTMLInputElement} */ (h("input", { type: "number", min: 1, class: "mod-minutes",
      "aria-label": t("Minutes"), placeholder: "minutes" }));
    const why = /** @type {HTMLInputElement} */ (h("input", { type: "text", class: "mod-reason", "aria-label": t("Reason"),
      placeholder: t("Reason (the player is told)"), required: true }));
    const status = h("span", { class: "mod-status", role: "status" });
    const shown = () => (minutes.hidden = kind.value !== "mute" && kind.value !== "rated_ban");
    kind.addEventListener("change", shown);
    shown();
    return h("form", { class: "mod-act row", onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      /** @type {Record<string, unknown>} */
      const body = { username, action: kind.value, reason: why.value.trim() };
      if (!minutes.hidden && minutes.value) body.minutes = Number(minutes.value);
      if (kind.value === "remove_message") body.message_id = messageId;
      if (report && report.status === "open") body.report_id = report.id;
      status.textContent = "…";
      api("POST", "/api/moderation/actions", { body })
        .then(() => {
          status.textContent = t("Done.");
          load();
          if (!report) showPlayer(username);
        })
        .catch((err) => (status.textContent = describe(err)));
    } }, kind, minutes, why, h("button", { type: "submit", class: "btn small confirm" }, t("Do it")), status);
  }

  /**
   * One report of the queue, with its evidence.
   * @param {Report} r
   */
  function reportItem(r) {
    const ev = r.evidence || {};
    const reason = h("input", { type: "text", "aria-label": t("Why dismissed"), placeholder: t("Why nothing is done") });
    const status = h("span", { role: "status" });
    return h("li", { class: "report-item", "data-report": String(r.id), "data-status": r.status },
      h("div", {}, h("strong", {}, `#${r.id} ${reasons[r.reason] || r.reason}: `),
        h("button", { type: "button", class: "link", onclick: () => showPlayer(r.username) }, r.username),
        h("span", { class: "muted small" }, t(" reported by {reporter}, {when}", { reporter: r.reporter, when: when(r.created_at) })),
        r.status === "open" ? null : h("span", { class: "tag" }, ` ${r.status} by ${r.closed_by}: ${r.resolution || ""}`)),
      r.text ? h("p", { class: "report-words" }, `“${r.text}”`) : null,
      ev.message ? h("blockquote", { class: "report-message", "data-message": String(ev.message.id) },
        h("span", { class: "chat-name" }, ev.message.name), ": ", h("span", { class: "chat-text" }, ev.message.text)) : null,
      ev.table ? h("p", { class: "small" }, h("a", { href: `/t/${ev.table.id}` }, t("Table {id}", { id: ev.table.id })),
        ` · ${ev.table.rated ? "rated" : "casual"} · ${ev.table.status}`) : null,
      ev.messages && ev.messages.length ? h("details", {}, h("summary", {}, t("{username}'s messages there ({messagesCount})", { username: r.username, messagesCount: ev.messages.length })),
        h("ul", {}, ev.messages.map((m) => h("li", {}, `${when(m.at)} `, h("span", { class: "chat-text" }, m.text),
          m.removed ? " (removed)" : "")))) : null,
      ev.record ? h("details", {}, h("summary", {}, t("The game's record")), h("pre", { class: "report-record" }, ev.record)) : null,
      r.status === "open" ? [actionForm(r.username, r),
        h("form", { class: "row mod-dismiss", onsubmit: (/** @type {Event} */ e) => {
          e.preventDefault();
          api("POST", `/api/moderation/reports/${r.id}/dismiss`, { body: { reason: /** @type {HTMLInputElement} */ (reason).value } })
            .then(load).catch((err) => (status.textContent = describe(err)));
        } }, reason, h("button", { type: "submit", class: "btn small" }, t("Dismiss")), status)] : null);
  }

  /** @param {string} username */
  async function showPlayer(username) {
    fill(player, h("p", { class: "muted" }, t("Loading…")));
    try {
      /** @type {any} */
      const p = await api("GET", `/api/moderation/players/${encodeURIComponent(username)}`);
      fill(player,
        h("h3", {}, h("a", { href: `/u/${encodeURIComponent(p.username)}` }, p.username),
          h("span", { class: "muted small" }, t(" since {when}", { when: when(p.created_at) }) + ` ${p.roles.join(" ")}`)),
        p.in_force.length ? h("p", { class: "mod-in-force" }, t("In force: "), p.in_force.map((/** @type {Action} */ a) => actionText(a)).join("; ")) : null,
        actionForm(p.username, null),
        h("details", { open: true }, h("summary", {}, t("Actions ({actionsCount})", { actionsCount: p.actions.length })),
          h("ul", {}, p.actions.map((/** @type {Action} */ a) => h("li", {}, `${when(a.at)} ${actionText(a)}`)))),
        h("details", {}, h("summary", {}, t("Reports on them ({reports_onCount}) and by them ({reports_byCount})", { reports_onCount: p.reports_on.length, reports_byCount: p.reports_by.length })),
          h("ul", {}, [...p.reports_on, ...p.reports_by].map((/** @type {Report} */ r) =>
            h("li", {}, `#${r.id} ${r.reporter} → ${r.username}: ${reasons[r.reason] || r.reason} (${r.status})`)))),
        h("details", {}, h("summary", {}, t("Games ({gamesCount})", { gamesCount: p.games.length })),
          h("ul", {}, p.games.map((/** @type {any} */ g) => h("li", {}, h("a", { href: `/t/${g.id}` }, g.id),
            " ", g.rated ? t("rated") : t("casual"), " · ", t("place {place}", { place: g.place ?? "-" }),
            `${g.rating ? ` · ${g.rating.before} → ${g.rating.after}` : ""}${g.unrated ? ` · ${g.unrated}` : ""}`)))),
        h("details", {}, h("summary", {}, t("Rating changes ({rating_changesCount}), reverted ({revertsCount})", { rating_changesCount: p.rating_changes.length, revertsCount: p.reverts.length })),
          h("ul", {}, p.rating_changes.map((/** @type {any} */ c) => h("li", {}, `${c.table_id}: ${c.before} → ${c.after}`)))),
        h("details", {}, h("summary", {}, t("Shared-origin flags ({flagsCount})", { flagsCount: p.flags.length })),
          h("ul", {}, p.flags.map((/** @type {any} */ f) => h("li", {}, `${f.table_id}: ${f.users.join(" & ")} (${f.reason})`)))),
        h("details", {}, h("summary", {}, t("Chat ({chatCount})", { chatCount: p.chat.length })),
          h("ul", {}, p.chat.map((/** @type {EvidenceLine} */ m) => h("li", {}, `${when(m.at)} ${m.table_id}: `,
            h("span", { class: "chat-text" }, m.text), m.removed ? " (removed)" : "")))));
    } catch (err) {
      fill(player, h("p", { class: "problem" }, describe(err)));
    }
  }

  async function load() {
    try {
      if (!Object.keys(actions).length) {
        const config = /** @type {SiteConfig} */ (await api("GET", "/api/config"));
        actions = config.moderation?.actions || {};
        reasons = config.moderation?.reasons || {};
      }
      const [r, f, a] = await Promise.all([
        /** @type {Promise<{reports: Report[]}>} */ (api("GET", "/api/moderation/reports")),
        /** @type {Promise<{flags: any[]}>} */ (api("GET", "/api/moderation/flags")),
        /** @type {Promise<{actions: Action[]}>} */ (api("GET", "/api/moderation/actions"))]);
      const open = r.reports.filter((x) => x.status === "open").length;
      note.textContent = (open === 1 ? t("{open} report open.", { open }) : t("{open} reports open.", { open }));
      fill(queue, r.reports.length ? r.reports.map(reportItem) : h("li", { class: "muted" }, t("No report yet.")));
      fill(flags, f.flags.length ? f.flags.map((x) => h("li", {}, h("a", { href: `/t/${x.table_id}` }, x.table_id),
        ` ${x.users.join(" & ")} · ${x.reason} · ${when(x.at)}`)) : h("li", { class: "muted" }, t("No flag.")));
      fill(log, a.actions.length ? a.actions.map((x) => h("li", {}, `${when(x.at)} ${actionText(x)}`))
        : h("li", { class: "muted" }, t("No action yet.")));
    } catch (err) {
      note.textContent = describe(err);
      note.dataset.problem = "refused";
    }
  }
  load();
}

// @ts-check
// Friends, blocks and challenges, the page's pure parts (docs/server-api.md, Friends and
// blocks; Challenges): the friends list in its order with each one's status, a challenge's
// body from the form, the line a challenge reads as, a live challenge merged into a list,
// and which accepted challenge's table the page opens.

import { t } from "./i18n.js";

/**
 * One account the viewer follows (GET /api/friends).
 * @typedef {{user: string, since: string, online: boolean, playing: string | null}} Friend
 */
/**
 * Where the viewer stands with one player (GET /api/relations/{name}, and the answer of
 * every follow and block).
 * @typedef {{user: string, following: boolean, follows_you: boolean, blocking: boolean, blocked: boolean}} Relation
 */
/**
 * A challenge as the server shows it to the viewer.
 * @typedef {{id: string, from: string, to: string | null, accepted_by: string | null, players: number, size: number,
 *   pie: boolean, rated: boolean, time_control: string | null, level: number | null, status: string, describe: string,
 *   created_at: string, expires_at: string, path: string, mine: boolean, table_id: string | null}} Challenge
 */
/**
 * The challenge form as filled in.
 * @typedef {{to: string | null, players: number, size: number, pie: boolean, rated: boolean, clock: string, level: number}} ChallengeForm
 */

/** @param {Friend} f */
const rank = (f) => (f.playing ? 0 : f.online ? 1 : 2);

/**
 * The friends in the order the list shows them: playing, then online, then the others, each
 * group by name.
 * @param {Friend[]} friends
 * @returns {Friend[]}
 */
export function friendsInOrder(friends) {
  return [...friends].sort((a, b) => rank(a) - rank(b) || a.user.localeCompare(b.user));
}

/**
 * A friend's status in a word or two.
 * @param {Friend} f
 */
export function friendStatus(f) {
  if (f.playing) return "playing";
  return f.online ? "online" : "offline";
}

/**
 * The body of POST /api/challenges from the form: the pie rule for two players only, the
 * computers' level only past two players, the clock as the table form writes it.
 * @param {ChallengeForm} form
 */
export function challengeBody(form) {
  /** @type {Record<string, unknown>} */
  const body = { to: form.to, players: form.players, size: form.size, rated: form.rated && form.players === 2 };
  if (form.players === 2 && form.pie) body.pie = true;
  if (form.players > 2) body.level = form.level;
  if (form.clock && form.clock !== "untimed") body.time_control = form.clock;
  return body;
}

/**
 * What a challenge reads as to the viewer.
 * @param {Challenge} c
 */
export function challengeLine(c) {
  const who = c.mine ? t("You challenged {value}", { value: c.to || t("whoever opens the link") }) : t("{from} challenges you", { from: c.from });
  const outcome = c.status === "pending" ? "" : ` (${c.status}${c.status === "accepted" && c.accepted_by && c.mine ? ` by ${c.accepted_by}` : ""})`;
  return `${who}: ${c.describe}${outcome}`;
}

/**
 * The list with `c` in it: replacing its older copy, or first if new.
 * @param {Challenge[]} list
 * @param {Challenge} c
 * @returns {Challenge[]}
 */
export function merged(list, c) {
  return list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [c, ...list];
}

/**
 * The challenges made to the viewer that wait for an answer.
 * @param {Challenge[]} list
 */
export function waiting(list) {
  return list.filter((c) => !c.mine && c.status === "pending");
}

/**
 * The table to open for a challenge just told: an accepted one of the viewer's (sent, or
 * taken by the viewer), else null.
 * @param {Challenge} c
 */
export function tableToOpen(c) {
  return c.status === "accepted" && c.table_id ? c.table_id : null;
}

/** The heads of refusals on these pages (errors.describe), over the table's own. */
export const RELATION_HEADS = {
  not_found: t("No such challenge"), forbidden: t("Not allowed"), auth_required: t("Log in first"),
  blocked: t("Blocked"), challenge_over: t("Too late"),
};

// @ts-check
// The tournaments' pages, their pure parts (tested under Node): the tie-breaks in words,
// numbers and places as they read, times in the viewer's own zone and back to ISO with its
// offset, what the viewer may do, which of their games to open, the rounds and the
// standings' columns, and the "New tournament" form's body checked against the server's
// limits (GET /api/config; the page keeps no copy of them). No DOM, no timers.

import { t } from "./i18n.js";

/** @typedef {import("./tournamenttypes.js").TournamentView} TournamentView */
/** @typedef {import("./tournamenttypes.js").TournamentGame} TournamentGame */
/** @typedef {import("./tournamenttypes.js").TournamentLimits} TournamentLimits */
/** @typedef {import("./tournamenttypes.js").StandingRow} StandingRow */
/** @typedef {import("./types.js").User} User */

/**
 * The tie-breaks the formats use, by the names the server gives them (`tiebreaks`), in
 * words; docs/tournaments.md (and omega.pairing.points) define them.
 * @type {Record<string, {name: string, explain: string}>}
 */
export const TIEBREAKS = {
  buchholz: {
    name: "Buchholz",
    explain: t("the sum of your opponents' points, over your finished games: how strong a field you met"),
  },
  sonneborn_berger: {
    name: "Sonneborn-Berger",
    explain: t("the sum of the points of the opponents you finished above: beating strong players counts more than beating weak ones"),
  },
  wins: { name: "Wins", explain: t("the games you finished first") },
  performance: {
    name: "Performance",
    explain: t("your opponents' mean rating, 400 more for a game won and 400 less for a game lost (a middle place in between), averaged over your finished games"),
  },
};

/**
 * The formats the "New tournament" form offers, with a line for each (docs/tournaments.md
 * has their rules in full).
 * @type {{value: "swiss" | "arena" | "round_robin", label: string, help: string}[]}
 */
export const FORMATS = [
  { value: "swiss", label: t("Swiss"), help: t("A set number of rounds; each round seats players of equal or near scores together who have not met, where it can.") },
  { value: "arena", label: t("Arena"), help: t("Played on the clock for its length: when your game ends you are paired again at once; after two wins in a row your games count double.") },
  { value: "round_robin", label: t("Round robin"), help: t("Everyone meets everyone; the number of rounds follows from the number of players.") },
];

/**
 * The heads of errors.js's `describe` where a tournament, not a table, refused (the table's
 * own heads speak of links and seats).
 * @type {Record<string, string>}
 */
export const TOURNAMENT_HEADS = {
  forbidden: t("Not allowed"),
  not_found: t("No such tournament"),
  conflict: t("Not possible now"),
  too_many_tournaments: t("Too many tournaments"),
  auth_required: t("Log in first"),
};

/**
 * A tie-break's name and explanation; one the page does not know reads as its own name.
 * @example tiebreakInfo("buchholz").name // "Buchholz"
 * @example tiebreakInfo("median_buchholz") // {name: "median buchholz", explain: ""}
 * @param {string} key
 */
export function tiebreakInfo(key) {
  return TIEBREAKS[key] ?? { name: key.replaceAll("_", " "), explain: "" };
}

/**
 * Points and tie-breaks as they read: whole numbers bare, others to two decimals at most.
 * @example numberText(3) // "3"
 * @example numberText(2.5) // "2.5"
 * @example numberText(1 / 3) // "0.33"
 * @param {number} x
 */
export function numberText(x) {
  return String(Math.round(x * 100) / 100);
}

/**
 * A tie-break's value as it reads: a performance is a rating (a whole number).
 * @example tiebreakText("performance", 1433.6) // "1434"
 * @example tiebreakText("buchholz", 4) // "4"
 * @param {string} key
 * @param {number} value
 */
export function tiebreakText(key, value) {
  return key === "performance" ? String(Math.round(value)) : numberText(value);
}

/**
 * A finishing place (0 = first) in words.
 * @example placeText(0) // "1st"
 * @example placeText(2) // "3rd"
 * @param {number} place
 */
export function placeText(place) {
  return ["1st", "2nd", "3rd", "4th"][place] ?? `${place + 1}th`;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * A `datetime-local` field's value (the viewer's wall-clock time) as ISO with its offset,
 * as `POST /api/tournaments` takes `starts_at`; null when the value is not a time.
 * @example isoWithOffset("2026-12-24T20:00", 60) // "2026-12-24T20:00:00+01:00"
 * @example isoWithOffset("2026-12-24T20:00", -330) // "2026-12-24T20:00:00-05:30"
 * @example isoWithOffset("", 0) // null
 * @param {string} local "YYYY-MM-DDTHH:MM" (seconds optional)
 * @param {number} offsetMinutes how far the viewer's zone is ahead of UTC at that time
 */
export function isoWithOffset(local, offsetMinutes) {
  const m = LOCAL.exec(local);
  if (!m || !Number.isInteger(offsetMinutes)) return null;
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const sign = offsetMinutes < 0 ? "-" : "+";
  const off = Math.abs(offsetMinutes);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] || "00"}${sign}${pad(Math.floor(off / 60))}:${pad(off % 60)}`;
}

/**
 * The offset of this browser's zone from UTC (minutes ahead) at a wall-clock time: summer
 * and winter differ, so it is the offset of that day, not of today.
 * @param {string} local a `datetime-local` value
 */
export function offsetAt(local) {
  const at = new Date(local); // a date-time without an offset is read as local time
  return Number.isNaN(at.getTime()) ? 0 : -at.getTimezoneOffset();
}

/**
 * A moment as a `datetime-local` field shows it, in a zone `offsetMinutes` ahead of UTC.
 * @example localInputValue(Date.parse("2026-12-24T19:00:00Z"), 60) // "2026-12-24T20:00"
 * @param {number} ms
 * @param {number} offsetMinutes
 */
export function localInputValue(ms, offsetMinutes) {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 16);
}

/**
 * A moment in the viewer's own zone and language (both may be given, for tests).
 * @example whenText("2026-12-24T19:00:00Z", "en-GB", "Europe/Paris") // "Thu 24 Dec, 20:00"
 * @param {string} iso
 * @param {string} [locale]
 * @param {string} [timeZone]
 */
export function whenText(iso, locale, timeZone) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZone,
  }).format(at);
}

/**
 * The time left until a moment, as a countdown reads: minutes and seconds within the hour,
 * then hours, then days.
 * @example countdownText(125_000) // "2:05"
 * @example countdownText(3_723_000) // "1:02:03"
 * @example countdownText((2 * 24 + 5) * 3_600_000) // "2 days 5 h"
 * @param {number} ms
 */
export function countdownText(ms) {
  const left = Math.max(0, Math.ceil(ms / 1000));
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const days = Math.floor(left / 86_400);
  if (days >= 1) return (days === 1 ? t("{days} day {hours} h", { days, hours: Math.floor(left / 3600) % 24 }) : t("{days} days {hours} h", { days, hours: Math.floor(left / 3600) % 24 }));
  const h = Math.floor(left / 3600);
  const m = Math.floor(left / 60) % 60;
  return h ? `${h}:${pad(m)}:${pad(left % 60)}` : `${m}:${pad(left % 60)}`;
}

/**
 * What the viewer may do now: join (logged in; `login` when a guest could), withdraw, and
 * an arena's pause or return.
 * @example actionsFor({may_join: true, me: null, status: "upcoming", format: "swiss"}, null).login // true
 * @param {Pick<TournamentView, "may_join" | "me" | "status" | "format">} view
 * @param {User | null} user
 * @returns {{join: boolean, login: boolean, withdraw: boolean, pause: "pause" | "resume" | null}}
 */
export function actionsFor(view, user) {
  const open = view.status === "upcoming" || view.status === "running";
  const joined = Boolean(user && view.me && view.me.joined);
  return {
    join: Boolean(user) && view.may_join,
    login: !user && view.may_join,
    withdraw: joined && open,
    pause: joined && open && view.format === "arena" ? (view.me && view.me.paused ? "resume" : "pause") : null,
  };
}

/**
 * The viewer's game to open: the one being played, unless this device opened it already
 * (a player who comes back to the tournament page during their game stays there).
 * @example tableToOpen({me: {table: "T1"}}, new Set()) // "T1"
 * @example tableToOpen({me: {table: "T1"}}, new Set(["T1"])) // null
 * @param {{me: {table: string | null} | null}} view
 * @param {Set<string>} opened
 */
export function tableToOpen(view, opened) {
  const table = view.me ? view.me.table : null;
  return table && !opened.has(table) ? table : null;
}

/**
 * The games and byes by round, the latest round first; an arena, whose "rounds" are only
 * its waves of pairings, has one list of games, the newest first.
 * @example roundsOf({format: "swiss", games: [{table: "a", round: 1, players: ["x", "y"], places: [0, 1]}], byes: [{round: 1, user: "z"}]})
 * // [{round: 1, games: [{table: "a", ...}], byes: ["z"]}]
 * @param {Pick<TournamentView, "format" | "games" | "byes">} view
 * @returns {{round: number | null, games: TournamentGame[], byes: string[]}[]}
 */
export function roundsOf(view) {
  if (view.format === "arena") return view.games.length ? [{ round: null, games: [...view.games].reverse(), byes: [] }] : [];
  /** @type {Map<number, {round: number, games: TournamentGame[], byes: string[]}>} */
  const rounds = new Map();
  const of = (/** @type {number} */ r) => {
    let entry = rounds.get(r);
    if (!entry) rounds.set(r, (entry = { round: r, games: [], byes: [] }));
    return entry;
  };
  for (const g of view.games) of(g.round).games.push(g);
  for (const b of view.byes) of(b.round).byes.push(b.user);
  return [...rounds.values()].sort((a, b) => b.round - a.round);
}

/**
 * The players of a game in seat order with their places: "ann 1st", or bare while played.
 * @example gameLine({table: "a", round: 1, players: ["ann", "bob"], places: [1, 0]}) // [{name: "ann", place: "2nd", won: false}, {name: "bob", place: "1st", won: true}]
 * @param {TournamentGame} game
 */
export function gameLine(game) {
  return game.players.map((name, seat) => {
    const place = game.places ? game.places[seat] : null;
    return { name, place: place === null ? null : placeText(place), won: place === 0 };
  });
}

/**
 * The standings' columns past rank, player and points: each tie-break (named in words,
 * explained in its title), the games, the seats each player has had (where seats are
 * rotated: every format but the arena) and an arena's streak.
 * @example standingColumns({format: "swiss", tiebreaks: ["buchholz"], players: 2}).map((c) => c.head) // ["Buchholz", "Games", "Seats"]
 * @param {Pick<TournamentView, "format" | "tiebreaks" | "players">} view
 * @param {readonly string[]} [colors] the seats' colours, for the seats' title
 * @returns {{key: string, head: string, title: string, cell: (row: StandingRow) => string}[]}
 */
export function standingColumns(view, colors = ["White", "Black", "Red", "Blue"]) {
  const columns = view.tiebreaks.map((key, i) => {
    const info = tiebreakInfo(key);
    // A performance without a finished game is no rating at all (the server sends 0).
    const none = key === "performance" ? (/** @type {StandingRow} */ r) => r.games === 0 : () => false;
    return {
      key, head: info.name, title: info.explain,
      cell: (/** @type {StandingRow} */ r) => (none(r) ? "–" : tiebreakText(key, r.tiebreaks[i] ?? 0)),
    };
  });
  columns.push({ key: "games", head: t("Games"), title: t("games finished"), cell: (r) => String(r.games) });
  if (view.format === "arena") {
    columns.push({
      key: "streak", head: t("Streak"), title: t("wins in a row; on fire after two: each game counts double until one is not a win"),
      cell: (r) => `${r.extra.streak ?? 0}${r.extra.fire ? ", on fire" : ""}`,
    });
  } else {
    columns.push({
      key: "seats", head: t("Seats"), title: t("games played as {value}", { value: colors.slice(0, view.players).join(" · ") }),
      cell: (r) => (r.extra.seats ?? []).join(" · "),
    });
  }
  return columns;
}

/**
 * The fields of the "New tournament" form, as typed.
 * @typedef {object} TournamentFields
 * @property {string} name
 * @property {"swiss" | "arena" | "round_robin"} format
 * @property {number} players
 * @property {number} size
 * @property {string} time_control
 * @property {boolean} vacation
 * @property {boolean} rated
 * @property {boolean} public
 * @property {string} rounds Swiss only
 * @property {string} minutes an arena's length
 * @property {string} round_minutes optional (not in an arena)
 * @property {string} starts the `datetime-local` value
 * @property {number} offset the viewer's offset from UTC at that time (minutes ahead)
 */

/**
 * A whole number in a field within `[low, high]`, else null.
 * @param {string} text
 * @param {[number, number]} range
 */
function whole(text, range) {
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= range[0] && n <= range[1] ? n : null;
}

/**
 * The body of `POST /api/tournaments` from the form, or the first field that is not right
 * with a sentence saying why. Only what the form's own fields must be is checked here (the
 * server's limits, from GET /api/config); the rules between settings (an arena in real time,
 * a start in the future) are the server's, and its refusal is shown as it says it.
 * @example tournamentBody({name: "Cup", format: "swiss", players: 2, size: 5, time_control: "3+2", vacation: false, rated: true, public: false, rounds: "", minutes: "", round_minutes: "", starts: "2026-12-24T20:00", offset: 0}, LIMITS)
 * // {error: {field: "rounds", message: "Rounds: a whole number from 1 to 20"}}
 * @param {TournamentFields} f
 * @param {TournamentLimits} limits
 * @returns {{body: Record<string, unknown>} | {error: {field: string, message: string}}}
 */
export function tournamentBody(f, limits) {
  const fail = (/** @type {string} */ field, /** @type {string} */ message) => ({ error: { field, message } });
  const name = f.name.trim();
  if (!name) return fail("name", t("Name: give the tournament a name"));
  if (name.length > limits.name_max) return fail("name", t("Name: at most {name_max} characters (this one has {nameCount})", { name_max: limits.name_max, nameCount: name.length }));
  /** @type {Record<string, unknown>} */
  const body = {
    name, format: f.format, players: f.players, size: f.size, time_control: f.time_control,
    rated: f.rated, public: f.public, vacation: f.vacation,
  };
  if (f.format === "swiss") {
    const rounds = whole(f.rounds, limits.rounds);
    if (rounds === null) return fail("rounds", t("Rounds: a whole number from {value} to {value2}", { value: limits.rounds[0], value2: limits.rounds[1] }));
    body.rounds = rounds;
  }
  if (f.format === "arena") {
    const minutes = whole(f.minutes, limits.arena_minutes);
    if (minutes === null) {
      return fail("minutes", t("Length: a whole number of minutes from {value} to {value2}", { value: limits.arena_minutes[0], value2: limits.arena_minutes[1] }));
    }
    body.minutes = minutes;
  } else if (f.round_minutes.trim()) {
    const minutes = whole(f.round_minutes, limits.round_minutes);
    if (minutes === null) {
      return fail("round_minutes", t("Round deadline: a whole number of minutes from {value} to {value2}, or empty for none", { value: limits.round_minutes[0], value2: limits.round_minutes[1] }));
    }
    body.round_minutes = minutes;
  }
  const starts = isoWithOffset(f.starts, f.offset);
  if (starts === null) return fail("starts", t("Start: choose a day and a time"));
  body.starts_at = starts;
  return { body };
}

/**
 * The form field a refusal of the server names ("bad request: rounds: ..."), to point at
 * it; null when it names none.
 * @example fieldOfError("bad request: starts_at: the start is in the past") // "starts"
 * @example fieldOfError("you already have 5 tournaments that have not ended") // null
 * @param {string} message
 */
export function fieldOfError(message) {
  const m = /^bad request: (\w+)/.exec(message);
  if (!m) return null;
  /** @type {Record<string, string>} */
  const fields = { starts_at: "starts", time_control: "clock", rounds: "rounds", minutes: "minutes",
    round_minutes: "round_minutes", name: "name", vacation: "clock" };
  return fields[m[1]] ?? null;
}

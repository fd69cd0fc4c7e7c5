// The tournament pages' pure parts (src/omega/web/js/tournaments.js): times to and from the
// viewer's zone, the standings' columns and numbers, what a viewer may do, which game the
// page opens, the rounds, and the "New tournament" form's body checked against the limits.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, describe } from "../../src/omega/web/js/errors.js";
import {
  FORMATS, TOURNAMENT_HEADS, TIEBREAKS, actionsFor, countdownText, fieldOfError, gameLine, isoWithOffset, localInputValue, numberText,
  placeText, roundsOf, standingColumns, tableToOpen, tiebreakInfo, tiebreakText, tournamentBody, whenText,
} from "../../src/omega/web/js/tournaments.js";

/** GET /api/config's `tournaments`, as the server sends it. */
const LIMITS = {
  players: [2, 4], rounds: [1, 20], arena_minutes: [5, 1440], round_minutes: [1, 43200], gap_seconds: [0, 3600],
  max_missed: [1, 10], entrants: [2, 256], name_max: 64, starts_within_days: 60,
};

/** A form as typed, a Swiss by default. */
const FIELDS = {
  name: "Friday Swiss", format: "swiss", players: 2, size: 5, time_control: "3+2", vacation: false, rated: true,
  public: false, rounds: "5", minutes: "30", round_minutes: "", starts: "2026-12-24T20:00", offset: 60,
};

test("a wall-clock time goes to the server as ISO with the viewer's offset", () => {
  assert.equal(isoWithOffset("2026-12-24T20:00", 60), "2026-12-24T20:00:00+01:00");
  assert.equal(isoWithOffset("2026-06-24T20:00:30", 120), "2026-06-24T20:00:30+02:00");
  assert.equal(isoWithOffset("2026-12-24T20:00", 0), "2026-12-24T20:00:00+00:00");
  assert.equal(isoWithOffset("2026-12-24T20:00", -330), "2026-12-24T20:00:00-05:30");
  // The same instant, read back by Date, whatever the zone was.
  assert.equal(Date.parse(/** @type {string} */ (isoWithOffset("2026-12-24T20:00", 60))), Date.parse("2026-12-24T19:00:00Z"));
  for (const bad of ["", "24/12/2026 20:00", "2026-12-24", "2026-12-24T20"]) assert.equal(isoWithOffset(bad, 60), null, bad);
});

test("a moment shows in the field and in words in the viewer's zone", () => {
  const at = Date.parse("2026-12-24T19:00:00Z");
  assert.equal(localInputValue(at, 60), "2026-12-24T20:00");
  assert.equal(localInputValue(at, -300), "2026-12-24T14:00");
  assert.equal(isoWithOffset(localInputValue(at, 60), 60), "2026-12-24T20:00:00+01:00");
  assert.equal(whenText("2026-12-24T19:00:00Z", "en-GB", "Europe/Paris"), "Thu 24 Dec, 20:00");
  assert.equal(whenText("2026-12-24T19:00:00Z", "en-GB", "America/New_York"), "Thu 24 Dec, 14:00");
  assert.equal(whenText("not a time"), "not a time");
});

test("a countdown reads minutes and seconds, then hours, then days", () => {
  assert.equal(countdownText(125_000), "2:05");
  assert.equal(countdownText(2_500), "0:03");
  assert.equal(countdownText(3_723_000), "1:02:03");
  assert.equal(countdownText((2 * 24 + 5) * 3_600_000), "2 days 5 h");
  assert.equal(countdownText(86_400_000), "1 day 0 h");
  assert.equal(countdownText(-5_000), "0:00");
});

test("numbers, places and tie-breaks read as a person writes them", () => {
  assert.equal(numberText(3), "3");
  assert.equal(numberText(2.5), "2.5");
  assert.equal(numberText(1 / 3), "0.33");
  assert.equal(tiebreakText("performance", 1433.6), "1434");
  assert.equal(tiebreakText("sonneborn_berger", 1.5), "1.5");
  assert.deepEqual([0, 1, 2, 3].map(placeText), ["1st", "2nd", "3rd", "4th"]);
  assert.equal(tiebreakInfo("buchholz").name, "Buchholz");
  assert.match(tiebreakInfo("buchholz").explain, /sum of your opponents' points/);
  assert.match(tiebreakInfo("sonneborn_berger").explain, /opponents you finished above/);
  assert.deepEqual(tiebreakInfo("median_buchholz"), { name: "median buchholz", explain: "" });
  // Every tie-break the formats use has words (omega.pairing's names).
  for (const key of ["buchholz", "sonneborn_berger", "wins", "performance"]) assert.ok(TIEBREAKS[key].explain, key);
});

test("the standings' columns: the format's tie-breaks in words, the seats or an arena's streak", () => {
  const row = { rank: 1, user: "ann", user_id: 1, points: 2, tiebreaks: [3, 1.5], games: 2, rating: 1000, withdrawn: false,
    paused: false, extra: { wins: 2, seats: [1, 1, 0], streak: 2, fire: true } };
  const swiss = standingColumns({ format: "swiss", tiebreaks: ["buchholz", "sonneborn_berger"], players: 3 });
  assert.deepEqual(swiss.map((c) => c.head), ["Buchholz", "Sonneborn-Berger", "Games", "Seats"]);
  assert.deepEqual(swiss.map((c) => c.cell(row)), ["3", "1.5", "2", "1 · 1 · 0"]);
  assert.equal(swiss[3].title, "games played as White · Black · Red");
  const arena = standingColumns({ format: "arena", tiebreaks: ["performance"], players: 2 });
  assert.deepEqual(arena.map((c) => c.head), ["Performance", "Games", "Streak"]);
  assert.equal(arena[2].cell(row), "2, on fire");
  assert.equal(arena[2].cell({ ...row, extra: { streak: 0, fire: false } }), "0");
  assert.equal(arena[0].cell({ ...row, tiebreaks: [1433.6] }), "1434");
  // No finished game, no performance.
  assert.equal(arena[0].cell({ ...row, games: 0, tiebreaks: [0] }), "–");
});

test("the viewer may join, withdraw and pause as the tournament and their entry allow", () => {
  const user = { id: 1, username: "ann" };
  const me = { joined: true, withdrawn: false, paused: false, missed: 0, table: null };
  assert.deepEqual(actionsFor({ may_join: true, me: null, status: "upcoming", format: "swiss" }, user),
    { join: true, login: false, withdraw: false, pause: null });
  assert.deepEqual(actionsFor({ may_join: true, me: null, status: "upcoming", format: "swiss" }, null),
    { join: false, login: true, withdraw: false, pause: null });
  assert.deepEqual(actionsFor({ may_join: false, me, status: "running", format: "swiss" }, user),
    { join: false, login: false, withdraw: true, pause: null });
  assert.equal(actionsFor({ may_join: false, me, status: "running", format: "arena" }, user).pause, "pause");
  assert.equal(actionsFor({ may_join: false, me: { ...me, paused: true }, status: "running", format: "arena" }, user).pause, "resume");
  assert.deepEqual(actionsFor({ may_join: false, me, status: "finished", format: "arena" }, user),
    { join: false, login: false, withdraw: false, pause: null });
});

test("the page opens the viewer's game once", () => {
  assert.equal(tableToOpen({ me: { table: "T1" } }, new Set()), "T1");
  assert.equal(tableToOpen({ me: { table: "T1" } }, new Set(["T1"])), null);
  assert.equal(tableToOpen({ me: { table: null } }, new Set()), null);
  assert.equal(tableToOpen({ me: null }, new Set()), null);
});

test("games go by round, the latest first, with the byes; an arena's in one list, newest first", () => {
  const games = [
    { table: "a", round: 1, players: ["x", "y"], places: [0, 1] },
    { table: "b", round: 2, players: ["z", "x"], places: null },
  ];
  assert.deepEqual(roundsOf({ format: "swiss", games, byes: [{ round: 1, user: "z" }, { round: 2, user: "y" }] }), [
    { round: 2, games: [games[1]], byes: ["y"] },
    { round: 1, games: [games[0]], byes: ["z"] },
  ]);
  assert.deepEqual(roundsOf({ format: "arena", games, byes: [] }), [{ round: null, games: [games[1], games[0]], byes: [] }]);
  assert.deepEqual(roundsOf({ format: "arena", games: [], byes: [] }), []);
  assert.deepEqual(gameLine({ table: "c", round: 1, players: ["ann", "bob", "cy"], places: [2, 0, 1] }), [
    { name: "ann", place: "3rd", won: false }, { name: "bob", place: "1st", won: true }, { name: "cy", place: "2nd", won: false }]);
  assert.deepEqual(gameLine(games[1]).map((p) => p.place), [null, null]);
});

test("the form's body has what the server takes, each format its own fields", () => {
  assert.deepEqual(tournamentBody(FIELDS, LIMITS), { body: {
    name: "Friday Swiss", format: "swiss", players: 2, size: 5, time_control: "3+2", rated: true, public: false,
    vacation: false, rounds: 5, starts_at: "2026-12-24T20:00:00+01:00" } });
  const arena = tournamentBody({ ...FIELDS, format: "arena", round_minutes: "9" }, LIMITS);
  assert.ok("body" in arena);
  assert.equal(arena.body.minutes, 30);
  assert.ok(!("rounds" in arena.body) && !("round_minutes" in arena.body));
  const robin = tournamentBody({ ...FIELDS, format: "round_robin", players: 3, round_minutes: " 45 " }, LIMITS);
  assert.ok("body" in robin);
  assert.deepEqual([robin.body.rounds, robin.body.minutes, robin.body.round_minutes], [undefined, undefined, 45]);
  assert.deepEqual(FORMATS.map((f) => f.value), ["swiss", "arena", "round_robin"]);
});

test("the form refuses what its fields cannot be, saying which field and why", () => {
  /** @param {Record<string, unknown>} change */
  const refusal = (change) => {
    const answer = tournamentBody({ ...FIELDS, ...change }, LIMITS);
    return "error" in answer ? answer.error : null;
  };
  assert.deepEqual(refusal({ name: "   " }), { field: "name", message: "Name: give the tournament a name" });
  assert.deepEqual(refusal({ name: "x".repeat(65) }), { field: "name", message: "Name: at most 64 characters (this one has 65)" });
  assert.deepEqual(refusal({ rounds: "99" }), { field: "rounds", message: "Rounds: a whole number from 1 to 20" });
  assert.deepEqual(refusal({ rounds: "2.5" }), { field: "rounds", message: "Rounds: a whole number from 1 to 20" });
  assert.deepEqual(refusal({ rounds: "" }), { field: "rounds", message: "Rounds: a whole number from 1 to 20" });
  assert.equal(refusal({ format: "arena", minutes: "3" })?.message, "Length: a whole number of minutes from 5 to 1440");
  assert.equal(refusal({ round_minutes: "0" })?.field, "round_minutes");
  assert.deepEqual(refusal({ starts: "" }), { field: "starts", message: "Start: choose a day and a time" });
  // The limits are the server's: other limits, other answers.
  assert.equal(refusal({ rounds: "30" })?.field, "rounds");
  assert.deepEqual(tournamentBody({ ...FIELDS, rounds: "30" }, { ...LIMITS, rounds: [1, 40] }),
    { body: { ...tournamentBody(FIELDS, LIMITS).body, rounds: 30 } });
});

test("a refusal of the server points at the field it names", () => {
  assert.equal(fieldOfError("bad request: starts_at: the start is in the past"), "starts");
  assert.equal(fieldOfError("bad request: time_control: an arena is played in real time (such as 3+2)"), "clock");
  assert.equal(fieldOfError("bad request: rounds: Input should be less than or equal to 20"), "rounds");
  assert.equal(fieldOfError("bad request: players: at least 2"), null);
  assert.equal(fieldOfError("only a moderator makes public tournaments"), null);
});

test("a tournament's refusals read with heads about tournaments, not tables", () => {
  const forbidden = new ApiError("forbidden", "only a moderator makes public tournaments");
  assert.equal(describe(forbidden, TOURNAMENT_HEADS), "Not allowed: only a moderator makes public tournaments");
  assert.equal(describe(forbidden), "This link cannot act at this table: only a moderator makes public tournaments");
  // Heads not replaced stay as they were.
  assert.equal(describe(new ApiError("rate_limited", "wait"), TOURNAMENT_HEADS), "Too many requests; wait a moment: wait");
});

// @ts-check
// The shapes of the tournaments' answers and socket messages (docs/server-api.md,
// Tournaments), for the type checker only: no module imports this one at run time.

export {};

/**
 * The limits of a tournament's settings, as `GET /api/config` serves them (`tournaments`):
 * each range is `[lowest, highest]`.
 * @typedef {object} TournamentLimits
 * @property {[number, number]} players seats per table
 * @property {[number, number]} rounds a Swiss's rounds
 * @property {[number, number]} arena_minutes an arena's length
 * @property {[number, number]} round_minutes a round's longest time
 * @property {[number, number]} gap_seconds
 * @property {[number, number]} max_missed
 * @property {[number, number]} entrants
 * @property {number} name_max the longest name
 * @property {number} starts_within_days how far ahead a start may be
 */

/** @typedef {"swiss" | "arena" | "round_robin"} TournamentFormat */
/** @typedef {"upcoming" | "running" | "finished" | "cancelled"} TournamentStatus */

/**
 * A tournament as the list shows it.
 * @typedef {object} TournamentSummary
 * @property {string} id
 * @property {string} name
 * @property {TournamentFormat} format
 * @property {string} describe the format in a few words ("Swiss, 5 rounds")
 * @property {number} players seats per table
 * @property {number} size the board's side
 * @property {string} time_control
 * @property {boolean} rated
 * @property {boolean} public
 * @property {TournamentStatus} status
 * @property {string} starts_at ISO
 * @property {number} entrants players in (not withdrawn)
 * @property {boolean} mine joined or made by the viewer
 * @property {number} round the last started, 0 before
 * @property {number | null} rounds
 */

/**
 * One line of the standings, best first.
 * @typedef {object} StandingRow
 * @property {number} rank shared by equals (1, 2, 2, 4)
 * @property {string} user
 * @property {number} user_id
 * @property {number} points
 * @property {number[]} tiebreaks in the order of the view's `tiebreaks`
 * @property {number} games
 * @property {number} rating
 * @property {boolean} withdrawn
 * @property {boolean} paused
 * @property {{wins?: number, seats?: number[], streak?: number, fire?: boolean}} extra
 */

/**
 * A game of the tournament: its table, round, players in seat order, and each seat's place
 * (0 = first) once it ended.
 * @typedef {{table: string, round: number, players: string[], places: number[] | null}} TournamentGame
 */

/**
 * Where the viewer stands in the tournament.
 * @typedef {object} TournamentMe
 * @property {boolean} joined
 * @property {boolean} withdrawn
 * @property {boolean} paused
 * @property {number} missed games lost on time without a move
 * @property {string | null} table the viewer's game being played
 */

/**
 * `GET /api/tournaments/{id}`, and every `tournament` message of its socket.
 * @typedef {TournamentSummary & {
 *   creator: string, pie_rule: boolean, vacation: boolean, minutes: number | null,
 *   round_minutes: number | null, gap_seconds: number, max_missed: number, min_players: number,
 *   max_players: number, started_at: string | null, ends_at: string | null, finished_at: string | null,
 *   tiebreaks: string[], standings: StandingRow[], games: TournamentGame[],
 *   byes: {round: number, user: string}[], me: TournamentMe | null, may_join: boolean}} TournamentView
 */

/**
 * `GET /api/tournaments`.
 * @typedef {{tournaments: {upcoming: TournamentSummary[], running: TournamentSummary[], finished: TournamentSummary[]}}} TournamentList
 */

/**
 * What the tournament socket sends.
 * @typedef {{type: "tournament", tournament: TournamentView} | {type: "pong"}
 *   | {type: "error", error: {code: string, message: string}}} TournamentMessage
 */

// @ts-check
// The shapes of the lobby's, quick play's and the ratings' answers (docs/server-api.md,
// Lobby, quick play and ratings), for the type checker only.

export {};

/**
 * @typedef {object} Rating a display rating at one player count
 * @property {number} display
 * @property {number} games
 * @property {number} wins
 * @property {boolean} provisional
 */

/**
 * @typedef {object} ListedSeat a seat of an open table
 * @property {number} index
 * @property {import("./types.js").Color} color
 * @property {string | null} user who holds it (null: free, or a computer)
 * @property {Rating | null} rating
 * @property {number} [computer] the level of a computer seat
 * @property {string} [name] a computer seat's name, as its seat shows it ("Computer (Easy)")
 * @property {import("./i18n.js").MessageText | null} [name_text] that name as a message, for the reader's language
 */

/**
 * @typedef {object} ListedTable an open table in the lobby
 * @property {string} id
 * @property {number} players
 * @property {number} size
 * @property {boolean} pie_rule
 * @property {boolean} rated
 * @property {string | null} time_control
 * @property {string} created_at
 * @property {number | null} host the creator's seat
 * @property {number} free
 * @property {ListedSeat[]} seats
 */

/**
 * @typedef {object} LobbyPage GET /api/lobby: a page of the open tables passing the filters
 * @property {ListedTable[]} tables every creator's newest table first
 * @property {number} total tables passing the filters
 * @property {number} offset
 * @property {number} limit
 */

/**
 * @typedef {{status: "idle"} | {status: "matched", table_id: string, seat: number}
 *   | {status: "waiting", players: number, size: number, time_control: string, rating: number, since: string,
 *     others_waiting: number, computer?: boolean}} QuickPlayState
 */

/**
 * @typedef {object} RatingChange one rated game's change of a rating
 * @property {string} table_id
 * @property {number} players
 * @property {number} place
 * @property {string} at
 * @property {number} before
 * @property {number} after
 * @property {number} games
 * @property {boolean} provisional
 */

/**
 * @typedef {object} RecentGame
 * @property {string} id
 * @property {number} players
 * @property {number} size
 * @property {boolean} rated
 * @property {number} seat
 * @property {string | null} finished_at
 * @property {string | null} reason
 * @property {number | null} place
 * @property {string} result the result in the one form lists show: "won", "lost", "2nd of 3", "aborted"
 * @property {Opponent[]} opponents the other seats
 * @property {{before: number, after: number} | null} rating
 */

/**
 * @typedef {object} Opponent
 * @property {number} index
 * @property {string} kind "human" or "computer"
 * @property {number | null} level
 * @property {number | null} [rating] a computer's level's display rating
 * @property {string | null} username null: a guest's or a computer's seat
 * @property {number | null} place
 */

/**
 * @typedef {object} UserRatings GET /api/users/{name}/ratings
 * @property {string} username
 * @property {Record<string, Rating>} ratings by player count
 * @property {RatingChange[]} history oldest first
 * @property {RecentGame[]} games newest first
 */

/**
 * @typedef {object} LeaderboardRow
 * @property {number} rank
 * @property {string} username
 * @property {number} display
 * @property {number} games
 * @property {number} wins
 * @property {boolean} provisional
 */

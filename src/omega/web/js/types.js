// @ts-check
// The shapes the server sends and takes (docs/server-api.md), written down for the type
// checker. Only JSDoc comments refer to this module, so the browser never fetches it.

/** @typedef {"White" | "Black" | "Red" | "Blue"} Color */
/** @typedef {string} Cell a cell name in the notation of docs/rules.md, such as "e5" */
/** @typedef {string} Decimal an exact score as a decimal string ("60"); it outgrows JavaScript numbers */

/**
 * One seat of a table. `color` is the colour the seat holds now (a pie swap changes it).
 * @typedef {object} Seat
 * @property {number} index
 * @property {Color} color
 * @property {"human" | "computer"} kind
 * @property {number | null} level
 * @property {string} name
 * @property {boolean} resigned
 * @property {boolean} connected
 * @property {boolean} joined
 */

/** @typedef {Cell[] | "swap"} HistoryEntry a turn (cells in colour order) or a swap */

/**
 * @typedef {object} LastTurn
 * @property {number} index its place in `history`
 * @property {Partial<Record<Color, Cell>>} cells
 */

/**
 * A position with everything the page shows about it.
 * @typedef {object} GameView
 * @property {Color | null} to_move
 * @property {number | null} current_seat
 * @property {boolean} can_swap
 * @property {number} turn_number
 * @property {boolean} over
 * @property {Record<Cell, Color>} stones
 * @property {HistoryEntry[]} history
 * @property {LastTurn | null} last_turn
 * @property {Partial<Record<Color, Decimal>>} scores
 * @property {Partial<Record<Color, number[]>>} factors group sizes, largest first
 * @property {Color[]} ranking
 * @property {Color | null} winner
 * @property {boolean} tiebreak
 * @property {Color[]} resigned
 */

/**
 * `GET /api/tables/{id}/replay?at=k`: the position after the first k history entries.
 * @typedef {GameView & {at: number, length: number}} ReplayView
 */

/**
 * @typedef {object} TableState
 * @property {string} id
 * @property {number} version
 * @property {string} created_at
 * @property {number} players
 * @property {number} size
 * @property {boolean} pie_rule
 * @property {"waiting" | "playing" | "over" | "cancelled"} status waiting: an open table of the lobby with free seats
 * @property {boolean} [open] listed in the lobby
 * @property {boolean} [rated]
 * @property {Seat[]} seats
 * @property {{seat: number | null}} [you] the reader's seat, null for the spectator key
 * @property {GameView} game
 */

/**
 * @typedef {{type: "turn", cells: Cell[]} | {type: "swap"} | {type: "resign"}} Action
 */

/**
 * `POST /api/tables/{id}/actions`: an action with its idempotency key and the version it was chosen at.
 * @typedef {Action & {request_id: string, version?: number}} ActionBody
 */

/** @typedef {{version: number, state: TableState}} ActionAnswer */

/**
 * `POST /api/tables` answers this.
 * @typedef {object} CreatedTable
 * @property {string} id
 * @property {number} seat
 * @property {string} token
 * @property {Record<string, string>} invites seat index -> seat token, every human seat
 * @property {string} spectator_key
 * @property {TableState} state
 */

/** @typedef {{code: string, message: string}} ErrorDetail */
/** @typedef {{error: ErrorDetail}} ErrorBody the body of every non-2xx answer */

/**
 * @typedef {{kind: "turn", seat: number, color: Color, cells: Cell[], computer: boolean}
 *   | {kind: "swap", seat: number, computer: boolean}
 *   | {kind: "join", seat: number}
 *   | {kind: "name", seat: number, name: string}
 *   | {kind: "resign", seat: number, color: Color}
 *   | {kind: "over", reason: "board_full" | "resignation", ranking: Color[], winner: Color, scores: Partial<Record<Color, Decimal>>}
 *   | {kind: "presence", seat: number, connected: boolean, connections: number}} TableEvent
 */

/** @typedef {{type: "sync", version: number, state: TableState}} SyncMessage */
/** @typedef {{type: "event", version: number, event: TableEvent, state: TableState}} EventMessage */
/** @typedef {{type: "ack", request_id: string, version: number}} AckMessage */
/** @typedef {{type: "error", request_id: string | null, error: ErrorDetail}} ErrorMessage */
/** @typedef {{type: "pong"}} PongMessage */
/**
 * Who is at the table now: live state, not an event (no version of its own; `version` is
 * the table's when it was sent). One boolean per seat, computers always true.
 * @typedef {{type: "presence", version: number, seats: boolean[]}} PresenceMessage
 */
/** @typedef {SyncMessage | EventMessage | AckMessage | ErrorMessage | PongMessage | PresenceMessage} ServerMessage what the table's socket says */
/**
 * @typedef {{type: "action", request_id: string, action: Action, version?: number} | {type: "ping"}} ClientMessage
 */

/**
 * @typedef {object} LevelInfo a computer level; `name` and `description` may be absent
 * @property {number} level
 * @property {string} [name]
 * @property {string} [description]
 */

/**
 * `GET /api/config`: what a table may be.
 * @typedef {object} SiteConfig
 * @property {{min: number, max: number}} players
 * @property {{size: number, cells: number}[]} sizes
 * @property {number} default_size
 * @property {LevelInfo[]} levels
 * @property {number} default_level
 * @property {number} name_max
 * @property {{min: number, max: number, rule: string}} [username]
 * @property {{min: number, max: number, rule: string}} [password]
 */

/** @typedef {{id: number, username: string}} User a logged-in account */

/**
 * A seat as the account lists show it: who holds it (an account's username, or null).
 * @typedef {{index: number, kind: "human" | "computer", level: number | null, user: string | null}} ListedSeat
 */

/**
 * `GET /api/account/tables`: one unfinished table of the account.
 * @typedef {object} MyTable
 * @property {string} id
 * @property {number} players
 * @property {number} size
 * @property {boolean} pie_rule
 * @property {string} created_at
 * @property {string} updated_at
 * @property {number} seat the account's seat
 * @property {boolean} your_turn
 * @property {ListedSeat[]} seats
 */

/**
 * `GET /api/account/history`: one finished game of the account.
 * @typedef {object} PlayedGame
 * @property {string} id
 * @property {number} players
 * @property {number} size
 * @property {boolean} pie_rule
 * @property {string} finished_at
 * @property {number} seat
 * @property {Color} color the seat's colour at the end
 * @property {string | null} reason
 * @property {Color[]} ranking
 * @property {number | null} place
 * @property {boolean} won
 * @property {ListedSeat[]} seats
 */

/** @typedef {{games: PlayedGame[], next: string | null}} HistoryPage */

/**
 * `POST /api/account/claim`: the answer for one seat link.
 * @typedef {{table_id: string, seat: number | null, status: "claimed" | "already" | "refused", error?: ErrorDetail}} ClaimAnswer
 */

export {};

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
 * @property {number | null} [rating] a computer seat's level's display rating (docs/ai.md, Levels)
 * @property {string} name in English where it is the seat's default name ("Player 2", "Computer (Easy)")
 * @property {import("./i18n.js").MessageText | null} [name_text] the default name as a message (null: a name its player wrote)
 * @property {boolean} resigned
 * @property {boolean} [timed_out] its clock ran out (it ranks last, the computer plays on)
 * @property {boolean} [claimed] resigned on its behalf by a player it kept waiting (the claim action)
 * @property {boolean} connected
 * @property {boolean} joined
 * @property {number} [hints_used] hints this seat's player asked for
 * @property {string | null} [paused] why its clock is paused ("vacation"); null: it is not
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
 * @property {Color[]} [timed_out]
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
 * @property {boolean} [hints] whether the players may ask for hints
 * @property {"waiting" | "playing" | "over" | "cancelled"} status waiting: an open table of the lobby with free seats
 * @property {boolean} [open] listed in the lobby
 * @property {boolean} [rated]
 * @property {Seat[]} seats
 * @property {{seat: number | null}} [you] the reader's seat, null for the spectator key
 * @property {GameView} game
 * @property {Clock | null} [clock] null at an untimed table
 * @property {"board_full" | "resignation" | "abandoned" | "timeout" | "aborted" | null} [end_reason]
 * @property {string | null} [claim_from] at an untimed casual table, when the seat to move may be
 *   claimed if its player has the table closed (ISO, ms); null: no claim possible
 */

/**
 * A timed table's clocks, by the server's time (docs/server-api.md).
 * @typedef {object} Clock
 * @property {string} control the time control's text ("5+5", "1d+7d")
 * @property {"realtime" | "turn_based"} kind
 * @property {string} label the control in words
 * @property {number} per_move_ms
 * @property {number} increment_ms
 * @property {number} low_ms below this much left a clock shows red
 * @property {(number | null)[]} left_ms per seat: what it has for its turn at the start of it (null: no clock)
 * @property {number | null} running the seat whose clock runs
 * @property {string | null} since when it started running (ISO, ms)
 * @property {string | null} flag_at when its flag falls unless it moves (ISO, ms)
 * @property {boolean} [pausable] whether a player's turn-based clock may be paused here (vacation)
 */

/**
 * @typedef {{type: "turn", cells: Cell[]} | {type: "swap"} | {type: "resign"} | {type: "claim"}} Action
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

/** @typedef {{code: string, message: string, until?: string}} ErrorDetail `until`: a mute's end (`muted`) */
/** @typedef {{error: ErrorDetail}} ErrorBody the body of every non-2xx answer */

/**
 * @typedef {{kind: "turn", seat: number, color: Color, cells: Cell[], computer: boolean}
 *   | {kind: "swap", seat: number, computer: boolean}
 *   | {kind: "join", seat: number}
 *   | {kind: "name", seat: number, name: string}
 *   | {kind: "resign", seat: number, color: Color, claimed_by?: number}
 *   | {kind: "timeout", seat: number, color: Color, aborted: boolean}
 *   | {kind: "pause", seat: number, reason: string}
 *   | {kind: "resume", seat: number}
 *   | {kind: "over", reason: "board_full" | "resignation" | "abandoned" | "timeout" | "aborted", ranking: Color[], winner: Color, scores: Partial<Record<Color, Decimal>>}
 *   | {kind: "presence", seat: number, connected: boolean, connections: number}} TableEvent
 */

/** @typedef {{type: "sync", version: number, state: TableState, server_time?: string}} SyncMessage */
/**
 * An event: with the changes from the version before (omega.v2, which the page speaks), or
 * the whole state after it (omega.v1).
 * @typedef {{type: "event", version: number, event: TableEvent, changes?: import("./patch.js").Change[],
 *   state?: TableState}} EventMessage
 */
/** @typedef {{type: "ack", request_id: string, version: number}} AckMessage */
/** @typedef {{type: "error", request_id: string | null, error: ErrorDetail}} ErrorMessage */
/** @typedef {{type: "pong", server_time?: string}} PongMessage */
/**
 * Who is at the table now: live state, not an event (no version of its own; `version` is
 * the table's when it was sent). One boolean per seat, computers always true.
 * @typedef {{type: "presence", version: number, seats: boolean[]}} PresenceMessage
 */
/** @typedef {{type: "review", status: "queued" | "running" | "done", done?: number, total?: number}} ReviewMessage a finished game's review is on its way, or made */
/**
 * One chat message: the writer's seat (null: a spectator), the name they showed, their
 * account's username (null: a guest) and the text, plain.
 * @typedef {{id: number, at: string, seat: number | null, name: string, user: string | null, text: string}} ChatLine
 */
/** @typedef {{type: "chat", history: boolean, messages: ChatLine[]}} ChatMessage */
/** @typedef {{type: "chat_removed", id: number}} ChatRemovedMessage a moderator removed a message */
/**
 * Where the table's rematch stands; `table` once it started (my seat there, null for a spectator).
 * @typedef {object} Rematch
 * @property {"proposed" | "declined" | "cancelled" | "started"} status
 * @property {number} proposer
 * @property {number[]} accepted
 * @property {number[]} waiting
 * @property {number | null} ended_by
 * @property {{id: string, seat: number | null} | null} table
 */
/** @typedef {{type: "rematch", rematch: Rematch}} RematchMessage */
/**
 * What the table's socket says.
 * @typedef {SyncMessage | EventMessage | AckMessage | ErrorMessage | PongMessage | PresenceMessage | ReviewMessage
 *   | ChatMessage | ChatRemovedMessage | RematchMessage} ServerMessage
 */
/**
 * @typedef {{type: "action", request_id: string, action: Action, version?: number} | {type: "ping"}
 *   | {type: "chat", text: string, request_id: string}
 *   | {type: "rematch", op: "propose" | "accept" | "decline", request_id: string}} ClientMessage
 */

/**
 * @typedef {object} LevelInfo a computer level; `name` and `description` may be absent
 * @property {number} level
 * @property {string} [name]
 * @property {string} [description]
 * @property {number} [rating] its display rating, measured by the levels' ladder
 * @property {number} [rating_low] the low end of the rating's 95% interval
 * @property {number} [rating_high] the high end of the rating's 95% interval
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
 * @property {TimeControlConfig} [time_controls]
 * @property {number} [chat_max] the most characters of a chat message
 * @property {import("./tournamenttypes.js").TournamentLimits} [tournaments] a tournament's settings' limits
 * @property {{reasons: Record<string, string>, actions: Record<string, string>, text_max: number,
 *   mute_minutes: number[], ban_minutes: number[]}} [moderation] what a report and an action may say
 */

/** @typedef {{id: number, username: string}} User a logged-in account */

/**
 * A seat as the account lists show it: who holds it (an account's username, or null).
 * A computer's `name` is the one its seat shows ("Computer (Easy)"; null for people).
 * @typedef {{index: number, kind: "human" | "computer", level: number | null, user: string | null, name?: string | null, name_text?: import("./i18n.js").MessageText | null}} ListedSeat
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
 * @property {{text: string, kind: "untimed" | "realtime" | "turn_based"}} [time_control]
 * @property {string | null} [flag_at] when the running clock's flag falls (null: none runs)
 */

/**
 * `GET /api/account/vacation`: the account's vacation (docs/server-api.md, Vacation).
 * @typedef {object} Vacation
 * @property {number} allowance_days days a calendar year
 * @property {number} year
 * @property {number} left_hours
 * @property {number} used_hours
 * @property {string} left the hours left in words ("27 days 5 hours")
 * @property {boolean} on_vacation
 * @property {string | null} since
 * @property {string | null} until its planned end (null: until the player comes back)
 * @property {string | null} ends_at when it ends at the latest (its end, or the allowance spent)
 * @property {boolean} started_automatically
 * @property {boolean} automatic whether a vacation may start by itself when a turn-based flag is near
 * @property {number} automatic_before_hours how near
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

/**
 * The time controls a table may have (`GET /api/config`).
 * @typedef {object} TimeControlConfig
 * @property {string} default
 * @property {{default: string, presets: string[]}} quickplay the real-time presets `POST /api/quickplay`
 *   takes, and the one a quick-play game gets when the request names none
 * @property {{presets: {text: string, label: string}[], base_minutes: {min: number, max: number}, increment_seconds: {min: number, max: number}}} realtime
 * @property {{per_move: {text: string, label: string}[], reserve_days: {min: number, max: number}}} turn_based
 */

export {};

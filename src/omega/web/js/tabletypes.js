// @ts-check
// The shapes of the table page's data, for the type checker only (like types.js, the
// browser never loads it): the model, the facts the views draw, the steps keys and clicks
// mean, what the page reports and draws, and what the actions need of the controller.
// Each group's heading names the module that makes those shapes.

export {};

/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Decimal} Decimal */
/** @typedef {import("./types.js").Seat} Seat */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./types.js").TableState} TableState */
/** @typedef {import("./types.js").Rematch} Rematch */
/** @typedef {import("./types.js").ClientMessage} ClientMessage */
/** @typedef {import("./api.js").ConnStatus} ConnStatus */
/** @typedef {import("./score.js").Stones} Stones */
/** @typedef {import("./store.js").Prefs} Prefs */
/** @typedef {import("./views/links.js").SavedLinks} SavedLinks */
/** @typedef {import("./views/links.js").Renewal} Renewal */
/** @typedef {import("./views/review.js").ReviewStatus} ReviewStatus */

// -- the model (tablestate.js) -------------------------------------------------------------

/**
 * A sentence under the buttons; `code` names the failure it reports ("network": the server
 * could not be reached, a sentence that goes once the page is live again).
 * @typedef {{kind: "error" | "info", text: string, code?: string}} Note
 */

/**
 * What the pointer is on: a cell (with the pointer's place, for the tooltip) or a player panel.
 * @typedef {{kind: "cell", cell: Cell, x: number, y: number} | {kind: "panel", color: Color}} Hover
 */

/** @typedef {{key: string, id: string}} Pending a turn being sent, retried with the same request id */

/**
 * @typedef {object} Model
 * @property {TableState | null} state the newest table state the page has
 * @property {number | null} seat my seat, null when watching
 * @property {Cell[]} staged in staging order: my own colour first, then the others in turn order
 * @property {string} buffer a cell name being typed
 * @property {Note | null} message
 * @property {Hover | null} hover
 * @property {number | null} replayAt null = live; k = the position after the first k history entries
 * @property {number | null} replayWanted the replay position asked for last; answers for others are late
 * @property {GameView | null} replayView
 * @property {ConnStatus} conn
 * @property {boolean} everLive whether the socket was ever live (a later "live" is a reconnection)
 * @property {boolean} sending
 * @property {Pending | null} pending
 * @property {boolean} pieDismissed
 * @property {boolean} confirmResign
 * @property {boolean} startNow the first turn may be played before everyone has joined
 * @property {number | null} offset ms the server's clock is ahead of the page's (null: not measured yet)
 */

/** @typedef {Model & {state: TableState}} Loaded a model once the table state has arrived */

// -- staging (staging.js) ------------------------------------------------------------------

/** @typedef {{cell: Cell, color: Color}} StagedStone */

// -- clocks (clocks.js) --------------------------------------------------------------------

/**
 * @typedef {object} ClockFacts one seat's clock as the page shows it
 * @property {Color} color
 * @property {number} left ms left now (for the running clock: until its flag, by the server's time)
 * @property {string} text
 * @property {boolean} running
 * @property {boolean} low in its last 10 % (or 20 s): shown red
 * @property {boolean} out the seat ran out of time
 */

// -- what the page shows (scene.js) --------------------------------------------------------

/**
 * @typedef {object} PanelFacts what one player panel shows
 * @property {Color} color
 * @property {Seat | null} seat
 * @property {string} label
 * @property {boolean} toMove
 * @property {boolean} mine
 * @property {boolean} hovered
 * @property {boolean} resigned
 * @property {"online" | "offline" | null} presence null for computers
 * @property {Decimal} score
 * @property {{value: Decimal, up: boolean} | null} preview the score the staged stones would give, when it differs
 * @property {number[] | null} factors group sizes while the panel is hovered
 */

/** @typedef {"board_full" | "resignation" | "abandoned" | "timeout" | "aborted"} EndReason */

/**
 * @typedef {object} EndingFacts what the end of the game shows (scene.js `endingFacts`)
 * @property {EndReason} reason
 * @property {string} heading
 * @property {string | null} text how it ended, in words (null: the board filled)
 * @property {boolean} ranked whether the result ranks the players (not for an aborted game)
 * @property {{place: number, of: number} | null} place mine, when I hold a seat of a ranked result
 */

/**
 * @typedef {{kind: "replay", at: number, total: number}
 *   | {kind: "over", winner: Color | null, name: string | null, reason: EndReason | null, claimed: boolean}
 *   | {kind: "join", names: string[]}
 *   | {kind: "complete"}
 *   | {kind: "stage", color: Color | null, index: number, order: Color[]}
 *   | {kind: "wait", color: Color | null, name: string | null, computer: number | null, watching: boolean}} PromptFacts
 */

/**
 * @typedef {object} BoardScene what the board draws
 * @property {number} size
 * @property {Stones} stones
 * @property {StagedStone[]} staged
 * @property {Cell[]} last the last turn's cells
 * @property {Cell[]} recent the cells of the other turns marked since my last one
 * @property {Record<Cell, number>} numbers each marked stone's turn number, when more than one turn is marked
 * @property {Cell[]} outline cells whose outer edges are outlined
 * @property {StagedStone | null} ghost the faint next stone under the pointer
 * @property {boolean} interactive
 * @property {{text: string, x: number, y: number} | null} tip
 */

// -- keys (keys.js) ------------------------------------------------------------------------

/**
 * A step the controller takes: `set` changes only what is shown, `stage` may stage a
 * stone (and, with "send at the last stone", send the turn), `unstage` takes one back.
 * @typedef {{kind: "replay", at: number}
 *   | {kind: "set", model: Loaded}
 *   | {kind: "stage", model: Loaded}
 *   | {kind: "unstage", model: Loaded}
 *   | {kind: "confirm"}} Step
 */

/** @typedef {{key: string, ctrlKey: boolean, metaKey: boolean, altKey: boolean}} KeyPress */

/** @typedef {{tagName: string, isContentEditable: boolean}} KeyTarget where the focus is */

// -- the page (tablepage.js) ---------------------------------------------------------------

/**
 * What the page reports to the controller: the buttons of the controls and the settings
 * as those views name them, and the rest here.
 * @typedef {import("./views/controls.js").ControlHandlers & import("./views/options.js").OptionHandlers & {
 *   onHoverPanel: (color: Color) => void, onLeavePanel: (color: Color) => void,
 *   onCell: (cell: Cell, how: "click" | "activate") => void,
 *   onHover: (cell: Cell | null, x: number, y: number) => void,
 *   onGo: (k: number) => void, onStep: (delta: number) => void,
 *   onDownload: (ext: "txt" | "json") => void, onRematch: (op: "propose" | "accept" | "decline") => void,
 *   onOpenRematch: () => void, onChat: (text: string) => void, onMute: (muted: string[]) => void,
 *   onAskReview: () => void, onHint: () => void, onClaim: () => void,
 *   onAnalyse: (at: number | null) => void,
 *   onRename: (name: string) => void, onRenew: (what: Renewal) => void,
 * }} PageHandlers
 */

/**
 * What the page draws besides the model: what the controller knows from other answers.
 * @typedef {object} PageExtras
 * @property {Prefs} prefs
 * @property {ReviewStatus} review the finished game's review
 * @property {boolean} hinting a hint is being asked for
 * @property {Rematch | null} rematch
 * @property {SavedLinks | null} invites the links this device keeps for the table
 * @property {number | null} nameMax the longest name the server takes, when known
 */

// -- the actions (tableactions.js) ---------------------------------------------------------

/**
 * What the actions need of the controller.
 * @typedef {object} Control
 * @property {() => Model} model the model now
 * @property {(next: Model) => void} set a new model, drawn at once
 * @property {(next: Model) => void} put a new model, drawn with the next change
 * @property {(next: Loaded) => void} setStaging a change that may stage stones (kept over a reload)
 * @property {(state: TableState | null | undefined) => void} takeState a newer table state
 * @property {() => void} render
 * @property {PageExtras} extras what the page draws besides the model, kept here up to date
 * @property {import("./tablepage.js").TablePage} page
 * @property {(message: ClientMessage) => void} send a message on the table's socket
 * @property {(next: {id: string, seat: number | null}) => void} moveTo open another table (the rematch's)
 * @property {{id: string, token: string}} link the table and the secret this page opened it with
 */

// @ts-check
// What the page remembers in localStorage: the tables you created or joined (with their
// secret links, which only ever live on your device), your name, your settings and your
// quick-play clock and the matches it followed, and which tournament each game it opened from a tournament's page is of.

/** @typedef {import("./types.js").Cell} Cell */
/**
 * A table this device remembers: its secret link (a seat token or the spectator key) and,
 * for the table's creator, every invite.
 * @typedef {object} TableEntry
 * @property {string} id
 * @property {string} [token]
 * @property {string} [watch]
 * @property {number | null} [seat]
 * @property {Record<string, string>} [invites]
 * @property {string} [spectator_key]
 * @property {number} [players]
 * @property {number} [size]
 * @property {boolean} [pie]
 * @property {string} [status]
 * @property {number} [createdAt]
 * @property {number} [lastSeen]
 */
/**
 * The settings, chosen on the table page and kept on this device.
 * @typedef {object} Prefs
 * @property {boolean} coords coordinates around the board and in empty cells
 * @property {boolean} markers colour-blind marks on the stones
 * @property {boolean} sound a tone when it becomes my turn
 * @property {boolean} autoSend send the turn at its last stone, without Confirm
 * @property {boolean} sinceMine mark every turn since mine, not only the last
 * @property {boolean} notify a browser notification when it becomes my move while the tab is hidden
 * @property {"system" | "light" | "dark"} theme
 */
/** @typedef {"coords" | "markers" | "sound" | "sinceMine" | "notify"} Toggle the on-off settings */

const TABLES = "omega.tables";
const NAME = "omega.name";
const PREFS = "omega.prefs";
const MUTED = "omega.muted";
const QUICK_CLOCK = "omega.quickclock";
const TOURNAMENT_TABLES = "omega.tournamenttables";
const FOLLOWED = "omega.followedmatches";

/**
 * @template T
 * @param {string} key
 * @param {T} fallback
 * @returns {T}
 */
function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key) || "null");
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * A list of strings kept at `key`: what is not a string is dropped, anything but a list
 * (nothing kept, or written by another version) reads as none.
 * @param {string} key
 * @returns {string[]}
 */
function readStrings(key) {
  /** @type {unknown} */
  const list = read(key, null);
  return Array.isArray(list) ? list.filter((item) => typeof item === "string") : [];
}

/**
 * @param {string} key
 * @param {unknown} value
 */
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode or a full quota: the page still works, it just forgets.
  }
}

/**
 * Remembered tables, newest first.
 * @returns {TableEntry[]}
 */
export function tables() {
  const list = read(TABLES, /** @type {TableEntry[]} */ ([]));
  return Array.isArray(list) ? list : [];
}

/**
 * Remember (or update) a table; entries are keyed by table id and token.
 * @param {TableEntry} entry
 * @returns {TableEntry}
 */
export function rememberTable(entry) {
  const list = tables();
  /** @param {TableEntry} t */
  const key = (t) => `${t.id}|${t.token || ""}|${t.watch || ""}`;
  const i = list.findIndex((t) => key(t) === key(entry));
  const merged = i >= 0 ? { ...list[i], ...entry } : { createdAt: Date.now(), ...entry };
  if (i >= 0) list.splice(i, 1);
  list.unshift(merged);
  write(TABLES, list.slice(0, 50));
  return merged;
}

/**
 * Forget a table on this device.
 * @param {TableEntry} entry
 */
export function forgetTable(entry) {
  write(TABLES, tables().filter((t) => !(t.id === entry.id && t.token === entry.token && t.watch === entry.watch)));
}

/**
 * The remembered entry for a table and token, if any.
 * @param {string} id
 * @param {string} token
 */
export function findTable(id, token) {
  return tables().find((t) => t.id === id && (t.token === token || t.watch === token)) || null;
}

/**
 * Any remembered entry of a table that holds its invite or spectator links (the creator's).
 * @param {string} id
 */
export function invitesFor(id) {
  return tables().find((t) => t.id === id && (t.invites || t.spectator_key)) || null;
}

/**
 * Keep new links the creator made on this device (those not made anew stay as they were).
 * @param {TableEntry} entry the table's entry for this device's link
 * @param {Record<string, string>} invites new invite tokens by seat
 * @param {string | null} spectatorKey the new spectator key, if one was made
 */
export function keepLinks(entry, invites, spectatorKey) {
  const before = findTable(entry.id, entry.token || entry.watch || "") || entry;
  /** @type {TableEntry} */
  const next = { ...entry, invites: { ...(before.invites || {}), ...invites } };
  if (spectatorKey) next.spectator_key = spectatorKey;
  else if (before.spectator_key) next.spectator_key = before.spectator_key;
  return rememberTable(next);
}

/** The name this device plays under. */
export function name() {
  return read(NAME, "");
}

/** @param {string} value */
export function setName(value) {
  write(NAME, value);
}

/**
 * The people whose chat this browser hides (keys of views/chat.js's `muteKey`).
 * @returns {string[]}
 */
export function muted() {
  return readStrings(MUTED);
}

/** @param {string[]} keys */
export function setMuted(keys) {
  write(MUTED, keys);
}

/**
 * The clock this device last chose for quick play (null: none yet).
 * @returns {string | null}
 */
export function quickClock() {
  /** @type {unknown} */
  const value = read(QUICK_CLOCK, null);
  return typeof value === "string" ? value : null;
}

/** @param {string} text a time control's text, as `POST /api/quickplay` takes it */
export function setQuickClock(text) {
  write(QUICK_CLOCK, text);
}

/**
 * The quick-play matches this device followed to their table (the newest 20): not again.
 * @returns {string[]}
 */
export function followedMatches() {
  return readStrings(FOLLOWED);
}

/** @param {string} tableId a quick-play match's table, just followed */
export function followMatch(tableId) {
  write(FOLLOWED, [...followedMatches().filter((id) => id !== tableId), tableId].slice(-20));
}

/**
 * The games this device opened from a tournament's page, each with its tournament (a table
 * does not say which tournament it is of): the table page's way back, and the games the
 * tournament page need not open again.
 * @returns {Record<string, {id: string, name: string}>}
 */
export function tournamentTables() {
  /** @type {unknown} */
  const saved = read(TOURNAMENT_TABLES, null);
  return saved && typeof saved === "object" && !Array.isArray(saved)
    ? /** @type {Record<string, {id: string, name: string}>} */ (saved) : {};
}

/**
 * The tournament of a game this device opened from its page, if any.
 * @param {string} tableId
 * @returns {{id: string, name: string} | null}
 */
export function tournamentOf(tableId) {
  const t = tournamentTables()[tableId];
  return t && typeof t.id === "string" && typeof t.name === "string" ? t : null;
}

/**
 * Remember that `tableId` is a game of `tournament` (the newest 200 are kept).
 * @param {string} tableId
 * @param {{id: string, name: string}} tournament
 */
export function rememberTournamentTable(tableId, tournament) {
  const all = tournamentTables();
  delete all[tableId];
  all[tableId] = { id: tournament.id, name: tournament.name };
  const keys = Object.keys(all);
  for (const key of keys.slice(0, Math.max(0, keys.length - 200))) delete all[key];
  write(TOURNAMENT_TABLES, all);
}

/** @type {Prefs} */
const DEFAULT_PREFS = { coords: false, markers: false, sound: false, autoSend: false, sinceMine: true, notify: false, theme: "system" };

/**
 * The settings: those chosen on this device, the defaults for the rest.
 * @returns {Prefs}
 */
export function prefs() {
  const saved = read(PREFS, {});
  return { ...DEFAULT_PREFS, ...(saved && typeof saved === "object" ? saved : {}) };
}


/** @param {Prefs} value */
export function setPrefs(value) {
  write(PREFS, value);
}

/**
 * Staged stones survive a reload of the same position (sessionStorage, per table).
 * `at` is the history length: versions also move on presence changes, the position does not.
 * @param {string} id
 * @param {number} at
 * @returns {Cell[]}
 */
export function stagedFor(id, at) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`omega.staged.${id}`) || "null");
    return saved && saved.at === at && Array.isArray(saved.cells) ? saved.cells : [];
  } catch {
    return [];
  }
}

/**
 * Keep the staged stones of position `at` (none: forget them).
 * @param {string} id
 * @param {number} at
 * @param {Cell[]} cells
 */
export function saveStaged(id, at, cells) {
  try {
    if (cells.length) sessionStorage.setItem(`omega.staged.${id}`, JSON.stringify({ at, cells }));
    else sessionStorage.removeItem(`omega.staged.${id}`);
  } catch {
    // Nothing to do: staging simply does not survive a reload.
  }
}

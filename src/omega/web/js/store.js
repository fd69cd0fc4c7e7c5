// What the page remembers in localStorage: the tables you created or joined (with their
// secret links, which only ever live on your device), your name and display preferences.

const TABLES = "omega.tables";
const NAME = "omega.name";
const PREFS = "omega.prefs";

function read(key, fallback) {
  try {
    const value = JSON.parse(localStorage.getItem(key));
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode or a full quota: the page still works, it just forgets.
  }
}

/** Remembered tables, newest first. */
export function tables() {
  const list = read(TABLES, []);
  return Array.isArray(list) ? list : [];
}

/** Remember (or update) a table; entries are keyed by table id and token. */
export function rememberTable(entry) {
  const list = tables();
  const key = (t) => `${t.id}|${t.token || ""}|${t.watch || ""}`;
  const i = list.findIndex((t) => key(t) === key(entry));
  const merged = i >= 0 ? { ...list[i], ...entry } : { createdAt: Date.now(), ...entry };
  if (i >= 0) list.splice(i, 1);
  list.unshift(merged);
  write(TABLES, list.slice(0, 50));
  return merged;
}

export function forgetTable(entry) {
  write(TABLES, tables().filter((t) => !(t.id === entry.id && t.token === entry.token && t.watch === entry.watch)));
}

/** The remembered entry for a table and token, if any. */
export function findTable(id, token) {
  return tables().find((t) => t.id === id && (t.token === token || t.watch === token)) || null;
}

/** Any remembered entry of a table that holds its invite links (the creator's). */
export function invitesFor(id) {
  return tables().find((t) => t.id === id && t.invites) || null;
}

export function name() {
  return read(NAME, "");
}

export function setName(value) {
  write(NAME, value);
}

export function prefs() {
  return { coords: false, markers: false, ...read(PREFS, {}) };
}

export function setPrefs(value) {
  write(PREFS, value);
}

/**
 * Staged stones survive a reload of the same position (sessionStorage, per table).
 * `at` is the history length: versions also move on presence changes, the position does not.
 */
export function stagedFor(id, at) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`omega.staged.${id}`));
    return saved && saved.at === at && Array.isArray(saved.cells) ? saved.cells : [];
  } catch {
    return [];
  }
}

export function saveStaged(id, at, cells) {
  try {
    if (cells.length) sessionStorage.setItem(`omega.staged.${id}`, JSON.stringify({ at, cells }));
    else sessionStorage.removeItem(`omega.staged.${id}`);
  } catch {
    // Nothing to do: staging simply does not survive a reload.
  }
}

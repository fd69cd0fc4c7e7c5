// @ts-check
// The account of this browser (docs/server-api.md, Accounts): who is logged in, and the calls
// that change it. The session lives in an HttpOnly cookie the page never sees; the page only
// asks the server who it is. Other modules import this one for the account state and
// subscribe to its changes.

import { api } from "./api.js";
import * as store from "./store.js";
import { serverOffset } from "./timecontrol.js";

/** @typedef {import("./types.js").User} User */
/** @typedef {import("./types.js").MyTable} MyTable */
/** @typedef {import("./types.js").HistoryPage} HistoryPage */
/** @typedef {import("./types.js").ClaimAnswer} ClaimAnswer */
/** @typedef {import("./types.js").Vacation} Vacation */

/** @type {User | null} */
let user = null;
/** @type {Promise<User | null> | null} */
let asking = null;
/** @type {Set<(user: User | null) => void>} */
const listeners = new Set();

/** @param {User | null} next */
function setUser(next) {
  user = next;
  for (const listener of listeners) listener(user);
}

// A log-in or log-out is told to this browser's other tabs, which ask who they are now.
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("omega.account") : null;
if (tabs) tabs.onmessage = () => recheck();
// A session may end on another device: a tab shown again asks.
if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && asking) recheck();
  });
}

/** Tell this browser's other tabs that who is logged in changed. */
function tellTabs() {
  if (tabs) tabs.postMessage("changed");
}

/**
 * Ask again who is logged in; the listeners hear only of a change.
 * @returns {Promise<User | null>}
 */
export async function recheck() {
  try {
    /** @type {{user: User | null}} */
    const answer = await api("GET", "/api/account");
    asking = Promise.resolve(answer.user);
    if ((answer.user ? answer.user.id : null) !== (user ? user.id : null)) setUser(answer.user);
  } catch {
  }
  return user;
}

/**
 * Be told whenever who is logged in changes; returns the way to stop.
 * @param {(user: User | null) => void} listener
 */
export function onChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The user as last known (null: logged out, or not asked yet). */
export function known() {
  return user;
}

/**
 * Who is logged in, asked of the server once per page (a failure counts as nobody).
 * @returns {Promise<User | null>}
 */
export function current() {
  if (!asking) {
    asking = /** @type {Promise<{user: User | null}>} */ (api("GET", "/api/account"))
      .then((answer) => {
        setUser(answer.user);
        return user;
      })
      .catch(() => null);
  }
  return asking;
}

/**
 * Log this browser in by a request that answers the account (a registration, a log-in, a
 * password reset): the seats it remembers are claimed before anyone is told, then this page's
 * listeners and the other tabs learn who is logged in.
 * @param {string} path
 * @param {Record<string, string>} body
 * @returns {Promise<User>}
 */
async function logIn(path, body) {
  /** @type {{user: User}} */
  const answer = await api("POST", path, { body });
  asking = Promise.resolve(answer.user);
  await claimRemembered();
  setUser(answer.user);
  tellTabs();
  return answer.user;
}

/**
 * Register and log in; then the seats of the tables this browser remembers are claimed.
 * @param {string} username
 * @param {string} password
 */
export async function register(username, password) {
  return logIn("/api/account/register", { username, password });
}

/**
 * Log in; then the seats of the tables this browser remembers are claimed.
 * @param {string} username
 * @param {string} password
 */
export async function login(username, password) {
  return logIn("/api/account/login", { username, password });
}

/**
 * Set a new password with a mailed reset link's token: every session of the account ends,
 * and this browser is logged in anew (then its remembered seats are claimed, as at a log-in).
 * @param {string} token
 * @param {string} password
 */
export async function resetPassword(token, password) {
  return logIn("/api/account/password/reset", { token, password });
}

/**
 * Log this browser out by `path`'s request, then tell this page's listeners and the other tabs.
 * @param {string} path
 */
async function logOut(path) {
  await api("POST", path);
  asking = Promise.resolve(null);
  setUser(null);
  tellTabs();
}

/** Log this browser out. */
export async function logout() {
  await logOut("/api/account/logout");
}

/** Log out on every device. */
export async function logoutEverywhere() {
  await logOut("/api/account/logout-everywhere");
}

/**
 * A new password (the current one is needed); the other devices are logged out.
 * @param {string} current
 * @param {string} next
 */
export async function changePassword(current, next) {
  await api("POST", "/api/account/password", { body: { current_password: current, new_password: next } });
}

/**
 * Bind seats to the account by their links (table id, seat token).
 * @param {{table_id: string, token: string}[]} seats
 * @returns {Promise<ClaimAnswer[]>}
 */
export async function claim(seats) {
  if (!seats.length) return [];
  /** @type {{seats: ClaimAnswer[]}} */
  const answer = await api("POST", "/api/account/claim", { body: { seats } });
  return answer.seats;
}

/**
 * The seats of the tables this browser remembers (its seat links prove them), bound to the
 * account. Seats another account holds stay as they are; the links keep working.
 */
export async function claimRemembered() {
  const seats = store.tables().filter((t) => t.token).slice(0, 50).map((t) => ({ table_id: t.id, token: /** @type {string} */ (t.token) }));
  try {
    return await claim(seats);
  } catch {
    return []; // the lists will miss those tables; playing by link is unaffected
  }
}

/**
 * The account's unfinished tables, its turn first, and the server's clock against the
 * page's (ms to add to `Date.now()`; 0 when unknown), to count turn-based time left by.
 * @returns {Promise<{tables: MyTable[], offset: number}>}
 */
export async function myTables() {
  const sentAt = Date.now();
  /** @type {{tables: MyTable[], server_time?: string}} */
  const answer = await api("GET", "/api/account/tables");
  const offset = answer.server_time ? serverOffset(answer.server_time, sentAt, Date.now()) : null;
  return { tables: answer.tables, offset: offset ?? 0 };
}

/**
 * A page of the account's finished games, newest first.
 * @param {string | null} before the `next` of the page before
 * @returns {Promise<HistoryPage>}
 */
export async function history(before = null) {
  const query = new URLSearchParams({ limit: "10" });
  if (before) query.set("before", before);
  return api("GET", `/api/account/history?${query}`);
}

/**
 * The account's language from now on (the Language setting): its notices, their mails and
 * pushes, and its mails are written in it (docs/server-api.md, Accounts).
 * @param {string} language a code of the languages the site speaks
 * @returns {Promise<{language: string}>}
 */
export function setLanguage(language) {
  return api("PUT", "/api/account/language", { body: { language } });
}

/**
 * The account's vacation: the days left this year, and the one it is on.
 * @returns {Promise<Vacation>}
 */
export function vacation() {
  return api("GET", "/api/account/vacation");
}

/**
 * Go on vacation now, until `until` (null: until coming back); the account's turn-based
 * clocks pause.
 * @param {string | null} until an ISO time with its offset
 * @returns {Promise<Vacation>}
 */
export function startVacation(until) {
  return api("POST", "/api/account/vacation", { body: { until } });
}

/**
 * Come back from vacation: the clocks run again with the time they had.
 * @returns {Promise<Vacation>}
 */
export function endVacation() {
  return api("POST", "/api/account/vacation/end");
}

/**
 * Turn automatic vacation (before a turn-based flag falls) on or off.
 * @param {boolean} automatic
 * @returns {Promise<Vacation>}
 */
export function setAutomaticVacation(automatic) {
  return api("POST", "/api/account/vacation/settings", { body: { automatic } });
}

/**
 * Close the logged-in account, its password asked again (docs/server-api.md, Leaving): the
 * server logs it out everywhere; so does this page.
 * @param {string} password
 * @returns {Promise<{closed_at: string, reopen_until: string}>}
 */
export async function closeAccount(password) {
  /** @type {{closed_at: string, reopen_until: string}} */
  const answer = await api("POST", "/api/account/close", { body: { password } });
  asking = Promise.resolve(null);
  setUser(null);
  return answer;
}

/**
 * Reopen a closed account before its data is removed, then log in to it.
 * @param {string} username
 * @param {string} password
 */
export async function reopenAccount(username, password) {
  await api("POST", "/api/account/reopen", { body: { username, password } });
  return login(username, password);
}

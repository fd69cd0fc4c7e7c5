// @ts-check
// Email on the account and the password reset it makes possible (docs/server-api.md,
// Email and password reset): the calls, and the links a mail brings the browser back with.
// A mailed link carries its token in the fragment (#verify-email=…, #reset-password=…),
// which the browser never sends to a server; the page reads it, forgets it, and posts it.

import { api } from "./api.js";

/** @typedef {{email: string | null, pending: string | null}} Addresses the account's verified address and the one waiting for its link */
/** @typedef {{kind: "verify-email" | "reset-password", token: string}} MailedLink */

/** @type {Set<() => void>} */
const listeners = new Set();

/**
 * Be told when a followed link changed the account's address (to show it anew).
 * @param {() => void} listener
 */
export function onVerified(listener) {
  listeners.add(listener);
}

/** @returns {Promise<Addresses>} */
export function addresses() {
  return api("GET", "/api/account/email");
}

/**
 * Ask for `email` as the account's address (the password proves it is the owner); a link
 * to verify it is mailed there, and until it is followed the old address stays.
 * @param {string} email
 * @param {string} password
 * @returns {Promise<Addresses>}
 */
export function askAddress(email, password) {
  return api("POST", "/api/account/email", { body: { email, password } });
}

/**
 * The account has no address any more.
 * @param {string} password
 * @returns {Promise<Addresses>}
 */
export function removeAddress(password) {
  return api("POST", "/api/account/email/remove", { body: { password } });
}

/**
 * Follow a verification link (no log-in needed: the token proves the account).
 * @param {string} token
 * @returns {Promise<{email: string}>}
 */
export async function verifyAddress(token) {
  /** @type {{email: string}} */
  const answer = await api("POST", "/api/account/email/verify", { body: { token } });
  for (const listener of listeners) listener();
  return answer;
}

/**
 * "Forgot password?": the server answers the same whoever `who` names, or nobody.
 * @param {string} who a username or an address
 * @returns {Promise<{message: string}>}
 */
export function forgot(who) {
  return api("POST", "/api/account/password/forgot", { body: { who } });
}

/**
 * The mailed link this page was opened with, if any, taken off the address (a reload or a
 * shared screen then shows no token).
 * @example mailedLink("#reset-password=abc") // {kind: "reset-password", token: "abc"}
 * @param {string} hash location.hash
 * @returns {MailedLink | null}
 */
export function mailedLink(hash) {
  const match = /^#(verify-email|reset-password)=([A-Za-z0-9._-]{1,128})$/.exec(hash);
  if (!match) return null;
  return { kind: /** @type {MailedLink["kind"]} */ (match[1]), token: match[2] };
}

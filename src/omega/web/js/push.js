// @ts-check
// Web Push on this device (docs/server-api.md, Web Push): the site's service worker
// (/sw.js) registered, a subscription made with the site's public VAPID key and given to the
// server for the logged-in account, and both undone. No DOM here: views/push.js draws the
// account page's toggle.

import { api } from "./api.js";
import { ApiError } from "./errors.js";
import { t } from "./i18n.js";

/** @typedef {{devices: {id: number, service: string, created_at: string}[], max: number}} PushDevices */

/**
 * Whether this browser can get the site's pushes: service workers, the Push API and
 * notifications, on a secure origin (HTTPS, or this machine).
 */
export function supported() {
  return typeof window !== "undefined" && window.isSecureContext && "serviceWorker" in navigator
    && "PushManager" in window && "Notification" in window;
}

/**
 * The bytes of a base64url text, as `pushManager.subscribe` takes the key.
 * @example keyBytes("AQID") // Uint8Array [1, 2, 3]
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function keyBytes(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "="));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

/**
 * Whether a subscription was made with `key` (one made with a key the site no longer has
 * reaches nothing).
 * @param {PushSubscription} sub
 * @param {Uint8Array} key
 */
function madeWith(sub, key) {
  const used = sub.options.applicationServerKey;
  if (!used) return false;
  const bytes = new Uint8Array(used);
  return bytes.length === key.length && bytes.every((b, i) => b === key[i]);
}

/** The site's service worker, registered (again: the browser then checks for a new one) and active. */
export async function worker() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/", type: "classic" });
  return navigator.serviceWorker.ready;
}

/** This device's subscription, if it has one. */
export async function current() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * Turn pushes on for this device and the logged-in account: the browser's permission, the
 * worker, a subscription, and the server told of it.
 * @returns {Promise<PushDevices>}
 */
export async function enable() {
  if ((await Notification.requestPermission()) !== "granted") {
    throw new ApiError("notifications_denied", t("This browser does not allow the site's notifications: allow them in its site settings, then try again."));
  }
  const registration = await worker();
  /** @type {{public_key: string}} */
  const answer = await api("GET", "/api/push/key");
  const key = keyBytes(answer.public_key);
  let sub = await registration.pushManager.getSubscription();
  if (sub && !madeWith(sub, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  if (!sub) sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  return api("POST", "/api/push/subscriptions", { body: sub.toJSON() });
}

/** Turn pushes off for this device: the server forgets it, then the browser its subscription. */
export async function disable() {
  const sub = await current();
  if (!sub) return;
  try {
    await api("POST", "/api/push/unsubscribe", { body: { endpoint: sub.endpoint } });
  } finally {
    // Even when the server could not be told: its push service then answers 410, and the
    // server forgets the device at the next notice.
    await sub.unsubscribe();
  }
}

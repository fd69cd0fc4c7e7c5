// @ts-check
// The page talks to the server only through docs/server-api.md: JSON over HTTP with the
// seat token (or spectator key) as a Bearer token, and one WebSocket per table.

import { ApiError } from "./errors.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").ErrorBody} ErrorBody */
/** @typedef {import("./types.js").ServerMessage} ServerMessage */
/** @typedef {import("./types.js").ClientMessage} ClientMessage */
/** @typedef {"connecting" | "live" | "reconnecting" | "refused"} ConnStatus */

/** A random id for idempotent actions; crypto.getRandomValues works without HTTPS too. */
export function randomId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * One HTTP call; resolves to the JSON body or rejects with an ApiError. The caller names
 * the answer's type (docs/server-api.md) as the template argument.
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {{token?: string | null, body?: unknown}} [options]
 * @returns {Promise<T>}
 */
export async function api(method, path, { token = null, body = undefined } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError("network", t("Cannot reach the server. Check your connection and try again."));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = /** @type {Partial<ErrorBody["error"]>} */ ((data && /** @type {ErrorBody} */ (data).error) || {});
    throw new ApiError(
      error.code || `http_${response.status}`,
      error.message || t("The server answered {status} {statusText}.", { status: response.status, statusText: response.statusText }),
      response.status,
    );
  }
  return data;
}

/**
 * Fetch a file with the token and hand it to the browser as a download.
 * @param {string} path
 * @param {string} token
 * @param {string} filename
 */
export async function download(path, token, filename) {
  let response;
  try {
    // Without a token the session cookie goes along by itself (a seat the account holds).
    response = await fetch(path, { headers: token ? { Authorization: `Bearer ${token}` } : {}, cache: "no-store" });
  } catch {
    throw new ApiError("network", t("Cannot reach the server to download the record."));
  }
  if (!response.ok) throw new ApiError(`http_${response.status}`, t("Download failed ({status}).", { status: response.status }));
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** @type {Promise<import("./types.js").SiteConfig> | null} */
let configAsked = null;

/**
 * `GET /api/config`, asked once per page (again after a failure).
 * @returns {Promise<import("./types.js").SiteConfig>}
 */
export function siteConfig() {
  if (!configAsked) {
    configAsked = api("GET", "/api/config");
    configAsked.catch(() => (configAsked = null));
  }
  return configAsked;
}

// Close codes after which retrying cannot help (bad token, unknown table).
/**
 * The address of one of this site's sockets (`ws:` or `wss:` as the page was loaded).
 * @example socketUrl("/ws/lobby") // "wss://omega.example/ws/lobby" on an https page
 * @param {string} path
 */
export function socketUrl(path) {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
}

/**
 * How long a page waits before its `attempt`-th try to open a socket again: 0.5 s, 1 s, 2 s ...
 * up to 10 s, with a quarter either way at random so that many pages do not return at once.
 * @example reconnectDelay(1) // between 375 and 625
 * @param {number} attempt from 1
 */
export function reconnectDelay(attempt) {
  return Math.min(10_000, 500 * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
}

/** How often an open socket sends a small ping: proxies drop idle sockets. */
const PING_EVERY = 25_000;

/**
 * Keep `socket` open: a small ping every 25 s while it is open (stop it with `clearInterval`
 * when the socket closes).
 * @param {WebSocket} socket
 * @returns {ReturnType<typeof setInterval>}
 */
export function keepAlive(socket) {
  return setInterval(() => socket.readyState === 1 && socket.send(JSON.stringify({ type: "ping" })), PING_EVERY);
}

/**
 * The message a socket received, or undefined when it is not JSON (it is then dropped).
 * @example socketMessage(new MessageEvent("message", { data: '{"type": "pong"}' })) // {type: "pong"}
 * @template T
 * @param {MessageEvent} e
 * @returns {T | undefined}
 */
export function socketMessage(e) {
  try {
    return JSON.parse(e.data);
  } catch {
    return undefined;
  }
}

/** How many messages wait for a socket that is not open yet (the oldest go first). */
const OUTBOX_MAX = 16;

const FATAL_CLOSE = new Set([1008, 4001, 4003, 4004, 4401, 4403, 4404]);

/**
 * The live feed of one table: reconnects by itself with exponential backoff and asks for
 * the events after the last version it saw (`since`), so no update is lost or repeated.
 * Each sync and pong carries the server's time; a ping sent as the socket comes live
 * measures the round trip, so the clocks can go by the server's time.
 */
export class LiveFeed {
  /**
   * @param {object} options
   * @param {string} options.tableId
   * @param {string} options.token
   * @param {() => number | null} options.version the last version applied, or null
   * @param {(serverTime: string | undefined, sentAt: number, receivedAt: number, roundTrip: boolean) => void} options.onServerTime
   *   the server's time arrived (before its message): `sentAt` is when the question left, when
   *   known; `roundTrip`, the answer to the ping sent as the socket came live
   * @param {(msg: ServerMessage) => void} options.onMessage
   * @param {(status: ConnStatus) => void} options.onStatus
   */
  constructor({ tableId, token, version, onServerTime, onMessage, onStatus }) {
    this.tableId = tableId;
    this.onServerTime = onServerTime;
    /** @type {number | null} when the ping that measures the round trip left */
    this.pingAt = null;
    this.token = token;
    this.version = version;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    this.stopped = false;
    /** @type {ClientMessage[]} messages sent while the socket was not open, sent once it is */
    this.outbox = [];
    this.wake = () => {
      if (!this.stopped && (!this.ws || this.ws.readyState > 1)) this.connectNow();
    };
    window.addEventListener("online", this.wake);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.wake();
    });
  }

  /** Open the socket; from then on it reconnects by itself. */
  start() {
    this.connectNow();
  }

  /** Close the socket for good. */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }

  /** Connect now unless a socket is open or opening (a pending retry is cancelled). */
  connectNow() {
    clearTimeout(this.timer);
    if (this.ws && this.ws.readyState <= 1) return;
    const params = new URLSearchParams();
    const since = this.version();
    if (since !== null && since !== undefined && since >= 0) params.set("since", String(since));
    const query = params.size ? `?${params}` : "";
    // The secret goes as a subprotocol, never in the URL (proxies and servers log URLs);
    // without one, the browser's session cookie identifies the account's seat.
    const ws = new WebSocket(socketUrl(`/ws/tables/${encodeURIComponent(this.tableId)}${query}`),
      this.token ? ["omega.v2", `omega.token.${this.token}`] : ["omega.v2"]);
    this.ws = ws;
    this.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    ws.onopen = () => {
      this.attempt = 0;
      this.onStatus("live");
      clearInterval(this.pinger);
      this.pinger = keepAlive(ws);
      this.pingAt = Date.now();
      this.send({ type: "ping" });
      // What the player said while the socket was opening (a rematch, a chat line) goes now,
      // in order: a page loaded over HTTP shows its buttons before its socket is open.
      for (const message of this.outbox.splice(0)) this.send(message);
    };
    ws.onmessage = (e) => {
      /** @type {ServerMessage | undefined} */
      const msg = socketMessage(e);
      if (msg === undefined) return;
      if (msg.type === "sync" || msg.type === "pong") {
        const at = Date.now();
        const roundTrip = msg.type === "pong" && this.pingAt !== null;
        this.onServerTime(msg.server_time, this.pingAt !== null && roundTrip ? this.pingAt : at, at, roundTrip);
        if (roundTrip) this.pingAt = null;
      }
      this.onMessage(msg);
    };
    ws.onclose = (e) => {
      clearInterval(this.pinger);
      if (this.ws !== ws || this.stopped) return;
      if (FATAL_CLOSE.has(e.code)) {
        this.onStatus("refused");
        return;
      }
      this.attempt += 1;
      const delay = reconnectDelay(this.attempt);
      this.onStatus("reconnecting");
      this.timer = setTimeout(() => this.connectNow(), delay);
    };
  }

  /**
   * Send a message now if the socket is open, else as soon as it opens (the last
   * `OUTBOX_MAX` wait; none once the feed is stopped).
   * @param {ClientMessage} message
   */
  send(message) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(message));
    else if (!this.stopped) {
      this.outbox.push(message);
      if (this.outbox.length > OUTBOX_MAX) this.outbox.shift();
    }
  }
}

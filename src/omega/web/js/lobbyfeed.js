// @ts-check
// The lobby's live socket (/ws/lobby, docs/server-api.md): the list of open tables as it
// changes, and a quick-play match and the challenges of this browser's account. Reconnects by itself; each
// (re)connection starts with the whole list, so nothing is missed while it was away.

/** @typedef {import("./lobbytypes.js").ListedTable} ListedTable */
/** @typedef {import("./lobbytypes.js").QuickPlayState} QuickPlayState */
/**
 * @typedef {{type: "lobby", tables: ListedTable[], total: number, limit: number, you: import("./types.js").User | null, quickplay: QuickPlayState | null}
 *   | {type: "table", table: ListedTable}
 *   | {type: "removed", id: string, status: string}
 *   | {type: "matched", table_id: string, seat: number}
 *   | {type: "challenge", challenge: import("./relations.js").Challenge}
 *   | {type: "pong"} | {type: "error", error: {code: string, message: string}}} LobbyMessage
 */

import * as account from "./account.js";
import { keepAlive, reconnectDelay, socketMessage, socketUrl } from "./api.js";

/** @type {Set<(msg: LobbyMessage) => void>} */
const listeners = new Set();
/** @type {WebSocket | null} */
let ws = null;
let attempt = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retry;
/** @type {ReturnType<typeof setInterval> | undefined} */
let pinger;
/** @type {number | null | undefined} the account the socket was opened as (undefined: none opened) */
let openedAs;

// The server knows a socket's account from the cookie it opened with: after a log-in or
// log-out the socket opens again, so a quick-play match finds this page.
account.onChange((user) => {
  if (ws && openedAs !== undefined && openedAs !== (user ? user.id : null)) reconnect();
});

/**
 * Be told every lobby message; the socket opens with the first listener.
 * @param {(msg: LobbyMessage) => void} listener
 */
export function onLobby(listener) {
  listeners.add(listener);
  if (!ws) connect();
  return () => listeners.delete(listener);
}

/** Connect again now (the account changed: the server must know who this socket is). */
export function reconnect() {
  if (ws) {
    const old = ws;
    ws = null;
    old.onclose = null;
    old.close();
  }
  attempt = 0;
  connect();
}

function connect() {
  clearTimeout(retry);
  const socket = new WebSocket(socketUrl("/ws/lobby"), ["omega.v1"]);
  const user = account.known();
  openedAs = user ? user.id : null;
  ws = socket;
  socket.onopen = () => {
    attempt = 0;
    clearInterval(pinger);
    pinger = keepAlive(socket);
  };
  socket.onmessage = (e) => {
    /** @type {LobbyMessage | undefined} */
    const msg = socketMessage(e);
    if (msg === undefined) return;
    for (const listener of listeners) listener(msg);
  };
  socket.onclose = () => {
    clearInterval(pinger);
    if (ws !== socket) return;
    attempt += 1;
    retry = setTimeout(connect, reconnectDelay(attempt));
  };
}

// @ts-check
// A tournament page's live socket (/ws/tournaments/{id}, docs/server-api.md, Tournaments):
// the whole tournament at once and again after every change. It reconnects by itself, as the
// lobby's socket does; each connection starts with the whole view, so nothing is missed
// while it was away. The server knows the viewer by the session cookie the socket opens
// with, so a log-in or log-out opens it again.

import * as account from "./account.js";
import { keepAlive, reconnectDelay, socketMessage, socketUrl } from "./api.js";

/** @typedef {import("./tournamenttypes.js").TournamentView} TournamentView */
/** @typedef {import("./tournamenttypes.js").TournamentMessage} TournamentMessage */
/** @typedef {"connecting" | "live" | "reconnecting" | "refused"} FeedStatus */

// Close codes after which retrying cannot help: the server's 4000 + status (no such
// tournament, a socket from another site).
const FATAL_CLOSE = new Set([1008, 4400, 4403, 4404]);

export class TournamentFeed {
  /**
   * @param {string} tournamentId
   * @param {{onView: (view: TournamentView) => void, onStatus: (status: FeedStatus, detail?: string) => void}} on
   */
  constructor(tournamentId, on) {
    this.id = tournamentId;
    this.on = on;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    /** @type {number | null | undefined} the account the socket was opened as (undefined: none yet) */
    this.openedAs = undefined;
    /** @type {string} the last refusal the server sent before closing */
    this.refusal = "";
    account.onChange((user) => {
      if (this.ws && this.openedAs !== undefined && this.openedAs !== (user ? user.id : null)) this.reconnect();
    });
    const wake = () => {
      if (!this.ws || this.ws.readyState > 1) this.reconnect();
    };
    window.addEventListener("online", wake);
    document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && wake());
  }

  /** Open the socket; from then on it reconnects by itself. */
  start() {
    this.connect();
  }

  /** Connect again now (the account changed, or the device woke). */
  reconnect() {
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.onclose = null;
      old.close();
    }
    this.attempt = 0;
    this.connect();
  }

  connect() {
    clearTimeout(this.retry);
    const socket = new WebSocket(socketUrl(`/ws/tournaments/${encodeURIComponent(this.id)}`), ["omega.v1"]);
    const user = account.known();
    this.openedAs = user ? user.id : null;
    this.ws = socket;
    this.on.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    socket.onopen = () => {
      this.attempt = 0;
      this.on.onStatus("live");
      clearInterval(this.pinger);
      this.pinger = keepAlive(socket);
    };
    socket.onmessage = (e) => {
      /** @type {TournamentMessage | undefined} */
      const msg = socketMessage(e);
      if (msg === undefined) return;
      if (msg.type === "tournament") this.on.onView(msg.tournament);
      else if (msg.type === "error") this.refusal = msg.error.message;
    };
    socket.onclose = (e) => {
      clearInterval(this.pinger);
      if (this.ws !== socket) return;
      if (FATAL_CLOSE.has(e.code)) {
        this.on.onStatus("refused", this.refusal);
        return;
      }
      this.attempt += 1;
      const delay = reconnectDelay(this.attempt);
      this.on.onStatus("reconnecting");
      this.retry = setTimeout(() => this.connect(), delay);
    };
  }
}

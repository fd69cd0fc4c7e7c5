// @ts-check
// The table's socket: api.js's LiveFeed plus the measure of the server's clock (each sync and
// pong carries its time; a ping as the socket comes live measures the round trip).

import { LiveFeed } from "./api.js";

/** @typedef {import("./api.js").ConnStatus} ConnStatus */
/** @typedef {import("./types.js").ServerMessage} ServerMessage */
/** @typedef {import("./types.js").ClientMessage} ClientMessage */

export class TableFeed {
  /**
   * @param {object} options
   * @param {string} options.tableId
   * @param {string} options.token the seat token or spectator key ("" for an account's seat)
   * @param {HTMLElement} options.root its `data-server-clock` says whether the round trip was measured
   * @param {() => number | null} options.version the last version applied, or null
   * @param {(serverTime: string | undefined, sentAt: number, receivedAt: number) => void} options.onServerTime
   *   the server's time arrived, before its message; `sentAt` is when the question left, when known
   * @param {(msg: ServerMessage) => void} options.onMessage
   * @param {(status: ConnStatus) => void} options.onStatus
   */
  constructor({ tableId, token, root, version, onServerTime, onMessage, onStatus }) {
    /** @type {number | null} when the ping that measures the clock offset left */
    this.pingAt = null;
    this.live = new LiveFeed({
      tableId,
      token,
      version,
      onMessage: (msg) => {
        if (msg.type === "sync" || msg.type === "pong") {
          const at = Date.now();
          const measured = msg.type === "pong" && this.pingAt !== null;
          onServerTime(msg.server_time, measured && this.pingAt !== null ? this.pingAt : at, at);
          if (measured) {
            this.pingAt = null;
            // Says on the page that the clocks now go by a measured round trip (a test
            // waits for it before it moves the clocks; it also helps when debugging clocks).
            root.dataset.serverClock = "measured";
          }
        }
        onMessage(msg);
      },
      onStatus: (status) => {
        onStatus(status);
        if (status !== "live") return;
        // Measure the offset to the server's clock at connect: a ping's round trip.
        this.pingAt = Date.now();
        root.dataset.serverClock = "measuring";
        this.live.send({ type: "ping" });
      },
    });
  }

  /** Open the socket; from then on it reconnects by itself. */
  start() {
    this.live.start();
  }

  /** Close the socket for good. */
  stop() {
    this.live.stop();
  }

  /**
   * Send a message if the socket is open (dropped otherwise).
   * @param {ClientMessage} message
   */
  send(message) {
    this.live.send(message);
  }
}

// The pages' sockets (table, lobby, tournament) come back alike after a drop (one delay rule),
// ping alike and read their messages alike.

import assert from "node:assert/strict";
import { test } from "node:test";

import { keepAlive, LiveFeed, reconnectDelay, socketMessage } from "../../src/omega/web/js/api.js";

test("the wait before a socket's next try doubles from half a second up to ten, a quarter either way", () => {
  for (const [attempt, base] of [[1, 500], [2, 1000], [3, 2000], [5, 8000], [6, 10_000], [20, 10_000]]) {
    for (let i = 0; i < 50; i++) {
      const delay = reconnectDelay(attempt);
      assert.ok(delay >= 0.75 * base && delay <= 1.25 * base, `${attempt}: ${delay}`);
    }
  }
});

test("a socket's message is its JSON; one that is not JSON is dropped", () => {
  assert.deepEqual(socketMessage(new MessageEvent("message", { data: '{"type": "pong"}' })), { type: "pong" });
  assert.equal(socketMessage(new MessageEvent("message", { data: "<html>" })), undefined);
});

test("an open socket pings every 25 s, and only while it is open", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  /** @type {string[]} */
  const sent = [];
  const socket = { readyState: 1, send: (/** @type {string} */ text) => sent.push(text) };
  const pinger = keepAlive(/** @type {WebSocket} */ (/** @type {unknown} */ (socket)));
  t.mock.timers.tick(24_999);
  assert.deepEqual(sent, []);
  t.mock.timers.tick(1);
  assert.deepEqual(sent, ['{"type":"ping"}']);
  socket.readyState = 3;
  t.mock.timers.tick(25_000);
  assert.equal(sent.length, 1);
  clearInterval(pinger);
});

test("what a table page says while its socket opens is sent once it is open, in order", () => {
  /** @type {FakeSocket[]} */
  const sockets = [];
  class FakeSocket {
    constructor() {
      this.readyState = 0;
      /** @type {string[]} */
      this.sent = [];
      /** @type {(() => void) | null} */
      this.onopen = null;
      sockets.push(this);
    }
    /** @param {string} text */
    send(text) {
      if (this.readyState !== 1) throw new Error("sent before the socket opened");
      this.sent.push(text);
    }
    close() { this.readyState = 3; }
  }
  const saved = { WebSocket: globalThis.WebSocket, window: globalThis.window, document: globalThis.document,
    location: globalThis.location };
  const events = { addEventListener: () => {} };
  Object.assign(globalThis, { WebSocket: FakeSocket, window: events, document: events,
    location: { protocol: "http:", host: "omega.test" } });
  const feed = new LiveFeed({ tableId: "t1", token: "", version: () => null, onServerTime: () => {},
    onMessage: () => {}, onStatus: () => {} });
  try {
    feed.start();
    const socket = sockets[0];
    feed.send({ type: "rematch", op: "propose", request_id: "rematch-1" });
    feed.send({ type: "chat", text: "gg", request_id: "chat-1" });
    assert.deepEqual(socket.sent, []);
    socket.readyState = 1;
    socket.onopen?.();
    assert.deepEqual(socket.sent.map((text) => JSON.parse(text).type), ["ping", "rematch", "chat"]);
    feed.send({ type: "chat", text: "again", request_id: "chat-2" });
    assert.equal(JSON.parse(socket.sent[3]).text, "again");
    socket.onopen?.(); // nothing waits any more: nothing is sent twice
    assert.deepEqual(socket.sent.map((text) => JSON.parse(text).type), ["ping", "rematch", "chat", "chat", "ping"]);
    feed.stop();
    feed.send({ type: "chat", text: "after the end", request_id: "chat-3" });
    assert.equal(feed.outbox.length, 0);
  } finally {
    feed.stop(); // its pinger would keep the test running
    Object.assign(globalThis, saved);
  }
});

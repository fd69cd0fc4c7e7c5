// The pages' sockets (table, lobby, tournament) come back alike after a drop (one delay rule),
// ping alike and read their messages alike.

import assert from "node:assert/strict";
import { test } from "node:test";

import { keepAlive, reconnectDelay, socketMessage } from "../../src/omega/web/js/api.js";

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

// The pages' sockets (table, lobby, tournament) come back alike after a drop: one delay rule.

import assert from "node:assert/strict";
import { test } from "node:test";

import { reconnectDelay } from "../../src/omega/web/js/api.js";

test("the wait before a socket's next try doubles from half a second up to ten, a quarter either way", () => {
  for (const [attempt, base] of [[1, 500], [2, 1000], [3, 2000], [5, 8000], [6, 10_000], [20, 10_000]]) {
    for (let i = 0; i < 50; i++) {
      const delay = reconnectDelay(attempt);
      assert.ok(delay >= 0.75 * base && delay <= 1.25 * base, `${attempt}: ${delay}`);
    }
  }
});

// The site's public VAPID key as the Push API takes it, and a browser without Web Push.

import assert from "node:assert/strict";
import { test } from "node:test";

import { keyBytes, supported } from "../../src/omega/web/js/push.js";

test("a base64url key becomes its bytes, padded or not", () => {
  assert.deepEqual(Array.from(keyBytes("AQID")), [1, 2, 3]);
  assert.deepEqual(Array.from(keyBytes("_-8")), [255, 239]);
  // A P-256 public key: 87 characters, 65 bytes, the first 4 (uncompressed).
  const key = keyBytes("BEKehnkybvsftIvG5AHuJWfI_6zOEP1ktQwu1YzFN-hI4Ww5KGlZHs3NPzmRhiZUIPm4y2nKcyWL-sM5Zop8pTo");
  assert.equal(key.length, 65);
  assert.equal(key[0], 4);
});

test("without a window, service workers and the Push API, pushes are not offered", () => {
  assert.equal(supported(), false);
});

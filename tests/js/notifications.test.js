// A notification checkbox changes its own kind and channel only: the body it posts keeps the
// kind's other channels as they are, and names no other kind.

import assert from "node:assert/strict";
import { test } from "node:test";

import { toggled } from "../../src/omega/web/js/views/notifications.js";

const PREFS = {
  kinds: { your_turn: "It is your turn", challenge: "A player challenges you" },
  channels: ["mail", "push"],
  on: { your_turn: ["mail", "push"], challenge: [] },
  digest: false,
};

test("turning a channel off keeps the kind's other channels", () => {
  assert.deepEqual(toggled(PREFS, "your_turn", "mail", false), { on: { your_turn: ["push"] } });
});

test("turning a channel on adds it once, and only to its kind", () => {
  assert.deepEqual(toggled(PREFS, "challenge", "mail", true), { on: { challenge: ["mail"] } });
  assert.deepEqual(toggled(PREFS, "your_turn", "mail", true), { on: { your_turn: ["push", "mail"] } });
});

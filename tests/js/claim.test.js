// When the page offers to claim an absent player's seat: only once the server's wait is
// over, only while that player has the table closed, only to a player kept waiting.

import assert from "node:assert/strict";
import { test } from "node:test";

import { claimWait, claimable } from "../../src/omega/web/js/views/claim.js";
import { opened, table } from "./fixtures.js";

const FROM = "2026-05-01T10:10:00.000Z";
const AT = Date.parse(FROM);

/** Black (seat 1) to move and gone, read by White (seat 0), at a table that allows claims. */
function waiting({ players = 2, you = 0, connected = false, claimFrom = FROM } = {}) {
  const state = table({ players, you, seat: 1, toMove: "Black", seats: { 1: { connected } } });
  return opened(Object.assign(state, { claim_from: claimFrom }));
}

test("the absent seat is claimable from claim_from on, not a moment before", () => {
  assert.equal(claimable(waiting(), AT - 1), null);
  assert.equal(claimable(waiting(), AT)?.index, 1);
  assert.equal(claimWait(waiting(), AT - 5000), 5000);
  assert.equal(claimWait(waiting(), AT), null);
});

test("never while its player is here, at a table without claims, or for the one to move", () => {
  assert.equal(claimable(waiting({ connected: true }), AT + 1), null);
  assert.equal(claimWait(waiting({ connected: true }), AT - 1), null);
  assert.equal(claimable(waiting({ claimFrom: null }), AT + 1), null);
  assert.equal(claimable(waiting({ you: 1 }), AT + 1), null);
  assert.equal(claimable(waiting({ players: 3, you: 2 }), AT)?.index, 1);
});

test("the server's clock counts: the page's offset to it moves the moment", () => {
  const m = { ...waiting(), offset: 2000 };
  assert.equal(claimable(m, AT - 2000)?.index, 1);
  assert.equal(claimable(m, AT - 2001), null);
});

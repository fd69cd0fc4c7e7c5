// Friends, blocks and challenges, the page's pure parts (src/omega/web/js/relations.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  challengeBody, challengeLine, friendStatus, friendsInOrder, merged, tableToOpen, waiting,
} from "../../src/omega/web/js/relations.js";

/** A challenge as GET /api/challenges shows it (pending, sent by Ann to Bob). */
const SENT = {
  id: "c1", from: "Ann", to: "Bob", accepted_by: null, players: 2, size: 5, pie: false, rated: false,
  time_control: "5+5", level: null, status: "pending", describe: "2 players · side 5 · 5+5 · casual",
  created_at: "2026-12-06T10:00:00Z", expires_at: "2026-12-06T10:30:00Z", path: "/challenges/c1", mine: true,
  table_id: null,
};

test("the friends list shows who plays first, then who is online, each by name", () => {
  const friends = [
    { user: "dan", since: "", online: false, playing: null },
    { user: "Cyd", since: "", online: true, playing: null },
    { user: "bob", since: "", online: true, playing: "t1" },
    { user: "Ann", since: "", online: false, playing: null },
  ];
  assert.deepEqual(friendsInOrder(friends).map((f) => f.user), ["bob", "Cyd", "Ann", "dan"]);
  assert.deepEqual(friendsInOrder(friends).map(friendStatus), ["playing", "online", "offline", "offline"]);
  assert.equal(friends[0].user, "dan"); // the list given is left as it was
});

test("a challenge's body keeps the pie rule to two players and the level to computer seats", () => {
  const form = { to: "Bob", players: 2, size: 6, pie: true, rated: true, clock: "5+5", level: 3 };
  assert.deepEqual(challengeBody(form), { to: "Bob", players: 2, size: 6, rated: true, pie: true, time_control: "5+5" });
  assert.deepEqual(challengeBody({ ...form, players: 3 }),
    { to: "Bob", players: 3, size: 6, rated: false, level: 3, time_control: "5+5" });
  assert.deepEqual(challengeBody({ ...form, to: null, pie: false, rated: false, clock: "untimed" }),
    { to: null, players: 2, size: 6, rated: false });
});

test("a challenge reads as who asked whom, and how it ended", () => {
  assert.equal(challengeLine(SENT), "You challenged Bob: 2 players · side 5 · 5+5 · casual");
  assert.equal(challengeLine({ ...SENT, mine: false }), "Ann challenges you: 2 players · side 5 · 5+5 · casual");
  assert.equal(challengeLine({ ...SENT, to: null, status: "accepted", accepted_by: "Cyd" }),
    "You challenged whoever opens the link: 2 players · side 5 · 5+5 · casual (accepted by Cyd)");
  assert.equal(challengeLine({ ...SENT, mine: false, status: "expired" }),
    "Ann challenges you: 2 players · side 5 · 5+5 · casual (expired)");
});

test("a live challenge replaces its older copy or comes first; the waiting ones are the received pending", () => {
  const other = { ...SENT, id: "c2", mine: false };
  const list = [other];
  assert.deepEqual(merged(list, SENT).map((c) => c.id), ["c1", "c2"]);
  const declined = { ...other, status: "declined" };
  assert.deepEqual(merged([SENT, other], declined), [SENT, declined]);
  assert.deepEqual(waiting([SENT, other, declined]).map((c) => c.id), ["c2"]);
});

test("an accepted challenge opens its table; any other does not", () => {
  assert.equal(tableToOpen({ ...SENT, status: "accepted", table_id: "t9" }), "t9");
  assert.equal(tableToOpen({ ...SENT, status: "accepted", table_id: null }), null); // not the viewer's
  assert.equal(tableToOpen({ ...SENT, status: "declined" }), null);
});

// The table page's model without a browser: server states and socket messages, presence,
// the turn passing, the connection coming back.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { opened, table } from "./fixtures.js";

describe("server states and events", () => {
  test("an older version changes nothing; a newer one replaces the state, even past a gap", () => {
    const m = opened(table({ version: 5 }), "e5");
    assert.equal(T.applyState(m, table({ version: 4 })), m);
    const joined = T.applyState(m, table({ version: 5, seats: { 1: { name: "Bo" } } }));
    assert.equal(joined.state.seats[1].name, "Bo"); // the same version again is taken
    assert.deepEqual(joined.staged, ["e5"]);
    const later = T.applyState(m, table({ version: 9, seats: { 1: { connected: false } } }));
    assert.equal(later.state.version, 9);
    assert.deepEqual(later.staged, ["e5"]); // only presence moved: the staging stays
  });

  test("sync and event messages bring states; stale events are ignored", () => {
    let m = T.initialModel();
    m = T.applyServerMessage(m, { type: "sync", version: 2, state: table({ version: 2 }) });
    assert.equal(m.seat, 0);
    const event = { type: "event", version: 3, event: { kind: "turn", seat: 0, color: "White", cells: ["e5", "a1"], computer: false } };
    m = T.applyServerMessage(m, { ...event, state: table({ version: 3, toMove: "Black", seat: 1, stones: { e5: "White", a1: "Black" }, history: [["e5", "a1"]] }) });
    assert.equal(m.state.game.to_move, "Black");
    assert.equal(T.applyServerMessage(m, { ...event, version: 2, state: table({ version: 2 }) }), m);
    assert.equal(T.applyServerMessage(m, { type: "ack", request_id: "r", version: 3 }), m);
    assert.equal(T.applyServerMessage(m, { type: "pong" }), m);
    const refusedMsg = T.applyServerMessage(m, { type: "error", request_id: null, error: { code: "rate_limited", message: "slow down" } });
    assert.deepEqual(refusedMsg.message, { kind: "error", text: "Too many requests; wait a moment: slow down" });
  });

  test("a presence message changes who is connected, nothing else", () => {
    const m = opened(table({ version: 5 }), "e5");
    const gone = T.applyServerMessage(m, { type: "presence", version: 5, seats: [true, false] });
    assert.deepEqual(gone.state.seats.map((s) => s.connected), [true, false]);
    assert.equal(gone.state.version, 5);
    assert.deepEqual(gone.staged, ["e5"]);
    // The same news again, or news that does not fit the table, changes nothing.
    assert.equal(T.applyServerMessage(gone, { type: "presence", version: 5, seats: [true, false] }), gone);
    assert.equal(T.applyServerMessage(gone, { type: "presence", version: 5, seats: [true] }), gone);
    assert.equal(T.applyServerMessage(T.initialModel(), { type: "presence", version: 1, seats: [true, true] }).state, null);
  });

  test("when the turn passes, the staging, the typing and the old sentence go", () => {
    let m = Staging.typeKey(opened(table(), "e5"), "a");
    m = T.note(m, "info", "hello");
    const passed = T.applyState(m, table({ version: 2, toMove: "Black", seat: 1, stones: { e5: "White", a1: "Black" }, history: [["e5", "a1"]] }));
    assert.deepEqual([passed.staged, passed.buffer, passed.message, passed.pending], [[], "", null, null]);
  });

  test("a live socket after a loss asks for the table again", () => {
    let { model, refresh } = T.connectionChanged(T.initialModel(), "live");
    assert.equal(refresh, false);
    ({ model, refresh } = T.connectionChanged(model, "reconnecting"));
    assert.deepEqual([model.conn, model.everLive, refresh], ["reconnecting", true, false]);
    ({ model, refresh } = T.connectionChanged(model, "live"));
    assert.equal(refresh, true);
  });
});

describe("seat names", () => {
  test("a default name reads in the reader's language; a name a player wrote stays as written", async () => {
    const { useCatalog } = await import("../../src/omega/web/js/i18n.js");
    const computer = { index: 1, name: "Computer 2 (Easy)", name_text: { id: "Computer {seat} ({level})", params: { seat: 2, level: { id: "Easy", params: {} } } } };
    const player = { index: 0, name: "Player 1", name_text: { id: "Player {number}", params: { number: 1 } } };
    const written = { index: 0, name: "Ada", name_text: null };
    assert.equal(T.seatLabel(computer), "Computer 2 (Easy)"); // English: no catalog
    useCatalog({ "Computer {seat} ({level})": "Ordinateur {seat} ({level})", "Easy": "Facile", "Player {number}": "Joueur {number}" });
    try {
      assert.equal(T.seatLabel(computer), "Ordinateur 2 (Facile)");
      assert.equal(T.seatLabel(player), "Joueur 1");
      assert.equal(T.seatLabel(written), "Ada");
      assert.equal(T.seatLabel({ index: 2, name: "" }), "Seat 3");
    } finally {
      useCatalog({});
    }
  });
});

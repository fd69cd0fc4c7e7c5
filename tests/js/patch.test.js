// The changes of protocol omega.v2 applied by the page, and the page taking a socket event.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { applyChanges } from "../../src/omega/web/js/patch.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { table } from "./fixtures.js";

describe("applying changes", () => {
  test("add, replace, remove, append, and nested paths", () => {
    const before = { version: 3, game: { history: [["e5", "a1"]], stones: { a1: "Black", e5: "White" } }, x: 1 };
    const after = applyChanges(before, [
      ["replace", "/version", 4],
      ["add", "/game/history/-", ["c3", "b2"]],
      ["add", "/game/stones/c3", "White"],
      ["remove", "/x"],
    ]);
    assert.deepEqual(after, {
      version: 4, game: { history: [["e5", "a1"], ["c3", "b2"]], stones: { a1: "Black", e5: "White", c3: "White" } },
    });
    // The state before is left as it was: the page compares the two.
    assert.equal(before.version, 3);
    assert.equal(before.game.history.length, 1);
    assert.equal(before.x, 1);
  });

  test("list items by index, and escaped keys", () => {
    assert.deepEqual(applyChanges({ seats: [{ n: "a" }, { n: "b" }] }, [["replace", "/seats/1/n", "c"]]),
      { seats: [{ n: "a" }, { n: "c" }] });
    assert.deepEqual(applyChanges({ "a/b": 1, "c~d": 2 }, [["replace", "/a~1b", 5], ["replace", "/c~0d", 6]]),
      { "a/b": 5, "c~d": 6 });
  });

  test("changes that do not fit are refused", () => {
    assert.throws(() => applyChanges({ a: 1 }, [["replace", "/b", 2]]), /no such member/);
    assert.throws(() => applyChanges({ a: [1] }, [["replace", "/a/1", 2]]), /no such item/);
    assert.throws(() => applyChanges({ a: [1] }, [["replace", "/a/01", 2]]), /no such item/);
    assert.throws(() => applyChanges({ a: 1 }, [["move", "/a", 2]]), /unknown change/);
    assert.throws(() => applyChanges({ a: 1 }, [["remove", ""]]), /whole value/);
  });
});

describe("a socket event", () => {
  const held = table({ players: 2, toMove: "White", seat: 0, you: 0 });
  const next = (changes, version = held.version + 1) => ({ type: "event", version, event: { kind: "name" }, changes });

  test("its changes apply to the version before", () => {
    const after = T.stateAfter(held, next([["replace", "/version", held.version + 1],
      ["replace", "/seats/1/name", "Bo"]]));
    assert.equal(after.version, held.version + 1);
    assert.equal(after.seats[1].name, "Bo");
    assert.deepEqual(after.you, held.you); // the viewer is the page's own
  });

  test("a version already held changes nothing; a missing one asks for the whole table", () => {
    assert.equal(T.stateAfter(held, next([["replace", "/version", held.version]], held.version)), held);
    assert.equal(T.stateAfter(held, next([["replace", "/version", held.version + 2]], held.version + 2)), null);
    assert.equal(T.stateAfter(null, next([])), null);
    // Changes that do not fit, or that do not reach the event's version, are not taken.
    assert.equal(T.stateAfter(held, next([["replace", "/nothing", 1]])), null);
    assert.equal(T.stateAfter(held, next([["replace", "/seats/1/name", "Bo"]])), null);
  });

  test("an omega.v1 event's whole state is taken as it is", () => {
    const whole = { ...held, version: held.version + 1 };
    assert.equal(T.stateAfter(held, { type: "event", version: whole.version, event: { kind: "name" }, state: whole }), whole);
  });

  test("the model follows the event", () => {
    const m = T.loaded(T.initialModel(), held, []);
    const after = T.applyServerMessage(m, next([["replace", "/version", held.version + 1]]));
    assert.equal(after.state.version, held.version + 1);
  });
});

// Earlier positions without a browser: stepping, late answers, no staged stones over a replay.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Replay from "../../src/omega/web/js/replay.js";
import * as Scene from "../../src/omega/web/js/scene.js";
import { opened, table } from "./fixtures.js";

describe("replay", () => {
  const history = [["e5", "a1"], ["c3", "i9"], ["b2", "h8"]];
  const played = table({ version: 7, history, stones: { e5: "White", a1: "Black", c3: "White", i9: "Black", b2: "White", h8: "Black" } });

  test("steps stay within the game; the end is the live position", () => {
    const m = opened(played);
    assert.deepEqual(Replay.replayPosition(m), { at: 3, total: 3, live: true });
    assert.equal(Replay.replayStep(m, 1), 3);
    assert.equal(Replay.replayStep(m, -1), 2);
    const back = Replay.replayTo(m, 1);
    assert.deepEqual(Replay.replayPosition(back), { at: 1, total: 3, live: false });
    assert.equal(Replay.replayStep(back, -5), 0);
    assert.equal(Replay.replayTo(back, 3).replayAt, null);
  });

  test("a replayed position is shown once it arrives, unless another was asked for meanwhile", () => {
    const view = { ...played.game, stones: { e5: "White", a1: "Black" }, history: history.slice(0, 1) };
    const asked = Replay.replayTo(opened(played), 1);
    assert.equal(Replay.shownView(asked), null); // loading
    assert.deepEqual(Scene.promptFacts(asked), { kind: "replay", at: 1, total: 3 });
    const shown = Replay.replayArrived(asked, 1, view);
    assert.deepEqual(Scene.boardScene(shown).stones, { e5: "White", a1: "Black" });
    const moved = Replay.replayTo(asked, 2);
    assert.equal(Replay.replayArrived(moved, 1, view), moved);
    assert.ok(Scene.buttonFacts(shown).hidden); // no staging while replaying
  });

  test("staged stones are not shown over a replayed position", () => {
    const m = Replay.replayArrived(Replay.replayTo(opened(played, "d4"), 0), 0, { ...played.game, stones: {}, history: [] });
    assert.deepEqual(m.staged, ["d4"]);
    assert.deepEqual(Scene.boardScene(m).staged, []);
    assert.equal(Scene.previewScores(m), null);
  });
});

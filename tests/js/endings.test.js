// How each ending of a game reads, without a browser: the heading, the words, whether the
// players are ranked and my place; an aborted game names no winner, ranks nobody and
// explains no tie-break, whether a flag fell before the first move or, at a rated table, a
// player resigned or ran out of time before the game counted.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Scene from "../../src/omega/web/js/scene.js";
import { opened, table } from "./fixtures.js";

/**
 * A finished 2-player table read by seat 1 (Black), the server ranking White first and
 * marking a tie (as it does for an empty board: 0 to 0).
 * @param {string} reason the server's end_reason
 * @param {{resigned?: string[], timed_out?: string[], rated?: boolean}} [rest]
 */
function ended(reason, { resigned = [], timed_out = [], rated = false } = {}) {
  const state = table({ status: "over", over: true, you: 1 });
  Object.assign(state, { end_reason: reason, rated });
  Object.assign(state.game, { resigned, timed_out, tiebreak: true });
  return opened(state);
}

describe("an ending that counts", () => {
  for (const [reason, text] of [
    ["board_full", null],
    ["resignation", "The game ended by resignation."],
    ["timeout", "The game ended on time: a clock ran out."],
    ["abandoned", "The table was abandoned unfinished; the scores as they stood decided."],
  ]) {
    test(`${reason}: "Game over", the ranking, my place and the winner`, () => {
      const m = ended(reason);
      assert.deepEqual(Scene.endingFacts(m),
        { reason, heading: "Game over", text, ranked: true, place: { place: 2, of: 2 } });
      const prompt = Scene.promptFacts(m);
      assert.deepEqual([prompt.kind, prompt.kind === "over" && prompt.winner], ["over", "White"]);
    });
  }

  test("a claim: the player who left is named, and the prompt says the game was won by claim", () => {
    const m = ended("resignation", { resigned: ["White"] });
    const white = m.state.seats.find((s) => s.color === "White");
    assert.ok(white);
    assert.equal(Scene.claimedEnd(m), null);  // White resigned by itself
    white.claimed = true;
    assert.equal(Scene.claimedEnd(m), white);
    assert.equal(Scene.endingFacts(m)?.text,
      "The game ended by a claim: White (Player 1) left the table and kept the others waiting.");
    const prompt = Scene.promptFacts(m);
    assert.equal(prompt.kind === "over" && prompt.claimed, true);
  });

  test("nothing while the game is on", () => {
    assert.equal(Scene.endingFacts(opened(table())), null);
  });
});

describe("an aborted game", () => {
  test("a flag before the first move: it says so, and names no winner, place or ranking", () => {
    const m = ended("aborted");
    assert.deepEqual(Scene.endingFacts(m), {
      reason: "aborted", heading: "Game aborted", ranked: false, place: null,
      text: "A clock ran out before its player's first move. It does not count: nobody wins or loses.",
    });
    // The server still ranks a colour first and marks a tie: the page shows neither.
    assert.deepEqual(Scene.promptFacts(m), { kind: "over", winner: null, name: null, reason: "aborted", claimed: false });
    assert.equal(Scene.myPlace(m), null);
  });

  test("a rated game resigned before it counted names the resigner, and says no rating changes", () => {
    const m = ended("aborted", { resigned: ["Black"], rated: true });
    const facts = Scene.endingFacts(m);
    assert.equal(facts?.text,
      "Black (Player 2) resigned before the game counted. It does not count: nobody wins or loses, and no rating changes.");
    assert.deepEqual([facts?.heading, facts?.ranked, facts?.place], ["Game aborted", false, null]);
    const prompt = Scene.promptFacts(m);
    assert.equal(prompt.kind === "over" && prompt.winner, null);
  });

  test("the words, by how it was aborted and whether the game was rated", () => {
    // A rated game's flag may fall after the first move and still abort it.
    assert.equal(Scene.abortedText([], true),
      "A clock ran out before the game counted. It does not count: nobody wins or loses, and no rating changes.");
    // A casual game is aborted only by a flag before a seat's first move, even after another
    // player resigned (which does not end a game of 3 or 4).
    assert.equal(Scene.abortedText(["White"], false),
      "A clock ran out before its player's first move. It does not count: nobody wins or loses.");
  });
});

// Clocks on the page without a browser: the time as it reads, the offset to the server's
// clock, each seat's clock by the server's time, the lobby's time-control choices.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as Clocks from "../../src/omega/web/js/clocks.js";
import * as Scene from "../../src/omega/web/js/scene.js";
import * as Staging from "../../src/omega/web/js/staging.js";
import * as T from "../../src/omega/web/js/tablestate.js";
import { MAX_ROUND_TRIP, clockText, controlChoices, controlText, serverOffset } from "../../src/omega/web/js/timecontrol.js";
import { table } from "./fixtures.js";

const FLAG = "2026-05-01T10:05:00.000Z";

/** A 2-player 5+5 table, White's clock running until FLAG, read by seat `you`. */
function timed({ you = 0, kind = "realtime", left = [300_000, 295_000], running = 0, flag = FLAG, ...rest } = {}) {
  const state = table({ you, seat: running ?? 0, ...rest });
  state.clock = {
    control: kind === "realtime" ? "5+5" : "1d+3d", kind, label: "", per_move_ms: kind === "realtime" ? 0 : 86_400_000,
    increment_ms: kind === "realtime" ? 5000 : 0, low_ms: kind === "realtime" ? 30_000 : 345_600_000 / 10,
    left_ms: left, running, since: null, flag_at: flag,
  };
  return T.loaded(T.initialModel(), state, []);
}

describe("the time as it reads", () => {
  test("real time in minutes and seconds, tenths in the last ten seconds", () => {
    assert.equal(clockText(300_000, "realtime"), "5:00");
    assert.equal(clockText(65_400, "realtime"), "1:05");
    assert.equal(clockText(9_960, "realtime"), "0:09.9");
    assert.equal(clockText(-400, "realtime"), "0:00.0");
    assert.equal(clockText(3_725_000, "realtime"), "1:02:05");
  });

  test("turn-based in days and hours, then hours and minutes", () => {
    assert.equal(clockText((3 * 24 + 7) * 3_600_000 + 59_000, "turn_based"), "3d 7h");
    assert.equal(clockText(24 * 3_600_000, "turn_based"), "1d 0h");
    assert.equal(clockText(5 * 3_600_000 + 12 * 60_000, "turn_based"), "5h 12m");
    assert.equal(clockText(12 * 60_000 + 5_000, "turn_based"), "12:05");
  });
});

describe("the server's time", () => {
  test("the offset allows for half the round trip", () => {
    const sent = Date.parse("2026-05-01T10:00:00.000Z");
    assert.equal(serverOffset("2026-05-01T10:00:03.100Z", sent, sent + 200), 3000);
    assert.equal(serverOffset("not a time", sent, sent), null);
    const m = Clocks.measuredOffset(timed(), "2026-05-01T10:00:03.100Z", sent, sent + 200);
    assert.equal(m.offset, 3000);
    assert.equal(Clocks.measuredOffset(m, undefined, sent, sent), m);
  });

  test("a round trip during which the page's clock jumped is not halved", () => {
    // The ping left, the page's clock then moved a day on (a laptop asleep, a test's clock),
    // and the answer, read by the server as it answered, came at the page's new time.
    const sent = Date.parse("2026-05-01T10:00:00.000Z");
    const day = 24 * 3_600_000;
    assert.equal(serverOffset("2026-05-02T10:00:03.000Z", sent, sent + day + 100), 2900);
    assert.equal(serverOffset("2026-05-01T10:00:03.000Z", sent, sent + MAX_ROUND_TRIP), 3000 - MAX_ROUND_TRIP / 2);
    assert.equal(serverOffset("2026-05-01T10:00:03.000Z", sent, sent - 5000), 8000); // the clock went back
  });

  test("the running clock counts down to the server's flag, by the server's time", () => {
    const pageNow = Date.parse("2026-05-01T10:04:00.000Z");
    // The page's clock is 30 s slow: by the server's time 30 s are left, not 60.
    const m = { ...timed(), offset: 30_000 };
    const [white, black] = /** @type {Clocks.ClockFacts[]} */ (Clocks.clockFacts(m, pageNow));
    assert.deepEqual([white.color, white.left, white.text, white.running, white.low], ["White", 30_000, "0:30", true, true]);
    assert.deepEqual([black.left, black.text, black.running, black.low], [295_000, "4:55", false, false]);
    // Without a measured offset the page's time is taken as it is.
    assert.equal(/** @type {Clocks.ClockFacts[]} */ (Clocks.clockFacts(timed(), pageNow))[0].text, "1:00");
  });

  test("turn-based clocks show days and hours; red in the last tenth", () => {
    const pageNow = Date.parse("2026-05-01T10:00:00.000Z");
    const flag = new Date(pageNow + (2 * 24 + 5) * 3_600_000).toISOString();
    const facts = /** @type {Clocks.ClockFacts[]} */ (Clocks.clockFacts({ ...timed({ kind: "turn_based", flag, left: [345_600_000, 345_600_000] }), offset: 0 }, pageNow));
    assert.equal(facts[0].text, "2d 5h");
    assert.equal(facts[0].low, false);
    assert.equal(facts[1].text, "4d 0h");
  });

  test("an untimed table has no clocks; computers and resigned seats none either; a seat out of time shows 0", () => {
    assert.equal(Clocks.clockFacts(T.loaded(T.initialModel(), table(), []), 0), null);
    const m = timed({ left: [300_000, null], seats: { 1: { kind: "computer", level: 1 } } });
    assert.deepEqual(/** @type {Clocks.ClockFacts[]} */ (Clocks.clockFacts(m, 0)).map((f) => f.color), ["White"]);
    const over = timed({ over: true, status: "over", running: null, flag: null, left: [null, 300_000], seats: { 0: { timed_out: true } } });
    const [white] = /** @type {Clocks.ClockFacts[]} */ (Clocks.clockFacts(over, 0));
    assert.deepEqual([white.text, white.out, white.running], ["0:00.0", true, false]);
  });

  test("the end on time and an aborted game are told apart", () => {
    const over = timed({ over: true, status: "over", running: null, flag: null });
    assert.equal(Scene.endReason({ ...over, state: { ...over.state, end_reason: "timeout" } }), "timeout");
    assert.equal(Scene.promptFacts({ ...over, state: { ...over.state, end_reason: "aborted" } }).kind, "over");
    // A refusal as too late fetches the table again before saying anything.
    assert.ok(Staging.needsRefetch("too_late"));
  });
});

describe("the lobby's time controls", () => {
  const config = {
    realtime: { presets: [{ text: "3+2", label: "3 minutes + 2 seconds a move" }, { text: "5+5", label: "5 minutes + 5 seconds a move" }] },
    turn_based: { per_move: [{ text: "12h", label: "12 hours a move" }, { text: "1d", label: "1 day a move" }] },
  };

  test("untimed first, then the presets, custom real time, and the limits per move", () => {
    assert.deepEqual(controlChoices(config).map((c) => c.value), ["untimed", "3+2", "5+5", "custom", "12h", "1d"]);
    assert.deepEqual(controlChoices(config).map((c) => c.label).slice(0, 4), ["Untimed", "3+2", "5+5", "Custom…"]);
  });

  test("the text sent to the server", () => {
    assert.equal(controlText("5+5", 1, 1, 3), "5+5");
    assert.equal(controlText("custom", 1, 0, 0), "1+0");
    assert.equal(controlText("1d", 0, 0, 0), "1d");
    assert.equal(controlText("12h", 0, 0, 3), "12h+3d");
    assert.equal(controlText("untimed", 0, 0, 7), "untimed");
  });
});

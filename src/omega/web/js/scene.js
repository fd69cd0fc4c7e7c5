// @ts-check
// What each part of the table page shows, derived from the model (pure): the board's scene,
// the panels with previewed scores, the prompt, the buttons, how the game ended.

import { Geometry } from "./geometry.js";
import { markedTurns, shownView } from "./replay.js";
import { findGroups, groupOf, scoresOf, sizesOf } from "./score.js";
import { canStage, isComplete, nextColor, stagedStones, stagingOrder } from "./staging.js";
import { awaited, colorsInPlay, game, isLive, isMyTurn, isOver, mySeat, seatLabel, seatOf, waitsForJoin } from "./tablestate.js";
import { colorName, t } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */
/** @typedef {import("./types.js").Decimal} Decimal */
/** @typedef {import("./types.js").GameView} GameView */
/** @typedef {import("./score.js").Stones} Stones */
/** @typedef {import("./score.js").Groups} Groups */
/** @typedef {import("./tablestate.js").Loaded} Loaded */
/** @typedef {import("./tabletypes.js").PanelFacts} PanelFacts */
/** @typedef {import("./tabletypes.js").EndReason} EndReason */
/** @typedef {import("./tabletypes.js").PromptFacts} PromptFacts */
/** @typedef {import("./tabletypes.js").EndingFacts} EndingFacts */
/** @typedef {import("./tabletypes.js").BoardScene} BoardScene */

// Models are never changed in place, so one remembered answer per question is enough:
// hovering and re-rendering the same position count its groups once.
/** @type {{view: GameView | null, staged: Cell[], live: boolean, stones: Stones} | null} */
let lastPreview = null;
/** @type {{stones: Stones, size: number, groups: Groups} | null} */
let lastGroups = null;

/**
 * The stones shown with the staged ones added: what previews and hover outlines count.
 * The same object comes back while the position and the staging stay the same.
 * @param {Loaded} m
 * @returns {Stones}
 */
export function previewStones(m) {
  const view = shownView(m);
  const live = isLive(m);
  if (lastPreview && lastPreview.view === view && lastPreview.staged === m.staged && lastPreview.live === live) {
    return lastPreview.stones;
  }
  /** @type {Stones} */
  const stones = { ...(view ? view.stones : {}) };
  for (const { cell, color } of stagedStones(m)) stones[cell] = color;
  lastPreview = { view, staged: m.staged, live, stones };
  return stones;
}

/**
 * Every group of the previewed position, counted once per position (not per hover).
 * @param {Loaded} m
 * @returns {Groups}
 */
export function positionGroups(m) {
  const stones = previewStones(m);
  const size = m.state.size;
  if (!lastGroups || lastGroups.stones !== stones || lastGroups.size !== size) {
    lastGroups = { stones, size, groups: findGroups(Geometry.of(size), stones) };
  }
  return lastGroups.groups;
}

/**
 * Every colour's score with the staged stones, or null when nothing is staged.
 * @param {Loaded} m
 * @returns {Partial<Record<Color, Decimal>> | null}
 */
export function previewScores(m) {
  return isLive(m) && m.staged.length ? scoresOf(positionGroups(m), colorsInPlay(m)) : null;
}

/**
 * What each player panel shows, in turn order.
 * @param {Loaded} m
 * @returns {PanelFacts[]}
 */
export function panelFacts(m) {
  const view = shownView(m) || game(m);
  const preview = previewScores(m);
  return colorsInPlay(m).map((color) => {
    const seat = seatOf(m, color) ?? null;
    const score = view.scores[color] ?? "0";
    const hovered = m.hover !== null && m.hover.kind === "panel" && m.hover.color === color;
    const after = preview ? preview[color] : undefined;
    return {
      color,
      seat,
      label: seat ? seatLabel(seat) : color,
      toMove: view.to_move === color && !view.over,
      mine: m.seat !== null && seat !== null && seat.index === m.seat,
      hovered,
      resigned: Boolean(seat && seat.resigned),
      presence: seat && seat.kind === "computer" ? null : seat && seat.connected ? "online" : "offline",
      score,
      preview: after !== undefined && after !== score ? { value: after, up: BigInt(after) > BigInt(score) } : null,
      factors: hovered ? sizesOf(positionGroups(m), color) : null,
    };
  });
}

/**
 * What the prompt says: replaying, game over, my turn (the next colour, or all placed),
 * the people my first turn waits for, or who the table waits for.
 * @param {Loaded} m
 * @returns {PromptFacts}
 */
export function promptFacts(m) {
  const g = game(m);
  if (m.replayAt !== null) return { kind: "replay", at: m.replayAt, total: g.history.length };
  if (isOver(m)) {
    // An aborted game has no winner, whatever colour the server ranks first.
    const reason = endReason(m);
    const winner = reason === "aborted" ? null : g.winner;
    const seat = winner ? seatOf(m, winner) : undefined;
    return { kind: "over", winner, name: seat ? seatLabel(seat) : null, reason, claimed: claimedEnd(m) !== null };
  }
  if (waitsForJoin(m)) return { kind: "join", names: awaited(m).map(seatLabel) };
  if (m.state.status === "waiting" || m.state.status === "cancelled") {
    // An open table of the lobby before every seat is taken, or called off: nobody moves.
    return { kind: "wait", color: null, name: null, computer: null, watching: m.seat === null };
  }
  if (isMyTurn(m)) {
    if (isComplete(m)) return { kind: "complete" };
    return { kind: "stage", color: nextColor(m), index: m.staged.length, order: stagingOrder(m) };
  }
  const color = g.to_move;
  const seat = color ? seatOf(m, color) : undefined;
  return {
    kind: "wait", color, name: seat ? seatLabel(seat) : color,
    computer: seat && seat.kind === "computer" ? seat.level : null, watching: m.seat === null,
  };
}

/**
 * The buttons under the prompt: hidden for spectators, replays and finished games.
 * @param {Loaded} m
 */
export function buttonFacts(m) {
  const me = mySeat(m);
  const playing = m.state.status === "playing" && !game(m).over;
  const myTurn = isMyTurn(m);
  return {
    hidden: m.seat === null || !playing || !isLive(m) || Boolean(me && me.resigned),
    canUndo: m.staged.length > 0 && !m.sending && myTurn,
    canConfirm: isComplete(m) && !m.sending && myTurn,
    sending: m.sending,
    pieOffer: myTurn && game(m).can_swap && isLive(m) && !m.pieDismissed && !m.staged.length,
  };
}

/**
 * Whether my seat may resign now.
 * @param {Loaded} m
 */
export function canResign(m) {
  const me = mySeat(m);
  return m.seat !== null && m.state.status === "playing" && me !== null && !me.resigned;
}

/**
 * What the board shows: the position, the staged stones, the last turn (with `sinceMine`,
 * every turn since my own, numbered), and what the pointer is on (the group under it, a
 * player's groups, or the next stone's ghost).
 * @param {Loaded} m
 * @param {boolean} [sinceMine]
 * @returns {BoardScene}
 */
export function boardScene(m, sinceMine = false) {
  const view = shownView(m);
  const stones = previewStones(m);
  const hover = m.hover;
  /** @type {Cell[]} */
  let outline = [];
  let tip = null;
  if (hover && hover.kind === "cell" && stones[hover.cell]) {
    outline = groupOf(positionGroups(m), hover.cell);
    tip = { text: t("{value} group of {outlineCount}", { value: stones[hover.cell], outlineCount: outline.length }), x: hover.x, y: hover.y };
  } else if (hover && hover.kind === "panel") {
    outline = Geometry.of(m.state.size).cells.filter((c) => stones[c] === hover.color);
  }
  const staging = canStage(m) && !isComplete(m);
  const next = nextColor(m);
  const ghost = hover && hover.kind === "cell" && staging && next && !stones[hover.cell]
    ? { cell: hover.cell, color: next } : null;
  const last = view && view.last_turn ? /** @type {Cell[]} */ (Object.values(view.last_turn.cells)) : [];
  const marked = sinceMine ? markedTurns(m, true) : [];
  /** @type {Record<Cell, number>} */
  const numbers = {};
  if (marked.length > 1) for (const t of marked) for (const c of t.cells) numbers[c] = t.entry;
  const recent = marked.slice(0, -1).flatMap((t) => t.cells);
  return {
    size: m.state.size, stones: view ? view.stones : {}, staged: stagedStones(m), last, recent, numbers, outline, ghost,
    interactive: staging, tip,
  };
}

/**
 * Why the game ended: the board filled (fewer than N x N cells empty, RULES.md's end), a
 * resignation left too few players, a clock ran out (`timeout`; `aborted` when its seat had
 * never moved), or the table was abandoned unfinished. Null while on.
 * @param {Loaded} m
 * @returns {EndReason | null}
 */
export function endReason(m) {
  if (!isOver(m)) return null;
  if (m.state.end_reason) return m.state.end_reason;
  const g = game(m);
  const empty = Geometry.of(m.state.size).cells.length - Object.keys(g.stones).length;
  if (empty < m.state.players * m.state.players) return "board_full";
  return g.resigned.length ? "resignation" : "abandoned";
}

/**
 * My place in the final ranking (1 = won) and the number of players, or null when I hold
 * no seat, the game is on, or it was aborted (nobody placed).
 * @param {Loaded} m
 * @returns {{place: number, of: number} | null}
 */
export function myPlace(m) {
  const me = mySeat(m);
  if (!me || !isOver(m) || endReason(m) === "aborted") return null;
  const i = game(m).ranking.indexOf(me.color);
  return i < 0 ? null : { place: i + 1, of: m.state.players };
}

// How the game ended, under the result's heading (the board filling needs no words). The
// page's one home for these texts; the record's are omega.texts.OUTCOMES.
/** @type {Record<Exclude<EndReason, "aborted">, string | null>} */
const ENDINGS = {
  board_full: null,
  resignation: t("The game ended by resignation."),
  abandoned: t("The table was abandoned unfinished; the scores as they stood decided."),
  timeout: t("The game ended on time: a clock ran out."),
};

/**
 * Why a game was aborted and what that means. The server aborts a casual game only when a
 * clock runs out before its seat's first move; at a rated table also a resignation or a
 * flag before each player has made the turns that make the game count. A resignation never
 * ends a rated game early without aborting it, so the resigner of an aborted rated game is
 * the one who aborted it.
 * @example abortedText([], false) // "A clock ran out before its player's first move. It does not count: nobody wins or loses."
 * @example abortedText(["Black"], true) // "Black resigned before the game counted. It does not count: nobody wins or loses, and no rating changes."
 * @param {string[]} resigned who resigned (not those out of time), as the page names them
 * @param {boolean} rated
 */
export function abortedText(resigned, rated) {
  const why = !rated ? t("A clock ran out before its player's first move.")
    : resigned.length ? t("{value} resigned before the game counted.", { value: resigned[resigned.length - 1] })
      : t("A clock ran out before the game counted.");
  return t("{why} It does not count: nobody wins or loses{value}.", { why, value: rated ? t(", and no rating changes") : "" });
}

/**
 * The seat whose claim ended the game: a resignation ended it, and the last seat out did
 * not resign itself but was claimed by a player it kept waiting (the `claim` action). Null
 * for every other ending.
 * @param {Loaded} m
 * @returns {import("./types.js").Seat | null}
 */
export function claimedEnd(m) {
  const out = game(m).resigned || [];
  const seat = out.length > 0 && endReason(m) === "resignation" ? seatOf(m, out[out.length - 1]) : undefined;
  return seat && seat.claimed ? seat : null;
}

/**
 * What the end of the game shows: its heading, how it ended in words, whether the players
 * are ranked (an aborted game counts for nothing: no winner, no ranking, no place, no
 * tie-break), and my place. Null while the game is on.
 * @param {Loaded} m
 * @returns {EndingFacts | null}
 */
export function endingFacts(m) {
  const reason = endReason(m);
  if (reason === null) return null;
  if (reason === "aborted") {
    const resigned = (game(m).resigned || []).map((color) => {
      const seat = seatOf(m, color);
      return seat ? `${colorName(color)} (${seatLabel(seat)})` : colorName(color);
    });
    return { reason, heading: t("Game aborted"), text: abortedText(resigned, Boolean(m.state.rated)), ranked: false, place: null };
  }
  const claimed = claimedEnd(m);
  const text = claimed ? t("The game ended by a claim: {claimed} ({seatLabel}) left the table and kept the others waiting.", { claimed: colorName(claimed.color), seatLabel: seatLabel(claimed) })
    : ENDINGS[reason];
  return { reason, heading: t("Game over"), text, ranked: true, place: myPlace(m) };
}

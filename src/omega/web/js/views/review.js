// @ts-check
// The review of a finished game (GET /api/tables/{id}/review; its JSON is docs/ai.md's):
// a button to ask for it, its progress, an evaluation graph (one line per colour, in the
// board's colours; a click shows that position in the replay), the turn shown next to the
// best turn found, and each player's biggest mistakes (a click shows the position).
// A review with the rules' figures (version 2) loads reviewscore.js, which adds the toggle to
// the score scale and who cost whom what (not on the first load).
// tableactions.js fetches; this view only draws and reports clicks.

import { h } from "../dom.js";
import { COLORS } from "../geometry.js";
import { colorName, t } from "../i18n.js";
import { seatLabel } from "../tablestate.js";

/** @typedef {import("../types.js").Color} Color */
/** @typedef {import("../types.js").Cell} Cell */
/** @typedef {import("../tablestate.js").Loaded} Loaded */
/**
 * @typedef {object} ReviewTurn one entry of a review
 * @property {number} index
 * @property {number} number
 * @property {number} player
 * @property {Color} color
 * @property {Cell[] | "swap"} played
 * @property {Cell[] | "swap"} best
 * @property {Record<string, number>} before
 * @property {Record<string, number>} after
 * @property {number} loss
 * @property {"mistake" | "blunder" | null} mark
 */
/**
 * @typedef {object} Review
 * @property {number} players
 * @property {ReviewTurn[]} turns
 * @property {{mistake: number, blunder: number}} thresholds
 * @property {import("./reviewscore.js").Account} [account] from version 2
 * @property {{log: Record<string, number>[], margin: Record<string, number>[]}} [scores] from version 2: one item a position
 */
/**
 * Where a table's review stands, as the server says (plus "error", the page's own).
 * @typedef {{status: "none" | "queued"} | {status: "running", done: number, total: number} |
 *   {status: "done", review: Review} | {status: "error", message: string}} ReviewStatus
 */

const GRAPH_W = 300, GRAPH_H = 110, PAD = 6;

/**
 * The graph's points for one colour: the win probability at each position (the empty board,
 * then after each entry), as "x,y" pairs in the graph's units.
 * @example evaluationPoints([{before: {White: 0.5}, after: {White: 1}}], "White") // "6,55 294,6"
 * @param {{before: Record<string, number>, after: Record<string, number>}[]} turns
 * @param {string} color
 */
export function evaluationPoints(turns, color) {
  return graphPoints(turns.length ? [turns[0].before[color], ...turns.map((turn) => turn.after[color])] : []);
}

/**
 * A line's points for its heights (0 at the bottom, 1 at the top), one per position.
 * @example graphPoints([0.5, 1]) // "6,55 294,6"
 * @param {number[]} values
 */
export function graphPoints(values) {
  return values.map((v, k) => `${round(xOf(k, values.length))},${round(yOf(v))}`).join(" ");
}

/** @param {number} k @param {number} n */
function xOf(k, n) {
  return PAD + (n > 1 ? (k * (GRAPH_W - 2 * PAD)) / (n - 1) : 0);
}

/** @param {number} v */
function yOf(v) {
  return PAD + (1 - v) * (GRAPH_H - 2 * PAD);
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 10) / 10;
}

/**
 * A player's marked turns, biggest loss first.
 * @param {Review} review
 * @param {number} player
 */
export function mistakesOf(review, player) {
  return review.turns.filter((turn) => turn.player === player && turn.mark).sort((a, b) => b.loss - a.loss || a.index - b.index);
}

/**
 * What one entry was and what the search preferred.
 * @example turnText({number: 2, color: "Black", played: "swap", best: ["c3", "b4"], loss: 0.47, mark: "blunder"})
 *   // "Turn 2, Black: played swap; best c3 b4 (−0.47, blunder)"
 * @param {Pick<ReviewTurn, "number" | "color" | "played" | "best" | "loss" | "mark">} turn
 */
export function turnText(turn) {
  const cells = (/** @type {Cell[] | "swap"} */ a) => (a === "swap" ? "swap" : a.join(" "));
  const same = cells(turn.played) === cells(turn.best);
  const loss = turn.loss > 0 ? ` (−${turn.loss.toFixed(2)}${turn.mark ? `, ${t(turn.mark)}` : ""})` : "";
  const played = t("Turn {number}, {color}: played {cells}", { number: turn.number, color: colorName(turn.color), cells: cells(turn.played) });
  return played + (same ? t(" (the best found)") : t("; best {cells}", { cells: cells(turn.best) })) + loss;
}

/**
 * The best turn's stones to show as ghosts with the position after entry `at` (the turn
 * just played is on the board; the best one found instead is shown beside it): none when
 * they are the same, for a swap, or before the first entry.
 * @param {Review | null} review
 * @param {number} at
 * @returns {{cell: Cell, color: Color}[]}
 */
export function bestGhosts(review, at) {
  const turn = review && at > 0 ? review.turns[at - 1] : null;
  if (!turn || turn.best === "swap" || turn.played === "swap" || turn.best.join() === turn.played.join()) return [];
  return turn.best.map((cell, i) => ({ cell, color: COLORS[i] }));
}

export class ReviewView {
  /**
   * @param {{onAsk: () => void, onGo: (k: number) => void}} handlers ask for the review; show the position after k entries
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.key = "";
    /** @type {Review | null} */
    this.review = null;
    /** the position the replay shows (entries played) */
    this.at = 0;
    /** @type {{heights: (color: string) => number[], label: string} | null} the score scale, when it is shown */
    this.scale = null;
    /** @type {SVGElement | null} the replay position's mark on the graph */
    this.cursor = null;
    this.ask = h("button", { type: "button", class: "btn small", onclick: () => handlers.onAsk() }, t("Review this game"));
    this.state = h("p", { class: "muted review-state", role: "status" });
    this.graph = h("div", { class: "review-graph" });
    this.scales = h("div", { class: "review-scales", role: "group", "aria-label": t("The graph shows") });
    this.account = h("div", { class: "review-account" });
    this.caption = h("p", { class: "review-turn" });
    this.lists = h("div", { class: "review-mistakes" });
    this.el = h("section", { class: "review", "aria-label": t("Review"), hidden: true },
      h("h2", {}, t("Review")), this.ask, this.state, this.scales, this.graph, this.caption, this.lists, this.account);
  }

  /**
   * @param {Loaded} m
   * @param {ReviewStatus} status
   * @param {number} at the position the replay shows (entries played)
   */
  update(m, status, at) {
    // A game that ended before its first turn (aborted, say) has nothing to review: the
    // server refuses to (409 conflict), so the page does not offer it.
    const over = (m.state.status === "over" || m.state.game.over) && m.state.game.history.length > 0;
    this.el.hidden = !over;
    if (!over) return;
    this.ask.hidden = status.status !== "none" && status.status !== "error";
    const text = status.status === "queued" ? t("Waiting for the computer…")
      : status.status === "running" ? t("Reviewing: {done} of {total} positions searched", { done: status.done, total: status.total })
        : status.status === "error" ? status.message : "";
    if (this.state.textContent !== text) this.state.textContent = text;
    this.state.hidden = !text;
    const review = status.status === "done" ? status.review : null;
    const key = review ? `${review.turns.length}|${m.state.seats.map(seatLabel).join("|")}` : "";
    if (key !== this.key) {
      this.key = key;
      this.review = review;
      this.scale = null;
      this.scales.replaceChildren();
      this.account.replaceChildren();
      this.drawGraph(review);
      this.drawLists(m, review);
      const names = m.state.seats.map(seatLabel);
      if (review?.scores) import("./reviewscore.js").then((x) => this.key === key && x.showScores(this, review, names));
    }
    this.at = at;
    this.drawCursor(review, at);
  }

  /** @param {Review | null} review */
  drawGraph(review) {
    if (!review || !review.turns.length) {
      this.graph.replaceChildren();
      return;
    }
    const n = review.turns.length + 1;
    const scale = this.scale;
    const svg = svgEl("svg", {
      class: "eval", viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`, role: "img", "data-scale": scale ? "score" : "chance",
      "aria-label": t("Each colour's {value} after each turn; click to show that position", { value: scale ? scale.label : t("chance of winning") }),
    });
    svg.append(svgEl("line", { class: "half", x1: PAD, x2: GRAPH_W - PAD, y1: yOf(0.5), y2: yOf(0.5) }));
    for (const color of COLORS.slice(0, review.players)) {
      svg.append(svgEl("polyline", { class: `line line-${color.toLowerCase()}`, "data-color": color,
        points: scale ? graphPoints(scale.heights(color)) : evaluationPoints(review.turns, color) }));
    }
    for (const turn of review.turns) {
      if (!turn.mark) continue;
      const v = scale ? scale.heights(turn.color)[turn.index + 1] : turn.after[turn.color];
      svg.append(svgEl("circle", { class: `mark ${turn.mark}`, cx: xOf(turn.index + 1, n), cy: yOf(v), r: 2.6 }));
    }
    this.cursor = svgEl("line", { class: "cursor", y1: PAD / 2, y2: GRAPH_H - PAD / 2 });
    svg.append(this.cursor);
    svg.addEventListener("click", (e) => {
      const box = svg.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * GRAPH_W;
      this.handlers.onGo(Math.max(0, Math.min(n - 1, Math.round(((x - PAD) * (n - 1)) / (GRAPH_W - 2 * PAD)))));
    });
    this.graph.replaceChildren(svg);
  }

  /**
   * @param {Review | null} review
   * @param {number} at
   */
  drawCursor(review, at) {
    if (review && this.cursor) {
      const x = String(round(xOf(at, review.turns.length + 1)));
      this.cursor.setAttribute("x1", x);
      this.cursor.setAttribute("x2", x);
    }
    const turn = review && at > 0 ? review.turns[at - 1] : null;
    const text = turn ? turnText(turn) : review ? t("The empty board: click the graph or a mistake to see a turn.") : "";
    if (this.caption.textContent !== text) this.caption.textContent = text;
    this.caption.hidden = !text;
  }

  /**
   * @param {Loaded} m
   * @param {Review | null} review
   */
  drawLists(m, review) {
    if (!review) {
      this.lists.replaceChildren();
      return;
    }
    const lists = m.state.seats.map((seat, player) => {
      const marked = mistakesOf(review, player).slice(0, 5);
      const items = marked.map((turn) => h("li", {},
        h("button", { type: "button", class: "link", "data-turn": String(turn.number), onclick: () => this.handlers.onGo(turn.index + 1) },
          turnText(turn))));
      return h("div", { class: "review-player", "data-seat": String(player) },
        h("h3", {}, seatLabel(seat)),
        items.length ? h("ol", {}, ...items) : h("p", { class: "muted" }, t("No mistakes found.")));
    });
    this.lists.replaceChildren(...lists);
  }
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 */
function svgEl(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

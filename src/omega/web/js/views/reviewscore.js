// @ts-check
// The rules' side of a finished game's review (its `scores` and `account`, docs/ai.md): a
// toggle that puts the review's graph on the score scale (each colour's margin: its log-score
// minus the best other's, 0 on the middle line), and who cost whom what: a table with a row
// per seat and a column per colour (how much the seat's stones changed that colour's
// log-score), and for 3 and 4 players a picture of the same: one square per seat and colour,
// green for a gain and red for a cost, its area in proportion to the amount.
// review.js loads it once a review with these figures is shown (not on the first load).

import { h } from "../dom.js";
import { COLORS } from "../geometry.js";
import { t } from "../i18n.js";

/**
 * @typedef {object} AccountRow one seat's account
 * @property {number} player
 * @property {string} color the colour the seat holds at the end
 * @property {Record<string, number>} net
 * @property {Record<string, number>} gain
 * @property {Record<string, number>} cost
 */
/** @typedef {{players: AccountRow[], final: Record<string, number>}} Account */
/** @typedef {import("./review.js").Review} Review */
/** @typedef {import("./review.js").ReviewView} ReviewView */

const CELL = 26, HEAD = 14, LEFT = 20;

/**
 * The biggest margin, either way, in a review's score scale (1 when every margin is 0).
 * @example marginSpan([{White: 0.5, Black: -0.5}, {White: -1.5, Black: 1.5}]) // 1.5
 * @param {Record<string, number>[]} margins
 */
export function marginSpan(margins) {
  return Math.max(0, ...margins.flatMap((m) => Object.values(m).map(Math.abs))) || 1;
}

/**
 * One colour's heights on the score scale (as the graph takes them, 0 to 1): its margin at
 * each position, 0 in the middle and `span` at the top edge (`-span` at the bottom).
 * @example marginHeights([{White: 0}, {White: 1}, {White: -2}], "White", 2) // [0.5, 0.75, 0]
 * @param {Record<string, number>[]} margins
 * @param {string} color
 * @param {number} span
 */
export function marginHeights(margins, color, span) {
  return margins.map((m) => 0.5 + m[color] / (2 * span));
}

/**
 * Add the score scale's toggle and who cost whom what to the review's view.
 * @param {ReviewView} view
 * @param {Review} review
 * @param {string[]} names each seat's name
 */
export function showScores(view, review, names) {
  const scores = review.scores;
  if (!scores) return;
  const span = marginSpan(scores.margin);
  const scale = { heights: (/** @type {string} */ c) => marginHeights(scores.margin, c, span),
    label: t("score margin (its log-score minus the best other colour's; the edges are ±{value})", { value: span.toFixed(2) }) };
  const pick = (/** @type {boolean} */ score) => {
    view.scale = score ? scale : null;
    for (const b of buttons) b.setAttribute("aria-pressed", String((b.dataset.scale === "score") === score));
    view.drawGraph(view.review);
    view.drawCursor(view.review, view.at);
  };
  const buttons = [h("button", { type: "button", class: "btn small", "data-scale": "chance", "aria-pressed": "true",
    onclick: () => pick(false) }, t("Win chance")),
  h("button", { type: "button", class: "btn small", "data-scale": "score", "aria-pressed": "false",
    onclick: () => pick(true) }, t("Score margin"))];
  view.scales.replaceChildren(...buttons);
  if (review.account) view.account.replaceChildren(accountView(review.account, names));
}

/**
 * A signed amount as the table shows it.
 * @example signed(0.84731) // "+0.85"
 * @example signed(-0.2513) // "−0.25"
 * @param {number} v
 */
export function signed(v) {
  const text = Math.abs(v).toFixed(2);
  return text === "0.00" ? "0.00" : `${v < 0 ? "−" : "+"}${text}`;
}

/**
 * The picture's squares: one per seat and colour, its side (in the picture's units, at most
 * CELL − 4) growing with the square root of the amount against the biggest one, so its area
 * is in proportion; none for a change of 0.
 * @example pictureSquares({players: [{player: 0, color: "White", net: {White: 1, Black: -0.25}, gain: {}, cost: {}}], final: {}}, ["White", "Black"])
 *   // [{player: 0, color: "White", side: 22, gain: true}, {player: 0, color: "Black", side: 11, gain: false}]
 * @param {Account} account
 * @param {string[]} colors
 * @returns {{player: number, color: string, side: number, gain: boolean}[]}
 */
export function pictureSquares(account, colors) {
  const most = Math.max(0, ...account.players.flatMap((r) => colors.map((c) => Math.abs(r.net[c] || 0))));
  if (!most) return [];
  return account.players.flatMap((r) => colors
    .filter((c) => r.net[c])
    .map((c) => ({ player: r.player, color: c, side: Math.round((CELL - 4) * Math.sqrt(Math.abs(r.net[c]) / most) * 10) / 10, gain: r.net[c] > 0 })));
}

/**
 * The account's table, and its picture for 3 and 4 players.
 * @param {Account} account
 * @param {string[]} names each seat's name
 * @returns {HTMLElement}
 */
export function accountView(account, names) {
  const colors = COLORS.slice(0, account.players.length);
  const title = (/** @type {AccountRow} */ r, /** @type {string} */ c) =>
    t("{value}'s {c} stones: gained {value2}, cost {value3}", { value: names[r.player], c, value2: r.gain[c].toFixed(4), value3: r.cost[c].toFixed(4) });
  const table = h("table", { class: "review-costs" },
    h("caption", {}, t("Who cost whom what: how much each player's stones changed each colour's log-score")),
    h("thead", {}, h("tr", {}, h("th", {}, ""), ...colors.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {},
      ...account.players.map((r) => h("tr", { "data-seat": String(r.player) },
        h("th", { scope: "row" }, `${names[r.player]} (${r.color})`),
        ...colors.map((c) => h("td", { "data-color": c, class: r.net[c] < 0 ? "cost" : "", title: title(r, c) }, signed(r.net[c]))))),
      h("tr", { class: "final" }, h("th", { scope: "row" }, t("In all")),
        ...colors.map((c) => h("td", { "data-color": c }, account.final[c].toFixed(2))))));
  if (colors.length < 3) return h("div", {}, table);
  return h("div", {}, table, picture(account, colors, names));
}

/**
 * @param {Account} account
 * @param {string[]} colors
 * @param {string[]} names
 */
function picture(account, colors, names) {
  const rows = account.players.length;
  const svg = svgEl("svg", {
    class: "costs-picture", viewBox: `0 0 ${LEFT + CELL * colors.length} ${HEAD + CELL * rows}`, role: "img",
    "aria-label": t("Who cost whom what: a square per player (row) and colour (column), green a gain, red a cost"),
  });
  colors.forEach((c, j) => {
    const label = svgEl("text", { x: LEFT + CELL * j + CELL / 2, y: HEAD - 3, "text-anchor": "middle" });
    label.textContent = c[0];
    svg.append(label);
  });
  for (let i = 0; i < rows; i++) {
    const label = svgEl("text", { x: 2, y: HEAD + CELL * i + CELL / 2 + 3 });
    label.textContent = `${i + 1}`;
    svg.append(label);
  }
  for (const s of pictureSquares(account, colors)) {
    const j = colors.indexOf(s.color);
    const x = LEFT + CELL * j + (CELL - s.side) / 2, y = HEAD + CELL * s.player + (CELL - s.side) / 2;
    const rect = svgEl("rect", { class: s.gain ? "gain" : "cost", x, y, width: s.side, height: s.side,
      "data-seat": s.player, "data-color": s.color });
    const tip = svgEl("title", {});
    tip.textContent = `${names[s.player]} → ${s.color}: ${signed(account.players[s.player].net[s.color])}`;
    rect.append(tip);
    svg.append(rect);
  }
  return svg;
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

// @ts-check
// The analysis board (/analysis and /analysis/{id}; docs/server-api.md, Analysis boards):
// stones played freely from any position, each turn a new line where it differs from the
// ones there, the move list with its variations, the computer's evaluation of the position
// shown (asked again at each move, a newer one replacing the older on the server), the
// board saved as it changes when it is yours, its link to share, a copy to make it yours,
// and its record with variations to download. The study itself is analysistree.js's.

import * as A from "../analysistree.js";
import { api } from "../api.js";
import { copyButton, fill, h, siteBar, swatch } from "../dom.js";
import { describe } from "../errors.js";
import { COLORS } from "../geometry.js";
import { t } from "../i18n.js";
import { formatScore } from "../score.js";
import { AccountArea } from "./account.js";
import { BoardView } from "./board.js";

/** @typedef {import("../types.js").Cell} Cell */
/** @typedef {import("../types.js").Color} Color */
/**
 * A board as the server sends it.
 * @typedef {{id: string, players: number, size: number, pie_rule: boolean, nodes: A.FlatNode[], start: number,
 *   source_table: string | null, version: number, editable: boolean, path: string}} Board
 */
/**
 * An evaluation as the server sends it.
 * @typedef {{to_move: Color | null, over: boolean, values: Record<Color, number>, scores: Record<Color, string>,
 *   best: Cell[] | "swap" | null, key: string, cached: boolean}} Evaluation
 */

/** Variations deeper than this are drawn at this depth (omega.css indents so far). */
const MAX_INDENT = 6;
/** Milliseconds the page waits after a change before it saves the board. */
export const SAVE_AFTER_MS = 500;
const KEYS = "omega.analysis.keys";

/**
 * The keys this device holds for boards it made (board id -> key).
 * @returns {Record<string, string>}
 */
function keys() {
  try {
    return JSON.parse(localStorage.getItem(KEYS) || "{}") || {};
  } catch {
    return {};
  }
}

/**
 * Keep a board's key on this device.
 * @param {string} id
 * @param {string} key
 */
export function keepKey(id, key) {
  try {
    localStorage.setItem(KEYS, JSON.stringify({ ...keys(), [id]: key }));
  } catch {
    // A browser without storage still studies; the board is then read-only after a reload.
  }
}

/**
 * Open the board the server made (its key kept on this device).
 * @param {{board: Board, key: string}} made
 */
export function openMade(made) {
  keepKey(made.board.id, made.key);
  location.assign(made.board.path);
}

/**
 * A percentage for people.
 * @example percent(0.625) // "63%"
 * @param {number} value
 */
export const percent = (value) => `${Math.round(100 * value)}%`;

/**
 * Start the analysis board in `root`: the board `boardId`, or a new empty one of the
 * setting in the address's query (`?players=2&size=5&pie=1`), or without either the form
 * that chooses that setting.
 * @param {HTMLElement} root
 * @param {string | null} boardId
 */
export async function startAnalysis(root, boardId) {
  document.title = t("Analysis board · Omega");
  const note = h("p", { class: "muted", role: "status" }, t("Loading…"));
  fill(root, h("div", { class: "table-page analysis-page" },
    siteBar(
      h("span", { class: "table-title" }, t("Analysis board")), new AccountArea().el),
    h("main", { class: "layout" }, note)));
  try {
    const q = new URLSearchParams(location.search);
    if (!boardId && !q.has("players")) {
      // A board is made only when its setting is chosen: a link to /analysis makes none.
      root.querySelector("main")?.replaceChildren(h("div", { class: "lobby-grid analysis-start" },
        h("section", { class: "card" }, h("h2", {}, t("Analysis board")),
          h("p", {}, t("Play stones freely from any position, branch into variations, and see the computer's opinion of each position. Share a board by its link.")),
          h("p", { class: "muted" }, t("To study a game you played, open it and press Analyse at its end, in its replay or in its review.")),
          newBoardForm())));
      return;
    }
    if (!boardId) {
      /** @type {{board: Board, key: string}} */
      const made = await api("POST", "/api/analysis", {
        body: { players: Number(q.get("players") || 2), size: Number(q.get("size") || 5), pie_rule: q.get("pie") === "1" },
      });
      keepKey(made.board.id, made.key);
      history.replaceState(null, "", made.board.path);
      boardId = made.board.id;
    }
    const key = keys()[boardId] || null;
    /** @type {Board} */
    const board = await api("GET", `/api/analysis/${encodeURIComponent(boardId)}`, { token: key });
    new AnalysisPage(root, board, key);
  } catch (err) {
    note.textContent = describe(err);
    note.dataset.problem = "analysis";
  }
}

/**
 * A select of numbers.
 * @param {string} name
 * @param {string} label
 * @param {number[]} values
 * @param {number} chosen
 */
function numberChoice(name, label, values, chosen) {
  return h("label", { class: "account-field" }, h("span", {}, label),
    h("select", { name }, values.map((v) => h("option", { value: String(v), selected: v === chosen }, String(v)))));
}

/** The form that opens a new empty board of any player count and side (`/analysis?...`). */
function newBoardForm() {
  const form = h("form", { class: "links analysis-new", method: "get", action: "/analysis", "aria-label": t("New board") },
    h("h2", {}, t("New board")),
    h("div", { class: "row" }, numberChoice("players", t("Players"), [2, 3, 4], 2), numberChoice("size", t("Side"), [5, 6, 7, 8, 9, 10], 5),
      h("label", { class: "check-field" }, h("input", { type: "checkbox", name: "pie", value: "1" }), " ", t("Pie rule"))),
    h("button", { type: "submit", class: "btn small", "data-action": "new-board" }, t("Open an empty board")));
  return form;
}

class AnalysisPage {
  /**
   * @param {HTMLElement} root
   * @param {Board} board
   * @param {string | null} key
   */
  constructor(root, board, key) {
    this.board = board;
    this.key = key;
    this.version = board.version;
    this.study = A.fromFlat(board.players, board.size, board.pie_rule, board.nodes, board.start);
    this.savedFlat = JSON.stringify(board.nodes);
    /** @type {Map<string, Evaluation>} answers by position (the actions that reach it) */
    this.evaluations = new Map();
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.saveTimer = null;
    this.asked = "";
    const tip = h("div", { class: "tooltip", hidden: true });
    const wrap = h("div", { class: "board-wrap" });
    this.view = new BoardView(wrap, tip, {
      onClick: (cell) => this.change(A.clickCell(this.study, cell)),
      onActivate: (cell) => this.change(A.clickCell(this.study, cell)),
      onHover: () => {},
      onLongPress: () => {},
    });
    this.toMove = h("p", { class: "analysis-to-move" });
    this.evalBox = h("div", { class: "analysis-eval", "aria-live": "polite" });
    this.moves = h("ol", { class: "analysis-moves", "aria-label": t("Moves") });
    this.status = h("p", { class: "muted small analysis-status", role: "status" });
    const button = (/** @type {string} */ label, /** @type {string} */ action, /** @type {() => void} */ onclick) =>
      h("button", { type: "button", class: "btn small", "data-action": action, onclick }, label);
    this.swapButton = button(t("Swap"), "swap", () => this.change(A.play(this.study, "swap")));
    const controls = h("div", { class: "row analysis-controls" },
      button(t("Back"), "back", () => this.change(A.back(this.study))),
      button(t("Forward"), "forward", () => this.change(A.forward(this.study))),
      button(t("Take back"), "takeback", () => this.change(A.remove(this.study, this.study.at))),
      button(t("Promote line"), "promote", () => this.change(A.promote(this.study, this.study.at))),
      this.swapButton);
    const link = `${location.origin}${board.path}`;
    const share = h("section", { class: "links analysis-share", "aria-label": t("Share") },
      h("h2", {}, t("Share")),
      h("p", { class: "muted small" }, t("Anyone with this link sees the board; only you change it.")),
      h("div", { class: "row" }, h("input", { type: "text", readonly: true, value: link, "aria-label": t("Board link"), class: "share-link" }),
        copyButton(link, t("Copy link"))),
      h("div", { class: "row" },
        h("a", { class: "btn small", href: `/api/analysis/${board.id}/record.txt`, download: "", "data-action": "record" }, t("Download record")),
        button(t("Copy to my boards"), "copy", () => this.copy()),
        board.source_table ? h("a", { class: "btn small", href: `/t/${board.source_table}` }, t("Back to the game")) : null));
    root.querySelector("main")?.replaceChildren(
      h("div", { class: "board-area" }, this.view.tools, wrap),
      h("div", { class: "side" }, this.toMove, this.evalBox, controls,
        h("section", { class: "log-box analysis-log", "aria-label": t("Moves") }, h("h2", {}, t("Moves")), this.moves),
        share, newBoardForm(), this.status));
    root.querySelector(".table-page")?.append(tip);
    addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "ArrowLeft") this.change(A.back(this.study));
      else if (e.key === "ArrowRight") this.change(A.forward(this.study));
    });
    this.render();
  }

  /** @param {A.Study} next */
  change(next) {
    if (next === this.study) return;
    this.study = next;
    this.render();
    this.scheduleSave();
  }

  render() {
    const s = this.study;
    const p = A.shown(s);
    const actions = A.pathTo(s, s.at);
    const evaluation = this.evaluations.get(JSON.stringify(actions)) || null;
    /** @type {{cell: Cell, color: Color}[]} */
    const best = evaluation && Array.isArray(evaluation.best) && !s.staged.length
      ? evaluation.best.map((cell, k) => ({ cell, color: COLORS[k] })) : [];
    const last = s.at > 0 ? s.nodes[s.at].action : null;
    this.view.render({
      size: s.size, stones: p.stones, staged: A.stagedStones(s), last: Array.isArray(last) ? last : [], recent: [],
      numbers: {}, outline: [], ghost: null, interactive: Boolean(p.toMove), tip: null,
    }, { coords: true, markers: false }, best);
    const next = A.nextColor(s);
    this.toMove.textContent = p.over ? t("The game is over.")
      : t("{color} to move (entry {number}); next stone: {next}", { color: t(/** @type {Color} */ (p.toMove)), number: actions.length + 1, next: next ? t(next) : "" });
    this.swapButton.hidden = !p.canSwap;
    this.drawMoves();
    this.drawEvaluation(evaluation, p);
    if (!evaluation && !s.staged.length) this.evaluate(actions);
    this.status.textContent = this.board.editable ? this.status.textContent
      : t("Read-only: this board is someone else's. Copy it to keep your changes.");
  }

  drawMoves() {
    const s = this.study;
    const rows = A.moveRows(s);
    const items = rows.map((r) => {
      // The page's styles indent a line by its depth (an inline style would break the CSP).
      const depth = String(Math.min(r.depth, MAX_INDENT));
      if (r.kind !== "move") return h("li", { class: "analysis-paren", "data-depth": depth }, r.kind === "open" ? "(" : ")");
      return h("li", { "data-depth": depth },
        h("button", {
          type: "button", class: `btn small move${r.node === s.at ? " current" : ""}`, "data-node": String(r.node),
          "data-depth": String(r.depth), "aria-current": r.node === s.at ? "true" : "false",
          onclick: () => this.change(A.goTo(this.study, r.node)),
        }, `${r.number}. ${r.text}`));
    });
    fill(this.moves, ...(items.length ? items : [h("li", { class: "muted" }, t("No moves yet: click the board to play."))]));
  }

  /**
   * @param {Evaluation | null} e
   * @param {A.Position} p
   */
  drawEvaluation(e, p) {
    if (!e) {
      fill(this.evalBox, h("h2", {}, t("Evaluation")), h("p", { class: "muted", "data-eval": "pending" }, t("Evaluating…")));
      return;
    }
    const colors = COLORS.slice(0, this.study.players);
    const bestText = e.best === null ? t("none: the game is over") : e.best === "swap" ? t("swap") : e.best.join(" ");
    fill(this.evalBox, h("h2", {}, t("Evaluation")),
      h("ul", { class: "analysis-values", "data-eval": e.key },
        colors.map((c) => h("li", { "data-color": c }, swatch(c), ` ${t(c)}: `,
          h("strong", {}, t("{chance} to win", { chance: percent(e.values[c]) })),
          h("span", { class: "muted" }, ` · ${t("score {score}", { score: formatScore(e.scores[c]) })}`)))),
      h("p", { class: "analysis-best" }, t("Best turn: {turn}", { turn: bestText })),
      p.over ? null : h("p", { class: "muted small" }, t("The best turn shows as faint stones on the board.")));
  }

  /** @param {A.Action[]} actions */
  async evaluate(actions) {
    const position = JSON.stringify(actions);
    if (this.asked === position) return;
    this.asked = position;
    try {
      /** @type {Evaluation} */
      const answer = await api("POST", "/api/analysis/evaluate", {
        body: { players: this.study.players, size: this.study.size, pie_rule: this.study.pie, actions, stream: this.board.id },
      });
      this.evaluations.set(position, answer);
      if (this.asked === position) this.asked = "";
      this.render();
    } catch (err) {
      if (this.asked === position) this.asked = "";
      // Replaced by a newer position: that one's answer is what counts.
      if (/** @type {{code?: string}} */ (err).code === "superseded") return;
      fill(this.evalBox, h("h2", {}, t("Evaluation")), h("p", { class: "muted" }, describe(err)));
    }
  }

  scheduleSave() {
    if (!this.board.editable) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    // An earlier "Saved." must not stand while a change waits to be saved.
    this.status.textContent = t("Saving…");
    this.saveTimer = setTimeout(() => this.save(), SAVE_AFTER_MS);
  }

  async save() {
    this.saveTimer = null;
    const nodes = A.toFlat(this.study);
    const flat = JSON.stringify(nodes);
    if (flat === this.savedFlat) {
      this.status.textContent = t("Saved.");  // a move along the tree changes nothing stored
      return;
    }
    try {
      /** @type {{version: number}} */
      const r = await api("POST", `/api/analysis/${this.board.id}`, { token: this.key, body: { nodes, version: this.version } });
      this.version = r.version;
      this.savedFlat = flat;
      this.status.textContent = t("Saved.");
      this.status.dataset.saved = String(this.version);
    } catch (err) {
      this.status.textContent = describe(err);
    }
  }

  async copy() {
    try {
      if (this.saveTimer) await this.save();
      openMade(await api("POST", `/api/analysis/${this.board.id}/copy`, {}));
    } catch (err) {
      this.status.textContent = describe(err);
    }
  }
}

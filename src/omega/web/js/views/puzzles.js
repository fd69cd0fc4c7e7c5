// @ts-check
// The puzzle page (/puzzles, /puzzles/{id}; docs/web.md, Puzzles): a position from the
// project's own games where one turn is much better than every other.  The player places
// their stones on the board (the given ones are there already), sends the turn, and is told
// right or wrong, with the answer on the board, the search's line after it and the change of
// both puzzle ratings; then the next puzzle, near their rating.  A guest plays unrated.

import { api } from "../api.js";
import { fill, h, navLink, siteBar, swatch } from "../dom.js";
import { describe } from "../errors.js";
import { t } from "../i18n.js";
import {
  changeText, click, givenStones, lineText, nextColor, placedStones, ratingText, taskText, themeName, turnOf, verdictText,
} from "../puzzles.js";
import * as store from "../store.js";
import { AccountArea } from "./account.js";
import { BoardView } from "./board.js";

/** @typedef {import("../puzzles.js").PuzzleView} PuzzleView */
/** @typedef {import("../puzzles.js").PuzzlePlayer} PuzzlePlayer */
/** @typedef {import("../puzzles.js").Verdict} Verdict */
/** @typedef {import("../types.js").Cell} Cell */
/** @typedef {import("../types.js").Color} Color */

/**
 * Draw the puzzle page into `root`: the puzzle `id`, or the next one for the player.
 * @param {HTMLElement} root
 * @param {string | null} id
 */
export function startPuzzles(root, id) {
  document.title = t("{title} · Omega", { title: t("Puzzles") });
  const accountArea = new AccountArea();
  const task = h("p", { class: "puzzle-task", "data-puzzle-task": "" });
  const facts = h("p", { class: "muted small" });
  const rating = h("p", { class: "puzzle-rating", "data-puzzle-rating": "" });
  const verdict = h("p", { class: "puzzle-verdict", role: "status" });
  const line = h("p", { class: "muted small puzzle-line" });
  const next = h("span", { class: "muted small" });
  const boardWrap = h("div", { class: "board-wrap" });
  const tip = h("div", { class: "tip", hidden: true });
  const undo = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "btn", "data-action": "undo" }, t("Take back")));
  const send = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "btn confirm", "data-action": "send" }, t("Play this turn")));
  const another = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "btn", "data-action": "next" }, t("Next puzzle")));
  fill(root, h("div", { class: "lobby puzzles-page" },
    siteBar(
      navLink("/puzzles", t("Puzzles"), true),
      navLink("/watch", t("Watch")), accountArea.el),
    h("main", { class: "lobby-grid" },
      h("section", { class: "card puzzle" },
        h("h1", {}, t("Puzzles")), task, next, boardWrap, tip,
        h("div", { class: "row" }, undo, send, another), verdict, line, facts, rating))));

  const board = new BoardView(boardWrap, tip, {
    onClick: (cell) => place(cell), onActivate: (cell) => place(cell), onHover: () => {}, onLongPress: (cell) => place(cell),
  });
  boardWrap.prepend(board.tools);

  /** @type {PuzzleView | null} */
  let puzzle = null;
  /** @type {Cell[]} */
  let placed = [];
  /** @type {Verdict | null} */
  let result = null;
  let sending = false;

  /** @param {PuzzlePlayer | null} player */
  function showRating(player) {
    if (!player) {
      fill(rating, t("You play as a guest: log in to have a puzzle rating."));
      rating.removeAttribute("data-rating");
      return;
    }
    rating.dataset.rating = String(player.rating);
    const change = player.change !== undefined && result && result.rated ? ` (${changeText(player.change)})` : "";
    fill(rating, t("Your puzzle rating: {rating}{change} · {solved} of {attempts} solved",
      { rating: ratingText(player), change, solved: player.solved, attempts: player.attempts }));
  }

  function draw() {
    if (!puzzle) return;
    const p = puzzle;
    const colour = nextColor(p, placed);
    /** @type {Record<Cell, Color>} */
    let stones = p.stones;
    /** @type {{cell: Cell, color: Color}[]} */
    let staged = [...givenStones(p), ...placedStones(p, placed)];
    /** @type {{cell: Cell, color: Color}[]} */
    let best = [];
    /** @type {Cell[]} */
    let last = [];
    if (result) {
      const answer = result.answer.map((cell, i) => ({ cell, color: p.colors[i] }));
      if (result.correct) {
        stones = { ...p.stones };
        for (const s of answer) stones[s.cell] = s.color;
        staged = [];
        last = result.answer;
      } else {
        best = answer;
      }
    }
    board.render({
      size: p.size, stones, staged, last, recent: [], numbers: {}, outline: [], ghost: null,
      interactive: !result && colour !== null, tip: null,
    }, { coords: true, markers: store.prefs().markers }, best);
    next.replaceChildren(...(result ? [] : colour
      ? [t("Next stone:"), " ", swatch(colour), ` ${t(colour)}`]
      : [t("Every stone is placed: play the turn, or take one back.")]));
    undo.disabled = Boolean(result) || placed.length === 0;
    send.disabled = Boolean(result) || sending || turnOf(p, placed) === null;
    another.hidden = !result;
    send.hidden = Boolean(result);
    undo.hidden = Boolean(result);
  }

  /** @param {Cell} cell */
  function place(cell) {
    if (!puzzle || result) return;
    placed = click(puzzle, placed, cell);
    draw();
  }

  /** @param {{puzzle: PuzzleView, player: PuzzlePlayer | null}} answer */
  function show(answer) {
    puzzle = answer.puzzle;
    placed = [];
    result = null;
    fill(task, taskText(puzzle));
    task.dataset.puzzle = puzzle.id;
    fill(facts, t("Puzzle rating {rating} · {players} players · side {size}",
      { rating: puzzle.rating, players: puzzle.players, size: puzzle.size }));
    fill(verdict);
    delete verdict.dataset.verdict;
    fill(line);
    showRating(answer.player);
    history.replaceState(null, "", `/puzzles/${puzzle.id}`);
    draw();
  }

  async function load(/** @type {string | null} */ wanted) {
    fill(verdict, t("Loading…"));
    try {
      const skip = puzzle ? `?skip=${encodeURIComponent(puzzle.id)}` : "";
      const path = wanted ? `/api/puzzles/${encodeURIComponent(wanted)}` : `/api/puzzles/next${skip}`;
      show(await api("GET", path));
    } catch (err) {
      fill(verdict, describe(err));
    }
  }

  send.addEventListener("click", async () => {
    if (!puzzle || result || sending) return;
    const turn = turnOf(puzzle, placed);
    if (!turn) return;
    sending = true;
    draw();
    try {
      /** @type {Verdict} */
      const answer = await api("POST", `/api/puzzles/${encodeURIComponent(puzzle.id)}/attempt`, { body: { turn } });
      result = answer;
      verdict.dataset.verdict = answer.correct ? "right" : "wrong";
      fill(verdict, verdictText(answer));
      const themes = puzzle.themes.map(themeName).join(", ");
      fill(line, t("The engine's line after the answer: {line}", { line: lineText(answer, puzzle.colors, puzzle.to_move) || "—" }),
        themes ? ` · ${t("Themes: {themes}", { themes })}` : "");
      if (answer.player) showRating(answer.player);
      fill(facts, t("Puzzle rating {rating} ({change}) · {players} players · side {size}",
        { rating: answer.puzzle.rating, change: changeText(answer.puzzle.change), players: puzzle.players, size: puzzle.size }));
    } catch (err) {
      fill(verdict, describe(err));
    } finally {
      sending = false;
      draw();
    }
  });
  undo.addEventListener("click", () => { placed = placed.slice(0, -1); draw(); });
  another.addEventListener("click", () => load(null));
  load(id);
}

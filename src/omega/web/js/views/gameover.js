// @ts-check
// The end of the game: the ranking with each score as factors, the tie-break when it
// decided, and the record to download.

import { fill, h, keyed, swatch } from "../dom.js";
import { factorsText, formatScore } from "../score.js";
import { game, isOver, seatLabel, seatOf } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

export class GameOverView {
  /** @param {{onDownload: (ext: "txt" | "json") => void}} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.el = h("section", { class: "gameover", hidden: true });
  }

  /** @param {Loaded} m */
  update(m) {
    this.el.hidden = !isOver(m);
    if (this.el.hidden) return;
    const g = game(m);
    const names = g.ranking.map((color) => {
      const seat = seatOf(m, color);
      return seat ? seatLabel(seat) : color;
    });
    const key = JSON.stringify([g.ranking, g.scores, g.factors, g.resigned, g.tiebreak, names]);
    keyed(this.el, key, () => this.draw(m, names));
  }

  /**
   * @param {Loaded} m
   * @param {string[]} names the ranked colours' seat names
   */
  draw(m, names) {
    const g = game(m);
    const ranking = g.ranking || [];
    const resigned = new Set(g.resigned || []);
    const items = ranking.map((color, i) => {
      const factors = g.factors && g.factors[color] ? g.factors[color] : [];
      return h("li", { "data-color": color },
        h("span", { class: "place" }, `${i + 1}.`), swatch(color),
        h("span", { class: "pname" }, names[i]), h("span", { class: "muted" }, ` ${color}`),
        resigned.has(color) ? h("span", { class: "tag resigned" }, "resigned") : null,
        h("span", { class: "final", "data-score": g.scores[color] }, factors.length ? factorsText(factors) : formatScore(g.scores[color] ?? "0")));
    });
    let tie = null;
    if (g.tiebreak && ranking.length > 1) {
      const best = g.scores[ranking[0]];
      const tied = ranking.filter((c) => g.scores[c] === best && !resigned.has(c));
      tie = h("p", { class: "tiebreak" },
        `Tie: ${tied.join(" and ")} ${tied.length === 2 ? "both" : "all"} scored ${formatScore(best ?? "0")}. Equal scores go to the colour that plays later in the round (Blue > Red > Black > White), so ${ranking[0]} wins.`);
    }
    fill(this.el,
      h("h2", {}, "Game over"),
      h("ol", { class: "ranking" }, items),
      tie,
      h("div", { class: "row downloads" },
        h("button", { type: "button", class: "btn small", onclick: () => this.handlers.onDownload("txt") }, "Download record (text)"),
        h("button", { type: "button", class: "btn small", onclick: () => this.handlers.onDownload("json") }, "Download record (JSON)")));
  }
}

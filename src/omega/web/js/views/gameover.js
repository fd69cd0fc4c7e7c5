// @ts-check
// The end of the game: how it ended and where I finished, the ranking with each score as
// factors ("you" marked), the tie-break when it decided, the record to download, and a
// rematch or a new game. An aborted game says so and why, and ranks nobody.

import { fill, h, keyed, swatch } from "../dom.js";
import { factorsText, formatScore } from "../score.js";
import { endingFacts } from "../scene.js";
import { game, isOver, mySeat, seatLabel, seatOf } from "../tablestate.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

/**
 * @typedef {object} GameOverHandlers
 * @property {(ext: "txt" | "json") => void} onDownload
 * @property {() => void} onRematch propose the same table again, the seats moved one place on
 * @property {() => void} onNewGame
 */

/**
 * An ordinal in English.
 * @example ordinal(2) // "2nd"
 * @param {number} n
 */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return `${n}${suffix}`;
}

/**
 * The line that tells me how I did.
 * @example placeLine({place: 2, of: 4}) // "You finished 2nd of 4."
 * @param {{place: number, of: number}} p
 */
export function placeLine(p) {
  return p.place === 1 ? t("You won! You finished 1st of {of}.", { of: p.of }) : t("You finished {ordinal} of {of}.", { ordinal: ordinal(p.place), of: p.of });
}

export class GameOverView {
  /** @param {GameOverHandlers} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.el = h("section", { class: "gameover", hidden: true, "aria-label": t("Game over") });
  }

  /** @param {Loaded} m */
  update(m) {
    const was = this.el.hidden;
    this.el.hidden = !isOver(m);
    if (this.el.hidden) return;
    // The column may be scrolled down (to Resign…, say): the result comes into view.
    const column = this.el.parentElement;
    if (was && column && column.scrollHeight > column.clientHeight) column.scrollTop = 0;
    const g = game(m);
    const names = g.ranking.map((color) => {
      const seat = seatOf(m, color);
      return seat ? seatLabel(seat) : color;
    });
    const key = JSON.stringify([g.ranking, g.scores, g.factors, g.resigned, g.tiebreak, names, m.seat, m.state.end_reason]);
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
    const me = mySeat(m);
    const end = /** @type {import("../tabletypes.js").EndingFacts} */ (endingFacts(m));
    const items = ranking.map((color, i) => {
      const factors = g.factors && g.factors[color] ? g.factors[color] : [];
      const mine = me !== null && me.color === color;
      return h("li", { "data-color": color, class: mine ? "mine" : "" },
        h("span", { class: "place" }, `${i + 1}.`), swatch(color),
        h("span", { class: "pname" }, names[i]), h("span", { class: "muted" }, ` ${colorName(color)}`),
        mine ? h("span", { class: "me-tag" }, t("you")) : null,
        resigned.has(color) ? h("span", { class: "tag resigned" }, seatOf(m, color)?.claimed ? t("left") : t("resigned")) : null,
        (g.timed_out || []).includes(color) ? h("span", { class: "tag resigned" }, t("out of time")) : null,
        h("span", { class: "final", "data-score": g.scores[color] }, factors.length ? factorsText(factors) : formatScore(g.scores[color] ?? "0")));
    });
    let tie = null;
    if (end.ranked && g.tiebreak && ranking.length > 1) {
      const best = g.scores[ranking[0]];
      const tied = ranking.filter((c) => g.scores[c] === best && !resigned.has(c));
      tie = h("p", { class: "tiebreak" },
        t("Tie: {value} {value2} scored {formatScore}. Equal scores go to the colour that plays later in the round (Blue > Red > Black > White), so {value3} wins.", { value: tied.join(" and "), value2: tied.length === 2 ? "both" : "all", formatScore: formatScore(best ?? "0"), value3: ranking[0] }));
    }
    const { onDownload, onRematch, onNewGame } = this.handlers;
    this.el.setAttribute("aria-label", end.heading);
    fill(this.el,
      h("h2", {}, end.heading),
      end.place ? h("p", { class: "my-place" }, placeLine(end.place)) : null,
      end.text ? h("p", { class: end.ranked ? t("ending muted") : "ending" }, end.text) : null,
      end.ranked ? h("ol", { class: "ranking" }, items) : null,
      tie,
      h("div", { class: "row next-game" },
        me ? h("button", { type: "button", class: "btn confirm", onclick: onRematch, title: t("The same players, side and computers at a new table, the seats moved one place on; the other players are asked") }, t("Rematch")) : null,
        h("button", { type: "button", class: "btn", onclick: onNewGame }, t("New game"))),
      h("div", { class: "row downloads" },
        h("button", { type: "button", class: "btn small", onclick: () => onDownload("txt") }, t("Download record (text)")),
        h("button", { type: "button", class: "btn small", onclick: () => onDownload("json") }, t("Download record (JSON)"))));
  }
}

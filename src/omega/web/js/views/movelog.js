// @ts-check
// The move log, numbered like the text record (`3. e5 a1 c3`): each turn starts with the
// mover's colour, each cell is underlined in its stone's colour; a click replays there.

import { fill, h, keyed, swatch } from "../dom.js";
import { COLORS } from "../geometry.js";
import { game } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

export class MoveLogView {
  /** @param {{onGo: (k: number) => void}} handlers show the position after k moves */
  constructor(handlers) {
    this.handlers = handlers;
    this.log = h("ol", { class: "log" });
    this.el = h("section", { class: "log-box" }, h("h2", {}, "Moves"), this.log);
  }

  /** @param {Loaded} m */
  update(m) {
    // History only grows, so its length says what the log holds.
    keyed(this.log, `${game(m).history.length}|${m.state.players}|${m.replayAt}`, () => this.draw(m));
  }

  /** @param {Loaded} m */
  draw(m) {
    const hist = game(m).history;
    const players = m.state.players;
    const rows = [];
    let turns = 0;
    for (const [i, entry] of hist.entries()) {
      const current = m.replayAt !== null && m.replayAt === i + 1;
      let body;
      if (entry === "swap") {
        body = [h("span", { class: "swap" }, "swap"), h("span", { class: "muted" }, " — colours exchanged")];
      } else {
        const mover = COLORS[turns % players];
        turns += 1;
        body = [swatch(mover), ...entry.map((cell, c) => h("span", { class: `cell c-${COLORS[c].toLowerCase()}` }, cell))];
      }
      rows.push(h("li", { class: current ? "current" : "", "data-entry": String(i + 1) },
        h("button", { type: "button", class: "entry", onclick: () => this.handlers.onGo(i + 1), title: "Show the position after this move" },
          h("span", { class: "num" }, `${i + 1}.`), ...body)));
    }
    const log = this.log;
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    fill(log, rows.length ? rows : h("li", { class: "muted empty" }, "No moves yet."));
    if (atEnd && m.replayAt === null) log.scrollTop = log.scrollHeight;
  }
}

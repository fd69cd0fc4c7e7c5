// @ts-check
// The move log, numbered like the text record: each turn lists its cells in the order the
// mover placed them (the mover's colour first), each beside a small stone of its colour,
// so no colour depends on a faint underline; a click replays there.

import { fill, h, keyed, swatch } from "../dom.js";
import { moversOf, placedOrder } from "../replay.js";
import { game } from "../tablestate.js";
import { t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */

export class MoveLogView {
  /** @param {{onGo: (k: number) => void}} handlers show the position after k moves */
  constructor(handlers) {
    this.handlers = handlers;
    this.log = h("ol", { class: "log" });
    this.el = h("section", { class: "log-box", "aria-label": t("Moves") }, h("h2", {}, t("Moves")), this.log);
  }

  /** @param {Loaded} m */
  update(m) {
    // History only grows, so its length says what the log holds.
    keyed(this.log, `${game(m).history.length}|${m.state.players}|${m.replayAt}`, () => this.draw(m));
  }

  /** @param {Loaded} m */
  draw(m) {
    const hist = game(m).history;
    const movers = moversOf(hist, m.state.players);
    const rows = [];
    for (const [i, entry] of hist.entries()) {
      const current = m.replayAt !== null && m.replayAt === i + 1;
      const mover = movers[i];
      let body;
      if (entry === "swap" || !mover) {
        body = [h("span", { class: "swap" }, "swap"), h("span", { class: "muted" }, t(" — colours exchanged"))];
      } else {
        // The colour is said in words for screen readers, shown as a stone to the eye.
        body = placedOrder(entry, mover).map(({ cell, color }) =>
          h("span", { class: `cell c-${color.toLowerCase()}`, "data-color": color, title: `${color} on ${cell}` },
            swatch(color), h("span", { class: "sr-only" }, `${color} `), h("span", { class: "at" }, cell)));
      }
      rows.push(h("li", { class: current ? "current" : "", "data-entry": String(i + 1) },
        h("button", { type: "button", class: "entry", onclick: () => this.handlers.onGo(i + 1), title: t("Show the position after this move") },
          h("span", { class: "num" }, `${i + 1}.`), ...body)));
    }
    const log = this.log;
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    fill(log, rows.length ? rows : h("li", { class: "muted empty" }, t("No moves yet.")));
    if (atEnd && m.replayAt === null) log.scrollTop = log.scrollHeight;
  }
}

// @ts-check
// For the table's creator, copy buttons for the other seats' invites and the spectator
// link; for a person at a seat, the form that renames it.

import { copyButton, fill, h, keyed, swatch } from "../dom.js";
import { mySeat, seatLabel } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/**
 * The links this device keeps for a table it created.
 * @typedef {{invites?: Record<string, string>, spectator_key?: string}} SavedLinks
 */

export class LinksView {
  /**
   * @param {string} tableId
   * @param {{onRename: (name: string) => void}} handlers
   */
  constructor(tableId, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    this.el = h("section", { class: "links" });
  }

  /**
   * @param {Loaded} m
   * @param {SavedLinks | null} saved
   * @param {number | null} nameMax the longest name the server takes, when known
   */
  update(m, saved, nameMax) {
    const seat = mySeat(m);
    const key = JSON.stringify([saved && saved.invites, seat && seat.name, m.seat, nameMax]);
    keyed(this.el, key, () => this.draw(m, saved, nameMax));
  }

  /**
   * @param {Loaded} m
   * @param {SavedLinks | null} saved
   * @param {number | null} nameMax
   */
  draw(m, saved, nameMax) {
    const seat = mySeat(m);
    const base = `${location.origin}/t/${this.tableId}`;
    const parts = [];
    if (saved && saved.invites) {
      const rows = Object.entries(saved.invites)
        .filter(([i]) => Number(i) !== m.seat)
        .map(([i, tok]) => {
          const s = m.state.seats[Number(i)];
          return h("li", {}, s ? swatch(s.color) : null, ` Invite for seat ${Number(i) + 1}${s ? ` (${s.color}, ${seatLabel(s)})` : ""} `, copyButton(`${base}#seat=${tok}`, "Copy link"));
        });
      if (saved.spectator_key) {
        rows.push(h("li", {}, "Spectator link ", copyButton(`${base}#watch=${saved.spectator_key}`, "Copy link")));
      }
      if (rows.length) parts.push(h("h2", {}, "Links"), h("ul", { class: "invites" }, rows));
    }
    if (seat && seat.kind === "human") {
      const input = h("input", { type: "text", maxlength: nameMax, value: seat.name || "", "aria-label": "Your name", autocomplete: "nickname" });
      parts.push(h("form", {
        class: "rename row",
        /** @param {Event} e */
        onsubmit: (e) => {
          e.preventDefault();
          const name = input.value.trim();
          if (name) this.handlers.onRename(name);
        },
      }, h("label", {}, "Your name ", input), h("button", { type: "submit", class: "btn small" }, "Save")));
    }
    fill(this.el, parts);
  }
}

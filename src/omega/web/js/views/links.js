// @ts-check
// Invite and spectator links and the rename form. While a person's seat is still empty,
// the table's creator sees an invite card at the top (above the board on a phone), so
// inviting is the obvious next step; the Links box keeps every link for later.

import { copyButton, fill, h, keyed, swatch } from "../dom.js";
import { awaited, mySeat, seatLabel } from "../tablestate.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../types.js").Seat} Seat */
/**
 * The links this device keeps for a table it created.
 * @typedef {{invites?: Record<string, string>, spectator_key?: string}} SavedLinks
 */

/**
 * A link shared the way the device offers (the share sheet on a phone), else copied.
 * @param {string} url
 * @param {string} title
 */
function shareButton(url, title) {
  if (typeof navigator.share !== "function") return null;
  return h("button", {
    type: "button", class: "btn small", onclick: () => navigator.share({ title, url }).catch(() => {}),
  }, "Share…");
}

export class LinksView {
  /**
   * @param {string} tableId
   * @param {{onRename: (name: string) => void}} handlers
   */
  constructor(tableId, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    this.list = h("div");
    this.form = h("div");
    this.el = h("section", { class: "links", "aria-label": "Links" }, this.list, this.form);
    this.invite = h("section", { class: "invite-card", hidden: true, "aria-label": "Invite" });
  }

  /**
   * @param {Loaded} m
   * @param {SavedLinks | null} saved
   * @param {number | null} nameMax the longest name the server takes, when known
   */
  update(m, saved, nameMax) {
    const seat = mySeat(m);
    // Seats' colours and names change (a swap, a rename): every line naming them follows.
    const seats = m.state.seats.map((s) => [s.color, s.name, s.joined]);
    keyed(this.list, JSON.stringify([saved && saved.invites, seats, m.seat]), () => this.drawLinks(m, saved));
    keyed(this.form, JSON.stringify([seat && seat.kind, seat && seat.name, nameMax]), () => this.drawRename(m, nameMax));
    this.el.hidden = !this.list.childElementCount && !this.form.childElementCount;
    const waiting = saved && saved.invites ? awaited(m).filter((s) => saved.invites && saved.invites[String(s.index)]) : [];
    this.invite.hidden = !waiting.length;
    keyed(this.invite, JSON.stringify([waiting.map((s) => [s.index, s.color, s.name]), saved && saved.invites]), () => {
      if (saved && saved.invites) this.drawInvite(waiting, saved.invites);
    });
  }

  /**
   * @param {Seat[]} waiting the seats whose person has not come yet
   * @param {Record<string, string>} invites
   */
  drawInvite(waiting, invites) {
    const base = `${location.origin}/t/${this.tableId}`;
    fill(this.invite,
      h("h2", {}, "Invite your friends"),
      h("p", {}, "Send each friend their own link. The game starts when they open it."),
      h("ul", { class: "invite-list" }, waiting.map((s) => {
        const url = `${base}#seat=${invites[String(s.index)]}`;
        return h("li", { "data-seat": String(s.index) }, swatch(s.color), ` ${seatLabel(s)} (${s.color}) `,
          h("span", { class: "row" }, copyButton(url, `Copy invite for ${seatLabel(s)}`), shareButton(url, "Play Omega with me")));
      })));
  }

  /**
   * @param {Loaded} m
   * @param {SavedLinks | null} saved
   */
  drawLinks(m, saved) {
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
    } else if (seat) {
      // The server gives the links out once, to the device that created the table.
      parts.push(h("h2", {}, "Links"), h("p", { class: "muted no-links" },
        "Invite and spectator links are kept on the device that created this table."));
    }
    fill(this.list, parts);
  }

  /**
   * @param {Loaded} m
   * @param {number | null} nameMax
   */
  drawRename(m, nameMax) {
    const seat = mySeat(m);
    if (!seat || seat.kind !== "human") {
      fill(this.form);
      return;
    }
    const input = h("input", { type: "text", maxlength: nameMax, value: seat.name || "", "aria-label": "Your name", autocomplete: "nickname" });
    fill(this.form, h("form", {
      class: "rename row",
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (name) this.handlers.onRename(name);
      },
    }, h("label", {}, "Your name ", input), h("button", { type: "submit", class: "btn small" }, "Save")));
  }
}

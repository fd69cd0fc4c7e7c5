// @ts-check
// Invite and spectator links and the rename form. While a person's seat is still empty,
// the table's creator sees an invite card at the top (above the board on a phone), so
// inviting is the obvious next step; the Links box keeps every link for later. The server
// keeps only digests of the secrets, so on another device the creator is offered new links
// instead (the old ones then stop working: the page says so before they confirm).

import { copyButton, fill, h, keyed, swatch } from "../dom.js";
import { awaited, mySeat, seatLabel } from "../tablestate.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../types.js").Seat} Seat */
/**
 * The links this device keeps for a table it created.
 * @typedef {{invites?: Record<string, string>, spectator_key?: string}} SavedLinks
 */

/** @typedef {"invites" | "spectator"} Renewal what the creator may make anew */

/** What making new links does, said before the creator confirms. */
export const RENEWAL_TEXT = {
  invites: t("The invite links sent before stop working: send the new ones instead. Players who have already joined keep their seats."),
  spectator: t("The old spectator link stops working for anyone who opens it from now on; people watching now keep watching until they leave or lose the connection."),
};

/**
 * A link shared the way the device offers (the share sheet on a phone), else copied.
 * @param {string} url
 * @param {string} title
 */
function shareButton(url, title) {
  if (typeof navigator.share !== "function") return null;
  return h("button", {
    type: "button", class: "btn small", onclick: () => navigator.share({ title, url }).catch(() => {}),
  }, t("Share…"));
}

export class LinksView {
  /**
   * @param {string} tableId
   * @param {{onRename: (name: string) => void, onRenew: (what: Renewal) => void}} handlers
   */
  constructor(tableId, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    /** @type {number | null} the seat that created the table, once the server has said */
    this.creator = null;
    /** @type {Renewal | null} the renewal waiting for the creator's confirmation */
    this.asking = null;
    this.busy = false;
    this.list = h("div");
    this.form = h("div");
    this.el = h("section", { class: "links", "aria-label": t("Links") }, this.list, this.form);
    this.invite = h("section", { class: "invite-card", hidden: true, "aria-label": t("Invite") });
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
    const offer = [this.creator, this.asking, this.busy];
    keyed(this.list, JSON.stringify([saved, seats, m.seat, offer]), () => this.drawLinks(m, saved));
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
      h("h2", {}, t("Invite your friends")),
      h("p", {}, t("Send each friend their own link. The game starts when they open it.")),
      h("ul", { class: "invite-list" }, waiting.map((s) => {
        const url = `${base}#seat=${invites[String(s.index)]}`;
        return h("li", { "data-seat": String(s.index) }, swatch(s.color), ` ${seatLabel(s)} (${colorName(s.color)}) `,
          h("span", { class: "row" }, copyButton(url, t("Copy invite for {seatLabel}", { seatLabel: seatLabel(s) })), shareButton(url, t("Play Omega with me"))));
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
    const rows = Object.entries((saved && saved.invites) || {})
      .filter(([i]) => Number(i) !== m.seat)
      .map(([i, tok]) => {
        const s = m.state.seats[Number(i)];
        return h("li", {}, s ? swatch(s.color) : null, " ", s ? t("Invite for seat {seat} ({color}, {player})", { seat: Number(i) + 1, color: colorName(s.color), player: seatLabel(s) }) : t("Invite for seat {seat}", { seat: Number(i) + 1 }), " ", copyButton(`${base}#seat=${tok}`, t("Copy link")));
      });
    if (saved && saved.spectator_key) {
      rows.push(h("li", {}, t("Spectator link "), copyButton(`${base}#watch=${saved.spectator_key}`, t("Copy link"))));
    }
    if (rows.length) parts.push(h("h2", {}, t("Links")), h("ul", { class: "invites" }, rows));
    const creator = seat !== null && this.creator !== null && this.creator === m.seat;
    // Seats still waiting for their player whose invite this device does not hold.
    const waiting = m.state.seats.filter((s) => s.kind === "human" && !s.joined && s.index !== m.seat
      && !(saved && saved.invites && saved.invites[String(s.index)]));
    /** @type {Renewal[]} */
    const offers = [];
    if (creator && waiting.length) offers.push("invites");
    if (creator && !(saved && saved.spectator_key)) offers.push("spectator");
    if (!rows.length && seat && !saved) {
      // The server gives the links out once, to the device that created the table.
      parts.push(h("h2", {}, t("Links")), h("p", { class: "muted no-links" },
        t("Invite and spectator links are kept on the device that created this table."),
        offers.length ? t(" You created it: you can make new ones here.") : ""));
    } else if (offers.length && !rows.length) {
      parts.push(h("h2", {}, t("Links")));
    }
    if (offers.length) parts.push(h("div", { class: "renew" }, offers.map((what) => this.drawOffer(what))));
    fill(this.list, parts);
  }

  /**
   * A button that makes new links of one kind, confirmed after the consequence is shown.
   * @param {Renewal} what
   */
  drawOffer(what) {
    const label = what === "invites" ? t("Make new invite links") : t("New spectator link");
    if (this.asking !== what) {
      return h("p", { class: "renew-offer", "data-renew": what },
        h("button", { type: "button", class: "btn small", disabled: this.busy, onclick: () => this.ask(what) }, label));
    }
    return h("div", { class: "renew-confirm", role: "group", "aria-label": label, "data-renew": what },
      h("p", {}, RENEWAL_TEXT[what]),
      h("p", { class: "row" },
        h("button", {
          type: "button", class: "btn small confirm", disabled: this.busy,
          onclick: () => this.handlers.onRenew(what),
        }, what === "invites" ? t("Make them") : t("Make it")),
        h("button", { type: "button", class: "btn small", disabled: this.busy, onclick: () => this.ask(null) }, t("Cancel"))));
  }

  /** @param {Renewal | null} what */
  ask(what) {
    this.asking = what;
    this.changed();
  }

  /** Redraw on the next update (set by the controller). */
  changed() {}

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
    const input = h("input", { type: "text", maxlength: nameMax, value: seat.name || "", "aria-label": t("Your name"), autocomplete: "nickname" });
    fill(this.form, h("form", {
      class: "rename row",
      /** @param {Event} e */
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (name) this.handlers.onRename(name);
      },
    }, h("label", {}, t("Your name "), input), h("button", { type: "submit", class: "btn small" }, t("Save"))));
  }
}

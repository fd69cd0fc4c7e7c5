// @ts-check
// The lobby's "Friends and challenges" card: the challenges made to me (Accept / Decline)
// and by me (Cancel), live by the lobby's socket, and the players I follow, each online or
// not, with a Watch link to the game they play. A challenge accepted (by me, or by whoever
// I challenged) opens its table: both players land at it.

import * as account from "../account.js";
import { api } from "../api.js";
import { fill, h } from "../dom.js";
import { describe } from "../errors.js";
import { onLobby } from "../lobbyfeed.js";
import { RELATION_HEADS, challengeLine, friendStatus, friendsInOrder, merged, tableToOpen } from "../relations.js";
import { t } from "../i18n.js";

/** @typedef {import("../relations.js").Friend} Friend */
/** @typedef {import("../relations.js").Challenge} Challenge */

/** Seconds between two looks at who of the friends is online. */
const FRIENDS_EVERY = 60;

/**
 * Be told each challenge of mine as it changes (the lobby socket); one accepted opens its table.
 * @param {(c: Challenge) => void} [listener]
 */
export function watchChallenges(listener = () => {}) {
  return onLobby((msg) => {
    if (msg.type !== "challenge") return;
    listener(msg.challenge);
    const table = tableToOpen(msg.challenge);
    if (table) location.assign(`/t/${table}`);
  });
}

/**
 * Answer a challenge (accept, decline, cancel); an accepted one opens its table.
 * @param {Challenge} c
 * @param {"accept" | "decline" | "cancel"} what
 * @returns {Promise<Challenge>}
 */
export async function answer(c, what) {
  /** @type {Challenge} */
  const done = await api("POST", `/api/challenges/${encodeURIComponent(c.id)}/${what}`);
  const table = tableToOpen(done);
  if (table) location.assign(`/t/${table}`);
  return done;
}

export class FriendsCard {
  constructor() {
    /** @type {Challenge[]} */
    this.list = [];
    this.challenges = h("ul", { class: "account-list challenge-list", "aria-label": t("Challenges"), "aria-live": "polite" });
    this.friends = h("ul", { class: "account-list friend-list", "aria-label": t("Friends") });
    this.note = h("div", { class: "account-note", role: "status" });
    this.el = h("section", { class: "card friends", hidden: true, "aria-label": t("Friends and challenges") },
      h("h2", {}, t("Challenges")), this.challenges, this.note, h("h2", {}, t("Friends")), this.friends);
    watchChallenges((c) => {
      this.list = merged(this.list, c);
      this.drawChallenges();
    });
    account.onChange((user) => this.show(user));
    account.current().then((user) => this.show(user));
    setInterval(() => { if (!this.el.hidden && !document.hidden) this.loadFriends(); }, FRIENDS_EVERY * 1000);
  }

  /** @param {import("../types.js").User | null} user */
  show(user) {
    this.el.hidden = !user;
    if (!user) return;
    this.loadChallenges();
    this.loadFriends();
  }

  async loadChallenges() {
    try {
      /** @type {{sent: Challenge[], received: Challenge[]}} */
      const mine = await api("GET", "/api/challenges");
      this.list = [...mine.received, ...mine.sent];
      this.drawChallenges();
    } catch (err) {
      fill(this.challenges, h("li", { class: "account-note is-error" }, describe(err, RELATION_HEADS)));
    }
  }

  drawChallenges() {
    const shown = this.list.filter((c) => c.status === "pending");
    fill(this.challenges, shown.length ? shown.map((c) => this.challengeRow(c))
      : h("li", { class: "muted" }, t("No challenge waiting. Challenge a player from their profile.")));
  }

  /** @param {Challenge} c */
  challengeRow(c) {
    /** @param {string} label @param {"accept" | "decline" | "cancel"} what @param {string} cls */
    const button = (label, what, cls) => h("button", {
      type: "button", class: `btn small ${cls}`, "data-action": what,
      onclick: async () => {
        this.note.className = "account-note";
        this.note.textContent = "";
        try {
          this.list = merged(this.list, await answer(c, what));
          this.drawChallenges();
        } catch (err) {
          this.note.className = "account-note is-error";
          this.note.textContent = describe(err, RELATION_HEADS);
        }
      },
    }, label);
    const buttons = c.mine ? [button(t("Cancel"), "cancel", "ghost")]
      : [button(t("Accept"), "accept", "confirm"), c.to ? button(t("Decline"), "decline", "ghost") : ""];
    return h("li", { class: `account-row challenge ${c.mine ? "sent" : "received"}`, "data-challenge": c.id },
      h("span", {}, challengeLine(c), " "), ...buttons);
  }

  async loadFriends() {
    try {
      /** @type {{friends: Friend[]}} */
      const got = await api("GET", "/api/friends");
      const friends = friendsInOrder(got.friends);
      fill(this.friends, friends.length ? friends.map((f) => h("li", { class: `account-row friend ${friendStatus(f)}`, "data-friend": f.user },
        h("a", { href: `/u/${encodeURIComponent(f.user)}` }, f.user),
        h("span", { class: "status" }, ` ${friendStatus(f)} `),
        f.playing ? h("a", { href: `/t/${f.playing}`, class: "btn small ghost", "data-action": "watch" }, t("Watch")) : ""))
        : h("li", { class: "muted" }, t("You follow nobody yet: follow players from their profile.")));
    } catch (err) {
      fill(this.friends, h("li", { class: "account-note is-error" }, describe(err, RELATION_HEADS)));
    }
  }
}

// @ts-check
// The table's chat: the messages (plain text, never HTML), a line to write one with the
// characters left of the server's `chat_max` (a longer one is refused, never cut), a mute per
// person, kept in this browser, that hides what they write, and a Report of an account's
// message to the moderators (views/report.js); a message a moderator removed goes from the list.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";

/** @typedef {import("../types.js").ChatLine} ChatLine */

/**
 * @typedef {object} ChatHandlers
 * @property {(text: string) => void} onSend
 * @property {(key: string, muted: boolean) => void} onMute
 */

/**
 * Who wrote a message, as a mute remembers them: an account by its username (on every
 * table), a guest by their seat at this table, and this table's spectators together.
 * @example muteKey({seat: 1, user: null}, "t1") // "seat:t1:1"
 * @param {{seat: number | null, user: string | null}} line
 * @param {string} tableId
 */
export function muteKey(line, tableId) {
  if (line.user) return `user:${line.user}`;
  return line.seat === null ? `spectators:${tableId}` : `seat:${tableId}:${line.seat}`;
}

/**
 * A "muted until" line from a chat refusal's end time, in the reader's own time.
 * @example mutedText("2027-01-01T10:00:00Z").startsWith("You are muted until ") // true
 * @param {string} until
 */
export function mutedText(until) {
  return t("You are muted until {value}.", { value: new Date(until).toLocaleString() });
}

/**
 * The counter's words: characters (code points, as the server counts) left, or too many.
 * @example chatCount("hi", 300) // {text: "298 characters left", over: false, length: 2}
 * @param {string} text
 * @param {number | null} max null until known
 * @returns {{text: string, over: boolean, length: number}}
 */
export function chatCount(text, max) {
  const length = [...text.trim()].length;
  if (max === null) return { text: "", over: false, length };
  const left = max - length;
  if (left >= 0) return { text: (left === 1 ? t("{left} character left", { left }) : t("{left} characters left", { left })), over: false, length };
  return { text: (left === -1 ? t("{over} character too many (at most {max})", { over: -left, max }) : t("{over} characters too many (at most {max})", { over: -left, max })), over: true, length };
}

export class ChatView {
  /**
   * @param {string} tableId
   * @param {string[]} muted
   * @param {ChatHandlers} handlers
   */
  constructor(tableId, muted, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    this.muted = new Set(muted);
    /** @type {Map<number, ChatLine>} */
    this.lines = new Map();
    /** @type {number | null} my seat (null: a spectator) */
    this.me = null;
    /** @type {number | null} */
    this.max = null;
    this.list = h("ol", { class: "chat-lines", "aria-live": "polite", "aria-label": t("Messages") });
    this.mutedEl = h("p", { class: "chat-muted muted", hidden: true });
    this.input = h("input", {
      type: "text", class: "chat-input", "aria-label": t("Message"), placeholder: t("Write a message"),
      autocomplete: "off", "aria-describedby": `chat-count-${tableId}`,
    });
    // No maxlength: it would cut a pasted message silently.
    this.count = h("span", { class: "chat-count muted", id: `chat-count-${tableId}`, "aria-live": "polite" });
    this.problem = h("p", { class: "chat-error", role: "alert", hidden: true });
    this.reportSlot = h("div", { class: "chat-report" });
    this.input.addEventListener("input", () => this.counted());
    const form = h("form", { class: "chat-form row", onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      this.send();
    } }, this.input, h("button", { type: "submit", class: "btn small" }, t("Send")));
    this.form = h("div", { class: "chat-write" }, form, this.count);
    this.el = h("section", { class: "chat", "aria-label": t("Chat") },
      h("h2", {}, t("Chat")), this.list, this.mutedEl, this.reportSlot, this.form, this.problem);
    this.counted();
  }

  /**
   * The server's limit on a message's length.
   * @param {number} max
   */
  setLimit(max) {
    this.max = max;
    this.counted();
  }

  /**
   * Whether I may write, and if not, why (spectators of a rated table).
   * @param {number | null} mySeat
   * @param {string | null} notAllowed
   */
  setWriter(mySeat, notAllowed) {
    this.me = mySeat;
    this.form.hidden = notAllowed !== null;
    if (notAllowed !== null) this.showProblem(notAllowed);
  }

  /**
   * Open the form that reports `line` (an account's message) to the moderators.
   * @param {ChatLine} line
   */
  report(line) {
    const username = line.user;
    if (!username) return;
    // Loaded when first asked for: the table's first load does not carry it.
    import("./report.js")
      .then((m) => fill(this.reportSlot, m.reportForm({ username, message_id: line.id },
        () => fill(this.reportSlot), t("Report {line}'s message", { line: line.name }))))
      .catch(() => this.showProblem(t("The report form could not be loaded; reload to try again.")));
  }

  /**
   * A moderator removed message `id`: it is shown no more.
   * @param {number} id
   */
  remove(id) {
    this.lines.delete(id);
    this.draw();
  }

  counted() {
    const said = chatCount(this.input.value, this.max);
    this.count.textContent = said.text;
    this.count.classList.toggle("is-error", said.over);
    this.input.setAttribute("aria-invalid", String(said.over));
  }

  send() {
    const text = this.input.value.trim();
    if (!text) return;
    const said = chatCount(text, this.max);
    if (said.over) {
      this.showProblem(t("A message has at most {max} characters; this one has {saidCount}. Shorten it to send it.", { max: this.max, saidCount: said.length }));
      return;
    }
    this.sent = this.input.value;
    this.input.value = "";
    this.counted();
    this.showProblem(null);
    this.handlers.onSend(text);
  }

  /**
   * The server refused my last message: it comes back to the line, with the reason.
   * @param {string} reason
   */
  refused(reason) {
    if (this.sent && !this.input.value) this.input.value = this.sent;
    this.counted();
    this.showProblem(reason);
  }

  /** @param {string | null} text */
  showProblem(text) {
    this.problem.hidden = text === null;
    this.problem.textContent = text || "";
  }

  /**
   * Messages from the server (the history when the socket opens, then each new one).
   * @param {ChatLine[]} lines
   */
  add(lines) {
    for (const line of lines) this.lines.set(line.id, line);
    this.draw();
  }

  /**
   * @param {string} key
   * @param {boolean} mute
   */
  mute(key, mute) {
    if (mute) this.muted.add(key);
    else this.muted.delete(key);
    this.handlers.onMute(key, mute);
    this.draw();
  }

  draw() {
    const atEnd = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
    const shown = [...this.lines.values()].sort((a, b) => a.id - b.id).slice(-200);
    /** @type {Map<string, string>} */
    const hidden = new Map();
    const items = [];
    for (const line of shown) {
      const key = muteKey(line, this.tableId);
      const mine = this.me !== null && line.seat === this.me;
      const who = line.seat === null ? t("Spectators") : line.name;
      if (!mine && this.muted.has(key)) {
        hidden.set(key, who);
        continue;
      }
      // Text nodes only: whatever a message holds is shown as the characters it is.
      items.push(h("li", { class: mine ? "mine" : "", "data-id": String(line.id) },
        h("span", { class: "chat-name" }, line.name), " ",
        h("span", { class: "chat-text" }, line.text),
        mine ? null : h("button", { type: "button", class: "link chat-mute", title: t("Hide what {who} writes, on this browser", { who }),
          onclick: () => this.mute(key, true) }, t("Mute")),
        mine || !line.user ? null : h("button", { type: "button", class: "link chat-report-open",
          title: t("Report this message to the moderators"), onclick: () => this.report(line) }, t("Report"))));
    }
    fill(this.list, items.length ? items : h("li", { class: "muted empty" }, t("No messages yet.")));
    this.mutedEl.hidden = hidden.size === 0;
    fill(this.mutedEl, t("Muted: "), [...hidden].map(([key, who], i) => [i ? ", " : "", who, " ",
      h("button", { type: "button", class: "link chat-unmute", onclick: () => this.mute(key, false) }, t("Unmute"))]));
    if (atEnd) this.list.scrollTop = this.list.scrollHeight;
  }
}

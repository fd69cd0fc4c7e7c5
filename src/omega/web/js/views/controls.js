// @ts-check
// The column under the panels: the prompt (what happens now), the pie offer, the Undo and
// Confirm buttons, and the sentence about the last refusal or hint.

import { fill, h, keyed, swatch } from "../dom.js";
import { buttonFacts, promptFacts } from "../scene.js";
import { isLoaded, seatLabel, seatOf } from "../tablestate.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Model} Model */
/** @typedef {import("../tablestate.js").Loaded} Loaded */
/** @typedef {import("../scene.js").PromptFacts} PromptFacts */

/**
 * @typedef {object} ControlHandlers
 * @property {() => void} onUndo
 * @property {() => void} onConfirm
 * @property {() => void} onSwap
 * @property {() => void} onPlayOn
 * @property {() => void} onLive back from a replay to the live position
 * @property {() => void} onStartNow play the first turn before everyone has joined
 */

/**
 * Whether the device is a touch screen without a keyboard at hand: no key hints there.
 * @returns {boolean}
 */
export const touchOnly = () => typeof matchMedia === "function" && matchMedia("(hover: none) and (pointer: coarse)").matches;

export class ControlsView {
  /** @param {ControlHandlers} handlers */
  constructor(handlers) {
    this.handlers = handlers;
    this.prompt = h("div", { class: "prompt", "aria-live": "polite" });
    this.pie = h("div", { class: "pie-offer", hidden: true });
    this.undo = h("button", { type: "button", class: "btn undo", title: t("Take back the last staged stone (Backspace)"), onclick: handlers.onUndo }, t("Undo"));
    this.confirm = h("button", { type: "button", class: "btn confirm", title: t("Send the turn (Enter)"), onclick: handlers.onConfirm }, t("Confirm"));
    this.actions = h("div", { class: "actions" }, this.undo, this.confirm);
    this.message = h("div", { class: "message", role: "alert" });
    this.el = h("div", { class: "controls" }, this.prompt, this.pie, this.actions, this.message);
    this.touch = touchOnly();
  }

  /** @param {Model} m */
  update(m) {
    this.drawMessage(m);
    if (!isLoaded(m)) return;
    const facts = promptFacts(m);
    keyed(this.prompt, JSON.stringify([facts, m.buffer]), () => this.drawPrompt(facts, m.buffer, m));
    const b = buttonFacts(m);
    this.actions.hidden = b.hidden;
    this.undo.disabled = !b.canUndo;
    this.confirm.disabled = !b.canConfirm;
    const label = b.sending ? t("Sending…") : t("Confirm");
    if (this.confirm.textContent !== label) this.confirm.textContent = label;
    this.pie.hidden = !b.pieOffer;
    const white = seatOf(m, "White");
    const from = white ? t(" from {seatLabel}", { seatLabel: seatLabel(white) }) : "";
    keyed(this.pie, b.pieOffer ? from : "\u0000hidden", () => {
      if (!b.pieOffer) return;
      fill(
        this.pie,
        h("p", {}, h("strong", {}, t("Pie rule: ")), t("swap colours and take White's position{from}, or play on as Black?", { from })),
        h("div", { class: "row" },
          h("button", { type: "button", class: "btn confirm", onclick: this.handlers.onSwap }, t("Swap colours")),
          h("button", { type: "button", class: "btn", onclick: this.handlers.onPlayOn }, t("Play on"))),
      );
    });
  }

  /** @param {Model} m */
  drawMessage(m) {
    const note = m.message;
    this.message.hidden = !note;
    const cls = `message ${note ? `is-${note.kind}` : ""}`;
    if (this.message.className !== cls) this.message.className = cls;
    const text = note ? note.text : "";
    if (this.message.textContent !== text) this.message.textContent = text;
  }

  /**
   * @param {PromptFacts} f
   * @param {string} buffer
   * @param {Loaded} m
   */
  drawPrompt(f, buffer, m) {
    /** @type {import("../dom.js").Child[]} */
    let content;
    if (f.kind === "replay") {
      content = [h("strong", {}, t("Replay")), t(" — position after {at} of {total} moves. ", { at: f.at, total: f.total }),
        h("button", { type: "button", class: "btn small", onclick: this.handlers.onLive }, t("Back to live"))];
    } else if (f.kind === "over") {
      const w = f.winner;
      const how = f.claimed ? t(" by claim") : f.reason === "resignation" ? t(" by resignation") : f.reason === "timeout" ? t(" on time") : "";
      content = f.reason === "aborted" ? [h("strong", {}, t("Game aborted")), t(" — it does not count")]
        : [h("strong", {}, t("Game over")), w ? [" — ", swatch(w), " ", (f.name ? t("{color} ({name}) wins", { color: colorName(w), name: f.name }) : t("{color} wins", { color: colorName(w) })) + how] : null];
    } else if (f.kind === "join") {
      content = [h("strong", {}, t("Waiting for {value} to join.", { value: f.names.join(" and ") })),
        t(" Send the invite link; the game starts when they open it. "),
        h("button", { type: "button", class: "btn small start-now", onclick: this.handlers.onStartNow }, t("Start now"))];
    } else if (f.kind === "complete") {
      content = [h("strong", {}, t("All stones placed.")), this.touch ? t(" Confirm to send the turn, or Undo.") : t(" Confirm to send the turn (Enter), or Undo (Backspace).")];
    } else if (f.kind === "stage") {
      const color = /** @type {import("../types.js").Color} */ (f.color);
      content = [
        h("strong", {}, t("Your turn")), t(" — place "), swatch(color), h("strong", { class: "next-color" }, ` ${colorName(color)}`),
        t(" (stone {value} of {players})", { value: f.index + 1, players: m.state.players }),
        h("div", { class: "order muted" }, t("Order: "), f.order.map((c, k) => h("span", { class: k < f.index ? "done" : k === f.index ? "now" : "" }, `${k ? " → " : ""}${colorName(c)}`))),
      ];
    } else {
      const color = f.color;
      if (!color && m.state.status === "waiting") content = [h("strong", {}, t("Waiting for players")), t(" to take the free seats in the lobby; the game starts when every seat is taken.")];
      else if (!color && m.state.status === "cancelled") content = [h("strong", {}, t("Cancelled")), t(" — this table was called off before it started.")];
      else if (!color) content = [t("Waiting…")];
      else if (f.computer !== null) content = [swatch(color), t(" {color}: computer (level {computer}) is thinking…", { color: colorName(color), computer: f.computer })];
      else content = [swatch(color), t(" Waiting for {color} ({f})…", { color: colorName(color), f: f.name })];
      if (f.watching) content = [h("span", { class: "tag" }, t("watching")), " ", ...content];
    }
    const typed = buffer ? h("div", { class: "typed" }, t("Typed: "), h("kbd", {}, buffer), t(" — Enter to place")) : null;
    fill(this.prompt, h("div", {}, content), typed);
  }
}

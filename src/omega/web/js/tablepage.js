// @ts-check
// The table page's DOM: the views laid out, and `render` drawing a model on them (each view
// redraws only what changed); also the page for a link that opens no table. Decides nothing.

import { fill, h, siteBar } from "./dom.js";
import { problemText } from "./errors.js";
import { replayPosition } from "./replay.js";
import { boardScene } from "./scene.js";
import { initialModel, isLive, isLoaded, isMyTurn, isOver, seatLabel } from "./tablestate.js";
import { AccountArea, NamePrompt } from "./views/account.js";
import { BoardView } from "./views/board.js";
import { ChatView } from "./views/chat.js";
import { ClaimView } from "./views/claim.js";
import { ClocksView } from "./views/clocks.js";
import { ControlsView, touchOnly } from "./views/controls.js";
import { GameOverView } from "./views/gameover.js";
import { LinksView } from "./views/links.js";
import { MoveLogView } from "./views/movelog.js";
import { TurnAlert } from "./views/notify.js";
import { OptionsView } from "./views/options.js";
import { PanelsView } from "./views/panels.js";
import { RematchView } from "./views/rematch.js";
import { ReplayView } from "./views/replay.js";
import { ReviewView, bestGhosts } from "./views/review.js";
import { TopBarView } from "./views/topbar.js";
import { t } from "./i18n.js";

/** @typedef {import("./tablestate.js").Model} Model */
/** @typedef {import("./store.js").Prefs} Prefs */
/** @typedef {import("./tabletypes.js").PageHandlers} PageHandlers */
/** @typedef {import("./tabletypes.js").PageExtras} PageExtras */

export class TablePage {
  /**
   * @param {HTMLElement} root
   * @param {string} tableId
   * @param {Prefs} prefs the settings as the page starts with them
   * @param {string[]} muted the chat's muted writers
   * @param {PageHandlers} on
   */
  constructor(root, tableId, prefs, muted, on) {
    const touch = touchOnly();
    this.topbar = new TopBarView(tableId);
    this.topbar.el.append(new AccountArea().el);
    this.namePrompt = new NamePrompt({ onSave: on.onRename });
    this.panels = new PanelsView({ onEnter: on.onHoverPanel, onLeave: on.onLeavePanel });
    this.controls = new ControlsView(on);
    this.gameover = new GameOverView({
      onDownload: on.onDownload, onRematch: () => on.onRematch("propose"), onNewGame: () => location.assign("/"),
    });
    this.rematch = new RematchView({
      onAccept: () => on.onRematch("accept"), onDecline: () => on.onRematch("decline"), onOpen: on.onOpenRematch,
    });
    this.chat = new ChatView(tableId, muted, {
      onSend: on.onChat, onMute: () => on.onMute([...this.chat.muted]),
    });
    this.replay = new ReplayView({ onGo: on.onGo, onStep: on.onStep, onLive: on.onLive }, touch);
    this.movelog = new MoveLogView({ onGo: on.onGo });
    this.clocks = new ClocksView(this.panels.el);
    this.turnAlert = new TurnAlert(tableId);
    this.review = new ReviewView({ onAsk: on.onAskReview, onGo: on.onGo });
    this.claim = new ClaimView({ onClaim: on.onClaim });
    // A finished game opens on the analysis board: the whole game from its end, or the
    // position the replay (and the review beside it) shows.
    this.at = 0;
    /** @param {string} where @param {string} label @param {boolean} atEnd */
    const analyse = (where, label, atEnd) => h("button", {
      type: "button", class: "btn small analyse", "data-analyse": where, hidden: true,
      onclick: () => on.onAnalyse(atEnd ? null : this.at),
    }, label);
    this.analyse = [analyse("gameover", t("Analyse this game"), true), analyse("replay", t("Analyse this position"), false),
      analyse("review", t("Analyse this position"), false)];
    this.replay.el.append(this.analyse[1]);
    this.review.el.append(this.analyse[2]);
    this.hint = h("button", { type: "button", class: "btn small hint", hidden: true, onclick: on.onHint }, t("Hint"));
    this.links = new LinksView(tableId, { onRename: on.onRename, onRenew: on.onRenew });
    this.options = new OptionsView(prefs, on, touch);
    this.boardWrap = h("div", { class: "board-wrap" });
    const tip = h("div", { class: "tooltip", hidden: true });
    this.board = new BoardView(this.boardWrap, tip, {
      onClick: (cell) => on.onCell(cell, "click"),
      onActivate: (cell) => on.onCell(cell, "activate"),
      onHover: (cell, e) => on.onHover(cell, e.clientX, e.clientY),
      onLongPress: (cell, e) => on.onHover(cell, e.clientX, e.clientY),
    });
    fill(root, h("div", { class: "table-page" },
      this.topbar.el,
      this.topbar.banner,
      h("main", { class: "layout" },
        h("div", { class: "board-area" }, this.board.tools, this.boardWrap),
        h("div", { class: "side" },
          this.panels.el,
          this.namePrompt.el,
          this.links.invite,
          this.controls.el,
          this.claim.el,
          this.hint,
          h("div", { class: "info" }, this.gameover.el, this.analyse[0], this.rematch.el, this.review.el, this.chat.el, this.replay.el,
            this.movelog.el, this.links.el, this.options.el))),
      tip));
  }

  /** The page is left (the table opens again): its timers stop and the tab's icon is plain. */
  stop() {
    this.clocks.stop();
    this.turnAlert.update(initialModel(), false);
  }

  /**
   * Draw the model: each view compares it with what it drew and changes only that.
   * @param {Model} M
   * @param {PageExtras} x
   */
  render(M, x) {
    this.topbar.update(M);
    this.controls.update(M);
    if (!isLoaded(M)) return;
    this.panels.update(M);
    this.clocks.update(M);
    this.turnAlert.update(M, x.prefs.notify);
    const at = replayPosition(M).at;
    this.board.render(boardScene(M, x.prefs.sinceMine), x.prefs, x.review.status === "done" ? bestGhosts(x.review.review, at) : []);
    this.gameover.update(M);
    this.at = at;
    const over = isOver(M) && M.state.game.history.length > 0;
    for (const b of this.analyse) if (b.hidden === over) b.hidden = !over;
    this.review.update(M, x.review, at);
    const hintable = Boolean(M.state.hints) && isMyTurn(M) && isLive(M) && !isOver(M);
    if (this.hint.hidden === hintable) this.hint.hidden = !hintable;
    this.hint.disabled = M.sending || x.hinting;
    this.rematch.update(x.rematch, M.seat, M.state.seats.map(seatLabel));
    // Rated tables keep their chat to the players (the server says so too).
    const rated = Boolean(/** @type {{rated?: boolean}} */ (M.state).rated);
    this.chat.setWriter(M.seat, M.seat === null && rated ? t("Spectators cannot write at a rated table.") : null);
    this.replay.update(M);
    this.movelog.update(M);
    this.links.update(M, x.invites, x.nameMax);
    this.options.update(M);
    this.claim.update(M, Date.now());
  }
}

/**
 * The page for a link that cannot open a table: why, with a way back, instead of the
 * table's empty frame.
 * @param {HTMLElement} root
 * @param {string} code the server's refusal ("" when the table needs a link)
 * @param {"seat" | "watch" | null} role
 * @param {string} tableId
 * @param {string} [detail]
 */
export function showProblem(root, code, role, tableId, detail) {
  const { title, text } = problemText(code, role, tableId, detail);
  document.title = t("{title} · Omega", { title });
  fill(root, h("div", { class: "problem-page" },
    siteBar(),
    h("main", { class: "problem card", "data-problem": code || "no_link" },
      h("h1", {}, title),
      h("p", {}, text),
      h("p", {}, h("a", { href: "/", class: "btn confirm" }, t("Back to the lobby"))))));
}

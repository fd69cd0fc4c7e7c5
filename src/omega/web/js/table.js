// The table page (/t/{id}#seat=TOKEN or #watch=KEY): board, player panels, staging a turn,
// live updates, replay and the end of the game. Every rule decision is the server's; the
// page only stages stones, previews scores with its own group count, and sends the turn.

import { ApiError, LiveFeed, api, download, randomId } from "./api.js";
import { BoardView } from "./boardview.js";
import { copyButton, fill, h, swatch } from "./dom.js";
import { COLORS, Geometry } from "./geometry.js";
import { factorsText, formatScore, groupAt, groupSizes, scores as countScores } from "./score.js";
import * as store from "./store.js";

const FRIENDLY = {
  illegal_move: "That move is not allowed",
  not_your_turn: "It is not your turn",
  forbidden: "This link cannot act at this table",
  game_over: "The game is over",
  stale_version: "The table changed meanwhile",
  rate_limited: "Too many requests; wait a moment",
  auth_required: "This link is not valid for this table",
  not_found: "No such table",
};

function describe(err) {
  if (!(err instanceof ApiError)) return String(err && err.message ? err.message : err);
  if (err.code === "network") return err.message;
  const head = FRIENDLY[err.code];
  return head && head !== err.message ? `${head}: ${err.message}` : err.message;
}

const lower = (color) => color.toLowerCase();

export function startTable(root, tableId) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  let role = fragment.get("seat") ? "seat" : fragment.get("watch") ? "watch" : null;
  let token = fragment.get("seat") || fragment.get("watch");
  if (!token) {
    // A bare /t/{id}: reopen it with a link this device remembers, if any.
    const known = store.tables().find((t) => t.id === tableId);
    if (known) {
      role = known.token ? "seat" : "watch";
      token = known.token || known.watch;
      history.replaceState(null, "", `/t/${tableId}#${role}=${token}`);
    }
  }

  const prefs = store.prefs();
  const S = {
    state: null,
    seat: null, // my seat index, null when watching
    staged: [], // cells in staging order (own colour first, then the others in turn order)
    buffer: "", // keyboard cell name being typed
    message: null, // {kind: "error" | "info", text}
    hover: null, // {kind: "cell", cell} | {kind: "panel", color}
    hoverTip: null, // {text, x, y}
    replayAt: null, // null = live; k = position after the first k history entries
    replayView: null,
    replayCache: new Map(),
    conn: "connecting",
    everLive: false,
    sending: false,
    pending: null, // {key, id}: a turn being sent, retried with the same request id
    pieDismissed: false,
    confirmResign: false,
  };

  // -- skeleton --------------------------------------------------------------------
  const conn = h("span", { class: "conn", "data-state": "connecting" }, "connecting");
  const title = h("span", { class: "table-title" }, `Table ${tableId}`);
  const banner = h("div", { class: "banner", role: "status", hidden: true });
  const panels = h("div", { class: "panels", "aria-label": "Players" });
  const boardWrap = h("div", { class: "board-wrap" });
  const prompt = h("div", { class: "prompt", "aria-live": "polite" });
  const pie = h("div", { class: "pie-offer", hidden: true });
  const undoBtn = h("button", { type: "button", class: "btn undo", title: "Take back the last staged stone (Backspace)" }, "Undo");
  const confirmBtn = h("button", { type: "button", class: "btn confirm", title: "Send the turn (Enter)" }, "Confirm");
  const actions = h("div", { class: "actions" }, undoBtn, confirmBtn);
  const message = h("div", { class: "message", role: "alert" });
  const gameover = h("section", { class: "gameover", hidden: true });
  const replay = h("section", { class: "replay", hidden: true });
  const log = h("ol", { class: "log" });
  const logBox = h("section", { class: "log-box" }, h("h2", {}, "Moves"), log);
  const links = h("section", { class: "links" });
  const options = h("section", { class: "options" });
  const tip = h("div", { class: "tooltip", hidden: true });
  const controls = h("div", { class: "controls" }, prompt, pie, actions, message);
  const info = h("div", { class: "info" }, gameover, replay, logBox, links, options);
  const page = h(
    "div",
    { class: "table-page" },
    h("header", { class: "topbar" }, h("a", { href: "/", class: "brand" }, "Omega"), title, conn),
    banner,
    h("div", { class: "layout" }, panels, h("div", { class: "board-area" }, boardWrap), controls, info),
    tip,
  );
  fill(root, page);

  const board = new BoardView(boardWrap, {
    onClick: (cell) => clickCell(cell),
    onHover: (cell, e) => {
      S.hover = cell ? { kind: "cell", cell } : null;
      S.hoverTip = cell ? { x: e.clientX, y: e.clientY } : null;
      renderBoard();
    },
    onLongPress: (cell, e) => {
      S.hover = { kind: "cell", cell };
      S.hoverTip = { x: e.clientX, y: e.clientY };
      renderBoard();
    },
  });
  undoBtn.addEventListener("click", () => undoStone());
  confirmBtn.addEventListener("click", () => confirmTurn());
  document.addEventListener("keydown", onKey);
  // A tap anywhere off the board ends a long-press preview.
  document.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch" && S.hover && !boardWrap.contains(e.target)) {
      S.hover = null;
      renderBoard();
    }
  });

  if (!token) {
    fail("This page needs an invite link (…#seat=…) or a spectator link (…#watch=…). Ask the table's creator for one.");
    return;
  }

  // -- reading the state -------------------------------------------------------------
  const game = () => S.state.game;
  const players = () => S.state.players;
  const colorsInPlay = () => COLORS.slice(0, players());
  const seatOf = (color) => S.state.seats.find((s) => s.color === color);
  const mySeat = () => (S.seat === null ? null : S.state.seats[S.seat]);
  const live = () => S.replayAt === null;
  const myTurn = () =>
    Boolean(S.state) && S.state.status === "playing" && !game().over && S.seat !== null &&
    game().current_seat === S.seat && !(mySeat() && mySeat().resigned);
  const canStage = () => myTurn() && live() && !S.sending;
  /** Colours in the order this turn stages them: the mover's own first, then the others in turn order. */
  const stagingOrder = () => {
    const all = colorsInPlay();
    const t = all.indexOf(game().to_move);
    return all.map((_, k) => all[(t + k) % all.length]);
  };
  const nextColor = () => stagingOrder()[S.staged.length] || null;
  const complete = () => S.state && S.staged.length === players();
  const seatLabel = (seat) => seat.name || `Seat ${seat.index + 1}`;

  function fail(text) {
    fill(prompt, h("p", { class: "fatal" }, text, " ", h("a", { href: "/" }, "Back to the lobby")));
    actions.hidden = true;
  }

  async function load() {
    let state;
    try {
      state = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`, { token });
    } catch (err) {
      if (err.code === "network") {
        S.message = { kind: "error", text: err.message };
        renderMessage();
        setTimeout(load, 2000);
        return;
      }
      fail(describe(err));
      return;
    }
    S.seat = state.you ? state.you.seat : null;
    if (S.seat === null) role = "watch";
    const firstVisit = !store.findTable(tableId, token);
    S.state = state;
    remember();
    S.staged = store.stagedFor(tableId, state.game.history.length).filter((c) => !state.game.stones[c]);
    if (!myTurn()) S.staged = [];
    render();
    feed.start();
    // Someone opening an invite for the first time takes the name they use on this device.
    const myName = store.name();
    if (firstVisit && role === "seat" && myName && mySeat() && mySeat().name !== myName) rename(myName, true);
  }

  function remember() {
    const st = S.state;
    const entry = {
      id: tableId, players: st.players, size: st.size, pie: st.pie_rule, status: st.status,
      seat: S.seat, lastSeen: Date.now(),
    };
    if (role === "seat") entry.token = token;
    else entry.watch = token;
    store.rememberTable(entry);
  }

  /** Take a newer table state (from an action's answer, the socket, or a reload). */
  function applyState(state) {
    if (!state || (S.state && state.version < S.state.version)) return;
    const before = S.state;
    S.state = state;
    if (state.you && state.you.seat !== undefined && before === null) S.seat = state.you.seat;
    const moved = !before || before.game.history.length !== state.game.history.length;
    if (!myTurn()) {
      S.staged = [];
      S.buffer = "";
    } else {
      // Still this player's turn (the position may have moved under a lagging socket):
      // keep what is still playable, drop stones on cells taken meanwhile.
      S.staged = S.staged.filter((c) => !state.game.stones[c]);
    }
    if (moved) S.pending = null;
    if (moved && before) S.message = null;
    if (before && before.status !== state.status) remember();
    store.saveStaged(tableId, state.game.history.length, S.staged);
    render();
  }

  const feed = new LiveFeed({
    tableId,
    token,
    version: () => (S.state ? S.state.version : null),
    onMessage: (msg) => {
      if ((msg.type === "sync" || msg.type === "event") && msg.state) applyState(msg.state);
      else if (msg.type === "error" && msg.error) {
        S.message = { kind: "error", text: describe(new ApiError(msg.error.code, msg.error.message)) };
        renderMessage();
      }
    },
    onStatus: (status) => {
      S.conn = status;
      if (status === "live") {
        if (S.everLive) refresh(); // catch anything the socket could not replay
        S.everLive = true;
      }
      renderConn();
    },
  });

  async function refresh() {
    try {
      applyState(await api("GET", `/api/tables/${encodeURIComponent(tableId)}`, { token }));
    } catch {
      // The socket's own sync will bring the state once the server is back.
    }
  }

  // -- acting --------------------------------------------------------------------------
  function clickCell(cell) {
    if (!S.state) return;
    if (!canStage()) {
      if (S.seat === null) flash("You are watching this table.");
      return;
    }
    if (S.staged.length && S.staged[S.staged.length - 1] === cell) {
      undoStone();
      return;
    }
    stage(cell);
  }

  function stage(cell) {
    if (!canStage()) return false;
    if (game().stones[cell] || S.staged.includes(cell)) {
      flash(`${cell} is not empty.`);
      return false;
    }
    if (complete()) {
      flash("All stones are placed: Confirm, or Undo to move one.");
      return false;
    }
    S.staged.push(cell);
    S.message = null;
    stagedChanged();
    return true;
  }

  function undoStone() {
    if (!S.staged.length || S.sending) return;
    S.staged.pop();
    S.message = null;
    stagedChanged();
  }

  function stagedChanged() {
    store.saveStaged(tableId, game().history.length, S.staged);
    render();
  }

  function flash(text) {
    S.message = { kind: "info", text };
    renderMessage();
  }

  async function confirmTurn() {
    if (!complete() || !canStage()) return;
    const byColor = {};
    stagingOrder().forEach((color, k) => (byColor[color] = S.staged[k]));
    // The API takes one cell per colour in colour order (White, Black, Red, Blue).
    const cells = colorsInPlay().map((color) => byColor[color]);
    const key = `${game().history.length}:${cells.join(",")}`;
    if (!S.pending || S.pending.key !== key) S.pending = { key, id: randomId() };
    await act({ type: "turn", cells }, S.pending.id, true);
  }

  async function act(action, requestId, retryStale) {
    S.sending = true;
    S.message = null;
    render();
    try {
      const answer = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/actions`, {
        token,
        body: { ...action, request_id: requestId, version: S.state.version },
      });
      S.pending = null;
      S.sending = false;
      applyState(answer.state);
    } catch (err) {
      S.sending = false;
      const staged = S.staged.slice();
      if (["not_your_turn", "game_over", "illegal_move", "stale_version", "forbidden"].includes(err.code)) {
        // The page's view may be behind: fetch the table before saying anything.
        const at = game().history.length;
        await refresh();
        if (err.code === "stale_version" && retryStale && game().history.length === at && myTurn()) {
          // Versions also move when someone connects; the position is the same, so send again.
          S.pending = null;
          if (action.type === "turn") return confirmTurn();
          return act(action, randomId(), false);
        }
      }
      const lost = staged.filter((c) => !S.staged.includes(c));
      let text = describe(err);
      if (S.staged.length && lost.length) text += ` ${lost.join(", ")} ${lost.length > 1 ? "were" : "was"} taken meanwhile; your other staged stones are kept.`;
      else if (S.staged.length) text += " Your staged stones are kept.";
      else if (lost.length) text += " The position changed, so the staged stones were taken back.";
      S.message = { kind: "error", text };
      render();
    }
  }

  async function rename(name, quiet = false) {
    try {
      const answer = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/name`, { token, body: { name } });
      store.setName(name);
      applyState(answer.state || answer);
      if (!quiet) flash("Name saved.");
    } catch (err) {
      if (!quiet) {
        S.message = { kind: "error", text: describe(err) };
        renderMessage();
      }
    }
  }

  function onKey(e) {
    if (!S.state || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    const total = game().history.length;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      if (!total) return;
      const at = S.replayAt === null ? total : S.replayAt;
      goReplay(Math.max(0, Math.min(total, at + (e.key === "ArrowLeft" ? -1 : 1))));
      e.preventDefault();
      return;
    }
    if (e.key === "Escape") {
      S.buffer = "";
      S.hover = null;
      render();
      return;
    }
    if (!canStage()) return;
    if (/^[a-zA-Z0-9]$/.test(e.key)) {
      S.buffer = (S.buffer + e.key.toLowerCase()).slice(-3);
      renderPrompt();
      e.preventDefault();
    } else if (e.key === "Enter") {
      // With every stone placed, Enter means Confirm even if another button kept the focus;
      // otherwise a focused button (Swap, Play on, …) handles its own Enter.
      if (t && t.tagName === "BUTTON" && !S.buffer && !complete()) return;
      e.preventDefault();
      if (S.buffer) {
        const cell = Geometry.of(S.state.size).parse(S.buffer);
        const typed = S.buffer;
        S.buffer = "";
        if (!cell) {
          flash(`"${typed}" is not a cell on this board.`);
          renderPrompt();
        } else if (!stage(cell)) renderPrompt();
      } else if (complete()) confirmTurn();
    } else if (e.key === "Backspace") {
      e.preventDefault();
      if (S.buffer) {
        S.buffer = S.buffer.slice(0, -1);
        renderPrompt();
      } else undoStone();
    }
  }

  // -- replay ----------------------------------------------------------------------
  let replayWanted = null;
  async function goReplay(k) {
    const total = game().history.length;
    if (k >= total) {
      S.replayAt = null;
      S.replayView = null;
      render();
      return;
    }
    S.replayAt = k;
    replayWanted = k;
    render();
    let view = S.replayCache.get(k);
    if (!view) {
      try {
        view = await api("GET", `/api/tables/${encodeURIComponent(tableId)}/replay?at=${k}`, { token });
      } catch (err) {
        S.message = { kind: "error", text: describe(err) };
        renderMessage();
        return;
      }
      S.replayCache.set(k, view); // earlier positions never change
    }
    if (replayWanted !== k) return;
    S.replayView = view;
    render();
  }

  // -- drawing -------------------------------------------------------------------------
  /** The position on the board now: the live game or a replayed one. */
  function shown() {
    if (live()) return game();
    return S.replayView && S.replayAt !== null ? S.replayView : null;
  }

  function stagedWithColors() {
    if (!live() || !S.staged.length) return [];
    const order = stagingOrder();
    return S.staged.map((cell, k) => ({ cell, color: order[k] }));
  }

  /** Stones with the staged ones added: what previews and hover outlines count. */
  function previewStones() {
    const view = shown();
    const stones = { ...(view ? view.stones : {}) };
    for (const { cell, color } of stagedWithColors()) stones[cell] = color;
    return stones;
  }

  function render() {
    if (!S.state) return;
    renderTitle();
    renderConn();
    renderPanels();
    renderBoard();
    renderPrompt();
    renderActions();
    renderMessage();
    renderGameOver();
    renderReplay();
    renderLog();
    renderLinks();
    renderOptions();
  }

  function renderTitle() {
    const st = S.state;
    fill(title, `Table ${tableId}`, h("span", { class: "muted" }, ` · side ${st.size} · ${st.players} players${st.pie_rule ? " · pie rule" : ""}`));
    document.title = `${myTurn() ? "● Your turn · " : ""}Omega · table ${tableId}`;
  }

  function renderConn() {
    const labels = { live: "live", connecting: "connecting…", reconnecting: "reconnecting…", refused: "not connected" };
    conn.dataset.state = S.conn;
    conn.textContent = labels[S.conn] || S.conn;
    const lost = S.everLive && S.conn !== "live";
    banner.hidden = !lost;
    banner.textContent = S.conn === "refused"
      ? "The server refused the live connection for this link. Reload the page to try again."
      : "Connection lost. Reconnecting… moves will appear as soon as it is back.";
  }

  function renderBoard() {
    if (!S.state) return;
    const view = shown();
    const staged = stagedWithColors();
    const stones = previewStones();
    const geo = Geometry.of(S.state.size);
    let outline = [];
    let tipText = null;
    if (S.hover && S.hover.kind === "cell" && stones[S.hover.cell]) {
      outline = groupAt(geo, stones, S.hover.cell);
      tipText = `${stones[S.hover.cell]} group of ${outline.length}`;
    } else if (S.hover && S.hover.kind === "panel") {
      outline = geo.cells.filter((c) => stones[c] === S.hover.color);
    }
    let ghost = null;
    if (S.hover && S.hover.kind === "cell" && canStage() && !complete() && !stones[S.hover.cell]) {
      ghost = { cell: S.hover.cell, color: nextColor() };
    }
    const last = view && view.last_turn ? Object.values(view.last_turn.cells) : [];
    board.render({
      size: S.state.size,
      stones: view ? view.stones : {},
      staged,
      last,
      outline,
      ghost,
      coords: prefs.coords,
      markers: prefs.markers,
      interactive: canStage() && !complete(),
    });
    if (tipText && S.hoverTip) {
      tip.hidden = false;
      tip.textContent = tipText;
      const x = Math.min(S.hoverTip.x + 14, window.innerWidth - 160);
      tip.style.left = `${Math.max(4, x)}px`;
      tip.style.top = `${S.hoverTip.y + 16}px`;
    } else tip.hidden = true;
    if (S.hover && S.hover.kind === "panel") renderPanels();
  }

  const panelEls = new Map();
  function renderPanels() {
    const st = S.state;
    const view = shown() || game();
    const stones = previewStones();
    const geo = Geometry.of(st.size);
    const preview = live() && S.staged.length ? countScores(geo, stones, colorsInPlay()) : null;
    if (panelEls.size !== players()) {
      panelEls.clear();
      panels.replaceChildren();
      for (const color of colorsInPlay()) {
        const el = h("div", { class: "panel", "data-color": color, tabindex: "0" });
        const enter = () => {
          S.hover = { kind: "panel", color };
          renderBoard();
        };
        const leave = () => {
          if (S.hover && S.hover.kind === "panel" && S.hover.color === color) S.hover = null;
          renderBoard();
          renderPanels();
        };
        el.addEventListener("mouseenter", enter);
        el.addEventListener("mouseleave", leave);
        el.addEventListener("focus", enter);
        el.addEventListener("blur", leave);
        panels.append(el);
        panelEls.set(color, el);
      }
    }
    for (const color of colorsInPlay()) {
      const el = panelEls.get(color);
      const seat = seatOf(color);
      const toMove = view.to_move === color && !view.over;
      const hovered = S.hover && S.hover.kind === "panel" && S.hover.color === color;
      el.classList.toggle("to-move", toMove);
      el.classList.toggle("mine", S.seat !== null && seat && seat.index === S.seat);
      el.classList.toggle("hovered", Boolean(hovered));
      el.classList.toggle("resigned", Boolean(seat && seat.resigned));
      const score = view.scores[color] ?? "0";
      const tags = [];
      if (seat && S.seat === seat.index) tags.push(h("span", { class: "tag you" }, "you"));
      if (seat && seat.kind === "computer") tags.push(h("span", { class: "tag bot" }, `computer · level ${seat.level}`));
      if (seat && seat.resigned) tags.push(h("span", { class: "tag resigned" }, "resigned"));
      const online = seat && (seat.kind === "computer" || seat.connected);
      const status = seat && seat.kind === "computer" ? "" : online ? "online" : "offline";
      let previewEl = null;
      if (preview && preview[color] !== score) {
        const up = BigInt(preview[color]) > BigInt(score);
        previewEl = h("span", { class: `preview ${up ? "up" : "down"}`, title: `${preview[color]} after the staged stones` }, `→ ${formatScore(preview[color])}`);
      }
      fill(
        el,
        h("div", { class: "row1" },
          swatch(color),
          h("span", { class: "pname", title: seat ? seatLabel(seat) : color }, seat ? seatLabel(seat) : color),
          status ? h("span", { class: `dot ${online ? "on" : "off"}`, title: status, "aria-label": status }) : null,
          toMove ? h("span", { class: "turn-flag" }, "to move") : null),
        h("div", { class: "row2" },
          h("span", { class: "cname" }, color),
          ...tags),
        h("div", { class: "score" },
          h("span", { class: "value", title: score, "data-score": score }, formatScore(score)),
          previewEl),
        hovered ? h("div", { class: "factors" }, factorsText(groupSizes(geo, stones, color))) : null,
      );
    }
  }

  function renderPrompt() {
    const st = S.state;
    const g = game();
    let content;
    if (!live()) {
      content = [h("strong", {}, "Replay"), ` — position after ${S.replayAt} of ${g.history.length} moves. `, h("button", { type: "button", class: "btn small", onclick: () => goReplay(g.history.length) }, "Back to live")];
    } else if (st.status === "over" || g.over) {
      const w = g.winner;
      const seat = w ? seatOf(w) : null;
      content = [h("strong", {}, "Game over"), w ? [" — ", swatch(w), ` ${w}${seat ? ` (${seatLabel(seat)})` : ""} wins`] : ""];
    } else if (myTurn()) {
      if (complete()) {
        content = [h("strong", {}, "All stones placed."), " Confirm to send the turn (Enter), or Undo (Backspace)."];
      } else {
        const color = nextColor();
        content = [
          h("strong", {}, "Your turn"), " — place ", swatch(color), h("strong", { class: "next-color" }, ` ${color}`),
          ` (stone ${S.staged.length + 1} of ${players()})`,
          h("div", { class: "order muted" }, "Order: ", stagingOrder().map((c, k) => h("span", { class: k < S.staged.length ? "done" : k === S.staged.length ? "now" : "" }, `${k ? " → " : ""}${c}`))),
        ];
      }
    } else {
      const color = g.to_move;
      const seat = color ? seatOf(color) : null;
      const who = seat ? seatLabel(seat) : color;
      if (!color) content = ["Waiting…"];
      else if (seat && seat.kind === "computer") content = [swatch(color), ` ${color}: computer (level ${seat.level}) is thinking…`];
      else content = [swatch(color), ` Waiting for ${color} (${who})…`];
      if (S.seat === null) content = [h("span", { class: "tag" }, "watching"), " ", ...content];
    }
    const typed = S.buffer ? h("div", { class: "typed" }, "Typed: ", h("kbd", {}, S.buffer), " — Enter to place") : null;
    fill(prompt, h("div", {}, content), typed);
  }

  function renderActions() {
    const playing = S.state.status === "playing" && !game().over;
    actions.hidden = S.seat === null || !playing || !live() || Boolean(mySeat() && mySeat().resigned);
    undoBtn.disabled = !S.staged.length || S.sending || !myTurn();
    confirmBtn.disabled = !complete() || S.sending || !myTurn();
    confirmBtn.textContent = S.sending ? "Sending…" : "Confirm";
    const offer = myTurn() && game().can_swap && live() && !S.pieDismissed && !S.staged.length;
    pie.hidden = !offer;
    if (offer) {
      const white = seatOf("White");
      fill(
        pie,
        h("p", {}, h("strong", {}, "Pie rule: "), `swap colours and take White's position${white ? ` from ${seatLabel(white)}` : ""}, or play on as Black?`),
        h("div", { class: "row" },
          h("button", { type: "button", class: "btn confirm", onclick: () => act({ type: "swap" }, randomId(), true) }, "Swap colours"),
          h("button", { type: "button", class: "btn", onclick: () => { S.pieDismissed = true; render(); } }, "Play on")),
      );
    }
  }

  function renderMessage() {
    message.hidden = !S.message;
    message.className = `message ${S.message ? `is-${S.message.kind}` : ""}`;
    message.textContent = S.message ? S.message.text : "";
  }

  function renderGameOver() {
    const g = game();
    gameover.hidden = !(S.state.status === "over" || g.over);
    if (gameover.hidden) return;
    const ranking = g.ranking || [];
    const resigned = new Set(g.resigned || []);
    const items = ranking.map((color, i) => {
      const seat = seatOf(color);
      const factors = g.factors && g.factors[color] ? g.factors[color] : [];
      return h("li", { "data-color": color },
        h("span", { class: "place" }, `${i + 1}.`), swatch(color),
        h("span", { class: "pname" }, `${seat ? seatLabel(seat) : color}`), h("span", { class: "muted" }, ` ${color}`),
        resigned.has(color) ? h("span", { class: "tag resigned" }, "resigned") : null,
        h("span", { class: "final", "data-score": g.scores[color] }, factors.length ? factorsText(factors) : formatScore(g.scores[color])));
    });
    let tie = null;
    if (g.tiebreak && ranking.length > 1) {
      const best = g.scores[ranking[0]];
      const tied = ranking.filter((c) => g.scores[c] === best && !resigned.has(c));
      tie = h("p", { class: "tiebreak" },
        `Tie: ${tied.join(" and ")} ${tied.length === 2 ? "both" : "all"} scored ${formatScore(best)}. Equal scores go to the colour that plays later in the round (Blue > Red > Black > White), so ${ranking[0]} wins.`);
    }
    fill(gameover,
      h("h2", {}, "Game over"),
      h("ol", { class: "ranking" }, items),
      tie,
      h("div", { class: "row downloads" },
        h("button", { type: "button", class: "btn small", onclick: () => record("txt") }, "Download record (text)"),
        h("button", { type: "button", class: "btn small", onclick: () => record("json") }, "Download record (JSON)")));
  }

  async function record(ext) {
    try {
      await download(`/api/tables/${encodeURIComponent(tableId)}/record.${ext}`, token, `omega-${tableId}.${ext}`);
    } catch (err) {
      S.message = { kind: "error", text: describe(err) };
      renderMessage();
    }
  }

  let slider = null;
  function renderReplay() {
    const total = game().history.length;
    replay.hidden = total === 0;
    if (!total) return;
    const at = S.replayAt === null ? total : S.replayAt;
    if (!slider) {
      slider = h("input", { type: "range", min: "0", step: "1", "aria-label": "Replay position" });
      slider.addEventListener("input", () => goReplay(Number(slider.value)));
      const step = (d) => () => goReplay(Math.max(0, Math.min(game().history.length, (S.replayAt ?? game().history.length) + d)));
      replay.append(
        h("h2", {}, "Replay"),
        h("div", { class: "row" },
          h("button", { type: "button", class: "btn small", "aria-label": "Start", onclick: () => goReplay(0) }, "«"),
          h("button", { type: "button", class: "btn small", "aria-label": "Back one move", onclick: step(-1) }, "‹"),
          slider,
          h("button", { type: "button", class: "btn small", "aria-label": "Forward one move", onclick: step(1) }, "›"),
          h("button", { type: "button", class: "btn small", "aria-label": "Live position", onclick: () => goReplay(game().history.length) }, "»")),
        h("div", { class: "replay-pos muted" }));
    }
    slider.max = String(total);
    slider.value = String(at);
    replay.querySelector(".replay-pos").textContent = S.replayAt === null ? `Live: ${total} moves (← → step through)` : `After move ${at} of ${total}`;
  }

  function renderLog() {
    const hist = game().history;
    const P = players();
    const rows = [];
    let turns = 0;
    hist.forEach((entry, i) => {
      const current = S.replayAt !== null && S.replayAt === i + 1;
      let body;
      if (entry === "swap") {
        body = [h("span", { class: "swap" }, "swap"), h("span", { class: "muted" }, " — colours exchanged")];
      } else {
        const mover = COLORS[turns % P];
        turns += 1;
        body = [swatch(mover), ...entry.map((cell, c) => h("span", { class: `cell c-${lower(COLORS[c])}` }, cell))];
      }
      rows.push(h("li", { class: current ? "current" : "", "data-entry": String(i + 1) },
        h("button", { type: "button", class: "entry", onclick: () => goReplay(i + 1), title: "Show the position after this move" },
          h("span", { class: "num" }, `${i + 1}.`), ...body)));
    });
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    fill(log, rows.length ? rows : h("li", { class: "muted empty" }, "No moves yet."));
    if (atEnd && S.replayAt === null) log.scrollTop = log.scrollHeight;
  }

  let linksDrawn = null;
  function renderLinks() {
    const saved = store.invitesFor(tableId);
    const seat = mySeat();
    const key = JSON.stringify([saved && saved.invites, seat && seat.name, S.seat]);
    if (key === linksDrawn) return;
    linksDrawn = key;
    const parts = [];
    if (saved && saved.invites) {
      const rows = Object.entries(saved.invites)
        .filter(([i]) => Number(i) !== S.seat)
        .map(([i, tok]) => {
          const s = S.state.seats[Number(i)];
          const url = `${location.origin}/t/${tableId}#seat=${tok}`;
          return h("li", {}, s ? swatch(s.color) : null, ` Invite for seat ${Number(i) + 1}${s ? ` (${s.color}, ${seatLabel(s)})` : ""} `, copyButton(url, "Copy link"));
        });
      if (saved.spectator_key) {
        rows.push(h("li", {}, "Spectator link ", copyButton(`${location.origin}/t/${tableId}#watch=${saved.spectator_key}`, "Copy link")));
      }
      if (rows.length) parts.push(h("h2", {}, "Links"), h("ul", { class: "invites" }, rows));
    }
    if (seat && seat.kind === "human") {
      const input = h("input", { type: "text", maxlength: "40", value: seat.name || "", "aria-label": "Your name", autocomplete: "nickname" });
      parts.push(h("form", {
        class: "rename row",
        onsubmit: (e) => {
          e.preventDefault();
          const name = input.value.trim();
          if (name) rename(name);
        },
      }, h("label", {}, "Your name ", input), h("button", { type: "submit", class: "btn small" }, "Save")));
    }
    fill(links, parts);
  }

  let optionsDrawn = null;
  function renderOptions() {
    const canResign = S.seat !== null && S.state.status === "playing" && mySeat() && !mySeat().resigned;
    const key = `${canResign}|${S.confirmResign}`;
    if (key === optionsDrawn) return;
    optionsDrawn = key;
    const toggle = (name, label) => {
      const box = h("input", { type: "checkbox", checked: prefs[name] });
      box.addEventListener("change", () => {
        prefs[name] = box.checked;
        store.setPrefs(prefs);
        renderBoard();
      });
      return h("label", { class: "toggle" }, box, ` ${label}`);
    };
    let resign = null;
    if (canResign) {
      resign = S.confirmResign
        ? h("span", {}, "Resign this game? ",
          h("button", { type: "button", class: "btn small undo", onclick: () => { S.confirmResign = false; act({ type: "resign" }, randomId(), true); } }, "Yes, resign"),
          " ",
          h("button", { type: "button", class: "btn small", onclick: () => { S.confirmResign = false; renderOptions(); } }, "No"))
        : h("button", { type: "button", class: "btn small", onclick: () => { S.confirmResign = true; renderOptions(); } }, "Resign…");
    }
    fill(options,
      h("div", { class: "row" }, toggle("coords", "Coordinates"), toggle("markers", "Colour-blind marks")),
      resign ? h("div", { class: "row" }, resign) : null,
      h("p", { class: "muted keys" }, "Keys: type a cell (e5) + Enter to place · Enter to confirm · Backspace to undo · ← → replay"));
  }

  load();
}

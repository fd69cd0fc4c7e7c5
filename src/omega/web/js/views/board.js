// @ts-check
// The SVG board: pointy-top hexes, each row shifted half a cell (RULES.md's picture).
// It knows geometry and drawing only; the table page decides what a click means. Each
// render compares the scene with what is drawn, cell by cell, and touches only the cells,
// stones, ghost and outline that changed. Every cell is a button with a name ("e5, White
// stone") that Tab reaches and the arrow keys move between. Where a cell is smaller than a
// finger (a big board on a phone), a tap aims: it marks the cell, and a second tap near it
// (a target wider than the cell) or the Place button places the stone (docs/web.md says why).

import { h } from "../dom.js";
import { Geometry, cellName } from "../geometry.js";
import { colorName, t } from "../i18n.js";

/** @typedef {import("../types.js").Cell} Cell */
/** @typedef {import("../types.js").Color} Color */
/** @typedef {import("../scene.js").BoardScene} BoardScene */
/** @typedef {{coords: boolean, markers: boolean}} Display the display options */
/**
 * @typedef {object} BoardHandlers
 * @property {(cell: Cell) => void} onClick
 * @property {(cell: Cell) => void} onActivate Enter or Space on the focused cell
 * @property {(cell: Cell | null, e: PointerEvent) => void} onHover
 * @property {(cell: Cell, e: PointerEvent) => void} onLongPress
 */
/**
 * What one cell shows, as last drawn.
 * @typedef {{stone: Color | null, staged: Color | null, last: boolean, recent: boolean, num: number | null, playable: boolean, markers: boolean}} Drawn
 */

const SVG = "http://www.w3.org/2000/svg";
const R = 10; // hex radius (centre to corner) in SVG units
const W = Math.sqrt(3) * R; // hex width, the distance between neighbouring centres
const STONE = 0.76 * R;
// Corners at -90°, -30°, 30°, 90°, 150°, 210°; edge k runs from corner k to k+1 and faces
// the neighbour EDGE_NEIGHBOUR[k] (dr, dc).
const CORNERS = [-90, -30, 30, 90, 150, 210].map((a) => [Math.cos((a * Math.PI) / 180), Math.sin((a * Math.PI) / 180)]);
const EDGE_NEIGHBOUR = [[-1, 0], [0, 1], [1, 1], [1, 0], [0, -1], [-1, -1]];
const LONG_PRESS_MS = 450;
// A touch target smaller than this (CSS pixels across a cell) is hard to hit: a tap there
// aims, and a second tap within half of it from the aimed cell's centre places.
export const MIN_TARGET_PX = 36;
// Arrow keys: the neighbour (dr, dc) to move to, then the one to try at a board edge.
// Up goes up-right and Down down-left, so Up then Down comes back to the same cell.
/** @type {Record<string, [number, number][]>} */
const ARROWS = {
  ArrowLeft: [[0, -1]], ArrowRight: [[0, 1]],
  ArrowUp: [[-1, 0], [-1, -1]], ArrowDown: [[1, 0], [1, 1]],
};

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @returns {SVGElement}
 */
function el(tag, attrs = {}) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** @param {number} x */
const fmt = (x) => (Math.round(x * 100) / 100).toString();

// The marks that tell colours apart without hue (colour-blind option).
/** @type {Record<Color, () => SVGElement>} */
const MARKERS = {
  White: () => el("circle", { r: fmt(0.3 * R), class: "mark" }),
  Black: () => el("path", { d: `M${-0.28 * R} ${-0.28 * R}L${0.28 * R} ${0.28 * R}M${0.28 * R} ${-0.28 * R}L${-0.28 * R} ${0.28 * R}`, class: "mark" }),
  Red: () => el("path", { d: `M0 ${-0.34 * R}L${0.3 * R} ${0.2 * R}L${-0.3 * R} ${0.2 * R}Z`, class: "mark" }),
  Blue: () => el("rect", { x: fmt(-0.24 * R), y: fmt(-0.24 * R), width: fmt(0.48 * R), height: fmt(0.48 * R), class: "mark" }),
};

// A cell never drawn is drawn in full once, as if it showed nothing before.
/** @type {Drawn} */
const BLANK = { stone: null, staged: null, last: false, recent: false, num: null, playable: false, markers: false };

/**
 * A cell's name for a screen reader.
 * @example cellLabel("e5", {stone: "White", staged: null, last: true}) // "e5, White stone, last turn"
 * @param {Cell} cell
 * @param {Pick<Drawn, "stone" | "staged" | "last">} d
 */
export function cellLabel(cell, d) {
  if (d.stone) return d.last ? t("{cell}, {color} stone, last turn", { cell, color: colorName(d.stone) }) : t("{cell}, {color} stone", { cell, color: colorName(d.stone) });
  if (d.staged) return t("{cell}, {staged} stone staged", { cell, staged: colorName(d.staged) });
  return t("{cell}, empty", { cell });
}

export class BoardView {
  /**
   * @param {HTMLElement} container where the SVG goes
   * @param {HTMLElement} tip the tooltip naming the group under the pointer
   * @param {BoardHandlers} handlers
   */
  constructor(container, tip, handlers) {
    this.container = container;
    this.tip = tip;
    this.handlers = handlers;
    this.svg = el("svg", { class: "board", role: "group", "aria-label": t("Omega board") });
    this.svg.innerHTML = `<defs>
      <radialGradient id="g-white" cx="40%" cy="35%" r="70%"><stop offset="0" stop-color="#fffdf6"/><stop offset="1" stop-color="#e2d6bb"/></radialGradient>
      <radialGradient id="g-black" cx="40%" cy="35%" r="70%"><stop offset="0" stop-color="#4b4b55"/><stop offset="1" stop-color="#0e0e12"/></radialGradient>
      <radialGradient id="g-red" cx="40%" cy="35%" r="70%"><stop offset="0" stop-color="#df4a63"/><stop offset="1" stop-color="#8a0c22"/></radialGradient>
      <radialGradient id="g-blue" cx="40%" cy="35%" r="70%"><stop offset="0" stop-color="#4f82e0"/><stop offset="1" stop-color="#16388a"/></radialGradient>
    </defs>`;
    this.cellLayer = el("g", { class: "cells" });
    this.labelLayer = el("g", { class: "labels" });
    this.stoneLayer = el("g", { class: "stones" });
    this.outlineLayer = el("g", { class: "outline" });
    this.svg.append(this.cellLayer, this.labelLayer, this.stoneLayer, this.outlineLayer);
    container.append(this.svg);
    /** @type {number | null} */
    this.size = null;
    /** @type {boolean | null} */
    this.coords = null;
    this.geo = Geometry.of(5);
    /** @type {Map<Cell, SVGElement>} */
    this.hexes = new Map();
    /** @type {Map<Cell, Drawn>} what each cell shows now (none yet: never drawn) */
    this.drawn = new Map();
    /** @type {Map<Cell, SVGElement>} the stone (or staged stone) drawn on a cell */
    this.stones = new Map();
    /** @type {SVGElement | null} */
    this.ghost = null;
    this.ghostKey = "";
    /** @type {SVGElement[]} a review's best turn, as ghost stones */
    this.best = [];
    this.bestKey = "";
    this.outlineKey = "";
    this.suppressClick = false;
    /** @type {Cell | null} the cell Tab comes to (the others are reached with the arrows) */
    this.focusCell = null;
    this.keyboardFocus = false; // whether the focused cell was reached with the keyboard
    this.lastPointer = -Infinity; // when the pointer last went down on the board
    this.viewW = 0;
    this.viewH = 0;
    /** @type {Cell | null} the cell a tap on small cells aimed at */
    this.aim = null;
    /** the kind of pointer that last went down on the board ("touch", "mouse", "pen") */
    this.pointerType = "";
    this.aimText = h("span", { class: "aim-text" });
    this.placeButton = h("button", { type: "button", class: "btn confirm small place" }, t("Place"));
    this.placeButton.addEventListener("click", () => {
      const cell = this.aim;
      this.setAim(null);
      if (cell) this.handlers.onClick(cell);
    });
    // Room for the aim is kept above the board while its cells are small on a touch screen,
    // so that marking a cell never moves the board under the finger.
    this.aimBar = h("div", { class: "aim-bar", role: "status", hidden: true }, this.aimText, this.placeButton);
    /** the controls above the board (placed by the page) */
    this.tools = h("div", { class: "board-tools" }, this.aimBar);
    this.bindEvents();
    window.addEventListener("resize", () => this.fitAim());
  }

  /**
   * The width of one cell on screen, in CSS pixels.
   * @returns {number}
   */
  cellPixels() {
    const box = this.svg.getBoundingClientRect();
    return this.viewW ? (box.width / this.viewW) * W : 0;
  }

  /** Whether a touch aims before it places: the cells are smaller than a finger. */
  small() {
    const px = this.cellPixels();
    return px > 0 && px < MIN_TARGET_PX;
  }

  /** Keep the aim's room above the board where a touch may aim. */
  fitAim() {
    this.aimBar.hidden = !(this.small() && navigator.maxTouchPoints > 0);
    if (!this.small()) this.setAim(null);
  }

  /**
   * Mark the cell a tap aimed at (null: none), and say how to place there.
   * @param {Cell | null} cell
   */
  setAim(cell) {
    if (this.aim) this.hexes.get(this.aim)?.classList.remove("aimed");
    this.aim = cell;
    this.aimBar.classList.toggle("aiming", cell !== null);
    if (cell) {
      this.hexes.get(cell)?.classList.add("aimed");
      this.aimText.textContent = t("{cell}: tap it again to place, or tap another cell", { cell });
      this.placeButton.textContent = t("Place {cell}", { cell });
    } else this.aimText.textContent = "";
  }

  /**
   * A tap on small cells: the cell to place on now (a second tap near the aimed cell, or a
   * cell where nothing can be placed, passed on as it is), or null when the tap only aimed.
   * @param {Cell} cell the cell under the finger
   * @param {MouseEvent} e
   * @returns {Cell | null}
   */
  tapped(cell, e) {
    const aimed = this.aim ? this.hexes.get(this.aim) : null;
    if (aimed && this.aim) {
      const box = aimed.getBoundingClientRect();
      const near = Math.hypot(e.clientX - (box.x + box.width / 2), e.clientY - (box.y + box.height / 2)) <= MIN_TARGET_PX / 2;
      if (near || cell === this.aim) {
        const to = this.aim;
        this.setAim(null);
        return to;
      }
    }
    const drawn = this.drawn.get(cell);
    if (!drawn || !drawn.playable) {
      this.setAim(null);
      return cell;
    }
    this.setAim(cell);
    return null;
  }

  /**
   * Centre of cell (r, c) in SVG units.
   * @param {number} size
   * @param {number} r
   * @param {number} c
   * @returns {[number, number]}
   */
  static centre(size, r, c) {
    return [((c - 1) - (r - size) / 2) * W, (r - 1) * 1.5 * R];
  }

  /**
   * (Re)build the cells of an empty board of side `size`.
   * @param {number} size
   * @param {boolean} coords
   */
  build(size, coords) {
    this.size = size;
    this.coords = coords;
    this.geo = Geometry.of(size);
    this.cellLayer.replaceChildren();
    this.labelLayer.replaceChildren();
    this.stoneLayer.replaceChildren();
    this.outlineLayer.replaceChildren();
    this.hexes.clear();
    this.drawn.clear();
    this.stones.clear();
    this.ghost = null;
    this.ghostKey = "";
    this.best = [];
    this.bestKey = "";
    this.outlineKey = "";
    const corners = CORNERS.map(([x, y]) => `${fmt(x * R)},${fmt(y * R)}`).join(" ");
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (const cell of this.geo.cells) {
      const [x, y] = this.centreOf(cell);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
      const g = el("g", {
        class: "cell", "data-cell": cell, transform: `translate(${fmt(x)} ${fmt(y)})`,
        role: "button", tabindex: "-1", "aria-label": cellLabel(cell, BLANK),
      });
      g.append(el("polygon", { class: "hex", points: corners }));
      if (coords) {
        const t = el("text", { class: "name", y: "0.35" });
        t.textContent = cell;
        g.append(t);
      }
      this.cellLayer.append(g);
      this.hexes.set(cell, g);
    }
    if (coords) this.drawEdgeLabels();
    const pad = coords ? 1.25 * W : 0.7 * R;
    const x0 = minX - W / 2 - pad, y0 = minY - R - pad;
    this.viewW = maxX - minX + W + 2 * pad;
    this.viewH = maxY - minY + 2 * R + 2 * pad;
    this.svg.setAttribute("viewBox", `${fmt(x0)} ${fmt(y0)} ${fmt(this.viewW)} ${fmt(this.viewH)}`);
    this.svg.setAttribute("aria-label", t("Omega board, side {size}: {cellsCount} cells; arrow keys move between cells, Enter places a stone", { size, cellsCount: this.geo.cells.length }));
    // Tab comes to the middle of the board first.
    const middle = cellName(size, size);
    this.focusCell = this.geo.coords.has(middle) ? middle : this.geo.cells[0];
    this.hexes.get(this.focusCell)?.setAttribute("tabindex", "0");
    this.aim = null;
    requestAnimationFrame(() => this.fitAim());
  }

  /**
   * @param {Cell} cell
   * @returns {[number, number]}
   */
  centreOf(cell) {
    const [r, c] = /** @type {[number, number]} */ (this.geo.coords.get(cell));
    return BoardView.centre(this.geo.size, r, c);
  }

  drawEdgeLabels() {
    const n = this.geo.size, span = 2 * n - 1;
    for (let r = 1; r <= span; r++) {
      // Row letters sit left of each row's first cell.
      const [x, y] = BoardView.centre(n, r, Math.max(1, r - n + 1) - 1);
      const t = el("text", { class: "edge", x: fmt(x + 0.15 * W), y: fmt(y + 0.35 * R) });
      t.textContent = String.fromCharCode(96 + r);
      this.labelLayer.append(t);
    }
    for (let c = 1; c <= span; c++) {
      // Columns run from upper right to lower left; their numbers sit past the upper end
      // (along the top edge, then the upper-right edge), away from the row letters.
      const [x, y] = BoardView.centre(n, Math.max(1, c - n + 1) - 1, c);
      const t = el("text", { class: "edge", x: fmt(x - 0.1 * W), y: fmt(y + 0.6 * R) });
      t.textContent = String(c);
      this.labelLayer.append(t);
    }
  }

  /**
   * Draw a scene with the display options, changing only what differs from the last one.
   * @param {BoardScene} scene
   * @param {Display} display
   * @param {{cell: Cell, color: Color}[]} [best] a review's best turn, shown as ghost stones
   */
  render(scene, display, best = []) {
    const coords = Boolean(display.coords);
    const markers = Boolean(display.markers);
    if (scene.size !== this.size || coords !== this.coords) this.build(scene.size, coords);
    this.svg.classList.toggle("markers", markers);
    const last = new Set(scene.last);
    const recent = new Set(scene.recent);
    const staged = new Map(scene.staged.map((s) => [s.cell, s.color]));
    for (const cell of this.geo.cells) {
      const stone = scene.stones[cell] || null;
      const st = staged.get(cell) || null;
      /** @type {Drawn} */
      const now = {
        stone, staged: st, last: last.has(cell), recent: recent.has(cell), num: (stone && scene.numbers[cell]) || null,
        playable: scene.interactive && !stone && !st, markers,
      };
      const was = this.drawn.get(cell);
      if (was && now.stone === was.stone && now.staged === was.staged && now.last === was.last && now.recent === was.recent &&
          now.num === was.num && now.playable === was.playable && now.markers === was.markers) continue;
      this.drawn.set(cell, now);
      this.drawCell(cell, now, was || BLANK);
    }
    // An aimed cell that can no longer take a stone (the turn moved on) is let go.
    if (this.aim && !this.drawn.get(this.aim)?.playable) this.setAim(null);
    this.drawGhost(scene.ghost && !scene.stones[scene.ghost.cell] && !staged.has(scene.ghost.cell) ? scene.ghost : null);
    this.drawBest(best.filter((b) => !scene.stones[b.cell] && !staged.has(b.cell)));
    this.drawOutline(scene.outline);
    this.drawTip(scene.tip);
  }

  /**
   * The best turn a review found, as faint stones with a ring, beside the turn played.
   * @param {{cell: Cell, color: Color}[]} best
   */
  drawBest(best) {
    const key = best.map((b) => `${b.cell}|${b.color}`).join(",");
    if (key === this.bestKey) return;
    this.bestKey = key;
    for (const g of this.best) g.remove();
    for (const hex of this.hexes.values()) delete hex.dataset.best;
    this.best = best.map((b) => {
      const g = this.stone(b.cell, b.color, "stone ghost best", false);
      const hex = this.hexes.get(b.cell);
      if (hex) hex.dataset.best = b.color;
      this.stoneLayer.insertBefore(g, this.ghost);
      return g;
    });
  }

  /**
   * Bring one cell from what it showed (`was`) to what it shows now.
   * @param {Cell} cell
   * @param {Drawn} now
   * @param {Drawn} was
   */
  drawCell(cell, now, was) {
    const g = /** @type {SVGElement} */ (this.hexes.get(cell));
    g.classList.toggle("last", now.last);
    g.classList.toggle("recent", now.recent);
    g.classList.toggle("empty", !now.stone && !now.staged);
    g.classList.toggle("playable", now.playable);
    if (now.stone) g.dataset.stone = now.stone; else delete g.dataset.stone;
    if (now.staged) g.dataset.staged = now.staged; else delete g.dataset.staged;
    if (now.num) g.dataset.turn = String(now.num); else delete g.dataset.turn;
    g.setAttribute("aria-label", cellLabel(cell, now));
    const stoneChanged = now.stone !== was.stone || now.staged !== was.staged || now.num !== was.num ||
      now.markers !== was.markers || (Boolean(now.stone) && now.last !== was.last);
    if (!stoneChanged) return;
    this.stones.get(cell)?.remove();
    this.stones.delete(cell);
    // A stone and a staged stone never share a cell: staging skips taken cells.
    let stone = null;
    if (now.stone) stone = this.stone(cell, now.stone, now.last ? "stone last" : "stone", now.markers, now.num);
    else if (now.staged) stone = this.stone(cell, now.staged, "stone staged", now.markers);
    if (stone) {
      this.stoneLayer.insertBefore(stone, this.ghost);
      this.stones.set(cell, stone);
    }
  }

  /**
   * @param {Cell} cell
   * @param {Color} color
   * @param {string} cls
   * @param {boolean} markers
   * @param {number | null} [num] the turn's number, on a turn marked since mine
   */
  stone(cell, color, cls, markers, num = null) {
    const [x, y] = this.centreOf(cell);
    const key = color.toLowerCase();
    const g = el("g", { class: `${cls} stone-${key}`, transform: `translate(${fmt(x)} ${fmt(y)})` });
    g.append(el("circle", { r: fmt(STONE), fill: `url(#g-${key})` }));
    if (markers && MARKERS[color]) g.append(MARKERS[color]());
    // Turns marked since mine carry their number (as in the move log); otherwise the last
    // turn's stones get a centre dot. With marks on, the cell highlight alone says it.
    else if (num) {
      const t = el("text", { class: "num", y: fmt(0.19 * R) });
      t.textContent = String(num);
      g.append(t);
    } else if (cls === "stone last") g.append(el("circle", { r: fmt(0.17 * R), class: "lastdot" }));
    return g;
  }

  /**
   * The faint next stone under the pointer, kept above the other stones.
   * @param {{cell: Cell, color: Color} | null} ghost
   */
  drawGhost(ghost) {
    const key = ghost ? `${ghost.cell}|${ghost.color}` : "";
    if (key === this.ghostKey) return;
    this.ghostKey = key;
    this.ghost?.remove();
    this.ghost = ghost ? this.stone(ghost.cell, ghost.color, "stone ghost", false) : null;
    if (this.ghost) this.stoneLayer.append(this.ghost);
  }

  /**
   * Outline the outer edges of a set of cells (a group, or all of a player's groups).
   * @param {Cell[]} cells
   */
  drawOutline(cells) {
    const key = cells.join(",");
    if (key === this.outlineKey) return;
    this.outlineKey = key;
    if (!cells.length) {
      this.outlineLayer.replaceChildren();
      return;
    }
    const inside = new Set(cells);
    let d = "";
    for (const cell of cells) {
      const [r, c] = /** @type {[number, number]} */ (this.geo.coords.get(cell));
      const [x, y] = BoardView.centre(this.geo.size, r, c);
      EDGE_NEIGHBOUR.forEach(([dr, dc], k) => {
        const nb = this.geo.has(r + dr, c + dc) ? cellName(r + dr, c + dc) : null;
        if (nb && inside.has(nb)) return;
        const [ax, ay] = CORNERS[k], [bx, by] = CORNERS[(k + 1) % 6];
        d += `M${fmt(x + ax * R)} ${fmt(y + ay * R)}L${fmt(x + bx * R)} ${fmt(y + by * R)}`;
      });
    }
    this.outlineLayer.replaceChildren(el("path", { class: "under", d }), el("path", { class: "over", d }));
  }

  /**
   * The tooltip near the pointer, kept inside the window.
   * @param {BoardScene["tip"]} tip
   */
  drawTip(tip) {
    if (!tip) {
      this.tip.hidden = true;
      return;
    }
    this.tip.hidden = false;
    if (this.tip.textContent !== tip.text) this.tip.textContent = tip.text;
    const x = Math.min(tip.x + 14, window.innerWidth - 160);
    this.tip.style.left = `${Math.max(4, x)}px`;
    this.tip.style.top = `${tip.y + 16}px`;
  }

  /**
   * Make `cell` the one Tab comes to, and focus it.
   * @param {Cell} cell
   * @param {boolean} [move] whether to move the focus there too
   */
  focus(cell, move = true) {
    if (this.focusCell) this.hexes.get(this.focusCell)?.setAttribute("tabindex", "-1");
    this.focusCell = cell;
    const g = this.hexes.get(cell);
    if (!g) return;
    g.setAttribute("tabindex", "0");
    if (move) g.focus();
  }

  bindEvents() {
    /** @param {Event} e */
    const cellOf = (e) => {
      const target = /** @type {Element | null} */ (e.target);
      const g = target && target.closest ? /** @type {SVGElement | null} */ (target.closest("[data-cell]")) : null;
      return g ? g.dataset.cell || null : null;
    };
    this.svg.addEventListener("keydown", (e) => {
      const cell = cellOf(e);
      if (!cell || e.ctrlKey || e.metaKey || e.altKey) return;
      // A cell focused by a click keeps the page's own keys (Enter confirms, arrows
      // replay); only a cell reached with the keyboard takes Enter, Space and the arrows.
      if (!this.keyboardFocus) return;
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        e.stopPropagation();
        this.handlers.onActivate(cell);
        return;
      }
      const moves = ARROWS[e.key];
      if (!moves) return;
      e.preventDefault();
      e.stopPropagation();
      const [r, c] = /** @type {[number, number]} */ (this.geo.coords.get(cell));
      const to = moves.map(([dr, dc]) => [r + dr, c + dc]).find(([nr, nc]) => this.geo.has(nr, nc));
      if (to) this.focus(cellName(to[0], to[1]));
    });
    this.svg.addEventListener("focusin", (e) => {
      this.keyboardFocus = performance.now() - this.lastPointer > 300;
      const cell = cellOf(e);
      if (cell && cell !== this.focusCell) this.focus(cell, false);
    });
    this.svg.addEventListener("click", (e) => {
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      const cell = cellOf(e);
      if (!cell) return;
      const to = this.pointerType === "touch" && this.small() ? this.tapped(cell, e) : cell;
      if (to) this.handlers.onClick(to);
    });
    /** @type {Cell | null} */
    let hovered = null;
    this.svg.addEventListener("pointermove", (e) => {
      if (e.pointerType === "touch") return;
      const cell = cellOf(e);
      if (cell !== hovered) {
        hovered = cell;
        this.handlers.onHover(cell, e);
      }
    });
    this.svg.addEventListener("pointerleave", (e) => {
      if (e.pointerType === "touch") return;
      hovered = null;
      this.handlers.onHover(null, e);
    });
    // Long press on touch screens does what hovering does with a mouse.
    /** @type {ReturnType<typeof setTimeout> | null} */
    let timer = null;
    /** @type {[number, number] | null} */
    let start = null;
    const cancel = () => {
      if (timer) clearTimeout(timer);
      timer = null;
    };
    this.svg.addEventListener("pointerdown", (e) => {
      this.lastPointer = performance.now();
      this.pointerType = e.pointerType;
      this.keyboardFocus = false;
      // A long press that ended without a click must not swallow the next tap.
      this.suppressClick = false;
      if (e.pointerType !== "touch") return;
      const cell = cellOf(e);
      start = [e.clientX, e.clientY];
      this.handlers.onHover(null, e);
      cancel();
      if (!cell) return;
      timer = setTimeout(() => {
        this.suppressClick = true;
        this.handlers.onLongPress(cell, e);
      }, LONG_PRESS_MS);
    });
    this.svg.addEventListener("pointermove", (e) => {
      if (timer && start && Math.hypot(e.clientX - start[0], e.clientY - start[1]) > 10) cancel();
    });
    this.svg.addEventListener("pointerup", cancel);
    this.svg.addEventListener("pointercancel", cancel);
    this.svg.addEventListener("contextmenu", (e) => {
      if (this.suppressClick || timer) e.preventDefault();
    });
  }
}

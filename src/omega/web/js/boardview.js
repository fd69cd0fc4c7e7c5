// The SVG board: pointy-top hexes, each row shifted half a cell (RULES.md's picture).
// It knows geometry and drawing only; the table page decides what a click means.

import { Geometry } from "./geometry.js";

const SVG = "http://www.w3.org/2000/svg";
const R = 10; // hex radius (centre to corner) in SVG units
const W = Math.sqrt(3) * R; // hex width, the distance between neighbouring centres
const STONE = 0.76 * R;
// Corners at -90°, -30°, 30°, 90°, 150°, 210°; edge k runs from corner k to k+1 and faces
// the neighbour EDGE_NEIGHBOUR[k] (dr, dc).
const CORNERS = [-90, -30, 30, 90, 150, 210].map((a) => [Math.cos((a * Math.PI) / 180), Math.sin((a * Math.PI) / 180)]);
const EDGE_NEIGHBOUR = [[-1, 0], [0, 1], [1, 1], [1, 0], [0, -1], [-1, -1]];
const LONG_PRESS_MS = 450;

function el(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

const fmt = (x) => (Math.round(x * 100) / 100).toString();

// The marks that tell colours apart without hue (colour-blind option).
const MARKERS = {
  White: () => el("circle", { r: fmt(0.3 * R), class: "mark" }),
  Black: () => el("path", { d: `M${-0.28 * R} ${-0.28 * R}L${0.28 * R} ${0.28 * R}M${0.28 * R} ${-0.28 * R}L${-0.28 * R} ${0.28 * R}`, class: "mark" }),
  Red: () => el("path", { d: `M0 ${-0.34 * R}L${0.3 * R} ${0.2 * R}L${-0.3 * R} ${0.2 * R}Z`, class: "mark" }),
  Blue: () => el("rect", { x: fmt(-0.24 * R), y: fmt(-0.24 * R), width: fmt(0.48 * R), height: fmt(0.48 * R), class: "mark" }),
};

export class BoardView {
  /** `handlers`: onClick(cell), onHover(cell | null, event), onLongPress(cell, event). */
  constructor(container, handlers) {
    this.container = container;
    this.handlers = handlers;
    this.svg = el("svg", { class: "board", role: "img", "aria-label": "Omega board" });
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
    this.size = null;
    this.coords = null;
    this.hexes = new Map();
    this.suppressClick = false;
    this.bindEvents();
  }

  /** Centre of cell (r, c) in SVG units. */
  static centre(size, r, c) {
    return [((c - 1) - (r - size) / 2) * W, (r - 1) * 1.5 * R];
  }

  build(size, coords) {
    this.size = size;
    this.coords = coords;
    this.geo = Geometry.of(size);
    this.cellLayer.replaceChildren();
    this.labelLayer.replaceChildren();
    this.hexes.clear();
    const corners = CORNERS.map(([x, y]) => `${fmt(x * R)},${fmt(y * R)}`).join(" ");
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (const cell of this.geo.cells) {
      const [r, c] = this.geo.coords.get(cell);
      const [x, y] = BoardView.centre(size, r, c);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
      const g = el("g", { class: "cell", "data-cell": cell, transform: `translate(${fmt(x)} ${fmt(y)})` });
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
    this.svg.setAttribute("viewBox", `${fmt(x0)} ${fmt(y0)} ${fmt(maxX - minX + W + 2 * pad)} ${fmt(maxY - minY + 2 * R + 2 * pad)}`);
    this.svg.setAttribute("aria-label", `Omega board, side ${size}`);
  }

  drawEdgeLabels() {
    const n = this.size, span = 2 * n - 1;
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
   * Draw a position. `view`: {size, stones: {cell: colour}, staged: [{cell, color}],
   * last: [cells], outline: [cells], ghost: {cell, color} | null, coords, markers, interactive}.
   */
  render(view) {
    if (view.size !== this.size || Boolean(view.coords) !== this.coords) this.build(view.size, Boolean(view.coords));
    const last = new Set(view.last || []);
    const staged = new Map((view.staged || []).map((s) => [s.cell, s.color]));
    for (const [cell, g] of this.hexes) {
      const stone = view.stones[cell] || null;
      const st = staged.get(cell) || null;
      g.classList.toggle("last", last.has(cell));
      g.classList.toggle("empty", !stone && !st);
      g.classList.toggle("playable", Boolean(view.interactive) && !stone && !st);
      if (stone) g.dataset.stone = stone; else delete g.dataset.stone;
      if (st) g.dataset.staged = st; else delete g.dataset.staged;
    }
    this.svg.classList.toggle("markers", Boolean(view.markers));
    const stones = [];
    for (const [cell, color] of Object.entries(view.stones)) {
      stones.push(this.stone(cell, color, last.has(cell) ? "stone last" : "stone", view.markers));
    }
    for (const [cell, color] of staged) stones.push(this.stone(cell, color, "stone staged", view.markers));
    if (view.ghost && !view.stones[view.ghost.cell] && !staged.has(view.ghost.cell)) {
      stones.push(this.stone(view.ghost.cell, view.ghost.color, "stone ghost", false));
    }
    this.stoneLayer.replaceChildren(...stones);
    this.drawOutline(view.outline || []);
  }

  stone(cell, color, cls, markers) {
    const [r, c] = this.geo.coords.get(cell);
    const [x, y] = BoardView.centre(this.size, r, c);
    const key = color.toLowerCase();
    const g = el("g", { class: `${cls} stone-${key}`, transform: `translate(${fmt(x)} ${fmt(y)})` });
    g.append(el("circle", { r: fmt(STONE), fill: `url(#g-${key})` }));
    if (markers && MARKERS[color]) g.append(MARKERS[color]());
    // The last turn's stones get a centre dot (with marks on, the cell highlight alone says it).
    else if (cls === "stone last") g.append(el("circle", { r: fmt(0.17 * R), class: "lastdot" }));
    return g;
  }

  /** Outline the outer edges of a set of cells (a group, or all of a player's groups). */
  drawOutline(cells) {
    if (!cells.length) {
      this.outlineLayer.replaceChildren();
      return;
    }
    const inside = new Set(cells);
    let d = "";
    for (const cell of cells) {
      const [r, c] = this.geo.coords.get(cell);
      const [x, y] = BoardView.centre(this.size, r, c);
      EDGE_NEIGHBOUR.forEach(([dr, dc], k) => {
        const nb = this.geo.has(r + dr, c + dc) ? String.fromCharCode(96 + r + dr) + (c + dc) : null;
        if (nb && inside.has(nb)) return;
        const [ax, ay] = CORNERS[k], [bx, by] = CORNERS[(k + 1) % 6];
        d += `M${fmt(x + ax * R)} ${fmt(y + ay * R)}L${fmt(x + bx * R)} ${fmt(y + by * R)}`;
      });
    }
    this.outlineLayer.replaceChildren(el("path", { class: "under", d }), el("path", { class: "over", d }));
  }

  bindEvents() {
    const cellOf = (e) => {
      const g = e.target.closest && e.target.closest("[data-cell]");
      return g ? g.dataset.cell : null;
    };
    this.svg.addEventListener("click", (e) => {
      if (this.suppressClick) {
        this.suppressClick = false;
        return;
      }
      const cell = cellOf(e);
      if (cell) this.handlers.onClick(cell);
    });
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
    let timer = null, start = null;
    const cancel = () => {
      clearTimeout(timer);
      timer = null;
    };
    this.svg.addEventListener("pointerdown", (e) => {
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

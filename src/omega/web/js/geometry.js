// @ts-check
// Board geometry and cell notation, the same as omega.board and RULES.md:
// a cell is a row letter (a = top row) and a column number; (r, c) exists iff |r - c| <= n - 1.

/** @typedef {import("./types.js").Color} Color */
/** @typedef {import("./types.js").Cell} Cell */

/**
 * The colours in turn order.
 * @type {readonly Color[]}
 */
export const COLORS = ["White", "Black", "Red", "Blue"];

// Neighbour offsets (dr, dc), fixed by the notation of the rules page.
const NEIGHBOUR_OFFSETS = [[0, -1], [0, 1], [-1, -1], [-1, 0], [1, 0], [1, 1]];
const CELL_RE = /^([a-z])([1-9][0-9]?)$/;
/** @type {Map<number, Geometry>} */
const cache = new Map();

/**
 * The name of cell (row r, column c), both counted from 1.
 * @example cellName(5, 5) // "e5"
 * @param {number} r
 * @param {number} c
 * @returns {Cell}
 */
export function cellName(r, c) {
  return String.fromCharCode(96 + r) + c;
}

/** Cells, coordinates and neighbours of the hex-hex board of one side. */
export class Geometry {
  /**
   * The shared geometry of side `size` (built once).
   * @example Geometry.of(5).cells.length // 61
   * @param {number} size
   * @returns {Geometry}
   */
  static of(size) {
    let geo = cache.get(size);
    if (!geo) {
      geo = new Geometry(size);
      cache.set(size, geo);
    }
    return geo;
  }

  /** @param {number} size */
  constructor(size) {
    this.size = size;
    this.span = 2 * size - 1;
    /** @type {Cell[]} every cell, row by row */
    this.cells = [];
    /** @type {Map<Cell, [number, number]>} cell -> (row, column) */
    this.coords = new Map();
    for (let r = 1; r <= this.span; r++) {
      for (let c = 1; c <= this.span; c++) {
        if (Math.abs(r - c) <= size - 1) {
          const name = cellName(r, c);
          this.cells.push(name);
          this.coords.set(name, [r, c]);
        }
      }
    }
    /** @type {Map<Cell, Cell[]>} */
    this.neighbours = new Map();
    for (const [name, [r, c]] of this.coords) {
      const around = [];
      for (const [dr, dc] of NEIGHBOUR_OFFSETS) {
        const other = cellName(r + dr, c + dc);
        if (this.coords.has(other) && r + dr >= 1 && c + dc >= 1) around.push(other);
      }
      this.neighbours.set(name, around);
    }
  }

  /**
   * Whether `r, c` is on the board.
   * @param {number} r
   * @param {number} c
   */
  has(r, c) {
    return r >= 1 && c >= 1 && r <= this.span && c <= this.span && Math.abs(r - c) <= this.size - 1;
  }

  /**
   * The canonical name of a typed cell, or null when it is not a cell here.
   * @example Geometry.of(5).parse("E5 ") // "e5"
   * @param {string} text
   * @returns {Cell | null}
   */
  parse(text) {
    const m = CELL_RE.exec(String(text).trim().toLowerCase());
    if (!m) return null;
    const name = m[1] + String(Number(m[2]));
    return m[2] === String(Number(m[2])) && this.coords.has(name) ? name : null;
  }
}

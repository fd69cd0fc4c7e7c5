// The page's own small group count, used for instant previews while stones are staged
// and for hover outlines. The server's scores (omega.Game) stay the reference; an e2e
// test holds this file equal to Game.scores() on shared random positions.

/**
 * The groups of `color`: arrays of cell names, found by flood fill.
 * `stones` maps cell name -> colour name ({"e5": "White"}).
 */
export function groupsOf(geo, stones, color) {
  const seen = new Set();
  const groups = [];
  for (const start of geo.cells) {
    if (stones[start] !== color || seen.has(start)) continue;
    seen.add(start);
    const group = [start];
    for (let i = 0; i < group.length; i++) {
      for (const nb of geo.neighbours.get(group[i])) {
        if (!seen.has(nb) && stones[nb] === color) {
          seen.add(nb);
          group.push(nb);
        }
      }
    }
    groups.push(group);
  }
  return groups;
}

/** The group holding the stone on `cell` (empty array for an empty cell). */
export function groupAt(geo, stones, cell) {
  const color = stones[cell];
  if (!color) return [];
  return groupsOf(geo, stones, color).find((g) => g.includes(cell)) || [];
}

/** Group sizes of `color`, largest first. */
export function groupSizes(geo, stones, color) {
  return groupsOf(geo, stones, color).map((g) => g.length).sort((a, b) => b - a);
}

/** The exact score for these group sizes, a BigInt: their product, 0 with no stones. */
export function product(sizes) {
  if (!sizes.length) return 0n;
  return sizes.reduce((acc, n) => acc * BigInt(n), 1n);
}

/** Every colour's exact score as a decimal string, like the server's "scores". */
export function scores(geo, stones, colors) {
  const out = {};
  for (const color of colors) out[color] = product(groupSizes(geo, stones, color)).toString();
  return out;
}

const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const superscript = (n) => String(n).replace(/\d/g, (d) => SUPERSCRIPT[d]);

/** Digits grouped in threes by thin spaces: "1234567" -> "1 234 567". */
export function groupDigits(decimal) {
  return String(decimal).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
}

/**
 * A score for display: grouped digits, or scientific form once it stops being readable
 * ("348 678 440 100 000 000 000" -> "3.487 × 10²⁰").
 */
export function formatScore(decimal) {
  const s = String(decimal);
  if (s.length <= 12) return groupDigits(s);
  const mantissa = `${s[0]}.${s.slice(1, 4)}`;
  return `${mantissa} × 10${superscript(s.length - 1)}`;
}

/**
 * Sizes as factors with their product: [5, 4, 3] -> "5 × 4 × 3 = 60".
 * Long runs of equal factors are written as powers so a big board stays readable.
 */
export function factorsText(sizes) {
  if (!sizes.length) return "no stones = 0";
  let body;
  if (sizes.length <= 10) {
    body = sizes.join(" × ");
  } else {
    const runs = [];
    for (const n of sizes) {
      if (runs.length && runs[runs.length - 1][0] === n) runs[runs.length - 1][1]++;
      else runs.push([n, 1]);
    }
    body = runs.map(([n, k]) => (k > 1 ? `${n}${superscript(k)}` : String(n))).join(" × ");
  }
  return `${body} = ${formatScore(product(sizes).toString())}`;
}

// @ts-check
// How ratings read on the page: the display rating with its provisional mark, a change,
// and the rating-history chart's geometry (pure: tested under Node).

/** @typedef {import("./lobbytypes.js").Rating} Rating */
/** @typedef {import("./lobbytypes.js").RatingChange} RatingChange */

/**
 * A display rating as the page writes it: "1000?" while provisional.
 * @example ratingText({display: 1000, games: 1, wins: 0, provisional: true}) // "1000?"
 * @param {Rating | null | undefined} rating
 */
export function ratingText(rating) {
  if (!rating) return "unrated";
  return `${rating.display}${rating.provisional ? "?" : ""}`;
}

/**
 * A change of rating: "1000 → 1043 (+43)".
 * @example changeText(1000, 1043) // "1000 → 1043 (+43)"
 * @param {number} before
 * @param {number} after
 */
export function changeText(before, after) {
  const d = after - before;
  return `${before} → ${after} (${d > 0 ? "+" : d < 0 ? "−" : "±"}${Math.abs(d)})`;
}

/**
 * The rating-history chart of one player count: an SVG polyline's points in a `width` ×
 * `height` box (a margin of `pad`), the first point the rating before the first game,
 * and the lowest and highest rating drawn.
 * @example chartGeometry([{before: 1000, after: 1040}, {before: 1040, after: 1020}], 100, 50, 0).points
 * // "0,50 50,0 100,25"
 * @param {Pick<RatingChange, "before" | "after">[]} history oldest first
 * @param {number} width
 * @param {number} height
 * @param {number} pad
 */
export function chartGeometry(history, width, height, pad) {
  if (!history.length) return { points: "", low: 0, high: 0, values: [] };
  const values = [history[0].before, ...history.map((c) => c.after)];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const step = (width - 2 * pad) / (values.length - 1);
  const round = (/** @type {number} */ x) => Math.round(x * 10) / 10;
  const points = values.map((v, i) => `${round(pad + i * step)},${round(pad + (height - 2 * pad) * (1 - (v - low) / span))}`);
  return { points: points.join(" "), low, high, values };
}

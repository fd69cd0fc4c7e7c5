// @ts-check
// What the lobby's form offers, from the server's limits (GET /api/config): the page keeps
// no copy of them.

/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").LevelInfo} LevelInfo */

/**
 * The player counts a table may have, fewest first.
 * @example playerCounts({players: {min: 2, max: 4}}) // [2, 3, 4]
 * @param {Pick<SiteConfig, "players">} config
 * @returns {number[]}
 */
export function playerCounts(config) {
  const out = [];
  for (let n = config.players.min; n <= config.players.max; n++) out.push(n);
  return out;
}

/**
 * A board side as the form lists it.
 * @example sizeOption({size: 5, cells: 61}) // {value: "5", text: "5 (61 cells)"}
 * @param {SiteConfig["sizes"][number]} size
 */
export function sizeOption(size) {
  return { value: String(size.size), text: `${size.size} (${size.cells} cells)` };
}

/**
 * A computer level as the form lists it: its number and name, its description as the title.
 * @example levelOption({level: 3, name: "Club", description: "Plays well"}) // {value: "3", text: "level 3 · Club", title: "Plays well"}
 * @param {LevelInfo} info
 * @returns {{value: string, text: string, title: string | null}}
 */
export function levelOption(info) {
  return {
    value: String(info.level),
    text: info.name ? `level ${info.level} · ${info.name}` : `level ${info.level}`,
    title: info.description || null,
  };
}

// @ts-check
// What the lobby's form offers, from the server's limits (GET /api/config): the page keeps
// no copy of them.

import { t } from "./i18n.js";

/** @typedef {import("./types.js").SiteConfig} SiteConfig */
/** @typedef {import("./types.js").LevelInfo} LevelInfo */
/** @typedef {import("./types.js").TimeControlConfig} TimeControlConfig */

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
  return { value: String(size.size), text: t("{size} ({cells} cells)", { size: size.size, cells: size.cells }) };
}

/**
 * A computer level as the form lists it: its number, name and rating, its description as the title.
 * @example levelOption({level: 3, name: "Club", description: "Plays well", rating: 1000}) // {value: "3", text: "level 3 · Club · rating 1000", title: "Plays well"}
 * @param {LevelInfo} info
 * @returns {{value: string, text: string, title: string | null}}
 */
export function levelOption(info) {
  const text = info.name ? t("level {level} · {name}", { level: info.level, name: info.name }) : t("level {level}", { level: info.level });
  return {
    value: String(info.level),
    text: info.rating ? t("{level} · rating {rating}", { level: text, rating: info.rating }) : text,
    title: info.description || null,
  };
}

/**
 * A computer opponent in words: its level, and its level's rating where the server gave one.
 * @example computerText(3, 1000) // "computer level 3 (rating 1000)"
 * @example computerText(3) // "computer level 3"
 * @param {number | null} level
 * @param {number | null} [rating]
 * @returns {string}
 */
export function computerText(level, rating) {
  return rating ? t("computer level {level} (rating {rating})", { level, rating }) : t("computer level {level}", { level });
}

/**
 * The clocks quick play offers (the server's presets for it, in its order), each read as
 * the server's words for it (they fit a phone's field, and say what "3+2" means).
 * @example quickClocks({quickplay: {default: "5+5", presets: ["3+2"]}, realtime: {presets: [{text: "3+2", label: "3 minutes + 2 seconds a move"}]}})
 * // [{value: "3+2", text: "3 minutes + 2 seconds a move"}]
 * @param {Pick<TimeControlConfig, "quickplay" | "realtime">} controls
 * @returns {{value: string, text: string}[]}
 */
export function quickClocks(controls) {
  const labels = new Map(controls.realtime.presets.map((p) => [p.text, p.label]));
  return controls.quickplay.presets.map((text) => ({ value: text, text: labels.get(text) ?? text }));
}

/**
 * The quick-play clock to preselect: the one this device chose last while the server still
 * offers it, else the server's default.
 * @example quickClock({default: "5+5", presets: ["3+2", "5+5"]}, "3+2") // "3+2"
 * @example quickClock({default: "5+5", presets: ["3+2", "5+5"]}, "90+0") // "5+5"
 * @param {TimeControlConfig["quickplay"]} quickplay
 * @param {string | null} remembered
 */
export function quickClock(quickplay, remembered) {
  return remembered !== null && quickplay.presets.includes(remembered) ? remembered : quickplay.default;
}

/**
 * A served rule as a sentence.
 * @example ruleSentence("a password is 8 to 256 characters") // "A password is 8 to 256 characters."
 * @param {string} rule
 */
export function ruleSentence(rule) {
  return rule ? `${rule[0].toUpperCase()}${rule.slice(1)}.` : "";
}

// @ts-check
// The page's words in the reader's language.  Every string a person reads goes through t():
// the English text is the message id (so English needs no catalog and reads as written in
// the code), `{name}` marks a value put in.  The server puts the reader's catalog into the
// page (a JSON data block, id "omega-i18n", from src/omega/locale: docs/web.md, Languages)
// and sets <html lang dir>; it is read here when this module loads, before any other module
// draws or even defines a string, so the first drawing is already in the reader's language.

/**
 * @typedef {object} Language
 * @property {string} code
 * @property {string} name the language's name in itself
 * @property {"ltr" | "rtl"} dir
 * @property {boolean} complete
 */

/** @type {Record<string, string>} */
let catalog = {};
/** @type {string} the language the page speaks */
let current = "en";
/** @type {Language[]} */
let offered = [{ code: "en", name: "English", dir: "ltr", complete: true }];
let cookie = "omega_lang";

/**
 * A sentence as the server sends it to be put in each reader's language (a seat's default
 * name): the English text as the id, and its values.
 * @typedef {{id: string, params: Record<string, unknown>}} MessageText
 */

/**
 * Fill `{name}` placeholders from `params`; an unknown name stays as written.
 * @param {string} text
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
function fillIn(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * A message in the reader's language.
 * @example t("Your turn") // "Your turn", or "À vous de jouer" with the French catalog
 * @example t("{name} joined", { name: "ada" }) // "ada joined"
 * @param {string} msgid the English text
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function t(msgid, params) {
  return fillIn(catalog[msgid] || msgid, params);
}

/**
 * A sentence the server sent as a message (`omega.i18n.message_json`: its English text as the
 * id, and its values, a value that is a message nested alike), in the reader's language.
 * @example tm({id: "Computer ({level})", params: {level: {id: "Easy", params: {}}}}) // "Ordinateur (Facile)" in French
 * @param {MessageText} message
 * @returns {string}
 */
export function tm(message) {
  /** @type {Record<string, unknown>} */
  const params = {};
  for (const [key, value] of Object.entries(message.params)) {
    params[key] = value !== null && typeof value === "object" ? tm(/** @type {MessageText} */ (value)) : value;
  }
  return t(message.id, params);
}

/**
 * Use these translations from now on (English text -> the language's text).
 * @param {Record<string, string>} messages
 */
export function useCatalog(messages) {
  catalog = messages;
}

/** The language the page speaks (a code such as "fr"). */
export function language() {
  return current;
}

/** The languages the site speaks, for the Language setting. */
export function languages() {
  return offered;
}

/**
 * A number (a big product) written as the reader's language writes it: 12,600 / 12 600 / 12.600.
 * @example formatNumber(12600) // "12,600" in English
 * @param {number} n
 */
export function formatNumber(n) {
  try {
    return new Intl.NumberFormat(current).format(n);
  } catch {
    return String(n);
  }
}

/**
 * A colour's name ("White", the value the server sends) in the reader's language.
 * @example colorName("Red") // "Rouge" in French
 * @param {string} color
 */
export function colorName(color) {
  return t(color);
}

/**
 * Speak another language from now on: the choice is kept in a cookie (the server reads it
 * for the page and for its messages), and the page reloads in that language.
 * @param {string} code
 */
export function chooseLanguage(code) {
  document.cookie = `${cookie}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  location.reload();
}

// The catalog the server put in the page (none in Node's tests: English).
const block = typeof document === "undefined" ? null : document.getElementById("omega-i18n");
if (block && block.textContent) {
  try {
    const data = JSON.parse(block.textContent);
    useCatalog(data.messages || {});
    current = data.lang || "en";
    offered = data.languages || offered;
    cookie = data.cookie || cookie;
  } catch {
    // A page without its catalog still works, in English.
  }
}

// @ts-check
// The page's words in the reader's language.  Every string a person reads goes through t():
// the English text is the message id (so English needs no catalog and reads as written in
// the code), `{name}` marks a value put in.  The catalog of another language replaces the
// English text when it is loaded.

/** @type {Record<string, string>} */
let catalog = {};

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
 * Use these translations from now on (English text -> the language's text).
 * @param {Record<string, string>} messages
 */
export function useCatalog(messages) {
  catalog = messages;
}

// The changes an event brings to the table state (protocol omega.v2): patch operations
// `[op, path, value]` with op "add", "replace" or "remove" and a JSON Pointer path, "/-"
// appending to a list (the server's omega/server/infra/patch.py makes them). Pure: no DOM.

/** @typedef {["add" | "replace", string, unknown] | ["remove", string]} Change */

/**
 * `value` with `changes` applied, as a new value (`value` is left as it was, so the page
 * can still compare the state before with the one after). Throws on a change that does not
 * fit (the page then fetches the table whole).
 * @template T
 * @param {T} value
 * @param {Change[]} changes
 * @returns {T}
 */
export function applyChanges(value, changes) {
  /** @type {any} */
  let out = structuredClone(value);
  for (const change of changes) out = applyOne(out, change);
  return out;
}

/**
 * @param {any} doc
 * @param {Change} change
 * @returns {any}
 */
function applyOne(doc, change) {
  if (!Array.isArray(change) || change.length < 2) throw new Error(`not a change: ${JSON.stringify(change)}`);
  const [op, path] = change;
  if (op !== "add" && op !== "replace" && op !== "remove") throw new Error(`unknown change ${op}`);
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) throw new Error(`bad path ${path}`);
  const value = change.length > 2 ? structuredClone(change[2]) : undefined;
  if (path === "") {
    if (op === "remove") throw new Error("cannot remove the whole value");
    return value;
  }
  const tokens = path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = /** @type {string} */ (tokens.pop());
  let target = doc;
  for (const token of tokens) {
    target = Array.isArray(target) ? target[index(token, target.length, path)] : member(target, token, path);
  }
  if (Array.isArray(target)) {
    if (op === "add" && last === "-") target.push(value);
    else if (op === "add") target.splice(index(last, target.length + 1, path), 0, value);
    else if (op === "replace") target[index(last, target.length, path)] = value;
    else target.splice(index(last, target.length, path), 1);
  } else if (target !== null && typeof target === "object") {
    if (op !== "add") member(target, last, path);
    if (op === "remove") delete target[last];
    else target[last] = value;
  } else {
    throw new Error(`${op} ${path}: the parent is not an object or a list`);
  }
  return doc;
}

/**
 * @param {any} target
 * @param {string} key
 * @param {string} path
 * @returns {any}
 */
function member(target, key, path) {
  if (target === null || typeof target !== "object" || !Object.prototype.hasOwnProperty.call(target, key)) {
    throw new Error(`${path}: no such member`);
  }
  return target[key];
}

/**
 * @param {string} token
 * @param {number} size
 * @param {string} path
 * @returns {number}
 */
function index(token, size, path) {
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= size) throw new Error(`${path}: no such item`);
  return Number(token);
}

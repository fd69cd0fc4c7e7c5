// @ts-check
// Tiny DOM helpers: the page has no framework, so element building stays readable here.

import { t } from "./i18n.js";

/** @typedef {import("./types.js").Color} Color */
/** @typedef {Node | string | null | undefined | false | ChildList} Child */
/** @typedef {Child[]} ChildList */
/** @typedef {Record<string, unknown>} Attrs */

/**
 * Children as a flat list of nodes and strings, leaving out null, undefined and false.
 * @param {Child[]} children
 * @returns {(Node | string)[]}
 */
function flatten(children) {
  /** @type {(Node | string)[]} */
  const out = [];
  for (const c of children) {
    if (Array.isArray(c)) out.push(...flatten(c));
    else if (c !== null && c !== undefined && c !== false) out.push(c);
  }
  return out;
}

/**
 * Build an element: attributes (`on...` functions become listeners), then children.
 * @example h("button", { class: "btn", onclick: () => {} }, "Undo")
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === "class") el.className = String(value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  el.append(...flatten(children));
  return el;
}

/**
 * The site's bar atop a page: the brand (the way home), then `items` (links, a title, the
 * account's area).
 * @example siteBar(navLink("/watch", watchLabel, true), accountArea.el)
 * @param {...Child} items
 */
export function siteBar(...items) {
  return h("header", { class: "topbar" }, h("a", { href: "/", class: "brand" }, "Omega"), ...items);
}

/**
 * A link of the site's bar; `current`: the page it leads to is the one shown.
 * @param {string} href
 * @param {string} label
 * @param {boolean} [current]
 */
export function navLink(href, label, current = false) {
  return h("a", { href, class: "nav-link", "aria-current": current ? "page" : null }, label);
}

/**
 * Replace an element's children.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function fill(el, ...children) {
  el.replaceChildren(...flatten(children));
  return el;
}

/** @type {WeakMap<Element, string>} */
const drawnKeys = new WeakMap();

/**
 * Redraw only when what is drawn changed: `draw` runs when `key` differs from the key of
 * the last drawing into `el`.
 * @param {Element} el
 * @param {string} key
 * @param {() => void} draw
 */
export function keyed(el, key, draw) {
  if (drawnKeys.get(el) === key) return;
  drawnKeys.set(el, key);
  draw();
}

/**
 * Copy text to the clipboard; falls back to a hidden textarea where the API is missing (plain HTTP).
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { style: "position:fixed;opacity:0", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * A "Copy" button for a link, with a short confirmation on the button itself.
 * @param {string} text
 * @param {string} [label]
 */
export function copyButton(text, label = t("Copy")) {
  const button = h("button", { type: "button", class: "btn small copy", "data-copy": text }, label);
  button.addEventListener("click", async () => {
    const ok = await copyText(text);
    button.textContent = ok ? t("Copied") : t("Copy failed");
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

/**
 * A colour swatch (a small stone).
 * @param {Color} color
 */
export function swatch(color) {
  return h("span", { class: `swatch stone-${color.toLowerCase()}`, "aria-hidden": "true" });
}

/**
 * Show the page in a theme: "light" or "dark", or "system" to follow the device.
 * @example applyTheme("dark") // <html data-theme="dark">
 * @param {string} theme
 */
export function applyTheme(theme) {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

/**
 * A form whose submit runs `run`: the sentence it returns is shown as an answer, a failure
 * as an error (in `explain`'s words), and the button is off until it ends.
 * The account area's small forms (log in, register, password, email, reset) answer so.
 * @example answeringForm("login", [row], "Log in", async () => "Welcome back.", describe)
 * @param {string} name what the form is (`data-form`)
 * @param {HTMLElement[]} rows its fields
 * @param {string} submit the button's text
 * @param {() => Promise<string | void>} run what the form does
 * @param {(err: unknown) => string} explain a failure's sentence
 * @returns {HTMLFormElement}
 */
export function answeringForm(name, rows, submit, run, explain) {
  // Not "message": the table page's own message line is the one element of that class.
  const note = h("div", { class: "account-note", role: "status" });
  const button = h("button", { type: "submit", class: "btn confirm small" }, submit);
  return /** @type {HTMLFormElement} */ (h("form", {
    class: "account-form", "data-form": name,
    /** @param {Event} e */
    onsubmit: async (e) => {
      e.preventDefault();
      button.disabled = true;
      note.className = "account-note";
      note.textContent = "";
      try {
        const said = await run();
        if (said) {
          note.className = "account-note is-info";
          note.textContent = said;
        }
      } catch (err) {
        note.className = "account-note is-error";
        note.textContent = explain(err);
      } finally {
        button.disabled = false;
      }
    },
  }, rows, note, button));
}

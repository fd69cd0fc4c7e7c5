// Tiny DOM helpers: the page has no framework, so element building stays readable here.

/** h("button", {class: "x", onclick}, "text", child) -> element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, value);
  }
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** Copy text to the clipboard; falls back to a hidden textarea where the API is missing (plain HTTP). */
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

/** A "Copy" button for a link, with a short confirmation on the button itself. */
export function copyButton(text, label = "Copy") {
  const button = h("button", { type: "button", class: "btn small copy", "data-copy": text }, label);
  button.addEventListener("click", async () => {
    const ok = await copyText(text);
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

/** A colour swatch (a small stone). */
export function swatch(color) {
  return h("span", { class: `swatch stone-${color.toLowerCase()}`, "aria-hidden": "true" });
}

// @ts-check
// The Language setting: the languages the site speaks, each named in itself; choosing one
// keeps it in a cookie and reloads the page in it (i18n.js, chooseLanguage).

import { h } from "../dom.js";
import { chooseLanguage, language, languages, t } from "../i18n.js";

/** A select of the site's languages, the page's own chosen. */
export function languageSelect() {
  const select = h("select", { class: "language-select", "aria-label": t("Language"), "data-setting": "language" },
    languages().map((l) => h("option", { value: l.code, lang: l.code, selected: l.code === language() }, l.name)));
  select.addEventListener("change", () => chooseLanguage(select.value));
  return select;
}

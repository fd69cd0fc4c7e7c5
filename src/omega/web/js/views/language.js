// @ts-check
// The Language setting: the languages the site speaks, each named in itself; choosing one
// keeps it in a cookie and reloads the page in it (i18n.js, chooseLanguage). A logged-in
// reader's account takes it too, so that notices and mails sent away from the page speak it.

import { current, setLanguage } from "../account.js";
import { h } from "../dom.js";
import { chooseLanguage, language, languages, t } from "../i18n.js";

/** A select of the site's languages, the page's own chosen. */
export function languageSelect() {
  const select = h("select", { class: "language-select", "aria-label": t("Language"), "data-setting": "language" },
    languages().map((l) => h("option", { value: l.code, lang: l.code, selected: l.code === language() }, l.name)));
  select.addEventListener("change", () => {
    const code = select.value;
    // The page reloads in the new language whether or not the account could be told (the
    // cookie holds the choice for this browser; the next change tells the account again).
    current()
      .then((who) => (who ? setLanguage(code) : null))
      .catch(() => null)
      .finally(() => chooseLanguage(code));
  });
  return select;
}

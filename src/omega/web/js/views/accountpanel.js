// @ts-check
// The logged-in Account panel's settings, loaded when the panel first opens (views/account.js
// imports this module then): the account's standing (a moderator's mute or rated ban in
// force) and, for moderators, the way to their console; notifications, this device's push,
// the vacation, and leaving (the live list's setting, the download and closing). Only
// whoever opens the panel needs them, so a table's first load does not carry them.

import { api } from "../api.js";
import { h } from "../dom.js";
import { leavingSection } from "./leaving.js";
import { notificationsSection } from "./notifications.js";
import { pushToggle } from "./push.js";
import { VacationSection } from "./vacation.js";
import { t } from "../i18n.js";

/**
 * The panel's sections, in the order they are shown: those before the password form, those
 * after it, and the last; `refresh` asks the server again for what may have changed by
 * itself since the panel was last open (a vacation that started or ended).
 * @returns {{before: HTMLElement[], after: HTMLElement[], last: HTMLElement[], refresh: () => void}}
 */
export function accountSections() {
  const vacation = new VacationSection();
  const standing = h("div", { class: "account-standing", "aria-live": "polite" });
  return {
    before: [standing, notificationsSection()],
    after: [pushToggle(), vacation.el],
    last: [leavingSection()],
    refresh: () => {
      vacation.refresh();
      drawStanding(standing);
    },
  };
}

/** @param {string | null} until */
const untilText = (until) => until === null ? t("until a moderator lifts it")
  : t("until {value}", { value: new Date(until).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) });

/**
 * What a player is told of the moderators' sanctions in force on them, and a moderator the
 * way to the console; nothing when there is neither (or the server could not be asked: the
 * rest of the panel works without it).
 * @param {HTMLElement} el
 */
function drawStanding(el) {
  Promise.all([api("GET", "/api/account"), api("GET", "/api/account/standing")]).then(([who, held]) => {
    const me = /** @type {{roles?: string[]}} */ (who);
    const standing = /** @type {{muted_until: string | null, rated_ban: {until: string | null} | null}} */ (held);
    const lines = [];
    if (standing.muted_until) lines.push(h("p", { class: "account-note is-error" }, t("You are muted {untilText}: you cannot write in the chat.", { untilText: untilText(standing.muted_until) })));
    if (standing.rated_ban) lines.push(h("p", { class: "account-note is-error" }, t("You may not play rated games {untilText}; casual tables are open.", { untilText: untilText(standing.rated_ban.until) })));
    const roles = me.roles || [];
    if (roles.includes("moderator") || roles.includes("admin")) {
      lines.push(h("a", { href: "/mod", class: "btn small", "data-action": "moderation" }, t("Moderators' console")));
    }
    el.replaceChildren(...lines);
  }, () => el.replaceChildren());
}

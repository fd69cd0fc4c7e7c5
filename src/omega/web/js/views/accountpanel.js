// @ts-check
// The logged-in Account panel's settings, loaded when the panel first opens (views/account.js
// imports this module then): notifications, this device's push, the vacation, and leaving
// (the live list's setting, the download and closing). Only whoever opens the panel needs
// them, so a table's first load does not carry them.

import { leavingSection } from "./leaving.js";
import { notificationsSection } from "./notifications.js";
import { pushToggle } from "./push.js";
import { VacationSection } from "./vacation.js";

/**
 * The panel's sections, in the order they are shown: those before the password form, those
 * after it, and the last; `refresh` asks the server again for what may have changed by
 * itself since the panel was last open (a vacation that started or ended).
 * @returns {{before: HTMLElement[], after: HTMLElement[], last: HTMLElement[], refresh: () => void}}
 */
export function accountSections() {
  const vacation = new VacationSection();
  return {
    before: [notificationsSection()],
    after: [pushToggle(), vacation.el],
    last: [leavingSection()],
    refresh: () => { vacation.refresh(); },
  };
}

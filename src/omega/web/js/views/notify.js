// @ts-check
// Telling a player it has become their move: the tab's icon gets a red dot, with the
// setting on a browser notification while the tab is hidden, and with Sound on a short
// tone (the window title is the top bar's; the controller says when the tone sounds).

import { isLoaded, isMyTurn, isLive } from "../tablestate.js";
import { t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Model} Model */

const HEX = "%3Cpolygon points='0,-10 8.7,-5 8.7,5 0,10 -8.7,5 -8.7,-5' fill='%23c9b27c'/%3E%3Ccircle r='5.5' fill='%23151518'/%3E";
/** @param {string} dot */
const ICON = (dot) => `data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='-10 -10 20 20'%3E${HEX}${dot}%3C/svg%3E`;
const PLAIN = ICON("");
const YOUR_MOVE = ICON("%3Ccircle cx='5.5' cy='-5.5' r='4.5' fill='%23d93025' stroke='white' stroke-width='1'/%3E");

export class TurnAlert {
  /** @param {string} tableId */
  constructor(tableId) {
    this.tableId = tableId;
    this.mine = false;
  }

  /**
   * @param {Model} m
   * @param {boolean} notify whether the player asked for notifications
   */
  update(m, notify) {
    const mine = isLoaded(m) && isMyTurn(m) && isLive(m);
    if (mine === this.mine) return;
    this.mine = mine;
    let link = /** @type {HTMLLinkElement | null} */ (document.querySelector('link[rel="icon"]'));
    if (!link) {
      link = document.createElement("link");
      link.rel = "icon";
      document.head.append(link);
    }
    link.href = mine ? YOUR_MOVE : PLAIN;
    link.dataset.yourMove = String(mine);
    if (mine && notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        // One per table: a newer one replaces an unread older one.
        new Notification(t("Omega: your move"), { body: t("Table {tableId}: it is your move.", { tableId: this.tableId }), tag: `omega-${this.tableId}` });
      } catch {
        // Some browsers allow notifications from a service worker only: the icon and title still say it.
      }
    }
  }
}

/**
 * Ask the browser for leave to notify (after the player switched the setting on).
 * @returns {Promise<boolean>} whether notifications are allowed
 */
export async function askToNotify() {
  if (!("Notification" in window)) return false;
  if (Notification.permission === "granted") return true;
  try {
    return (await Notification.requestPermission()) === "granted";
  } catch {
    return false;
  }
}

/** @type {AudioContext | null} */
let audio = null;

/** A short soft tone: it is your turn. Browsers allow sound only after a first click or key. */
export function chime() {
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.0001, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.15, audio.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.4);
  } catch {
    // No sound on this device: the title and the prompt still say it.
  }
}

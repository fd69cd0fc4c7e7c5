// @ts-check
// The top bar (table id, side, players, connection state, the way back to a tournament),
// the banner across the page while the connection is lost, and the window title that says
// it is your turn.

import { fill, h, keyed, siteBar } from "../dom.js";
import { tournamentOf } from "../store.js";
import { isLoaded, isMyTurn } from "../tablestate.js";
import { t } from "../i18n.js";

/** @typedef {import("../tablestate.js").Model} Model */

const CONN_LABELS = { live: t("live"), connecting: t("connecting…"), reconnecting: t("reconnecting…"), refused: t("not connected") };

export class TopBarView {
  /** @param {string} tableId */
  constructor(tableId) {
    this.tableId = tableId;
    this.conn = h("span", { class: "conn", "data-state": "connecting" }, "connecting");
    this.title = h("span", { class: "table-title" }, t("Table {tableId}", { tableId }));
    // A tournament's game opened from the tournament's page on this device links back to it
    // (the table itself does not say which tournament it is of).
    const cup = tournamentOf(tableId);
    const back = cup ? h("a", { href: `/tournaments/${encodeURIComponent(cup.id)}`, class: "nav-link back-link", title: t("Back to the tournament {cup}", { cup: cup.name }) },
      `↩ ${cup.name}`) : null;
    this.el = siteBar(back, this.title, this.conn);
    this.banner = h("div", { class: "banner", role: "status", hidden: true });
  }

  /** @param {Model} m */
  update(m) {
    const label = CONN_LABELS[m.conn] || m.conn;
    this.conn.dataset.state = m.conn;
    if (this.conn.textContent !== label) this.conn.textContent = label;
    this.banner.hidden = !(m.everLive && m.conn !== "live");
    const lost = m.conn === "refused"
      ? t("The server refused the live connection for this link. Reload the page to try again.")
      : t("Connection lost. Reconnecting… moves will appear as soon as it is back.");
    if (this.banner.textContent !== lost) this.banner.textContent = lost;
    if (!isLoaded(m)) return;
    const st = m.state;
    const noVacation = st.clock && st.clock.kind === "turn_based" && st.clock.pausable === false;
    const clock = st.clock ? ` · ${st.clock.control}${noVacation ? t(" · no vacation") : ""}` : "";
    keyed(this.title, `${st.size}|${st.players}|${st.pie_rule}|${clock}`, () =>
      fill(this.title, t("Table {tableId}", { tableId: this.tableId }), h("span", { class: "muted", title: st.clock ? `${st.clock.label}${noVacation ? t("; vacation not allowed") : ""}` : "" },
        t(" · side {size} · {players} players", { size: st.size, players: st.players }), st.pie_rule ? t(" · pie rule") : "", clock)));
    const title = isMyTurn(m) ? t("● Your turn · Omega · table {tableId}", { tableId: this.tableId }) : t("Omega · table {tableId}", { tableId: this.tableId });
    if (document.title !== title) document.title = title;
  }
}

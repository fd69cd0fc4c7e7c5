// @ts-check
// Entry point: one page, two views chosen by the path (/ = lobby, /t/{id} = table).

import { startLobby } from "./lobby.js";
import { startTable } from "./table.js";

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
const match = /^\/t\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
if (match) startTable(root, match[1]);
else startLobby(root);

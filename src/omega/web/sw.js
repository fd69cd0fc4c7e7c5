// @ts-check
// The site's service worker (served at /sw.js, its scope the whole site): it shows the
// notifications the server pushes (docs/server-api.md, Web Push: {title, body, url, tag})
// and, when one is clicked, focuses a window already on its page or opens one. It caches
// nothing: the page is always the server's, so a player never plays on a stale copy.

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const ICON = "/static/icons/omega-192.png";

// A new version takes over at once: it only shows notifications, so no page depends on the old one.
sw.addEventListener("install", () => { sw.skipWaiting(); });
sw.addEventListener("activate", (event) => { event.waitUntil(sw.clients.claim()); });

/**
 * A path of this site only: a message cannot send a click elsewhere.
 * @param {unknown} url
 */
function sitePath(url) {
  try {
    const target = new URL(typeof url === "string" ? url : "/", sw.location.origin);
    return target.origin === sw.location.origin ? target.href : sw.location.origin + "/";
  } catch {
    return sw.location.origin + "/";
  }
}

sw.addEventListener("push", (event) => {
  /** @type {{title?: string, body?: string, url?: string, tag?: string}} */
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  // The tag is the notice's key: a notice delivered twice (a retry) replaces itself.
  event.waitUntil(sw.registration.showNotification(message.title || "Omega", {
    body: message.body || "",
    tag: message.tag || undefined,
    icon: ICON,
    badge: ICON,
    data: { url: sitePath(message.url) },
  }));
});

sw.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sitePath(event.notification.data && event.notification.data.url);
  event.waitUntil((async () => {
    const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((w) => w.url === url) || null;
    if (open) {
      await open.focus();
      return;
    }
    await sw.clients.openWindow(url);
  })());
});

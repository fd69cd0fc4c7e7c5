"""Web Push: the site's VAPID keys, each account's subscribed devices, and the channel that
sends a notice to them (``docs/server-api.md``, Web Push)."""

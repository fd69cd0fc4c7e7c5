"""The Web Push channel: a notice sent to every device of its player, encrypted for each
(RFC 8291, ``aes128gcm``) and signed with the site's VAPID key (RFC 8292) by ``pywebpush``.

What a push service answers decides what happens next: 2xx it took the message; 404 or 410
the device is gone (unsubscribed, uninstalled), so it is forgotten; 429, 5xx, a timeout or
no answer are :class:`~omega.server.notify.notices.DeliveryFailed`, so the notice is tried
again later; any other answer (a message refused as it is) is logged and not retried.  A
retry goes to every device again: the same ``Topic`` and notification ``tag`` (both from the
notice's key) make a device that already had it replace it rather than show it twice.
The notice's words come as the notify service stored them: in its account's language.

>>> PushOptions(subject="admin@omega.example")
Traceback (most recent call last):
...
ValueError: a VAPID subject is a mailto: or https: URL, not 'admin@omega.example'
>>> payload(Notice(user_id=1, kind="your_turn", key="your_turn:t1:4", subject="Your turn",
...                text="Ann moved at table t1.", path="/t/t1"))
'{"title":"Your turn","body":"Ann moved at table t1.","url":"/t/t1","tag":"your_turn:t1:4"}'
>>> len(topic("your_turn:t1:4"))
32
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from omega.server.notify.notices import DeliveryFailed, Notice
from omega.server.push.store import Device, PushStore, VapidKeys
from omega.server.tables.core import TableCore

if TYPE_CHECKING:
    from py_vapid import Vapid02

__all__ = ["PushOptions", "PushChannel", "payload", "topic", "PAYLOAD_MAX", "VAPID_LIFETIME"]

log = logging.getLogger("omega.server.push")

#: Bytes of a message's JSON at most: push services take 4096 after encryption, which adds
#: 103 (RFC 8291's header, padding delimiter and tag); the notice's text is cut to fit.
PAYLOAD_MAX = 3800
#: Seconds a VAPID signature is good for (its ``exp``); push services refuse over 24 hours.
VAPID_LIFETIME = 12 * 3600
#: What :meth:`PushChannel._send` says of a device its push service no longer knows.
_GONE = "gone"
#: The contact a push service may write to about the site's pushes, when none is configured.
_NO_SUBJECT = "mailto:admin@localhost"


@dataclass(frozen=True)
class PushOptions:
    """How the site pushes: ``subject``, the VAPID contact (``mailto:`` or ``https:``; in
    production ``OMEGA_VAPID_SUBJECT``); ``loopback``: endpoints on this machine are accepted
    (tests, which run their own push service); ``devices_per_account``: subscriptions an
    account may have; ``timeout``: seconds to wait for a push service; ``ttl``: seconds the
    push service keeps a message for a device that is offline."""

    subject: str = _NO_SUBJECT
    loopback: bool = False
    devices_per_account: int = 10
    timeout: float = 10.0
    ttl: int = 86400

    def __post_init__(self) -> None:
        if not self.subject.startswith(("mailto:", "https://")):
            raise ValueError(f"a VAPID subject is a mailto: or https: URL, not {self.subject!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> PushOptions:
        """The options of ``omega serve``: the subject from ``OMEGA_VAPID_SUBJECT``.

        >>> PushOptions.from_env({"OMEGA_VAPID_SUBJECT": "https://omega.example"}).subject
        'https://omega.example'
        """
        subject = environ.get("OMEGA_VAPID_SUBJECT", "").strip()
        if not subject:
            log.warning("OMEGA_VAPID_SUBJECT is not set: push services are given %s as the site's contact",
                        _NO_SUBJECT)
        return cls(subject=subject or _NO_SUBJECT)


def _cut(text: str, size: int) -> str:
    """``text`` in at most ``size`` bytes of UTF-8, cut between characters."""
    return text.encode()[:max(size, 0)].decode(errors="ignore")


def payload(notice: Notice) -> str:
    """The message a device gets: the notice's subject, text, path and key as JSON (the
    text cut so that the whole is at most :data:`PAYLOAD_MAX` bytes)."""
    fields = {"title": notice.subject[:200], "body": "", "url": notice.path, "tag": notice.key}
    room = PAYLOAD_MAX - len(json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode())
    # JSON escapes quotes, backslashes and control characters: cut until it fits.
    body = _cut(notice.text, room)
    while True:
        fields["body"] = body
        encoded = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
        if len(encoded.encode()) <= PAYLOAD_MAX:
            return encoded
        body = _cut(body, len(body.encode()) - (len(encoded.encode()) - PAYLOAD_MAX))


def topic(key: str) -> str:
    """The ``Topic`` of a notice's pushes (RFC 8030: at most 32 base64url characters): a
    push service holding an undelivered message of the same topic replaces it."""
    return base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest()[:24]).decode()


class PushChannel:
    """The ``push`` channel of :mod:`omega.server.notify` (``notices.Channel``): ``deliver``
    sends a notice to every device of its player.  Its store and the site's public key serve
    the routes too."""

    name = "push"

    def __init__(self, core: TableCore, store: PushStore, options: PushOptions) -> None:
        self.core = core
        self.store = store
        self.clock = core.clock
        self.options = options
        self._keys: VapidKeys | None = None

    async def keys(self) -> VapidKeys:
        """The site's VAPID key pair (made and stored at the first need of any process)."""
        if self._keys is None:
            self._keys = await self.core.db(self.store.site_keys, self.clock.now())
        return self._keys

    async def deliver(self, notice: Notice) -> None:
        """Send ``notice`` to each of its player's devices (see the module's note)."""
        devices = await self.core.db(self.store.devices, notice.user_id)
        if not devices:
            return
        from py_vapid import Vapid02  # on the first push: a server that sends none never loads it

        signer = Vapid02.from_raw((await self.keys()).private_key.encode())
        data, headers = payload(notice), {"Topic": topic(notice.key)}
        answers = await asyncio.gather(*(asyncio.to_thread(self._send, signer, d, data, headers) for d in devices))
        for device, answer in zip(devices, answers, strict=True):
            if answer == _GONE:
                await self.core.db(self.store.remove, device)
        failed = [f"{d.service}: {why}" for d, why in zip(devices, answers, strict=True) if why not in (None, _GONE)]
        if failed:
            raise DeliveryFailed(f"{len(failed)} of {len(devices)} devices not reached: {'; '.join(failed)}")

    def _send(self, signer: Vapid02, device: Device, data: str, headers: dict[str, str]) -> str | None:
        """Post to one device (blocking, in a thread): None (done), :data:`_GONE`, or why it
        must be tried again."""
        parts = urlsplit(device.endpoint)
        claims = {"sub": self.options.subject, "aud": f"{parts.scheme}://{parts.netloc}",
                  "exp": int(self.clock.now().timestamp()) + VAPID_LIFETIME}
        info = {"endpoint": device.endpoint, "keys": {"p256dh": device.p256dh, "auth": device.auth}}
        # Imported on the first push: a server that sends none never loads them (with aiohttp).
        import requests
        from pywebpush import WebPushException, webpush

        with requests.Session() as session:
            session.max_redirects = 0  # a redirect is never followed: the endpoint was checked, not its target
            try:
                webpush(info, data, headers={**headers, **signer.sign(claims)}, ttl=self.options.ttl,
                        timeout=self.options.timeout, requests_session=session)
                return None
            except WebPushException as e:
                status = e.status_code
                if status in (404, 410):
                    return _GONE
                if status is None or status == 429 or status >= 500:
                    return f"answered {status}"
                log.warning("push to %s refused (%s): not retried", device.service, status)
                return None
            except requests.TooManyRedirects:
                log.warning("push to %s answered a redirect: not followed, not retried", device.service)
                return None
            except requests.RequestException as e:
                return f"no answer ({type(e).__name__})"

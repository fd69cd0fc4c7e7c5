"""The notify service: what other features call to tell a player something (a
:class:`~omega.server.notify.notices.Notice`), and the account's preferences.

:meth:`Notifier.queue` (inside the caller's transaction) or :meth:`Notifier.notify` (in a
transaction of its own) checks the player's per-kind, per-channel preference and stores one
delivery per channel that wants it, each with a ``due`` row of kind ``notify``: the key is
unique per channel, so a notice told twice is delivered once.  The ``notify`` handler hands
the notice to its channel (:meth:`Channel.deliver`); a :class:`DeliveryFailed` is retried with
the outbox's back-off, and given up after as many tries, with one log line.

A notice is stored in its recipient's language: :meth:`Notifier.queue` reads the account's
(``language_of``, in the same transaction) and puts the notice's messages in it
(:meth:`Notice.in_language`), so every channel sends the words it finds.

Unsubscribe links carry a token signed with the site's key (``infra.keys``): the account and
the kind, so a click turns that kind off for mail without logging in, and a forged or altered
token is refused.

>>> key = b"k" * 32
>>> token = unsubscribe_token(key, 7, "your_turn")
>>> read_unsubscribe_token(key, token), read_unsubscribe_token(key, token.replace("7.", "8.", 1))
((7, 'your_turn'), None)
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from sqlalchemy.engine import Connection

from omega.i18n import DEFAULT
from omega.server.infra.due import Due, keep_due_row
from omega.server.infra.keys import sign, verify
from omega.server.infra.scheduler import Host, Scheduler
from omega.server.notify import store
from omega.server.notify.notices import KINDS, Channel, DeliveryFailed, Notice
from omega.server.notify.outbox import MAX_TRIES, retry_delay
from omega.server.notify.store import Preferences

__all__ = ["NOTIFY", "Notifier", "LanguageOf", "unsubscribe_token", "read_unsubscribe_token", "UNSUBSCRIBE_PURPOSE"]

log = logging.getLogger("omega.server")

#: The kind of due work that delivers one notice by one channel (``table_id``: its id).
NOTIFY = "notify"
#: What an unsubscribe token's signature is for (never valid for another purpose).
UNSUBSCRIBE_PURPOSE = "unsubscribe"
#: Seconds a delivery's claim lasts: a channel that hangs past it may be tried elsewhere.
_LEASE = 120.0
#: An account's language, read in the caller's transaction (``omega.i18n.DEFAULT``: none chosen).
LanguageOf = Callable[[Connection, int], str]


def _english(conn: Connection, user_id: int) -> str:
    return DEFAULT


def unsubscribe_token(key: bytes, user_id: int, kind: str) -> str:
    """The token of an unsubscribe link: ``<user>.<kind>.<signature>``."""
    return f"{user_id}.{kind}.{sign(key, UNSUBSCRIBE_PURPOSE, str(user_id), kind)}"


def read_unsubscribe_token(key: bytes, token: str) -> tuple[int, str] | None:
    """The account and kind of a well-signed token, else None."""
    user, _, rest = token.partition(".")
    kind, _, mac = rest.partition(".")
    if not (user.isascii() and user.isdigit() and len(user) < 19) or kind not in KINDS or not mac:
        return None
    if not verify(key, mac, UNSUBSCRIBE_PURPOSE, user, kind):
        return None
    return int(user), kind


class Notifier:
    """Notices to channels, for the processes of ``host`` (a ``TableCore``); ``language_of``
    reads an account's language (the notices and mails speak it; English without it)."""

    def __init__(self, host: Host, key: Callable[[], bytes], language_of: LanguageOf = _english) -> None:
        self.host = host
        self._key = key
        self.language_of = language_of
        self.channels: dict[str, Channel] = {}
        #: Per kind, whether a notice still holds (a "your turn" after the player moved does
        #: not): asked by a channel that holds notices back, as the digest does.
        self.checks: dict[str, Callable[[Notice], Awaitable[bool]]] = {}
        self._scheduler: Scheduler | None = None

    async def key(self) -> bytes:
        """The site's key that signs unsubscribe links (made at first use: a write of its own,
        so never asked for inside another transaction)."""
        return await self.host.db(self._key)

    def add_channel(self, channel: Channel) -> None:
        """Deliver notices by ``channel`` too (its ``name`` is its preference key)."""
        self.channels[channel.name] = channel

    async def still_holds(self, notice: Notice) -> bool:
        """Whether ``notice`` is still true (kinds without a check always are)."""
        check = self.checks.get(notice.kind)
        return True if check is None else await check(notice)

    def install(self, scheduler: Scheduler) -> None:
        """Handle the ``notify`` due work in this process."""
        scheduler.handle(NOTIFY, self.deliver, lease=_LEASE, capacity=16)
        self._scheduler = scheduler

    def wake(self) -> None:
        """Deliver what was queued now (after the commit of a :meth:`queue`)."""
        if self._scheduler is not None:
            self._scheduler.wake()

    # -- telling ----------------------------------------------------------------------------

    def queue(self, conn: Connection, notice: Notice, now: datetime) -> int:
        """Queue ``notice`` for each channel the player wants it by, inside the caller's
        transaction, in the player's language; returns how many deliveries were stored (0:
        none wanted, or told before)."""
        prefs = store.preferences(conn, notice.user_id)
        if not any(prefs.allows(notice.kind, name) for name in self.channels):
            return 0
        notice = notice.in_language(self.language_of(conn, notice.user_id))
        stored = 0
        for name in self.channels:
            if not prefs.allows(notice.kind, name):
                continue
            delivery = store.add_delivery(conn, notice, name, now)
            if delivery is not None:
                keep_due_row(conn, NOTIFY, str(delivery), 0, now)
                stored += 1
        return stored

    async def notify(self, notice: Notice) -> int:
        """:meth:`queue` in a transaction of its own, delivered soon."""
        def run() -> int:
            with self.host.repo.writing() as conn:
                return self.queue(conn, notice, self.host.clock.now())

        stored = await self.host.db(run)
        if stored:
            self.wake()
        return stored

    # -- delivering -------------------------------------------------------------------------

    async def deliver(self, due: Due) -> datetime | None:
        """The ``notify`` handler: one notice by one channel, unless turned off meanwhile."""
        host = self.host
        delivery_id = int(due.table_id)

        def read() -> tuple[store.Delivery | None, Preferences]:
            with host.repo.engine.connect() as conn, conn.begin():
                found = store.read_delivery(conn, delivery_id)
                return found, store.preferences(conn, found.notice.user_id) if found else Preferences()

        delivery, prefs = await host.db(read)
        if delivery is None or delivery.done:
            return None
        channel = self.channels.get(delivery.channel)
        wanted = prefs.allows(delivery.notice.kind, delivery.channel)
        if channel is None and wanted:
            # A channel this process lacks (configured on other processes): theirs to deliver.
            return host.clock.now() + retry_delay(1)
        if channel is not None and wanted:
            try:
                await channel.deliver(delivery.notice)
            except DeliveryFailed as e:
                tries = delivery.tries + 1
                if tries < MAX_TRIES:
                    await host.db(self._tried, delivery_id, tries)
                    return host.clock.now() + retry_delay(tries)
                log.warning("notice %d (%s by %s) given up after %d tries: %s", delivery_id, delivery.notice.kind,
                            delivery.channel, tries, e)
                await host.db(self._close, delivery_id, "given_up_at")
                return None
        # Delivered (or no longer wanted): marked so with its due row gone, in one commit.
        await host.db(self._close, delivery_id, "delivered_at")
        return None

    def _tried(self, delivery_id: int, tries: int) -> None:
        with self.host.repo.writing() as conn:
            store.tried_delivery(conn, delivery_id, tries)

    def _close(self, delivery_id: int, column: str) -> None:
        with self.host.repo.writing() as conn:
            store.close_delivery(conn, delivery_id, column, self.host.clock.now(), NOTIFY, self.host.server_id)

    # -- preferences ------------------------------------------------------------------------

    async def preferences(self, user_id: int) -> Preferences:
        """``user_id``'s preferences."""
        def read() -> Preferences:
            with self.host.repo.engine.connect() as conn, conn.begin():
                return store.preferences(conn, user_id)

        return await self.host.db(read)

    async def set_preferences(self, user_id: int, prefs: Preferences) -> Preferences:
        """Replace ``user_id``'s preferences."""
        def write() -> Preferences:
            with self.host.repo.writing() as conn:
                store.save_preferences(conn, user_id, prefs, self.host.clock.now())
            return prefs

        return await self.host.db(write)

    async def check_unsubscribe(self, token: str) -> tuple[int, str] | None:
        """The account and kind of an unsubscribe token (None: a bad one); changes nothing."""
        return read_unsubscribe_token(await self.key(), token)

    async def unsubscribe(self, token: str) -> tuple[int, str] | None:
        """Turn off mail of the token's kind for its account (None: a bad token, nothing done)."""
        read = read_unsubscribe_token(await self.key(), token)
        if read is None:
            return None
        user_id, kind = read

        def write() -> None:
            with self.host.repo.writing() as conn:
                store.turn_off(conn, user_id, kind, "mail", self.host.clock.now())

        await self.host.db(write)
        return read

"""The mail channel: a notice becomes a mail in the outbox (``outbox.queue_mail``, under the
key ``notice:<key>``, so a delivery retried after a crash queues it once), with a one-click
unsubscribe link (RFC 8058: ``List-Unsubscribe`` and ``List-Unsubscribe-Post``) and the
account's address read when it is sent for.  A player who chose the digest gets "your turn"
notices gathered: the first waits :data:`DIGEST_WAIT` for others, then one mail tells them all
(due work of kind ``digest`` per account).  A mail speaks its account's language, read
when it is made (``Notifier.language_of``); the notices in it were stored in that language.

An account without a verified address gets no mail: the delivery is done (dropped), since
retrying could never succeed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.engine import Connection

from omega.server.infra.due import Due, DueRow, keep_due_row
from omega.server.infra.scheduler import Host, Scheduler
from omega.server.notify import store
from omega.server.notify.mailer import MailSettings
from omega.server.notify.notices import Notice
from omega.server.notify.outbox import Outbox, queue_mail
from omega.server.notify.service import Notifier, unsubscribe_token
from omega.server.notify.texts import DigestItem, Rendered, render, render_digest

__all__ = ["MailChannel", "DIGEST", "DIGEST_WAIT", "UNSUBSCRIBE_PATH", "SETTINGS_PATH", "AddressOf"]

#: The kind of due work that sends an account's digest (``table_id``: the account's id).
DIGEST = "digest"
#: How long the first "your turn" of a digest waits for others: long enough to gather the
#: moves of a day's evening, short enough that a day-a-move player still has most of the day.
DIGEST_WAIT = timedelta(hours=4)
#: The unsubscribe link's path (``routes.py`` answers it).
UNSUBSCRIBE_PATH = "/mail/unsubscribe"
#: Where the account's notification settings are: the site, whose Account menu has them.
SETTINGS_PATH = "/"
#: The verified address of an account, read in the caller's transaction (None: none).
AddressOf = Callable[[Connection, int], str | None]


class MailChannel:
    """Notices by mail, through ``outbox``; ``address_of`` reads an account's address."""

    name = "mail"

    def __init__(self, host: Host, notifier: Notifier, outbox: Outbox, settings: MailSettings,
                 address_of: AddressOf) -> None:
        self.host = host
        self.notifier = notifier
        self.outbox = outbox
        self.settings = settings
        self.address_of = address_of

    def install(self, scheduler: Scheduler) -> None:
        """Handle the ``digest`` due work in this process."""
        scheduler.handle(DIGEST, self.send_digest, lease=120.0, capacity=4)

    def _links(self, key: bytes, user_id: int, kind: str) -> tuple[str, str]:
        site = self.settings.site_url
        return (f"{site}{UNSUBSCRIBE_PATH}?t={unsubscribe_token(key, user_id, kind)}", f"{site}{SETTINGS_PATH}")

    def _queue(self, conn: Connection, to: str, unsubscribe: str, mail: Rendered, key: str, now: datetime) -> None:
        headers = {"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                   # Not a conversation: auto-responders keep quiet (RFC 3834).
                   "Auto-Submitted": "auto-generated"}
        queue_mail(conn, to=to, subject=mail.subject, text=mail.text, html=mail.html, headers=headers, key=key,
                   now=now)

    async def deliver(self, notice: Notice) -> None:
        """Queue the mail of ``notice`` (or keep it for the digest)."""
        host = self.host
        signing = await self.notifier.key()

        def write() -> None:
            with host.repo.writing() as conn:
                now = host.clock.now()
                to = self.address_of(conn, notice.user_id)
                if to is None:
                    return
                prefs = store.preferences(conn, notice.user_id)
                if notice.kind == "your_turn" and prefs.digest:
                    if store.add_digest(conn, notice, now):
                        # The first waiting notice sets the time; later ones join it (the
                        # row of an unsent digest keeps its time: same version).
                        keep_due_row(conn, DIGEST, str(notice.user_id), 0, now + DIGEST_WAIT)
                    return
                unsubscribe, settings = self._links(signing, notice.user_id, notice.kind)
                mail = render(notice.kind, notice.subject, notice.text, self.settings.site_url + notice.path,
                              unsubscribe, settings, self.notifier.language_of(conn, notice.user_id))
                self._queue(conn, to, unsubscribe, mail, f"notice:{notice.key}", now)

        await host.db(write)
        self.outbox.wake()

    async def send_digest(self, due: Due) -> datetime | None:
        """The ``digest`` handler: one mail of every turn still waiting for the account.  The
        notices go in the commit that queues their mail, so a crash between loses none."""
        host = self.host
        user_id = int(due.table_id)
        signing = await self.notifier.key()

        def read() -> list[tuple[int, Notice]]:
            with host.repo.engine.connect() as conn, conn.begin():
                return store.waiting_digest(conn, user_id)

        waiting = await host.db(read)
        # Only the turns still waiting for the player: one they played meanwhile is no news.
        notices = [n for _, n in waiting if await self.notifier.still_holds(n)]

        def write() -> None:
            with host.repo.writing() as conn:
                now = host.clock.now()
                conn.execute(delete(DueRow).where(DueRow.kind == DIGEST, DueRow.table_id == due.table_id,
                                                  DueRow.claimed_by == host.server_id))
                if waiting and store.drop_digest(conn, [i for i, _ in waiting]):
                    # Kept while this one was read (its row was this claim's): a digest of its own.
                    keep_due_row(conn, DIGEST, due.table_id, 0, now + DIGEST_WAIT)
                to = self.address_of(conn, user_id)
                if not notices or to is None:
                    return
                unsubscribe, settings = self._links(signing, user_id, "your_turn")
                site = self.settings.site_url
                mail = render_digest([DigestItem(n.subject, site + n.path) for n in notices], unsubscribe, settings,
                                     self.notifier.language_of(conn, user_id))
                # Keyed by its first notice: a digest retried after a crash is queued once.
                self._queue(conn, to, unsubscribe, mail, f"digest:{notices[0].key}", now)

        await host.db(write)
        self.outbox.wake()
        return None

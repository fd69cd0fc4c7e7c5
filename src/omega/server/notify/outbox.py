"""The outbox: every mail the site sends is first a row of the database, queued in the
transaction of what makes it (a notice, a verification link, a password reset), and sent as
due work of kind ``mail``: so a crash, a kill -9 or a dead SMTP server loses none.

**Queueing.** :func:`queue_mail` inside the caller's transaction (any feature: accounts
queue their links here), or :meth:`Outbox.queue` in a transaction of its own.  Each mail
gets a ``due`` row ``("mail", "<id>")``; the scheduler claims it once across processes.

**Sending.** :meth:`Outbox.send`, the ``mail`` handler: builds the message (its Message-ID
made from the row's token, the same at every try), hands it to the :class:`Mailer`, then
marks it sent and removes its due row in one transaction.  The only window for a duplicate
is a process killed after the SMTP server took the mail and before that commit: the second
copy then carries the same Message-ID, which mail clients use to show one.

**Retries.** A server that is down (:class:`MailUnavailable`) is tried again after
:func:`retry_delay` (1 minute, doubling, at most an hour), on the injected clock; after
:data:`MAX_TRIES` tries (about 7 hours) the mail is given up with one log line (its id and
Message-ID: never its address or its text, which may hold a secret link).  A mail refused
for good (:class:`MailRefused`, a 5xx answer) is given up at once.  A sent or given-up
mail's text is cleared: a reset link must not outlive its sending in the database.

>>> from datetime import UTC, datetime
>>> from omega.server.infra.db import make_engine
>>> from omega.server.infra.due import DueQueue
>>> db = DueQueue(make_engine("sqlite://")); db.migrate()
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> with db.writing() as conn:
...     first = queue_mail(conn, to="ann@example.org", subject="Hello", text="Hi Ann", now=now, key="hello:ann")
...     again = queue_mail(conn, to="ann@example.org", subject="Hello", text="Hi Ann", now=now, key="hello:ann")
>>> first == again, db.due_version(MAIL, str(first))
(True, 0)
>>> [retry_delay(n).total_seconds() for n in (1, 2, 3, 8)]
[60.0, 120.0, 240.0, 3600.0]
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Integer, String, Text, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base, utc
from omega.server.infra.due import Due, DueRow, keep_due_row
from omega.server.infra.scheduler import Host, Scheduler
from omega.server.notify.mailer import SMTP_TIMEOUT, Mailer, MailRefused, MailSettings, MailUnavailable

__all__ = ["MAIL", "MAX_TRIES", "MAIL_LEASE", "OutboxRow", "Mail", "queue_mail", "retry_delay", "Outbox"]

log = logging.getLogger("omega.server")

#: The kind of due work that sends one mail (``table_id``: the mail's id).
MAIL = "mail"
#: Tries before a mail is given up: with :func:`retry_delay` about 7 hours of an SMTP
#: server down (a longer outage is an operator's to see; the user can ask again).
MAX_TRIES = 12
#: A claim of a mail lasts this long: well past one SMTP conversation's timeout, so a slow
#: server is never sent the same mail by a second process while the first still talks.
MAIL_LEASE = 4 * SMTP_TIMEOUT
_FIRST_RETRY = 60.0
_LONGEST_RETRY = 3600.0
#: Headers a caller may not set: the outbox writes them itself.
_OWN_HEADERS = frozenset({"message-id", "from", "to", "subject", "date", "content-type",
                          "content-transfer-encoding", "mime-version"})


class OutboxRow(Base):
    """One mail: queued (``sent_at`` and ``given_up_at`` NULL), sent, or given up."""

    __tablename__ = "outbox"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: The caller's idempotency key (e.g. ``notice:<key>``): a mail queued twice is one.
    key: Mapped[str | None] = mapped_column(String(160), unique=True, nullable=True)
    #: The left side of the Message-ID, fixed at queueing (the same at every try).
    token: Mapped[str] = mapped_column(String(64), unique=True)
    to_address: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text)
    html: Mapped[str | None] = mapped_column(Text, nullable=True)
    headers: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    tries: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    given_up_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


@dataclass(frozen=True)
class Mail:
    """A queued mail as the sender reads it."""

    id: int
    token: str
    to_address: str
    subject: str
    text: str
    html: str | None
    headers: dict[str, str]
    tries: int
    done: bool


def retry_delay(tries: int) -> timedelta:
    """How long to wait after the ``tries``-th failed try: a minute, doubling, at most an hour."""
    return timedelta(seconds=min(_LONGEST_RETRY, _FIRST_RETRY * 2 ** max(0, tries - 1)))


def queue_mail(conn: Connection, *, to: str, subject: str, text: str, now: datetime, html: str | None = None,
               headers: Mapping[str, str] | None = None, key: str | None = None) -> int:
    """Queue one mail inside the caller's transaction (it is sent once that commits) and
    return its id.  ``text`` is the plain body, ``html`` an optional HTML alternative (the
    caller escapes what it puts in), ``headers`` extra headers (``List-Unsubscribe``, ...;
    not the ones the outbox writes itself: ``ValueError``).  With ``key``, a mail already
    queued under the same key is not queued again: its id is returned.

    The mail is due at ``now``; a process's scheduler finds it at its next round (at most
    ``Settings.sweep_interval``) or at once after :meth:`Scheduler.wake`.
    """
    extra = dict(headers or {})
    own = sorted(h for h in extra if h.lower() in _OWN_HEADERS)
    if own:
        raise ValueError(f"the outbox writes {', '.join(own)} itself")
    if any("\n" in v or "\r" in v for v in (to, subject, *extra.keys(), *extra.values())):
        raise ValueError("a mail header cannot hold a line break")
    values: dict[str, Any] = {"key": key, "token": secrets.token_hex(16), "to_address": to, "subject": subject,
                              "text": text, "html": html, "headers": extra, "created_at": now, "tries": 0}
    if key is None:
        mail_id = int(conn.execute(insert(OutboxRow).values(**values)
                                   .returning(OutboxRow.id)).scalar_one())
    else:
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        inserted = conn.execute(dialect_insert(OutboxRow).values(**values)
                                .on_conflict_do_nothing(index_elements=["key"]).returning(OutboxRow.id)).scalar()
        if inserted is None:  # queued before under this key: nothing new to send
            return int(conn.execute(select(OutboxRow.id).where(OutboxRow.key == key)).scalar_one())
        mail_id = int(inserted)
    keep_due_row(conn, MAIL, str(mail_id), 0, now)
    return mail_id


def _read(conn: Connection, mail_id: int) -> Mail | None:
    row = conn.execute(select(OutboxRow.__table__).where(OutboxRow.id == mail_id)).first()
    if row is None:
        return None
    return Mail(row.id, row.token, row.to_address, row.subject, row.text, row.html, dict(row.headers or {}),
                row.tries, row.sent_at is not None or row.given_up_at is not None)


class Outbox:
    """The site's outbox on ``host``'s database, sending through ``mailer``.

    ``install(scheduler)`` makes this process send (``omega serve`` and ``omega worker``
    both do: whichever claims a mail first sends it)."""

    def __init__(self, host: Host, mailer: Mailer, settings: MailSettings) -> None:
        self.host = host
        self.mailer = mailer
        self.settings = settings
        self._scheduler: Scheduler | None = None

    def install(self, scheduler: Scheduler) -> None:
        """Handle the ``mail`` due work in this process."""
        scheduler.handle(MAIL, self.send, lease=MAIL_LEASE, capacity=8)
        self._scheduler = scheduler
        log.info("mail goes to %s, from %s", self.mailer.where, self.settings.mail_from)

    def wake(self) -> None:
        """Look for mail to send now (call after committing a :func:`queue_mail`)."""
        if self._scheduler is not None:
            self._scheduler.wake()

    async def queue(self, *, to: str, subject: str, text: str, html: str | None = None,
                    headers: Mapping[str, str] | None = None, key: str | None = None) -> int:
        """:func:`queue_mail` in a transaction of its own, then send it soon."""
        def store() -> int:
            with self.host.repo.writing() as conn:
                return queue_mail(conn, to=to, subject=subject, text=text, now=self.host.clock.now(), html=html,
                                  headers=headers, key=key)

        mail_id = await self.host.db(store)
        self.wake()
        return mail_id

    def message(self, mail: Mail, now: datetime) -> EmailMessage:
        """The message of ``mail``: plain text, with an HTML alternative when it has one."""
        msg = EmailMessage()
        msg["Message-ID"] = f"<{mail.token}@{self.settings.sender_domain}>"
        msg["From"] = self.settings.mail_from
        msg["To"] = mail.to_address
        msg["Subject"] = mail.subject
        msg["Date"] = format_datetime(now)
        for name, value in mail.headers.items():
            msg[name] = value
        msg.set_content(mail.text)
        if mail.html is not None:
            msg.add_alternative(mail.html, subtype="html")
        return msg

    async def send(self, due: Due) -> datetime | None:
        """The ``mail`` handler: send the mail once; returns when to try again, or None."""
        host = self.host
        mail_id = int(due.table_id)

        def read() -> Mail | None:
            with host.repo.engine.connect() as conn, conn.begin():
                return _read(conn, mail_id)

        mail = await host.db(read)
        if mail is None or mail.done:
            return None
        try:
            await self.mailer.send(self.message(mail, host.clock.now()))
        except MailRefused as e:
            await host.db(self._close, mail_id, "given_up_at", None)
            log.warning("mail %d <%s@%s> given up: %s", mail_id, mail.token, self.settings.sender_domain, e)
            return None
        except MailUnavailable as e:
            tries = mail.tries + 1
            if tries >= MAX_TRIES:
                await host.db(self._close, mail_id, "given_up_at", None)
                log.warning("mail %d <%s@%s> given up after %d tries: %s", mail_id, mail.token,
                            self.settings.sender_domain, tries, e)
                return None
            await host.db(self._tried, mail_id, tries)
            again = host.clock.now() + retry_delay(tries)
            log.info("mail %d not sent (try %d of %d: %s); next try at %s", mail_id, tries, MAX_TRIES, e,
                     again.isoformat(timespec="seconds"))
            return again
        # Sent: marked so, and its due row gone, in one commit (the claim's own row).
        await host.db(self._close, mail_id, "sent_at", due)
        log.info("mail %d sent (try %d)", mail_id, mail.tries + 1)
        return None

    def _tried(self, mail_id: int, tries: int) -> None:
        with self.host.repo.writing() as conn:
            conn.execute(update(OutboxRow).where(OutboxRow.id == mail_id).values(tries=tries))

    def _close(self, mail_id: int, column: str, due: Due | None) -> None:
        host = self.host
        with host.repo.writing() as conn:
            conn.execute(update(OutboxRow).where(OutboxRow.id == mail_id, OutboxRow.sent_at.is_(None),
                                                 OutboxRow.given_up_at.is_(None))
                         .values({column: host.clock.now(), "tries": OutboxRow.tries + 1, "text": "", "html": None}))
            if due is not None:
                conn.execute(delete(DueRow).where(
                    DueRow.kind == MAIL, DueRow.table_id == due.table_id, DueRow.claimed_by == host.server_id))

    def sent_at(self, mail_id: int) -> datetime | None:
        """When mail ``mail_id`` was sent (None: not yet, or never)."""
        with self.host.repo.engine.connect() as conn, conn.begin():
            moment = conn.execute(select(OutboxRow.sent_at).where(OutboxRow.id == mail_id)).scalar_one_or_none()
        return None if moment is None else utc(moment)

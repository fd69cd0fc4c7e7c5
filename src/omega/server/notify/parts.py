"""The notify feature's parts in one process (``omega serve`` and ``omega worker`` alike): the
outbox and its mailer, the notifier with its mail channel, and the tables' hooks, each
registering its due work with the process's scheduler.

>>> from omega.server.infra.db import make_engine
>>> from omega.server.tables.identity import AccountAuthenticator
>>> from omega.server.tables.presence import Presence
>>> from omega.server.tables.store import Repository
>>> from pathlib import Path
>>> from omega.server.clock import FakeClock
>>> core = TableCore(Repository(make_engine("sqlite://")), FakeClock(), AccountAuthenticator())
>>> parts = build(core, Scheduler(core, Presence(core)), MailSettings(directory=Path("/tmp/mail")))
>>> sorted(parts.notifier.channels), parts.outbox.mailer.where
(['mail'], 'files in /tmp/mail')
>>> core.close()
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.engine import Connection

from omega.i18n import DEFAULT, LANGUAGES
from omega.server.accounts.models import UserRow
from omega.server.infra.keys import site_key
from omega.server.infra.scheduler import Scheduler
from omega.server.notify.mail import MailChannel
from omega.server.notify.mailer import MailSettings, mailer_for
from omega.server.notify.outbox import Outbox
from omega.server.notify.service import Notifier
from omega.server.notify.turns import TableNotices, install
from omega.server.tables.core import TableCore

__all__ = ["NotifyParts", "build", "verified_address", "account_language"]


@dataclass(frozen=True)
class NotifyParts:
    """What :func:`build` made."""

    outbox: Outbox
    notifier: Notifier
    mail: MailChannel
    tables: TableNotices


def verified_address(conn: Connection, user_id: int) -> str | None:
    """The account's verified address (``users.email``), None without one."""
    return conn.execute(select(UserRow.email).where(UserRow.id == user_id)).scalar_one_or_none()


def account_language(conn: Connection, user_id: int) -> str:
    """The account's language (``users.language``), English without one."""
    found = conn.execute(select(UserRow.language).where(UserRow.id == user_id)).scalar_one_or_none()
    return found if found in LANGUAGES else DEFAULT


class _Key:
    """The site's signing key, read (or made) once, on first use, in a database thread."""

    def __init__(self, core: TableCore) -> None:
        self.core = core
        self._value: bytes | None = None
        self._lock = threading.Lock()

    def __call__(self) -> bytes:
        with self._lock:
            if self._value is None:
                self._value = site_key(self.core.repo)
            return self._value


def build(core: TableCore, scheduler: Scheduler, settings: MailSettings) -> NotifyParts:
    """The parts, installed in ``scheduler`` and hooked into ``core`` (``ValueError`` for a
    bad SMTP URL)."""
    outbox = Outbox(core, mailer_for(settings), settings)
    outbox.install(scheduler)
    notifier = Notifier(core, _Key(core), account_language)
    notifier.install(scheduler)
    mail = MailChannel(core, notifier, outbox, settings, verified_address)
    mail.install(scheduler)
    notifier.add_channel(mail)
    tables = install(core, notifier, scheduler)
    return NotifyParts(outbox, notifier, mail, tables)

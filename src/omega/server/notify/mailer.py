"""How a mail leaves the server: through an SMTP server (``aiosmtplib``), or, with none
configured (``make run``), into ``.eml`` files a developer can open.

The configuration is one URL (``omega serve --smtp URL``, ``omega worker --smtp URL`` or
``OMEGA_SMTP_URL``) and a sender (``OMEGA_MAIL_FROM``):

- ``smtp://user:pass@host:587?starttls=1``: plain connection upgraded by STARTTLS (the
  submission port);
- ``smtps://user:pass@host:465``: TLS from the first byte;
- ``smtp://host:25``: plain, for a relay on the same machine or network.

The password is kept for the SMTP login only: :attr:`SmtpMailer.where` (what the log says)
leaves it out.

>>> m = SmtpMailer.from_url("smtp://ann:s3cret@mail.example:587?starttls=1")
>>> m.where, m.start_tls, m.use_tls
('smtp://ann@mail.example:587 (STARTTLS)', True, False)
>>> "s3cret" in repr(m)
False
>>> SmtpMailer.from_url("smtps://mail.example").port
465
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from sqlalchemy.engine.url import make_url

__all__ = ["Mailer", "MailUnavailable", "MailRefused", "SmtpMailer", "FileMailer", "MailSettings",
           "DEFAULT_FROM", "DEFAULT_SITE_URL", "SMTP_TIMEOUT", "mailer_for", "mail_directory"]

log = logging.getLogger("omega.server")

#: Who mail comes from when ``OMEGA_MAIL_FROM`` is not set.
DEFAULT_FROM = "Omega <omega@localhost>"
#: The site's address in mail links when ``OMEGA_SITE_URL`` is not set (``make run``'s).
DEFAULT_SITE_URL = "http://127.0.0.1:8000"
#: Seconds one SMTP conversation may take (connect, log in, send) before it counts as a
#: failed try: a server that hangs must not hold a claim for long.
SMTP_TIMEOUT = 30.0
_TRUE = ("1", "true", "yes", "on")


class MailUnavailable(Exception):
    """The mail could not be handed over now (server down, refused for now: a 4xx answer,
    a timeout): try again later."""


class MailRefused(Exception):
    """The SMTP server refused this mail for good (a 5xx answer: no such mailbox, ...):
    trying again would only be refused again."""


class Mailer(Protocol):
    """Hands one finished message over; raises :class:`MailUnavailable` or
    :class:`MailRefused`.  ``where`` says in the log where mail goes (no password)."""

    @property
    def where(self) -> str:
        """Where mail goes, for the log."""
        ...

    async def send(self, message: EmailMessage) -> None:
        """Send ``message`` (its ``Message-ID`` is set, the same at every try)."""
        ...


@dataclass(frozen=True)
class SmtpMailer:
    """Mail through an SMTP server, one connection per message (mail is rare here: a turn a
    day per game, a reset now and then; a kept connection would time out between them)."""

    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    use_tls: bool = False
    start_tls: bool = False
    timeout: float = SMTP_TIMEOUT

    @classmethod
    def from_url(cls, url: str) -> SmtpMailer:
        """Parse ``smtp://`` / ``smtps://`` URLs (``ValueError`` for anything else)."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("an SMTP URL is smtp://[user:password@]host[:port][?starttls=1] or smtps://...")
        query = parse_qs(parts.query)
        tls = parts.scheme == "smtps"
        start_tls = not tls and query.get("starttls", ["0"])[-1].lower() in _TRUE
        try:
            port = parts.port or (465 if tls else 587 if start_tls else 25)
        except ValueError as e:
            raise ValueError(f"bad port in the SMTP URL: {e}") from None
        return cls(parts.hostname, port, unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None, use_tls=tls, start_tls=start_tls)

    @property
    def where(self) -> str:
        """The server, without the password."""
        user = f"{self.username}@" if self.username else ""
        how = " (TLS)" if self.use_tls else " (STARTTLS)" if self.start_tls else ""
        return f"{'smtps' if self.use_tls else 'smtp'}://{user}{self.host}:{self.port}{how}"

    async def send(self, message: EmailMessage) -> None:
        """One SMTP conversation; a 5xx answer is :class:`MailRefused`, anything else that
        fails (no connection, a 4xx, a timeout) :class:`MailUnavailable`."""
        import aiosmtplib  # on the first mail: a process that sends none does not load it

        try:
            await aiosmtplib.send(message, hostname=self.host, port=self.port, username=self.username,
                                  password=self.password, use_tls=self.use_tls, start_tls=self.start_tls,
                                  timeout=self.timeout)
        except aiosmtplib.SMTPRecipientsRefused as e:
            if all(r.code >= 500 for r in e.recipients):
                raise MailRefused(f"recipient refused ({e.recipients[0].code})") from None
            raise MailUnavailable(f"recipient deferred ({e.recipients[0].code})") from None
        except aiosmtplib.SMTPResponseException as e:
            # The server's words may quote the mail back: only the code goes further.
            if 500 <= e.code < 600 and not isinstance(e, aiosmtplib.SMTPAuthenticationError):
                raise MailRefused(f"refused by the SMTP server ({e.code})") from None
            raise MailUnavailable(f"the SMTP server answered {e.code}") from None
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as e:
            raise MailUnavailable(f"the SMTP server is unreachable ({type(e).__name__})") from None


@dataclass(frozen=True)
class FileMailer:
    """No SMTP server configured: each message becomes ``<directory>/<Message-ID>.eml``, and
    the log says where (never what: a mail may carry a secret link)."""

    directory: Path

    @property
    def where(self) -> str:
        """The directory, for the log."""
        return f"files in {self.directory}"

    async def send(self, message: EmailMessage) -> None:
        """Write the file (the same name at every try: a retried mail replaces its file)."""
        name = str(message["Message-ID"]).strip("<>").replace("/", "_").replace("@", "_at_")
        path = self.directory / f"{name}.eml"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".part")
            partial.write_bytes(message.as_bytes())
            partial.replace(path)  # whole or not at all
        except OSError as e:
            raise MailUnavailable(f"cannot write {path}: {e.strerror}") from None
        log.info("mail written to %s (no SMTP server configured)", path)


@dataclass(frozen=True)
class MailSettings:
    """Where mail goes and what it says of the site: ``smtp_url`` (None: files in
    ``directory``), the ``From`` address, and the site's public address for links.

    >>> s = MailSettings.from_env({"OMEGA_MAIL_FROM": "Omega <play@omega.example>"})
    >>> s.smtp_url, s.sender_domain, s.site_url
    (None, 'omega.example', 'http://127.0.0.1:8000')
    """

    smtp_url: str | None = None
    mail_from: str = DEFAULT_FROM
    site_url: str = DEFAULT_SITE_URL
    directory: Path = Path("data") / "mail"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, smtp_url: str | None = None,
                 directory: Path | None = None) -> MailSettings:
        """``smtp_url`` (the command line's) or ``OMEGA_SMTP_URL``; ``OMEGA_MAIL_FROM``;
        ``OMEGA_SITE_URL``."""
        env = dict(os.environ) if env is None else env
        return cls(smtp_url or env.get("OMEGA_SMTP_URL") or None, env.get("OMEGA_MAIL_FROM") or DEFAULT_FROM,
                   (env.get("OMEGA_SITE_URL") or DEFAULT_SITE_URL).rstrip("/"),
                   directory or Path("data") / "mail")

    @property
    def sender_domain(self) -> str:
        """The domain of ``mail_from`` (the right side of every Message-ID)."""
        address = parseaddr(self.mail_from)[1]
        return address.rpartition("@")[2] or "localhost"


def mail_directory(database_url: str) -> Path:
    """Where mail goes without an SMTP server: ``mail/`` beside an SQLite database file,
    else ``./data/mail``.

    >>> mail_directory("sqlite:////srv/omega/omega.sqlite3"), mail_directory("postgresql://db/omega")
    (PosixPath('/srv/omega/mail'), PosixPath('data/mail'))
    """
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database).parent / "mail"
    return Path("data") / "mail"


def mailer_for(settings: MailSettings) -> Mailer:
    """The SMTP mailer of ``settings.smtp_url``, else files in ``settings.directory``
    (``ValueError`` for a bad URL).

    >>> mailer_for(MailSettings(directory=Path("/tmp/m"))).where
    'files in /tmp/m'
    """
    if settings.smtp_url:
        return SmtpMailer.from_url(settings.smtp_url)
    return FileMailer(settings.directory)

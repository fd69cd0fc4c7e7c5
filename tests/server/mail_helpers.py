"""A real SMTP server for tests (``aiosmtpd``, on loopback, in a thread of its own), which
keeps every mail it receives; :class:`SmtpSink` can be stopped and started again on the same
port (an SMTP outage) and waits for mail on a condition, never by sleeping.

>>> sink = SmtpSink()
>>> sink.start()
>>> import smtplib
>>> with smtplib.SMTP("127.0.0.1", sink.port) as client:
...     _ = client.sendmail("a@example.org", ["b@example.org"], "Subject: hi\\r\\nMessage-ID: <1@x>\\r\\n\\r\\nhello\\r\\n")
>>> [m["Subject"] for m in sink.wait_for(1)]
['hi']
>>> sink.stop()
"""

from __future__ import annotations

import re
import socket
import threading
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import httpx
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from .site_helpers import PASSWORD, Browser

__all__ = ["SmtpSink", "Received", "links_in", "text_of", "html_of"]


class Received:
    """One mail as the server got it: the envelope's recipients and the parsed message."""

    def __init__(self, recipients: list[str], message: EmailMessage) -> None:
        self.recipients = recipients
        self.message = message

    def __getitem__(self, header: str) -> Any:
        return self.message[header]


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        message = message_from_bytes(content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self.sink.arrived:
            self.sink.mails.append(Received([str(r) for r in envelope.rcpt_tos], message))
            self.sink.arrived.notify_all()
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SmtpSink:
    """An SMTP server on ``127.0.0.1:port`` that accepts every mail into :attr:`mails`.

    ``url`` is what the site is configured with (``smtp://127.0.0.1:<port>``).  ``stop``
    closes the port (clients get "connection refused", as from a dead server); ``start``
    opens it again, keeping the mails received so far.
    """

    def __init__(self, port: int | None = None) -> None:
        self.port = port or _free_port()
        self.mails: list[Received] = []
        self.arrived = threading.Condition()
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        """The SMTP URL of this server."""
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the port is open."""
        return self._controller is not None

    def start(self) -> None:
        """Open the port (again)."""
        if self._controller is None:
            self._controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
            self._controller.start()

    def stop(self) -> None:
        """Close the port."""
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        """The mails once at least ``count`` have come (AssertionError after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.mails) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.mails)} mails came, {count} awaited"
                self.arrived.wait(left)
            return list(self.mails)

    def to(self, address: str) -> list[Received]:
        """The mails received for ``address`` so far."""
        with self.arrived:
            return [m for m in self.mails if address in m.recipients]

    def __enter__(self) -> SmtpSink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def text_of(mail: Received) -> str:
    """The plain text part of ``mail``."""
    body = mail.message.get_body(("plain",))
    assert body is not None, "the mail has no plain text part"
    return str(body.get_content())  # type: ignore[attr-defined]


def html_of(mail: Received) -> str:
    """The HTML part of ``mail``."""
    body = mail.message.get_body(("html",))
    assert body is not None, "the mail has no HTML part"
    return str(body.get_content())  # type: ignore[attr-defined]


def links_in(mail: Received) -> list[str]:
    """The http(s) links in ``mail``'s plain text, in order."""
    return re.findall(r"https?://[^\s<>\"]+", text_of(mail))


# -- an account's address, asked for and verified by the mailed link ----------------------

#: The site's address in the test servers' links (``MailSettings.site_url``).
SITE_URL = "https://omega.example"

def ask(b: Browser, email: str, password: str = PASSWORD) -> httpx.Response:
    return b.post("/api/account/email", {"email": email, "password": password})


def addresses(b: Browser) -> dict[str, Any]:
    r = b.get("/api/account/email")
    assert r.status_code == 200, r.text
    return dict(r.json())


def mail_to(sink: SmtpSink, address: str, count: int = 1) -> Received:
    """The ``count``-th mail to ``address``, once it has come."""
    with sink.arrived:
        assert sink.arrived.wait_for(lambda: len(sink.to(address)) >= count, 30), f"no mail {count} to {address}"
    return sink.to(address)[count - 1]


def token_of(mail: Received, fragment: str) -> str:
    """The token of the site's link in ``mail`` (``#<fragment>=<token>``)."""
    link = next(link for link in links_in(mail) if link.startswith(SITE_URL))
    assert f"/#{fragment}=" in link, link
    token = link.split(f"#{fragment}=", 1)[1]
    assert token in html_of(mail)  # the HTML part carries the same link
    return token


def verify(b: Browser, token: str) -> httpx.Response:
    return b.post("/api/account/email/verify", {"token": token})


def added(b: Browser, sink: SmtpSink, email: str, count: int = 1) -> None:
    """``email`` asked for and verified by its mailed link."""
    assert ask(b, email).status_code == 202
    assert verify(b, token_of(mail_to(sink, email, count), "verify-email")).status_code == 200
    assert addresses(b)["email"] == email

"""Email on accounts over real HTTP round trips, with real mail (an aiosmtpd server the site
sends to) on SQLite and PostgreSQL and the time from a fake clock: an address verified by
the link mailed to it, once and before it expires; a changed address that keeps the old one
until the new one is verified; an address no two accounts verify; the password reset from a
mailed, single-use, expiring token that ends every session; the same answer for an account
that does not exist; the limits on mail."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from omega.server.clock import FakeClock
from omega.server.config import Settings
from omega.server.infra.limits import Limits
from omega.server.notify.mailer import MailSettings

from .mail_helpers import (
    SITE_URL,
    SmtpSink,
    added,
    addresses,
    ask,
    links_in,
    mail_to,
    text_of,
    token_of,
    verify,
)
from .server_helpers import LiveServer, error_code, make_server
from .site_helpers import CHEAP, PASSWORD, Browser

NEW_PASSWORD = "a new horse battery"


def start(db_url: str, sink: SmtpSink, clock: FakeClock, limits: Limits | None = None) -> LiveServer:
    return make_server(db_url, bot=None, clock=clock, password_hasher=CHEAP, limits=limits,
                       mail=MailSettings(smtp_url=sink.url, site_url=SITE_URL))


@pytest.fixture
def site(db_url: str, sink: SmtpSink, clock: FakeClock) -> Iterator[LiveServer]:
    live = start(db_url, sink, clock)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def browsers(site: LiveServer) -> Iterator[Any]:
    made: list[Browser] = []

    def new() -> Browser:
        b = Browser(site)
        made.append(b)
        return b

    yield new
    for b in made:
        b.close()


def registered(browsers: Any, name: str) -> Browser:
    b: Browser = browsers()
    r = b.register(name)
    assert r.status_code == 201, r.text
    return b


def outbox_addresses(db_url: str) -> list[str]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(text("SELECT to_address FROM outbox ORDER BY id"))]
    finally:
        engine.dispose()


def snapshot(db_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """What the refused requests must leave as it was: the accounts (addresses, password
    hashes), their sessions and resets, and the outbox."""
    queries = {"users": "SELECT id, email, email_key, email_pending, password_hash FROM users ORDER BY id",
               "sessions": "SELECT id_hash, user_id FROM sessions ORDER BY id_hash",
               "resets": "SELECT digest, user_id, expires_at FROM password_resets ORDER BY digest",
               "outbox": "SELECT id, to_address FROM outbox ORDER BY id"}
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return {name: [tuple(row) for row in conn.execute(text(q))] for name, q in queries.items()}
    finally:
        engine.dispose()


def forgot(b: Browser, who: str) -> httpx.Response:
    return b.post("/api/account/password/forgot", {"who": who})


def reset(b: Browser, token: str, password: str = NEW_PASSWORD) -> httpx.Response:
    return b.post("/api/account/password/reset", {"token": token, "password": password})


# -- the address -------------------------------------------------------------------------------

def test_an_address_is_verified_by_its_mailed_link_once(browsers: Any, sink: SmtpSink) -> None:
    ann = registered(browsers, "Ann")
    assert addresses(ann) == {"email": None, "pending": None}
    r = ask(ann, "  Ann@Example.COM ")
    assert r.status_code == 202, r.text
    assert r.json() == {"email": None, "pending": "Ann@example.com"}  # as normalised

    mail = mail_to(sink, "Ann@example.com")
    assert mail["Subject"] == "Confirm your email address on Omega"
    assert "Hello Ann," in text_of(mail) and "48 hours" in text_of(mail)
    token = token_of(mail, "verify-email")
    # The link names no address: the account asked for it, and the server keeps it.
    assert "example.com" not in token.lower()

    # Another browser, logged out, follows it (a mail is often read on another device).
    r = verify(browsers(), token)
    assert r.status_code == 200, r.text
    assert r.json() == {"email": "Ann@example.com"}
    assert addresses(ann) == {"email": "Ann@example.com", "pending": None}

    again = verify(ann, token)
    assert (again.status_code, error_code(again)) == (400, "invalid_token")
    assert addresses(ann) == {"email": "Ann@example.com", "pending": None}


def test_a_verify_link_expires(browsers: Any, sink: SmtpSink, clock: FakeClock) -> None:
    ann = registered(browsers, "Ann")
    ask(ann, "ann@example.com")
    token = token_of(mail_to(sink, "ann@example.com"), "verify-email")
    clock.advance(Settings().email_verify_lifetime + 1)
    r = verify(ann, token)
    assert (r.status_code, error_code(r)) == (410, "token_expired")
    assert addresses(ann) == {"email": None, "pending": "ann@example.com"}


def test_a_forged_or_altered_link_verifies_nothing(browsers: Any, sink: SmtpSink) -> None:
    ann, bob = registered(browsers, "Ann"), registered(browsers, "Bob")
    ask(ann, "ann@example.com")
    ask(bob, "bob@example.com")
    token = token_of(mail_to(sink, "ann@example.com"), "verify-email")
    user_id, expires, mac = token.split(".")
    bob_id = str(bob.user()["id"])  # type: ignore[index]
    for bad in (f"{bob_id}.{expires}.{mac}",                 # Ann's signature on Bob's account
                f"{user_id}.{int(expires) + 86400}.{mac}",   # a later expiry
                f"{user_id}.{expires}.{'A' * 43}", "not a token", ""):
        r = verify(ann, bad)
        assert (r.status_code, error_code(r)) == (400, "invalid_token"), bad
    assert addresses(ann)["email"] is None and addresses(bob)["email"] is None


def test_a_changed_address_keeps_the_old_one_until_verified(browsers: Any, sink: SmtpSink) -> None:
    ann = registered(browsers, "Ann")
    added(ann, sink, "ann@example.com")

    assert ask(ann, "ann.one@example.com").json() == {"email": "ann@example.com", "pending": "ann.one@example.com"}
    first = token_of(mail_to(sink, "ann.one@example.com"), "verify-email")
    ask(ann, "ann.two@example.com")
    second = token_of(mail_to(sink, "ann.two@example.com"), "verify-email")
    # Until the new address is verified, a reset still goes to the old one.
    assert forgot(browsers(), "Ann").status_code == 202
    assert mail_to(sink, "ann@example.com", 2)["Subject"] == "Reset your Omega password"

    # Only the last address asked for can be verified.
    r = verify(ann, first)
    assert (r.status_code, error_code(r)) == (400, "invalid_token")
    assert addresses(ann) == {"email": "ann@example.com", "pending": "ann.two@example.com"}
    assert verify(ann, second).status_code == 200
    assert addresses(ann) == {"email": "ann.two@example.com", "pending": None}

    # Asking for the address it has is no change and mails nothing.
    before = len(sink.mails)
    assert ask(ann, "ANN.TWO@example.com").json() == {"email": "ann.two@example.com", "pending": None}
    r = ann.post("/api/account/email/remove", {"password": "wrong password"})
    assert (r.status_code, error_code(r)) == (403, "forbidden")
    r = ann.post("/api/account/email/remove", {"password": PASSWORD})
    assert r.json() == {"email": None, "pending": None}
    assert addresses(ann) == {"email": None, "pending": None}
    assert len(sink.mails) == before


def test_no_two_accounts_verify_one_address(browsers: Any, sink: SmtpSink, db_url: str) -> None:
    ann, bob, eve = (registered(browsers, n) for n in ("Ann", "Bob", "Eve"))
    ask(bob, "shared@example.com")
    bob_token = token_of(mail_to(sink, "shared@example.com"), "verify-email")
    added(ann, sink, "Shared@example.com")  # Ann verifies first (the key is case-folded)

    # Bob's link, made before, now finds the address taken; his asking stays as it was.
    r = verify(bob, bob_token)
    assert (r.status_code, error_code(r)) == (409, "email_taken")
    assert addresses(bob) == {"email": None, "pending": "shared@example.com"}

    # Eve asks for Ann's address: the same answer as any, and the mail says it is taken.
    r = ask(eve, "shared@EXAMPLE.com")
    assert r.status_code == 202 and r.json() == {"email": None, "pending": "shared@example.com"}
    mail = mail_to(sink, "shared@example.com", 2)
    assert "already has this address" in text_of(mail)
    assert [link for link in links_in(mail) if link.startswith(SITE_URL)] == []
    assert addresses(ann)["email"] == "Shared@example.com"


def test_a_bad_address_or_password_changes_nothing_and_mails_nothing(browsers: Any, site: LiveServer,
                                                                      db_url: str) -> None:
    ann = registered(browsers, "Ann")
    before = snapshot(db_url)
    for body, code in (({"email": "not an address", "password": PASSWORD}, "bad_request"),
                       ({"email": "ann@localhost", "password": PASSWORD}, "bad_request"),
                       ({"email": "a" * 300 + "@example.com", "password": PASSWORD}, "bad_request"),
                       ({"email": "ann@example.com", "password": "wrong password"}, "forbidden"),
                       ({"email": "ann@example.com"}, "bad_request"),
                       ({"email": 7, "password": PASSWORD}, "bad_request")):
        r = ann.post("/api/account/email", body)
        assert error_code(r) == code, (body, r.text)
    assert "email address" in ann.post("/api/account/email", {"email": "x", "password": PASSWORD}).json()["error"]["message"]
    assert addresses(ann) == {"email": None, "pending": None}
    # Logged out, or from another site: refused.
    r = browsers().post("/api/account/email", {"email": "ann@example.com", "password": PASSWORD})
    assert error_code(r) == "auth_required"
    r = ann.post("/api/account/email", {"email": "ann@example.com", "password": PASSWORD}, origin="https://evil.example")
    assert error_code(r) == "cross_site"
    assert snapshot(db_url) == before
    assert outbox_addresses(db_url) == []


# -- the password reset --------------------------------------------------------------------------

def test_a_reset_is_single_use_ends_every_session_and_logs_in_anew(browsers: Any, sink: SmtpSink) -> None:
    ann = registered(browsers, "Ann")
    added(ann, sink, "ann@example.com")
    phone = browsers()
    assert phone.login("Ann").status_code == 200

    lost = browsers()
    r = forgot(lost, "ann@EXAMPLE.com")  # by address, in any case
    assert r.status_code == 202, r.text
    mail = mail_to(sink, "ann@example.com", 2)
    assert mail["Subject"] == "Reset your Omega password" and "30 minutes" in text_of(mail)
    token = token_of(mail, "reset-password")

    r = reset(lost, token, "short")  # the registration's rule; the token stays usable
    assert (r.status_code, error_code(r)) == (400, "bad_request")
    assert "8 to 256 characters" in r.json()["error"]["message"]

    r = reset(lost, token)
    assert r.status_code == 200, r.text
    assert r.json()["user"]["username"] == "Ann"
    assert lost.session is not None and lost.user() == r.json()["user"]  # logged in anew
    # Every session of the account ended: the browser that registered, the phone.
    assert ann.user() is None and phone.user() is None
    assert error_code(browsers().login("Ann")) == "login_failed"
    assert browsers().login("Ann", NEW_PASSWORD).status_code == 200

    again = reset(browsers(), token, "yet another horse")
    assert (again.status_code, error_code(again)) == (400, "invalid_token")
    assert browsers().login("Ann", NEW_PASSWORD).status_code == 200


def test_a_reset_link_expires(browsers: Any, sink: SmtpSink, clock: FakeClock, db_url: str) -> None:
    ann = registered(browsers, "Ann")
    added(ann, sink, "ann@example.com")
    forgot(browsers(), "Ann")
    token = token_of(mail_to(sink, "ann@example.com", 2), "reset-password")
    clock.advance(Settings().password_reset_lifetime + 1)
    before = snapshot(db_url)
    r = reset(browsers(), token)
    assert (r.status_code, error_code(r)) == (410, "token_expired")
    for bad in ("A" * 43, "short", "x" * 128):
        assert error_code(reset(browsers(), bad)) == "invalid_token"
    assert error_code(browsers().post("/api/account/password/reset", {"token": token})) == "bad_request"
    assert snapshot(db_url) == before  # no password, session or reset changed
    assert ann.user() is not None
    assert browsers().login("Ann").status_code == 200


def test_forgot_answers_the_same_whether_or_not_there_is_such_an_account(browsers: Any, site: LiveServer,
                                                                         sink: SmtpSink, db_url: str) -> None:
    ann = registered(browsers, "Ann")
    added(ann, sink, "ann@example.com")
    registered(browsers, "Bob")  # an account without an address
    answers = set()
    for who in ("nobody", "nobody@example.com", "Bob", "not an address@", "", "Ann"):
        r = forgot(browsers(), who)
        headers = tuple(sorted((k, v) for k, v in r.headers.items() if k != "date"))
        answers.add((r.status_code, r.text, headers))
    assert len(answers) == 1 and answers.pop()[0] == 202
    site.finish_connections()  # each request's work after its answer is done
    assert outbox_addresses(db_url) == ["ann@example.com", "ann@example.com"]  # the verification, then Ann's reset
    assert mail_to(sink, "ann@example.com", 2)["Subject"] == "Reset your Omega password"
    r = browsers().post("/api/account/password/forgot", {"who": "Ann"}, origin="https://evil.example")
    assert error_code(r) == "cross_site"


# -- limits --------------------------------------------------------------------------------------

def test_mail_is_limited_per_account_per_address_and_per_client(db_url: str, sink: SmtpSink, clock: FakeClock) -> None:
    limits = Limits(email_mail_burst=2, forgot_burst=3, reset_mail_burst=1)
    live = start(db_url, sink, clock, limits)
    made: list[Browser] = []
    try:
        def browser() -> Browser:
            made.append(Browser(live))
            return made[-1]

        ann = browser()
        ann.register("Ann")
        assert [ask(ann, f"ann{i}@example.com").status_code for i in range(3)] == [202, 202, 429]
        assert addresses(ann)["pending"] == "ann1@example.com"  # the refused one changed nothing
        # Per address mailed to, whichever account asks.
        bob = browser()
        bob.register("Bob")
        assert [ask(bob, "target@example.com").status_code, ask(bob, "target@example.com").status_code] == [202, 202]
        eve = browser()
        eve.register("Eve")
        r = ask(eve, "TARGET@example.com")
        assert (r.status_code, error_code(r)) == (429, "rate_limited")
        clock.advance(1 / limits.email_mail_rate)  # one more mail's worth
        assert ask(ann, "ann@example.com").status_code == 202
        assert verify(ann, token_of(mail_to(sink, "ann@example.com"), "verify-email")).status_code == 200

        # Reset mails per account: past the budget the answer is the same and no mail goes.
        guest = browser()
        assert [forgot(guest, "Ann").status_code for _ in range(2)] == [202, 202]
        live.finish_connections()
        assert outbox_addresses(db_url).count("ann@example.com") == 2  # the verification and one reset
        # Requests per client address: answered rate_limited (this says nothing of any account).
        r = forgot(guest, "nobody")
        assert r.status_code == 202
        r = forgot(guest, "Ann")
        assert (r.status_code, error_code(r)) == (429, "rate_limited")
    finally:
        for b in made:
            b.close()
        live.stop()


def test_a_password_change_voids_the_resets_mailed_before(browsers: Any, sink: SmtpSink) -> None:
    ann = registered(browsers, "Ann")
    added(ann, sink, "ann@example.com")
    forgot(browsers(), "Ann")
    token = token_of(mail_to(sink, "ann@example.com", 2), "reset-password")
    r = ann.post("/api/account/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert r.status_code == 200, r.text
    r = reset(browsers(), token, "an attacker's horse")
    assert (r.status_code, error_code(r)) == (400, "invalid_token")
    assert browsers().login("Ann", NEW_PASSWORD).status_code == 200

"""Notices and mails in their recipient's language, over real parts: the site's HTTP API, a
real SMTP server, SQLite and PostgreSQL, time from a fake clock.

The recipient of a notice is not the one whose request caused it, so the account keeps its
language: the registering request's (``Accept-Language`` here), then whatever the page's
Language setting sends (``PUT /api/account/language``).  A "your turn" mail, the push's
stored words, a challenge and the account's own mails speak it; a change of the setting
changes the next notice; a language the site does not speak is refused and changes nothing.
With no cookie, the account's language answers its requests too (the page and refusals).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from omega.server.clock import FakeClock
from omega.server.notify.mailer import MailSettings

from .mail_helpers import SITE_URL, SmtpSink, added, html_of, mail_to, text_of
from .server_helpers import LiveServer, error_code, make_server
from .site_helpers import CHEAP, PASSWORD, Browser
from .test_notify import LATER, drain, duel, play, rows


@pytest.fixture
def site(db_url: str, sink: SmtpSink, clock: FakeClock) -> Iterator[LiveServer]:
    live = make_server(db_url, bot=None, clock=clock, password_hasher=CHEAP,
                       mail=MailSettings(smtp_url=sink.url, site_url=SITE_URL))
    try:
        yield live
    finally:
        live.stop()


class Reader:
    """A player registered from a browser that asks for ``accept_language`` (None: says
    nothing), with a verified address; later requests say no language at all, so only the
    account's own can choose."""

    def __init__(self, site: LiveServer, sink: SmtpSink, name: str, accept_language: str | None = None) -> None:
        self.site = site
        self.browser = Browser(site)
        headers = {"accept-language": accept_language} if accept_language else {}
        r = self.browser.post("/api/account/register", {"username": name, "password": PASSWORD},
                              headers=headers)
        assert r.status_code == 201, r.text
        self.email = f"{name.lower()}@example.com"
        added(self.browser, sink, self.email)
        self.sink = sink

    def set_language(self, body: Any, origin: str | None = None) -> httpx.Response:
        return self.browser.http.put("/api/account/language", json=body,
                                     headers={"origin": self.site.url if origin is None else origin})

    def account(self) -> dict[str, Any]:
        r = self.browser.get("/api/account")
        assert r.status_code == 200, r.text
        return dict(r.json())

    def mails(self, subject: str) -> list[Any]:
        return [m for m in self.sink.to(self.email) if str(m["Subject"]).startswith(subject)]

    def mail(self, subject: str) -> Any:
        """The one mail whose subject starts with ``subject``, once it has come."""
        with self.sink.arrived:
            assert self.sink.arrived.wait_for(lambda: self.mails(subject), 30), f"no mail {subject!r}"
        [found] = self.mails(subject)
        return found


@pytest.fixture
def readers(site: LiveServer, sink: SmtpSink) -> Iterator[Any]:
    made: list[Reader] = []

    def new(name: str, accept_language: str | None = None) -> Reader:
        made.append(Reader(site, sink, name, accept_language))
        return made[-1]

    yield new
    for r in made:
        r.browser.close()


def test_a_players_notices_and_mails_speak_the_language_of_their_account(
        site: LiveServer, readers: Any, clock: FakeClock, sink: SmtpSink, db_url: str) -> None:
    rng = random.Random(5)
    ann, bob = readers("Ann"), readers("Bob", "fr-FR,fr;q=0.9,en;q=0.5")
    assert (ann.account()["language"], bob.account()["language"]) == ("en", "fr")
    # Bob's address was asked for with no language said: his account's chose the mail's.
    assert mail_to(sink, bob.email)["Subject"] == "Confirmez votre adresse e-mail sur Omega"
    assert mail_to(sink, ann.email)["Subject"] == "Confirm your email address on Omega"

    table_id, tokens = duel(ann, bob)
    play(site, table_id, tokens[0], rng)
    clock.advance(LATER)
    drain(site)
    [mail] = bob.mails("À vous de jouer")
    assert mail["Subject"] == f"À vous de jouer à la table {table_id}"
    text = text_of(mail)
    assert f"Votre adversaire a joué : c'est votre tour à la table {table_id}." in text
    assert f"Jouez votre tour : {SITE_URL}/t/{table_id}" in text
    assert "« C'est votre tour dans une partie par tour »" in text
    assert f'Jouez votre tour : <a href="{SITE_URL}/t/{table_id}">' in html_of(mail)
    assert '<html lang="fr">' in html_of(mail)
    # The push channel sends the words stored with its delivery: French as well.
    told = rows(db_url, "SELECT channel, subject FROM notify_deliveries WHERE kind = 'your_turn'")
    assert sorted(told) == [("mail", f"À vous de jouer à la table {table_id}"),
                            ("push", f"À vous de jouer à la table {table_id}")]

    # Bob's Language setting turns to German: the next notice speaks it.
    r = bob.set_language({"language": "de"})
    assert r.status_code == 200 and r.json() == {"language": "de"}
    play(site, table_id, tokens[1], rng)
    clock.advance(LATER)
    drain(site)
    play(site, table_id, tokens[0], rng)
    clock.advance(LATER)
    drain(site)
    [mail] = bob.mails("Du bist am Zug")
    assert mail["Subject"] == f"Du bist am Zug an Tisch {table_id}"
    assert f"Mach deinen Zug: {SITE_URL}/t/{table_id}" in text_of(mail)
    [mail] = ann.mails("Your turn")
    assert mail["Subject"] == f"Your turn at table {table_id}"
    assert f"Play your turn: {SITE_URL}/t/{table_id}" in text_of(mail)

    # A challenge is told in the challenged player's language, whoever sends it.
    sent = ann.browser.post("/api/challenges", {"to": "bob", "size": 5})
    assert sent.status_code == 201, sent.text
    [(subject, body)] = rows(db_url, "SELECT subject, text FROM notify_deliveries WHERE kind = 'challenge' "
                                     "AND channel = 'mail'")
    assert subject == "Ann fordert dich heraus"
    assert body.startswith("Ann fordert dich zu einer Partie heraus (2 Spieler · Seite 5 · ")

    # A password reset asked for from a Spanish page: the account's language wins (the mail
    # goes to its owner, who may not be who asked).
    asked = Browser(site)
    try:
        r = asked.post("/api/account/password/forgot", {"who": "bob"}, headers={"accept-language": "es"})
        assert r.status_code == 202, r.text
        reset = bob.mail("Setze dein Omega-Passwort zurück")
        assert "hoffentlich du" in text_of(reset)
    finally:
        asked.close()


def test_a_language_the_site_does_not_speak_is_refused_and_changes_nothing(
        site: LiveServer, readers: Any, db_url: str) -> None:
    bob = readers("Bob", "es")
    before = (bob.account(), rows(db_url, "SELECT id, language FROM users"))
    # Each refusal in Bob's language: his account's, as no cookie or header chooses one.
    for body, words in (({"language": "xx"}, "language: 'xx' no es un idioma del sitio (en, fr, es, de, ar)"),
                        ({"language": "FR"}, "language: 'FR' no es un idioma del sitio"),
                        ({"language": 3}, "language: "), ({"language": "de", "also": 1}, "also: "),
                        ({}, "language: ")):
        r = bob.set_language(body)
        assert (r.status_code, error_code(r)) == (400, "bad_request"), r.text
        message = r.json()["error"]["message"]
        assert message.startswith("petición no válida: ") and words in message, message
    # From another site (CSRF), and from a guest: refused as every such write is.
    r = bob.set_language({"language": "de"}, origin="https://evil.example")
    assert (r.status_code, error_code(r)) == (403, "cross_site")
    guest = httpx.put(f"{site.url}/api/account/language", json={"language": "de"}, headers={"origin": site.url})
    assert (guest.status_code, error_code(guest)) == (401, "auth_required")
    assert (bob.account(), rows(db_url, "SELECT id, language FROM users")) == before
    assert before[0]["language"] == "es"


def test_with_no_cookie_the_accounts_language_answers_its_requests(site: LiveServer, readers: Any) -> None:
    bob = readers("Bob", "de")
    tag = re.search(r"<html[^>]*>", bob.browser.get("/").text)
    assert tag is not None and tag[0] == '<html lang="de" dir="ltr">'  # a new device, logged in
    r = bob.browser.get("/api/account/notifications")
    assert r.json()["kinds"]["challenge"] == "Ein Spieler fordert dich heraus"
    # The page's Language setting (the cookie) wins for this browser; the Accept-Language of
    # a browser comes after the account.
    def kinds(**headers: str) -> dict[str, str]:
        r = httpx.get(f"{site.url}/api/account/notifications",
                      headers={"cookie": f"omega_session={bob.browser.session}", **headers})
        assert r.status_code == 200, r.text
        return dict(r.json()["kinds"])

    cookie = f"omega_session={bob.browser.session}; omega_lang=fr"
    assert kinds(cookie=cookie, **{"accept-language": "es"})["challenge"] == "Un joueur vous défie"
    assert kinds(**{"accept-language": "es"})["challenge"] == "Ein Spieler fordert dich heraus"
    # Logged out, the browser's languages choose again.
    guest = httpx.get(f"{site.url}/", headers={"accept-language": "es"})
    assert '<html lang="es" dir="ltr">' in guest.text

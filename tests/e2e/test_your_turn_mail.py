"""A correspondence game by mail, in the browser: Ann and Bob register, each confirms an
address by the link of the real mail an SMTP server received, Ann opens a day-a-move table
for two and Bob takes its seat by the invite link, then closes his page.  Ann's turn passes
the "your turn" delay while she looks at the board: no mail for her.  She moves; once the
delay has passed by the server's clock, Bob gets the mail, and its link opens the table on
his phone, his turn.

The server is ``omega serve`` on a clock the test moves (``tests/server/clock_server.py``),
sending its mail to an ``aiosmtpd`` sink (``tests/server/mail_helpers.py``) and its links to
itself (``OMEGA_SITE_URL``).
"""

from __future__ import annotations

import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from omega_page import Contexts, Server, TablePage, choose, engine_order, shot
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, func, select
from test_accounts import PASSWORD, account_form
from test_claims import CLOCK_SERVER
from test_email_flow import link_in, open_account_panel

from omega.server.infra.db import utc
from omega.server.infra.due import DueRow
from omega.server.notify.mail import UNSUBSCRIBE_PATH
from omega.server.notify.models import DeliveryRow
from omega.server.notify.turns import YOUR_TURN, YOUR_TURN_DELAY, your_turn_notice
from server.clock_server import FileClock, advance
from server.mail_helpers import Received, SmtpSink, html_of, text_of
from server.server_helpers import free_port

#: Past the "your turn" delay, by the server's clock.
LATER = YOUR_TURN_DELAY.total_seconds() + 1
ANN, BOB = "Ann_turns", "Bob_turns"
ANN_MAIL, BOB_MAIL = "ann.turns@example.com", "bob.turns@example.com"


@pytest.fixture
def mail_clock_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Server, SmtpSink, Path]]:
    """``omega serve`` on a movable clock, its mail to a real SMTP server, its links to itself."""
    with SmtpSink() as sink:
        port = free_port()
        monkeypatch.setenv("OMEGA_SMTP_URL", sink.url)
        monkeypatch.setenv("OMEGA_SITE_URL", f"http://127.0.0.1:{port}")
        clock_file = tmp_path / "clock"
        srv = Server(tmp_path / "turns.db", port=port, program=(sys.executable, str(CLOCK_SERVER), str(clock_file)))
        srv.start()
        yield srv, sink, clock_file
        srv.stop()


def register_with_address(page: Page, server: Server, sink: SmtpSink, name: str, email: str) -> None:
    """Register ``name`` on the page, ask for ``email`` on the account panel and follow the
    link of the mail that came (the account's first), in the same browser."""
    page.goto(server.base + "/")
    area = page.get_by_role("group", name="Account")
    account_form(page, "register", name)
    expect(area.locator(".account-name")).to_have_text(name)
    open_account_panel(page)
    section = area.locator('details[data-section="email"]')
    section.locator("> summary").click()
    form = section.locator('form[data-form="email"]')
    form.get_by_label("Email address").fill(email)
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Send confirmation link").click()
    expect(form.locator(".account-note")).to_contain_text(email)
    page.goto(link_in(sink, email, 1, server))
    card = page.locator('dialog[data-mailed="verify-email"]')
    expect(card).to_contain_text(f"confirmed: {email}")
    card.get_by_role("button", name="Close").click()
    expect(card).to_have_count(0)


def your_turn_mails(sink: SmtpSink, email: str) -> list[Received]:
    return [m for m in sink.to(email) if str(m["Subject"]).startswith("Your turn")]


def until(done: Callable[[], bool], within: float = 30.0) -> None:
    """Return once ``done()`` holds (AssertionError after ``within`` s): for what only the
    database shows, which has no event to wait on."""
    deadline = time.monotonic() + within
    while not done():
        assert time.monotonic() < deadline, "the condition did not come true"
        threading.Event().wait(0.05)  # poll: the scheduler looks for due work every 0.25 s


@pytest.mark.slow
def test_a_player_away_gets_a_your_turn_mail_whose_link_opens_his_turn(
        mail_clock_server: tuple[Server, SmtpSink, Path], contexts: Contexts) -> None:
    server, sink, clock_file = mail_clock_server
    engine = create_engine(f"sqlite:///{server.db_path}")

    def your_turn_due(table_id: str) -> datetime | None:
        """When the table's "your turn" is to be decided (None: nothing waits)."""
        with engine.connect() as conn:
            at = conn.execute(select(DueRow.due_at).where(DueRow.kind == YOUR_TURN,
                                                          DueRow.table_id == table_id)).scalar_one_or_none()
            return None if at is None else utc(at)

    def your_turn_deliveries() -> int:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(DeliveryRow)
                                    .where(DeliveryRow.kind == "your_turn")).scalar_one())

    try:
        ann = contexts.page()
        bob = contexts.phone()  # Bob plays his correspondence games on his phone
        register_with_address(ann, server, sink, ANN, ANN_MAIL)
        register_with_address(bob, server, sink, BOB, BOB_MAIL)

        # Ann's table: two people, a day a move.
        ann.goto(server.base + "/")
        choose(ann, "players", 2)
        choose(ann, "against", "friends")
        ann.select_option("#clock", "1d")
        ann.get_by_role("button", name="Create table").click()
        expect(ann).to_have_url(re.compile(r"/t/[A-Za-z0-9_-]+#seat="))
        table = TablePage(ann)
        expect(ann.locator(".table-title")).to_contain_text("1d")
        table_id = table.table_id
        [invite] = table.invite_links()

        # Bob takes the seat logged in (the page binds it to his account and names it), then
        # closes the page: he is not at the table.
        bob.goto(invite)
        expect(TablePage(bob).panel("Black")).to_contain_text(BOB)
        expect(table.panel("Black")).to_contain_text(BOB)
        assert not bob.js_errors, bob.js_errors  # type: ignore[attr-defined]
        bob.close()
        expect(table.panel("Black").locator(".dot")).to_have_attribute("aria-label", "offline")

        # Ann's turn is past the delay while she looks at the board: decided, and no notice.
        table.wait_my_turn("White")
        assert your_turn_due(table_id) is not None
        advance(clock_file, LATER)
        until(lambda: your_turn_due(table_id) is None)
        assert your_turn_deliveries() == 0

        # Ann moves: Bob's turn, whose mail waits for the delay.
        table.play_turn(engine_order(2, 0), random.Random(table_id))
        expect(table.prompt).to_contain_text(BOB)
        bob_due = your_turn_due(table_id)
        assert bob_due is not None
        assert bob_due - FileClock(clock_file).now() > YOUR_TURN_DELAY * 0.9
        assert your_turn_mails(sink, BOB_MAIL) == []
        advance(clock_file, LATER)
        with sink.arrived:
            assert sink.arrived.wait_for(lambda: your_turn_mails(sink, BOB_MAIL), 30), "no your-turn mail for Bob"
        [mail] = your_turn_mails(sink, BOB_MAIL)
        link = f"{server.base}/t/{table_id}"
        assert mail.recipients == [BOB_MAIL]
        assert mail["Subject"] == your_turn_notice(0, table_id, 0).subject
        assert link in text_of(mail).split()
        assert f'<a href="{link}">' in html_of(mail)
        assert str(mail["List-Unsubscribe"]).startswith(f"<{server.base}{UNSUBSCRIBE_PATH}?t=")
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert your_turn_mails(sink, ANN_MAIL) == []  # she was at the table for her turn
        assert len(sink.to(ANN_MAIL)) == 1  # her address's confirmation only

        # The mail's link, on Bob's phone: his account's seat, his turn, with no seat link.
        phone = contexts.new_page(bob.context)
        phone.goto(link)
        mine = TablePage(phone)
        mine.wait_my_turn("Black")
        expect(mine.panel("Black")).to_contain_text(BOB)
        assert phone.viewport_size == {"width": 390, "height": 844}
        shot(phone, "phone-your-turn-from-mail")
    finally:
        engine.dispose()

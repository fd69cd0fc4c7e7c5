"""Email in the page, with real mail: a new user adds an address on the account panel and
follows the verification link from the mail an SMTP server received, logs out, asks for a
reset from the log-in form's "Forgot password?", follows the mailed link, chooses a new
password there, and logs in with it on a phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from omega_page import PHONE, Contexts, Server, shot
from playwright.sync_api import Page, expect
from test_accessibility import severe_violations
from test_accounts import PASSWORD, account_form

from server.mail_helpers import Received, SmtpSink, links_in
from server.server_helpers import free_port

NEW_PASSWORD = "a brand new horse"


@pytest.fixture
def mail_server(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[tuple[Server, SmtpSink]]:
    """``omega serve`` sending its mail to a real SMTP server, its links to itself."""
    with SmtpSink() as sink:
        port = free_port()
        monkeypatch.setenv("OMEGA_SMTP_URL", sink.url)
        monkeypatch.setenv("OMEGA_SITE_URL", f"http://127.0.0.1:{port}")
        srv = Server(tmp_path_factory.mktemp("omega-mail") / "omega.db", port=port)
        srv.start()
        yield srv, sink
        srv.stop()


def link_in(sink: SmtpSink, address: str, count: int, server: Server) -> str:
    """The site's link in the ``count``-th mail to ``address``, once it has come."""
    with sink.arrived:
        assert sink.arrived.wait_for(lambda: len(sink.to(address)) >= count, 30), f"no mail {count} to {address}"
    mail: Received = sink.to(address)[count - 1]
    return next(link for link in links_in(mail) if link.startswith(server.base + "/#"))


def open_account_panel(page: Page) -> None:
    page.get_by_role("group", name="Account").locator('details[data-menu="account"] > summary').click()


@pytest.mark.slow
def test_add_an_address_then_reset_a_forgotten_password_by_mail(mail_server: tuple[Server, SmtpSink],
                                                                   contexts: Contexts) -> None:
    server, sink = mail_server
    page = contexts.page(bypass_csp=True)  # for axe's script
    page.goto(server.base + "/")
    area = page.get_by_role("group", name="Account")
    account_form(page, "register", "Mia_mail")
    expect(area.locator(".account-name")).to_have_text("Mia_mail")

    # The account panel: no address yet; one asked for with the password.
    open_account_panel(page)
    section = area.locator('details[data-section="email"]')
    section.locator("> summary").click()
    status = section.locator("[data-email-status]")
    expect(status).to_contain_text("No email address")
    form = section.locator('form[data-form="email"]')
    form.get_by_label("Email address").fill("mia@example.com")
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Send confirmation link").click()
    expect(form.locator(".account-note")).to_contain_text("A link is on its way to mia@example.com")
    expect(status).to_contain_text("Waiting for you to confirm mia@example.com")
    assert severe_violations(page) == []

    # The link from the real mail, followed: the page confirms it and forgets the token.
    page.goto(link_in(sink, "mia@example.com", 1, server))
    card = page.locator('dialog[data-mailed="verify-email"]')
    expect(card).to_contain_text("Your address is confirmed: mia@example.com.")
    assert "#" not in page.url
    card.get_by_role("button", name="Close").click()
    expect(card).to_have_count(0)
    page.reload()  # the address, as the server has it now
    open_account_panel(page)
    section.locator("> summary").click()
    expect(status).to_have_text("Your address: mia@example.com.")

    area.get_by_role("button", name="Log out", exact=True).click()
    expect(area.locator('details[data-menu="login"]')).to_be_visible()

    # Forgotten: "Forgot password?" under the log-in form, on a phone.
    phone = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True)
    phone.goto(server.base + "/")
    phone_area = phone.get_by_role("group", name="Account")
    phone_area.locator('details[data-menu="login"] > summary').click()
    forgot = phone_area.locator('details[data-section="forgot"]')
    forgot.locator("> summary").click()
    forgot.get_by_label("Username or email address").fill("MIA@example.com")
    forgot.get_by_role("button", name="Mail me a link").click()
    expect(forgot.locator(".account-note")).to_contain_text("a mail with a link to choose a new password is on its way")

    phone.goto(link_in(sink, "mia@example.com", 2, server))
    reset = phone.locator('dialog[data-mailed="reset-password"]')
    expect(reset.get_by_label("New password")).to_be_focused()  # the modal card takes the keyboard
    assert severe_violations(phone) == []
    reset.get_by_label("New password").fill(NEW_PASSWORD)
    reset.get_by_role("button", name="Set the new password").click()
    expect(reset.locator(".account-note")).to_contain_text("Your password is changed and you are logged in")
    expect(reset.get_by_label("New password")).to_be_hidden()  # the link is used: nothing more to send
    expect(phone_area.locator(".account-name")).to_have_text("Mia_mail")
    shot(phone, "phone-email-password-reset")
    reset.get_by_role("button", name="Close").click()

    # The old password opens nothing; the new one logs in.
    phone_area.get_by_role("button", name="Log out", exact=True).click()
    account_form(phone, "login", "Mia_mail", PASSWORD)
    expect(phone_area.locator('form[data-form="login"] .account-note')).to_contain_text("wrong username or password")
    phone_area.locator('form[data-form="login"]').get_by_label("Password").fill(NEW_PASSWORD)
    phone_area.locator('form[data-form="login"]').get_by_role("button", name="Log in").click()
    expect(phone_area.locator(".account-name")).to_have_text("Mia_mail")

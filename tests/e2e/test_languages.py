"""The page in the visitor's language: a browser set to French sees the lobby in French
without setting anything, switches to German with the Language setting (which the next
page load and the server's messages follow); a phone in Arabic gets the page right to left,
the lobby and a table's page mirrored without overflowing the screen."""

from __future__ import annotations

from pathlib import Path

from omega_page import PHONE, Contexts, Server
from playwright.sync_api import Page, expect


def no_sideways_scroll(page: Page) -> None:
    """Nothing sticks out past the screen's edge (a mirrored layout that overflows scrolls sideways)."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def test_a_french_visitor_sees_french_and_may_choose_another_language(server: Server, contexts: Contexts) -> None:
    page = contexts.page(locale="fr-FR")
    page.goto(server.base + "/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("heading", name="Nouvelle table")).to_be_visible()
    expect(page.locator(".tagline")).to_have_text("posez chaque couleur, multipliez vos groupes")
    choice = page.get_by_label("Langue")
    expect(choice).to_have_value("fr")
    # The setting: German from now on, for the page and for what the server says.
    choice.select_option("de")
    expect(page.get_by_role("heading", name="Neuer Tisch")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    answer = page.request.get(server.base + "/api/tables/nosuchtable")
    assert answer.json()["error"]["message"] == "es gibt keinen Tisch 'nosuchtable'"


def test_a_phone_in_arabic_gets_the_page_right_to_left(server: Server, contexts: Contexts, tmp_path: Path) -> None:
    page = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="ar")
    page.goto(server.base + "/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_role("heading", name="طاولة جديدة")).to_be_visible()
    # Mirrored: the brand, first in the bar, sits at the right edge.
    brand = page.locator(".topbar .brand").bounding_box()
    assert brand is not None and brand["x"] > PHONE["width"] / 2, brand
    no_sideways_scroll(page)
    page.screenshot(path=str(tmp_path / "lobby-rtl.png"), full_page=True)
    made = page.request.post(server.base + "/api/tables", headers={"origin": server.base},
                             data={"players": 2, "size": 5}).json()
    page.goto(f"{server.base}/t/{made['id']}#seat={made['token']}")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live")
    expect(page.locator("svg.board")).to_be_visible()
    no_sideways_scroll(page)
    page.screenshot(path=str(tmp_path / "table-rtl.png"), full_page=True)


def test_a_logged_in_readers_choice_becomes_their_accounts_language(server: Server, contexts: Contexts) -> None:
    # The account remembers the language, for what is sent while its player is away (mails,
    # pushes): the page's setting tells it before it reloads.
    page = contexts.page(locale="fr-FR")
    r = page.request.post(server.base + "/api/account/register",
                          headers={"origin": server.base, "accept-language": "fr-FR"},
                          data={"username": "Lena", "password": "correct horse battery"})
    assert r.status == 201, r.text()
    assert page.request.get(server.base + "/api/account").json()["language"] == "fr"
    page.goto(server.base + "/")
    page.get_by_label("Langue").select_option("de")
    expect(page.get_by_role("heading", name="Neuer Tisch")).to_be_visible()
    assert page.request.get(server.base + "/api/account").json()["language"] == "de"


def test_seats_default_names_are_shown_in_the_readers_language(server: Server, contexts: Contexts) -> None:
    # The table's state is the same for every reader; its default names come as messages.
    page = contexts.page(locale="de-DE")
    made = page.request.post(server.base + "/api/tables", headers={"origin": server.base},
                             data={"players": 3, "seats": [{"kind": "human"}, {"kind": "human"},
                                                           {"kind": "computer", "level": 6}]}).json()
    page.goto(f"{server.base}/t/{made['id']}#seat={made['token']}")
    names = page.locator(".panels .pname")
    expect(names).to_have_text(["Spieler 1", "Spieler 2", "Computer (Leicht)"])
    # A name the player writes is shown as written.
    page.get_by_label("Dein Name").fill("Ada")
    page.get_by_label("Dein Name").press("Enter")
    expect(names.first).to_have_text("Ada")

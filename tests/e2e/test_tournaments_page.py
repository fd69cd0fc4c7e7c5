"""The tournaments' pages in the browser, against a real server: a real-time Swiss and an
arena played by three accounts at real tables (a turn on the board, a resignation through
the page's own buttons), their pages opening each player's game and showing the standings
as they change; a round robin of 3-player tables where each player has each seat once,
watched on a phone; and the "New tournament" form, which refuses bad input in words and
keeps what was typed, with the start typed in the viewer's own time.

Tournaments are made and joined through the HTTP API (with each account's cookie) where the
test's point is not the form; they start a few seconds after they are made, on the server's
real clock."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from omega_page import PHONE, Contexts, Server, TablePage, engine_order, shot
from playwright.sync_api import Locator, Page, Playwright, expect
from test_accounts import PASSWORD

PLAYERS = ("ann_cup", "bob_cup", "cat_cup")
#: Seconds between making a tournament and its start: time to join it and open its pages.
LEAD = 4


@pytest.fixture(scope="module")
def accounts(server: Server, playwright_instance: Playwright) -> Iterator[dict[str, Any]]:
    """Each account's cookies, registered once for the module (registrations per address
    are limited); every test's pages start from them, logged in."""
    states: dict[str, Any] = {}
    for name in (*PLAYERS, "dan_cup"):
        request = playwright_instance.request.new_context(base_url=server.base,
                                                          extra_http_headers={"Origin": server.base})
        answer = request.post("/api/account/register", data={"username": name, "password": PASSWORD})
        assert answer.status == 201, answer.text()
        states[name] = request.storage_state()
        request.dispose()
    yield states


def logged_in(contexts: Contexts, accounts: dict[str, Any], name: str, phone: bool = False, **kw: Any) -> Page:
    if phone:
        return contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                             storage_state=accounts[name], **kw)
    return contexts.page(storage_state=accounts[name], **kw)


def call(page: Page, server: Server, method: str, path: str, body: Any = None) -> Any:
    """An API call with the page's account (its cookie), as the page's own script makes it."""
    answer = page.request.fetch(server.base + path, method=method, data=body, headers={"Origin": server.base})
    assert answer.ok, f"{method} {path}: {answer.status} {answer.text()}"
    return answer.json()


def soon(seconds: float = LEAD) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def made_and_joined(server: Server, pages: dict[str, Page], creator: str, **body: Any) -> dict[str, Any]:
    """A casual tournament ``creator`` makes, starting in :data:`LEAD` seconds, which all of
    ``pages`` join."""
    body = {"size": 5, "time_control": "3+2", "rated": False, "starts_at": soon(), **body}
    made = call(pages[creator], server, "POST", "/api/tournaments", body)
    for page in pages.values():
        call(page, server, "POST", f"/api/tournaments/{made['id']}/join")
    return dict(made)


def view(server: Server, tid: str) -> dict[str, Any]:
    return dict(server.request("GET", f"/api/tournaments/{tid}", None))


def expected_standings(t: dict[str, Any]) -> list[list[str]]:
    """The server's standings as the page must write them (rank, player and rating, points,
    each tie-break, games, and the seats or an arena's streak)."""
    rows = []
    for s in t["standings"]:
        player = f"{s['user']} {s['rating']}" + (" paused" if s["paused"] else "") + (" withdrawn" if s["withdrawn"] else "")
        breaks = [("–" if not s["games"] else str(round(v))) if k == "performance" else f"{round(v, 2):g}"
                  for k, v in zip(t["tiebreaks"], s["tiebreaks"], strict=True)]
        last = f"{s['extra']['streak']}{', on fire' if s['extra']['fire'] else ''}" if t["format"] == "arena" \
            else " · ".join(map(str, s["extra"]["seats"]))
        rows.append([str(s["rank"]), player, f"{s['points']:g}", *breaks, str(s["games"]), last])
    return rows


def expect_standings(page: Page, server: Server, tid: str) -> None:
    """The page shows the server's standings (waiting for its socket to bring them)."""
    rows = expected_standings(view(server, tid))
    body = page.locator(".standings tbody tr")
    expect(body).to_have_count(len(rows))
    for i, row in enumerate(rows):
        expect(body.nth(i).locator("td")).to_have_text(row)


def game_on(watcher: Page, round_number: int | None = None) -> tuple[str, list[str]]:
    """The game being played (of ``round_number``), as the tournament page lists it: its
    table and its players in seat order."""
    where = ".tournament-rounds" if round_number is None else f'.tournament-round[data-round="{round_number}"]'
    game = watcher.locator(f"{where} .tournament-game.on").first
    expect(game).to_be_visible()
    names = seat_names(game.locator(".game-seat"))
    return str(game.get_attribute("data-game")), names


def seat_names(seats: Locator) -> list[str]:
    """The players of a game's seats as the page lists them, in seat order."""
    return [str(n) for n in seats.evaluate_all("els => els.map(e => e.dataset.player)")]


def at_table(page: Page, name: str, table_id: str) -> TablePage:
    """The player's page on their game: a page still on its last game goes back to the
    tournament by the table page's link, and the tournament page opens the new game."""
    if "/t/" in page.url and f"/t/{table_id}" not in page.url:
        page.get_by_role("link", name=f"↩ {name}").click()
    expect(page).to_have_url(re.compile(rf"/t/{table_id}$"))
    table = TablePage(page)
    expect(table.cell("a1")).to_be_visible()
    return table


def resign(page: Page) -> None:
    page.get_by_role("button", name="Resign…").click()
    page.get_by_role("button", name="Yes, resign").click()
    expect(page.locator(".prompt")).to_contain_text("Game over")


def play_and_resign(white: TablePage, black: TablePage, rng: random.Random) -> None:
    """White plays a turn on the board; Black resigns (the tournaments here are casual: at
    a rated table a resignation before two turns each aborts the game)."""
    white.play_turn(engine_order(2, 0), rng)
    resign(black.page)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= (page.viewport_size or PHONE)["width"], f"the page is {width} px wide: it scrolls sideways"


def test_three_players_play_a_real_time_swiss_in_the_browser(server: Server, contexts: Contexts,
                                                            accounts: dict[str, Any]) -> None:
    rng = random.Random(5)
    pages = {n: logged_in(contexts, accounts, n, phone=n == "cat_cup") for n in PLAYERS}
    name = "Quick Swiss"
    t = made_and_joined(server, pages, "ann_cup", name=name, format="swiss", rounds=2, gap_seconds=0)
    url = f"{server.base}/tournaments/{t['id']}"
    watcher = contexts.page()  # a guest follows it too
    for page in [*pages.values(), watcher]:
        page.goto(url)
    expect(watcher.locator("h1")).to_have_text(name)
    expect(watcher.locator(".tournament-describe")).to_have_text("Swiss, 2 rounds · 2 per table · side 5 · 3+2 · casual")
    # The tie-breaks are columns named in words, explained on hover and under the table.
    expect(watcher.locator('th[data-column="buchholz"]')).to_have_text("Buchholz")
    expect(watcher.locator('th[data-column="buchholz"]')).to_have_attribute("title", re.compile("sum of your opponents' points"))
    expect(watcher.locator('th[data-column="sonneborn_berger"]')).to_have_text("Sonneborn-Berger")
    expect(watcher.locator(".tiebreak-notes")).to_contain_text("Sonneborn-Berger")
    expect(watcher.locator(".tiebreak-notes")).to_contain_text("opponents you finished above")

    for number in (1, 2):
        # The round's players are sent to their game; the third has no table this round.
        table_id, (white_name, black_name) = game_on(watcher, number)
        rest = next(n for n in PLAYERS if n not in (white_name, black_name))
        expect(watcher.locator(f'.tournament-round[data-round="{number}"] .tournament-bye')).to_have_text(
            f"{rest}: no table this round")
        white, black = at_table(pages[white_name], name, table_id), at_table(pages[black_name], name, table_id)
        expect(pages[rest]).to_have_url(url)
        expect(pages[rest].locator(".tournament-status")).to_have_text(re.compile(f"^Round {number} of 2"))
        if number == 1:
            expect(black.page.get_by_role("link", name=f"↩ {name}")).to_be_visible()
            shot(white.page, "tournament-swiss-game")
            # A guest watches the game from the tournament page without a link, and comes back.
            watcher.locator(f'.tournament-playing .tournament-game[data-game="{table_id}"]').get_by_role(
                "link", name="watch").click()
            expect(watcher).to_have_url(f"{server.base}/t/{table_id}")
            expect(TablePage(watcher).panel("Black")).to_contain_text(black_name)
            expect(watcher.locator(".prompt")).to_contain_text("White")
            watcher.get_by_role("link", name=f"↩ {name}").click()
            expect(watcher).to_have_url(url)
        if "cat_cup" in (white_name, black_name):  # the phone's table page, with its way back
            shot(pages["cat_cup"], "phone-tournament-swiss-game")
        # The one without a table follows on the tournament page, never reloaded.
        pages[rest].evaluate("window.sameLoad = true")
        play_and_resign(white, black, rng)
        if number == 2:  # the last round: nothing takes them away from the page
            expect(pages[rest].locator(".tournament-status")).to_have_text(re.compile("^Finished"))
            expect_standings(pages[rest], server, t["id"])
            assert pages[rest].evaluate("window.sameLoad === true")
        # Both go back to the tournament by the table page's link: its page opens their next
        # game as soon as the next round seats them.
        for page in (white.page, black.page):
            page.get_by_role("link", name=f"↩ {name}").click()
            expect(page).to_have_url(re.compile(rf"{re.escape(url)}$|/t/(?!{re.escape(table_id)}$)[A-Za-z0-9_-]+$"))

    # Back from the last game, everyone reads the final standings the server has.
    for player, page in pages.items():
        expect(page).to_have_url(url)
        expect(page.locator(".tournament-status")).to_have_text(re.compile("^Finished"))
        expect_standings(page, server, t["id"])
        expect(page.locator(f'.standings tr[data-player="{player}"]')).to_have_class("mine")
        no_sideways_scroll(page)
    final = view(server, t["id"])
    assert final["status"] == "finished" and len(final["games"]) == 2
    assert sum(s["points"] for s in final["standings"]) == 4  # two games, two byes
    expect(watcher.locator(".tournament-round .tournament-game")).to_have_count(2)
    expect(watcher.locator(".tournament-round .tournament-game .game-seat.won")).to_have_count(2)
    shot(pages["ann_cup"], "tournament-swiss-finished")
    shot(pages["cat_cup"], "phone-tournament-swiss-finished")


def test_three_players_play_an_arena_with_a_pause(server: Server, contexts: Contexts, accounts: dict[str, Any]) -> None:
    rng = random.Random(8)
    pages = {n: logged_in(contexts, accounts, n) for n in PLAYERS}
    name = "Blitz arena"
    t = made_and_joined(server, pages, "bob_cup", name=name, format="arena", minutes=5)
    url = f"{server.base}/tournaments/{t['id']}"
    watcher = contexts.page()
    for page in [*pages.values(), watcher]:
        page.goto(url)
    expect(watcher.locator('th[data-column="performance"]')).to_have_text("Performance")
    expect(watcher.locator('th[data-column="streak"]')).to_have_text("Streak")

    # Two are paired as it starts; the third waits on the tournament page and pauses.
    table_id, (white_name, black_name) = game_on(watcher)
    rest = next(n for n in PLAYERS if n not in (white_name, black_name))
    waiting = pages[rest]
    expect(waiting.locator(".tournament-status")).to_have_text(re.compile("^Playing: started .*; ends "))
    expect(waiting.locator(".countdown")).to_have_text(re.compile(r"^in [45]:\d\d$"))
    waiting.get_by_role("button", name="Pause").click()
    expect(waiting.get_by_role("button", name="Resume")).to_be_visible()
    expect(waiting.locator(f'.standings tr[data-player="{rest}"] .tag.paused')).to_have_text("paused")
    white, black = at_table(pages[white_name], name, table_id), at_table(pages[black_name], name, table_id)
    play_and_resign(white, black, rng)
    # The paused player sees the winner's point and streak arrive live, and stays unpaired.
    expect(waiting.locator(f'.standings tr[data-player="{white_name}"] td[data-column="points"]')).to_have_text("1")
    expect(waiting.locator(f'.standings tr[data-player="{white_name}"] td[data-column="streak"]')).to_have_text("1")
    expect_standings(waiting, server, t["id"])
    shot(waiting, "tournament-arena-paused")

    # The two who played are paired again at once: back on the tournament page, each is
    # sent to the new game.
    second, players = game_on(watcher)
    assert second != table_id and sorted(players) == sorted([white_name, black_name])
    white, black = at_table(pages[players[0]], name, second), at_table(pages[players[1]], name, second)
    waiting.get_by_role("button", name="Resume").click()
    expect(waiting.get_by_role("button", name="Pause")).to_be_visible()
    play_and_resign(white, black, rng)
    expect(watcher.locator(".tournament-rounds .tournament-game .game-seat.won")).to_have_count(2)
    expect_standings(watcher, server, t["id"])
    assert sum(s["games"] for s in view(server, t["id"])["standings"]) == 4
    shot(watcher, "tournament-arena-standings")
    # Nobody is paired again once they all withdraw (a game being played goes on).
    for page in pages.values():
        call(page, server, "POST", f"/api/tournaments/{t['id']}/withdraw")
    expect(watcher.locator(".standings .tag", has_text="withdrawn")).to_have_count(3)


def test_a_round_robin_of_three_seats_each_player_once_in_each_seat(server: Server, contexts: Contexts,
                                                                    accounts: dict[str, Any]) -> None:
    # The players act by the API (their cookies); a guest on a phone watches the page.
    players = {n: logged_in(contexts, accounts, n) for n in PLAYERS}
    t = made_and_joined(server, players, "cat_cup", name="Three of us", format="round_robin", players=3,
                        gap_seconds=0)
    phone = contexts.page(PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    phone.goto(f"{server.base}/tournaments/{t['id']}")
    # The start is LEAD seconds of real time away: on a loaded machine the page may first
    # show the tournament already running, when it also counts its rounds.
    expect(phone.locator(".tournament-describe")).to_have_text(re.compile(
        r"^Round robin of 3-player tables(, 3 rounds)? · 3 per table · side 5 · 3\+2 · casual$"))
    for number in (1, 2, 3):
        table_id, seats = game_on(phone, number)
        assert sorted(seats) == sorted(PLAYERS)
        # Red resigns, then Black: White wins, Black second (the later resigner ranks above).
        for name in (seats[2], seats[1]):
            call(players[name], server, "POST", f"/api/tables/{table_id}/actions",
                 {"type": "resign", "request_id": f"resign-{table_id}-{name}"})
        expect(phone.locator(f'.tournament-game[data-game="{table_id}"] .game-seat')).to_have_text(
            [f"{seats[0]} 1st", f"{seats[1]} 2nd", f"{seats[2]} 3rd"])
    expect(phone.locator(".tournament-status")).to_have_text(re.compile("^Finished"))
    expect(phone.locator('th[data-column="seats"]')).to_have_attribute("title", "games played as White · Black · Red")
    # Each player has had each seat once: in the standings' column and in the rounds' seats.
    for name in PLAYERS:
        expect(phone.locator(f'.standings tr[data-player="{name}"] td[data-column="seats"]')).to_have_text("1 · 1 · 1")
    orders = [seat_names(phone.locator(f'.tournament-round[data-round="{r}"] .game-seat')) for r in (1, 2, 3)]
    for seat in range(3):
        assert sorted(order[seat] for order in orders) == sorted(PLAYERS), orders
    final = view(server, t["id"])
    assert {tuple(s["extra"]["seats"]) for s in final["standings"]} == {(1, 1, 1)}
    assert [g["players"] for g in final["games"]] == orders
    expect_standings(phone, server, t["id"])
    # On a phone the page never scrolls sideways: the standings scroll in their own box.
    no_sideways_scroll(phone)
    box = phone.locator(".standings-box")
    assert box.evaluate("b => getComputedStyle(b).overflowX") == "auto"
    assert box.evaluate("b => b.getBoundingClientRect().right") <= PHONE["width"]
    shot(phone, "phone-tournament-round-robin")


def test_the_form_refuses_bad_input_in_words_and_keeps_what_was_typed(server: Server, contexts: Contexts,
                                                                     accounts: dict[str, Any]) -> None:
    paris = ZoneInfo("Europe/Paris")
    page = logged_in(contexts, accounts, "dan_cup", timezone_id="Europe/Paris", locale="en-GB")
    page.goto(server.base + "/")
    page.locator(".topbar").get_by_role("link", name="Tournaments").click()
    expect(page).to_have_url(f"{server.base}/tournaments")
    form = page.get_by_role("form", name="New tournament")
    error = form.get_by_role("alert")
    name = form.get_by_label("Name")
    rounds = form.get_by_label("Rounds")
    name.fill("Dan's cup")
    rounds.fill("99")
    form.get_by_role("button", name="Create tournament").click()
    # The page's own check, from the server's limits: what and where, and nothing lost.
    expect(error).to_have_text("Rounds: a whole number from 1 to 20")
    expect(rounds).to_have_attribute("aria-invalid", "true")
    expect(rounds).to_be_focused()
    expect(rounds).to_have_value("99")
    expect(name).to_have_value("Dan's cup")
    shot(page, "tournament-form-refused")

    # The server's refusals, in its words behind the page's: a public one needs a moderator,
    rounds.fill("3")
    form.get_by_label("Public").check()
    form.get_by_role("button", name="Create tournament").click()
    expect(error).to_have_text("Not allowed: only a moderator makes public tournaments; yours can be private "
                               "(joined by its link)")
    expect(form.get_by_label("Public")).to_be_checked()
    expect(rounds).to_have_value("3")
    # and an arena is played in real time.
    form.get_by_label("Public").uncheck()
    form.locator("label", has_text="Arena").click()
    expect(rounds).to_be_hidden()
    form.locator("#t-clock").select_option("1d")
    form.get_by_role("button", name="Create tournament").click()
    expect(error).to_have_text("bad request: time_control: an arena is played in real time (such as 3+2)")
    expect(form.locator("#t-clock")).to_have_attribute("aria-invalid", "true")
    expect(name).to_have_value("Dan's cup")
    assert view_count(page, server) == 0

    # Right, it is made: the start typed in the viewer's own time is that moment for the server.
    form.locator("#t-clock").select_option("3+2")
    day = (datetime.now(paris) + timedelta(days=1)).date()
    form.get_by_label("Start").fill(f"{day.isoformat()}T20:00")
    expect(form).to_contain_text("Your time (Europe/Paris, UTC+")
    form.get_by_role("button", name="Create tournament").click()
    expect(page).to_have_url(re.compile(rf"{server.base}/tournaments/[A-Za-z0-9_-]+$"))
    tid = page.url.rsplit("/", 1)[1]
    t = view(server, tid)
    starts = datetime.combine(day, datetime.min.time().replace(hour=20), tzinfo=paris)
    assert datetime.fromisoformat(t["starts_at"]) == starts
    assert (t["format"], t["minutes"], t["time_control"], t["public"]) == ("arena", 30, "3+2", False)
    expect(page.locator(".tournament-describe")).to_have_text("Arena, 30 minutes · 2 per table · side 5 · 3+2 · rated")
    expect(page.locator(".tournament-status")).to_have_text(f"Starts {day.strftime('%a')} {day.day} {day.strftime('%b')}, 20:00")
    expect(page.locator(".countdown")).to_have_text(re.compile(r"^in \d+(:\d\d){2}$|^in 1 day"))
    # A private tournament is joined by its link, shown to copy.
    link = f"{server.base}/tournaments/{tid}"
    expect(page.get_by_label("The tournament's link")).to_have_value(link)
    expect(page.get_by_role("button", name="Copy link")).to_have_attribute("data-copy", link)
    # Its maker is not in it until they join; then they may withdraw, and pause an arena.
    page.get_by_role("button", name="Join").click()
    expect(page.locator(".tournament-actions")).to_contain_text("you are in")
    expect(page.locator('.standings tr[data-player="dan_cup"]')).to_be_visible()
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Resume")).to_be_focused()
    page.get_by_role("button", name="Resume").click()
    page.get_by_role("button", name="Withdraw").click()
    expect(page.get_by_role("button", name="Join")).to_be_visible()
    expect(page.locator(".standings tbody")).to_have_text("Nobody has joined yet.")
    page.get_by_role("button", name="Join").click()
    expect(page.get_by_role("button", name="Withdraw")).to_be_visible()
    shot(page, "tournament-upcoming")

    # Someone in New York opens the link on a phone: the same start, in their own time.
    other = logged_in(contexts, accounts, "ann_cup", phone=True, timezone_id="America/New_York", locale="en-US")
    other.goto(link)
    expect(other.locator(".tournament-status")).to_have_text(re.compile(r", 02:00\sPM$"))
    expect(other.get_by_role("button", name="Join")).to_be_visible()
    no_sideways_scroll(other)
    shot(other, "phone-tournament-upcoming")

    # The list shows it to its maker, private and theirs, in their time.
    page.goto(server.base + "/tournaments")
    row = page.locator(f'.tournament-row[data-tournament="{tid}"]')
    expect(row).to_contain_text("Dan's cup")
    expect(row.locator(".tag")).to_have_text(["private", "yours"])
    expect(row).to_contain_text("1 player · starts ")
    expect(row).to_contain_text("20:00")
    expect(page.get_by_label("Upcoming tournaments")).to_contain_text("Dan's cup")
    shot(page, "tournament-list")


def view_count(page: Page, server: Server) -> int:
    """The unfinished tournaments the page's account sees as its own."""
    listed = call(page, server, "GET", "/api/tournaments")["tournaments"]
    return sum(1 for key in ("upcoming", "running") for t in listed[key] if t["mine"])

"""Quick play's opt-in computer opponent: a player who asked for one and waited long enough
plays the computer at the level whose rating is nearest theirs (docs/server-api.md)."""

from __future__ import annotations

from typing import Any

from omega.ai.levels import level, nearest_level
from omega.server.clock import FakeClock
from omega.server.lobby.quickplay import COMPUTER_AFTER
from omega.server.tables.timecontrol import QUICKPLAY_DEFAULT

from .server_helpers import LiveServer, error_code
from .site_helpers import lobby_socket, state_of
from .test_lobby import set_rating


def test_a_player_who_waited_long_enough_plays_the_computer_at_their_level(
        site: LiveServer, people: Any, db_url: str, clock: FakeClock) -> None:
    ann, bob = people("Ann"), people("Bob")
    set_rating(db_url, "Ann", 2, 1500)
    anns = lobby_socket(site, ann)
    anns.recv()
    r = ann.post("/api/quickplay", {"players": 2, "size": 5, "computer": True}).json()
    assert (r["status"], r["computer"]) == ("waiting", True)
    # Bob waits for people only (and for another table); a bad choice is refused.
    assert bob.post("/api/quickplay", {"players": 3, "size": 5}).json()["computer"] is False
    bad = bob.post("/api/quickplay", {"players": 2, "size": 5, "computer": "maybe"})
    assert bad.status_code == 400 and error_code(bad) == "bad_request"
    assert bob.get("/api/quickplay").json()["players"] == 3
    clock.advance(COMPUTER_AFTER / 2)
    assert ann.get("/api/quickplay").json()["status"] == "waiting"
    clock.advance(COMPUTER_AFTER / 2 + 3)  # the recurring matcher runs within its interval
    matched = anns.until(lambda m: m["type"] == "matched", timeout=30)
    st = state_of(ann, matched["table_id"])
    # Casual (a rated table has no computer), the clock and the pie rule of quick play, and
    # the other seat the computer at the level nearest Ann's 1500.
    assert (st["rated"], st["status"], st["pie_rule"], st["you"]["seat"]) == (False, "playing", True, matched["seat"])
    assert st["clock"]["control"] == QUICKPLAY_DEFAULT
    computer = nearest_level(1500)
    assert [(s["kind"], s["level"], s["rating"]) for s in st["seats"] if s["index"] != matched["seat"]] == [
        ("computer", computer, level(computer).rating)]
    assert ann.get("/api/quickplay").json()["status"] == "matched"
    assert bob.get("/api/quickplay").json()["status"] == "waiting"  # nobody came for Bob
    anns.close()

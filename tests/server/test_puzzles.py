"""Puzzles (issue 33) over real HTTP round trips on SQLite and PostgreSQL: the next puzzle near
the player's rating and never one they tried, a solve and a miss moving both the player's and
the puzzle's Glicko-2 ratings the right way (the first attempt only), a guest playing unrated,
and refusals (an unknown puzzle, an illegal turn, a given stone moved, a bad body, a write from
another site) that change nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from omega.puzzles.format import Puzzle, shipped_puzzles
from omega.server.infra.db import make_engine
from omega.server.puzzles.models import PuzzleAttemptRow, PuzzleRatingRow, PuzzleRow

from .server_helpers import LiveServer
from .site_helpers import Browser

SHIPPED = {p.id: p for p in shipped_puzzles()}


def wrong_turn(p: Puzzle) -> list[str]:
    """A legal turn that keeps the given stones and is not the answer: the first stone to
    find put on a cell the answer leaves empty (the last turn of a game leaves only one)."""
    free = next(c for c in p.game().empty_cells() if c not in p.answer)
    first = p.given.index(None)
    return [free if i == first else cell for i, cell in enumerate(p.answer)]


def next_puzzle(b: Browser, **params: str) -> dict[str, Any]:
    r = b.get("/api/puzzles/next", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def attempt(b: Browser, puzzle_id: str, turn: list[str], status: int = 200) -> dict[str, Any]:
    r = b.post(f"/api/puzzles/{puzzle_id}/attempt", {"turn": turn})
    assert r.status_code == status, r.text
    return dict(r.json())


def database(site: LiveServer, db_url: str) -> dict[str, Any]:
    """Every puzzle row's rating and counts, the players' ratings and the attempts."""
    engine = make_engine(db_url)
    with engine.connect() as conn:
        seen = {
            "puzzles": sorted(conn.execute(select(PuzzleRow.id, PuzzleRow.rating, PuzzleRow.deviation,
                                                  PuzzleRow.attempts, PuzzleRow.solved)).all()),
            "players": sorted(conn.execute(select(PuzzleRatingRow.user_id, PuzzleRatingRow.rating,
                                                  PuzzleRatingRow.attempts)).all()),
            "attempts": conn.execute(select(func.count()).select_from(PuzzleAttemptRow)).scalar_one(),
        }
    engine.dispose()
    return seen


def test_a_solve_and_a_miss_move_both_ratings_and_only_the_first_attempt_counts(site: LiveServer, people: Any,
                                                                                 db_url: str) -> None:
    ann = people("Ann")
    first = next_puzzle(ann)
    assert first["player"] == {"rating": 1500, "deviation": 350, "provisional": True, "attempts": 0, "solved": 0}
    shown = first["puzzle"]
    p = SHIPPED[shown["id"]]
    # The page gets the position and the stones to find, never the answer.
    assert "answer" not in shown and "line" not in shown
    assert shown["stones"] == {c: col.label for c, col in p.game().stones().items()}
    assert shown["to_move"] == p.to_move and shown["given"] == list(p.given) and shown["rating"] == 1500

    solved = attempt(ann, p.id, list(p.answer))
    assert solved["correct"] is True and solved["rated"] is True
    assert solved["answer"] == list(p.answer) and solved["line"] == [list(t) for t in p.line]
    assert solved["player"]["rating"] > 1500 and solved["player"]["change"] > 0
    assert solved["player"]["attempts"] == 1 and solved["player"]["solved"] == 1
    assert solved["puzzle"]["rating"] < 1500 and solved["puzzle"]["change"] < 0
    after_solve = solved["player"]["rating"]

    # Again: right, but not rated a second time.
    again = attempt(ann, p.id, list(p.answer))
    assert again["correct"] is True and again["rated"] is False and again["player"]["rating"] == after_solve

    # The next puzzle is never one she tried; a miss lowers her rating and raises the puzzle's.
    second = next_puzzle(ann)
    assert second["puzzle"]["id"] != p.id and second["player"]["rating"] == after_solve
    q = SHIPPED[second["puzzle"]["id"]]
    missed = attempt(ann, q.id, wrong_turn(q))
    assert missed["correct"] is False and missed["rated"] is True and missed["answer"] == list(q.answer)
    assert missed["player"]["rating"] < after_solve and missed["puzzle"]["rating"] > second["puzzle"]["rating"]
    assert next_puzzle(ann)["player"]["attempts"] == 2

    seen = database(site, db_url)
    assert seen["attempts"] == 2 and len(seen["players"]) == 1
    # Her data download holds her puzzle rating and her attempts.
    mine = ann.get("/api/account/export", headers={"sec-fetch-site": "same-origin"}).json()["puzzles"]
    assert mine["rating"]["attempts"] == 2 and [a["puzzle"] for a in mine["attempts"]] == [p.id, q.id]
    assert len(seen["puzzles"]) == len(SHIPPED)  # the shipped set, loaded once


def test_a_guest_plays_unrated_and_refusals_change_nothing(site: LiveServer, people: Any, db_url: str) -> None:
    guest = Browser(site)
    shown = next_puzzle(guest)
    assert shown["player"] is None
    p = SHIPPED[shown["puzzle"]["id"]]
    assert next_puzzle(guest, skip=p.id)["puzzle"]["id"] != p.id
    result = attempt(guest, p.id, list(p.answer))
    assert result["correct"] is True and result["rated"] is False and result["player"] is None
    assert result["puzzle"]["change"] == 0
    assert guest.get(f"/api/puzzles/{p.id}").json()["puzzle"]["attempts"] == 0

    bob = people("Bob")
    before = database(site, db_url)
    game = p.game()
    taken = next(iter(game.stones()))
    refusals = [
        ("/api/puzzles/nosuchpuzzle/attempt", {"turn": list(p.answer)}, 404, "not_found", None),
        (f"/api/puzzles/{p.id}/attempt", {"turn": [taken, *p.answer[1:]]}, 422, "illegal_move", None),
        (f"/api/puzzles/{p.id}/attempt", {"turn": list(p.answer[:1])}, 400, "bad_request", None),
        (f"/api/puzzles/{p.id}/attempt", {"turn": "e5 a1"}, 400, "bad_request", None),
        (f"/api/puzzles/{p.id}/attempt", {"turn": list(p.answer), "extra": 1}, 400, "bad_request", None),
        (f"/api/puzzles/{p.id}/attempt", {"turn": list(p.answer)}, 403, "cross_site", "http://evil.example"),
    ]
    fixed = [i for i, g in enumerate(p.given) if g is not None]
    if fixed:  # a given stone put elsewhere: a legal turn, but not this puzzle's
        moved = list(p.answer)
        moved[fixed[0]] = next(c for c in game.empty_cells() if c not in p.answer)
        refusals.append((f"/api/puzzles/{p.id}/attempt", {"turn": moved}, 400, "bad_request", None))
    for path, body, status, code, origin in refusals:
        r = bob.post(path, body, origin=origin)
        assert r.status_code == status and r.json()["error"]["code"] == code, (path, body, r.text)
    assert database(site, db_url) == before
    assert bob.get("/api/puzzles/nosuchpuzzle").status_code == 404

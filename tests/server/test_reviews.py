"""Reviews of finished games over real HTTP and WebSocket round trips: asked for by anyone at
the table, made once in the computer players' workers with progress on the sockets, stored,
served to everyone, one per table at a time, ``busy`` when the queue is full."""

from __future__ import annotations

import pytest

from omega import Game
from omega.server.app import create_app
from omega.server.infra.limits import Limits
from omega.server.work.thinking import spec_bot

from .server_helpers import Api, LiveServer, Socket, error_code
from .site_helpers import ask_review, finished_table

pytestmark = pytest.mark.timeout(180)

#: Small searches: the review's content is tests/ai/test_review.py's business.
QUICK = (300, 1.0)


def review_server(url: str, budget: tuple[int, float] = QUICK, limits: Limits | None = None) -> LiveServer:
    return LiveServer(create_app(url, bot_factory=spec_bot("random"), review_budget=budget, limits=limits))


@pytest.mark.slow
def test_a_review_is_made_once_and_served_to_everyone(db_url: str) -> None:
    live = review_server(db_url)
    api = Api(live.url)
    try:
        t = api.create(players=2)
        api.turn(t["id"], t["token"], ["e5", "a1"])
        # Not over yet: nothing to review, and nothing queued.
        r = ask_review(api, t["id"], t["token"])
        assert r.status_code == 409 and error_code(r) == "conflict" and "not over" in r.json()["error"]["message"]
        assert ask_review(api, t["id"], t["token"], "GET").json() == {"status": "none"}

        t = finished_table(api)
        watch = Socket(live.ws_url, t["id"], t["spectator_key"])
        player = Socket(live.ws_url, t["id"], t["black"])
        try:
            watch.recv()
            player.recv()
            assert ask_review(api, t["id"], t["spectator_key"], "GET").json() == {"status": "none"}
            r = ask_review(api, t["id"], t["spectator_key"])  # a spectator may ask
            assert r.status_code == 202 and r.json()["status"] in ("queued", "running")
            again = ask_review(api, t["id"], t["token"])       # so may a player: the same review, not another
            assert again.status_code in (200, 202) and again.json()["status"] in ("queued", "running", "done")
            progress = []
            for sock in (watch, player):
                msg = sock.until(lambda m: m["type"] == "review" and m["status"] == "done", timeout=120)
                seen = [m for m in sock.received if m["type"] == "review"]
                assert msg == {"type": "review", "status": "done"}
                progress.append([(m["done"], m["total"]) for m in seen if m["status"] == "running"])
            # 6 turns and a resignation: 7 positions, each reported once (the first at 0).
            assert progress[0] == progress[1] == [(k, 7) for k in range(8)]
        finally:
            watch.close()
            player.close()
        answers = [ask_review(api, t["id"], token, "GET") for token in (t["token"], t["black"], t["spectator_key"])]
        assert all(a.status_code == 200 for a in answers)
        review = answers[0].json()["review"]
        assert answers[0].json()["status"] == "done" and all(a.json() == answers[0].json() for a in answers)
        game = Game.from_record(api.http.get(f"/api/tables/{t['id']}/record.txt",
                                             headers={"authorization": f"Bearer {t['token']}"}).text)
        assert review["format"] == "omega-review" and review["budget"] == {"iterations": 300, "seconds": 1.0}
        assert [tuple(x["played"]) for x in review["turns"]] == list(game.history)
        assert review["over"] is False  # ended by resignation, not by the rules
        # Asking again answers the stored review at once.
        r = ask_review(api, t["id"], t["black"])
        assert r.status_code == 200 and r.json()["review"] == review
        # Strangers get nothing.
        assert ask_review(api, t["id"], None, "GET").status_code == 401
        assert ask_review(api, t["id"], "not-a-token", "GET").status_code == 403
        assert ask_review(api, "nosuchid", t["token"], "GET").status_code == 404
    finally:
        api.close()
        live.stop()
    # Stored for good: a new server process on the same database serves it.
    again_live = review_server(db_url)
    api = Api(again_live.url)
    try:
        r = ask_review(api, t["id"], t["spectator_key"], "GET")
        assert r.status_code == 200 and r.json()["review"] == review
    finally:
        api.close()
        again_live.stop()


def test_a_full_review_queue_answers_busy_and_one_table_never_queues_twice(sqlite_url: str) -> None:
    # Searches of 5 s a position: the first review is still running when the others ask.
    live = review_server(sqlite_url, budget=(10**9, 5.0), limits=Limits(review_queue=1))
    api = Api(live.url)
    try:
        first, second = finished_table(api, 1), finished_table(api, 2)
        assert ask_review(api, first["id"], first["token"]).status_code == 202
        assert ask_review(api, first["id"], first["black"]).status_code == 202  # the same review: not busy
        before = ask_review(api, second["id"], second["token"], "GET").json()
        r = ask_review(api, second["id"], second["token"])
        assert r.status_code == 503 and error_code(r) == "busy"
        assert "reviewing" in r.json()["error"]["message"]
        assert ask_review(api, second["id"], second["token"], "GET").json() == before == {"status": "none"}
        status = ask_review(api, first["id"], first["token"], "GET").json()
        assert status["status"] in ("queued", "running")
    finally:
        api.close()
        live.stop()

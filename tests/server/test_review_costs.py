"""The review of a finished game carries its account (who cost whom what) and the score
scale, over real HTTP and WebSocket round trips, on both databases; the definitions are
tests/test_costs.py's business."""

from __future__ import annotations

import random
from math import log

import pytest

from omega import Game
from omega.costs import account, margins

from .server_helpers import Api, Socket, random_turn
from .site_helpers import ask_review
from .test_reviews import review_server

pytestmark = pytest.mark.timeout(180)


@pytest.mark.slow
def test_the_review_of_a_three_player_game_carries_its_account(db_url: str) -> None:
    live = review_server(db_url)
    api = Api(live.url)
    try:
        t = api.create(players=3, size=5)
        tokens = [t["token"], t["invites"]["1"], t["invites"]["2"]]
        rng = random.Random(33)
        for k in range(18):  # to the end by the rules: 6 rounds leave 7 cells, too few for another (9)
            seat = tokens[k % 3]
            api.turn(t["id"], seat, random_turn(api.state(t["id"], seat), rng))
        assert api.state(t["id"], tokens[0])["status"] == "over"
        sock = Socket(live.ws_url, t["id"], t["spectator_key"])
        try:
            sock.recv()
            # A stranger may not ask for it (and nothing is queued); a spectator may.
            assert ask_review(api, t["id"], "not-a-token").status_code == 403
            assert ask_review(api, t["id"], t["spectator_key"], "GET").json() == {"status": "none"}
            assert ask_review(api, t["id"], t["spectator_key"]).status_code == 202
            sock.until(lambda m: m["type"] == "review" and m["status"] == "done", timeout=150)
        finally:
            sock.close()
        answer = ask_review(api, t["id"], tokens[2], "GET")
        assert answer.status_code == 200
        review = answer.json()["review"]
        game = Game.from_record(api.http.get(f"/api/tables/{t['id']}/record.txt",
                                             headers={"authorization": f"Bearer {tokens[0]}"}).text)
        assert game.is_over and review["over"] is True and review["version"] == 2
        # The account is the rules' replay of the stored game, seat by seat.
        assert review["account"] == account(game).to_json()
        rows = review["account"]["players"]
        assert [r["color"] for r in rows] == ["White", "Black", "Red"]
        for color, score in ((c.label, game.score(c)) for c in game.colors):
            assert review["account"]["final"][color] == round(log(score), 4)
            assert abs(sum(r["net"][color] for r in rows) - log(score)) < 1e-3
            assert all(r["gain"][color] >= 0 and r["cost"][color] >= 0 for r in rows)
        # The score scale: one item a position, the empty board first, ending at the scores.
        scale = review["scores"]
        assert len(scale["log"]) == len(scale["margin"]) == len(review["turns"]) + 1 == len(game.history) + 1
        assert scale["log"][0] == {"White": 0.0, "Black": 0.0, "Red": 0.0}
        assert scale["log"][-1] == review["account"]["final"]
        last = tuple(scale["log"][-1].values())
        assert list(scale["margin"][-1].values()) == [round(m, 4) for m in margins(last)]
    finally:
        api.close()
        live.stop()

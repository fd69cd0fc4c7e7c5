"""The ratings' routes (``docs/server-api.md``, Lobby, quick play and ratings): the
leaderboards and an account's ratings, with the history of its rated games.

>>> sorted(r.path for r in router.routes)
['/api/ratings/{players}', '/api/users/{username}/ratings']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request

from omega.i18n import translatable as _
from omega.names import username_key
from omega.server.accounts.routes import USER_CHARGED
from omega.server.accounts.service import Accounts
from omega.server.errors import ApiError
from omega.server.infra.state import from_app
from omega.server.ratings.service import RATED_PLAYERS, RatingStore, install
from omega.server.tables.core import TableCore
from omega.server.tables.deps import table_core

__all__ = ["router", "setup", "LEADERBOARD_PAGE", "PROFILE_HISTORY", "PROFILE_GAMES"]

#: Rows of a leaderboard page (default and most).
LEADERBOARD_PAGE = 50
#: Rating changes and recent games a profile shows.
PROFILE_HISTORY = 100
PROFILE_GAMES = 20

router = APIRouter()


def setup(app: FastAPI, core: TableCore) -> RatingStore:
    """The ratings of the app (``app.state.ratings``), updated as games end."""
    install(core)
    ratings = RatingStore(core.repo)
    app.state.ratings = ratings
    return ratings


Service = Annotated[RatingStore, from_app("ratings")]


def page(request: Request) -> tuple[int, int]:
    """Dependency: a leaderboard page's ``limit`` and ``offset``."""
    texts = (request.query_params.get("limit", str(LEADERBOARD_PAGE)), request.query_params.get("offset", "0"))
    if not all(t.isascii() and t.isdigit() and len(t) <= 6 for t in texts) or not 1 <= int(texts[0]) <= LEADERBOARD_PAGE:
        raise ApiError("bad_request", _("bad request: limit must be 1 to {leaderboard_page}, offset a whole number", leaderboard_page=LEADERBOARD_PAGE))
    return int(texts[0]), int(texts[1])


@router.get("/api/ratings/{players}", dependencies=[USER_CHARGED])
async def leaderboard(request: Request, players: str,
                      paging: Annotated[tuple[int, int], Depends(page)], ratings: Service) -> dict[str, Any]:
    if not (players.isascii() and players.isdigit() and int(players) in RATED_PLAYERS):
        raise ApiError("not_found", _("there is a leaderboard for {start} to {value} players only", start=RATED_PLAYERS.start, value=RATED_PLAYERS.stop - 1))
    rows, total = await table_core(request).db(ratings.leaderboard, int(players), *paging)
    return {"players": int(players), "total": total, "offset": paging[1], "ratings": rows}


@router.get("/api/users/{username}/ratings", dependencies=[USER_CHARGED])
async def user_ratings(request: Request, username: str, ratings: Service) -> dict[str, Any]:
    accounts: Accounts = request.app.state.accounts
    core, ratings = table_core(request), ratings
    profile = await accounts.profile(username)  # not_found for nobody
    found = await core.db(accounts.store.user_by_key, username_key(username))
    assert found is not None
    user_id = found[0].id
    return {
        "username": profile["username"],
        "ratings": await core.db(ratings.of_user, user_id),
        "history": await core.db(ratings.history, user_id, PROFILE_HISTORY),
        "games": await core.db(ratings.recent_games, user_id, PROFILE_GAMES),
    }

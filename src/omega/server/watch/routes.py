"""The watch feature's routes (``docs/server-api.md``, Watching): the live list, a listed game
opened as a spectator, a player's current game, and the account's listing setting; and
``setup``, which wires the service.

>>> sorted(r.path for r in router.routes)
['/api/account/watch', '/api/account/watch', '/api/games/live', '/api/games/live/{table_id}', '/api/users/{username}/live']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request

from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader
from omega.server.accounts.service import Accounts
from omega.server.infra.state import from_app
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore
from omega.server.watch.schemas import parse_filters, parse_setting
from omega.server.watch.service import Watching

__all__ = ["router", "setup"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, ratings: RatingStore) -> Watching:
    """The live list of the app (``app.state.watching``), ordered by ``ratings``."""
    watching = Watching(core, ratings)
    app.state.watching = watching
    return watching


Service = Annotated[Watching, from_app("watching")]


@router.get("/api/games/live", dependencies=[USER_CHARGED])
async def live_games(request: Request, watching: Service) -> dict[str, Any]:
    filters = parse_filters(request.query_params)
    return {"games": await watching.live(filters)}


@router.get("/api/games/live/{table_id}", dependencies=[USER_CHARGED])
async def watch_game(table_id: str, watching: Service) -> dict[str, Any]:
    return {"game": await watching.watch(table_id)}


@router.get("/api/users/{username}/live", dependencies=[USER_CHARGED])
async def current_game(request: Request, username: str, watching: Service) -> dict[str, Any]:
    accounts: Accounts = request.app.state.accounts
    profile = await accounts.profile(username)  # not_found for nobody, or a closed account
    return {"username": profile["username"], "game": await watching.current(profile["username"])}


@router.get("/api/account/watch", dependencies=[USER_CHARGED])
async def watch_setting(user: Reader, watching: Service) -> dict[str, Any]:
    return await watching.setting(user.id)


@router.post("/api/account/watch", dependencies=[USER_CHARGED])
async def set_watch_setting(user: LoggedIn, raw: Body, watching: Service) -> dict[str, Any]:
    return await watching.set_setting(user.id, parse_setting(raw).listed)

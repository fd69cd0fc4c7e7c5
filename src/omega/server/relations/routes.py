"""The relations' routes (``docs/server-api.md``, Friends and blocks): follow and unfollow,
block and unblock (``PUT`` makes, ``DELETE`` ends; both may be repeated), the friends list,
the blocks, and where the caller stands with one player; and ``setup``, which wires the
service.

>>> sorted({r.path for r in router.routes})  # doctest: +NORMALIZE_WHITESPACE
['/api/blocks', '/api/blocks/{username}', '/api/follows/{username}', '/api/friends',
 '/api/relations/{username}']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI

from omega.server.accounts.routes import USER_CHARGED, LoggedIn, Reader
from omega.server.infra.state import from_app
from omega.server.relations.service import OnlineHere, Relations
from omega.server.tables.core import TableCore

__all__ = ["router", "setup"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, online_here: OnlineHere | None = None) -> Relations:
    """The relations of the app (``app.state.relations``); ``online_here``: the accounts with
    a page socket open in this process (the lobby's)."""
    relations = Relations(core, online_here)
    app.state.relations = relations
    return relations


Service = Annotated[Relations, from_app("relations")]


@router.put("/api/follows/{username}", dependencies=[USER_CHARGED])
async def follow(username: str, user: LoggedIn, relations: Service) -> dict[str, Any]:
    return await relations.follow(user, username)


@router.delete("/api/follows/{username}", dependencies=[USER_CHARGED])
async def unfollow(username: str, user: LoggedIn, relations: Service) -> dict[str, Any]:
    return await relations.unfollow(user, username)


@router.put("/api/blocks/{username}", dependencies=[USER_CHARGED])
async def block(username: str, user: LoggedIn, relations: Service) -> dict[str, Any]:
    return await relations.block(user, username)


@router.delete("/api/blocks/{username}", dependencies=[USER_CHARGED])
async def unblock(username: str, user: LoggedIn, relations: Service) -> dict[str, Any]:
    return await relations.unblock(user, username)


@router.get("/api/friends", dependencies=[USER_CHARGED])
async def friends(user: Reader, relations: Service) -> dict[str, Any]:
    return await relations.friends(user)


@router.get("/api/blocks", dependencies=[USER_CHARGED])
async def blocks(user: Reader, relations: Service) -> dict[str, Any]:
    return await relations.blocks(user)


@router.get("/api/relations/{username}", dependencies=[USER_CHARGED])
async def relation(username: str, user: Reader, relations: Service) -> dict[str, Any]:
    return await relations.relation(user, username)

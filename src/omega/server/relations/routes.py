"""The relations' routes (``docs/server-api.md``, Friends and blocks): follow and unfollow,
block and unblock (``PUT`` makes, ``DELETE`` ends; both may be repeated), the friends list,
the blocks, and where the caller stands with one player; and ``setup``, which wires the
service.

>>> sorted({r.path for r in router.routes})  # doctest: +NORMALIZE_WHITESPACE
['/api/blocks', '/api/blocks/{username}', '/api/follows/{username}', '/api/friends',
 '/api/relations/{username}']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Any

from fastapi import APIRouter, FastAPI, Request

from omega.server.accounts.routes import USER_CHARGED, LoggedIn, Reader
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


def _relations(request: Request) -> Relations:
    relations: Relations = request.app.state.relations
    return relations


@router.put("/api/follows/{username}", dependencies=[USER_CHARGED])
async def follow(request: Request, username: str, user: LoggedIn) -> dict[str, Any]:
    return await _relations(request).follow(user, username)


@router.delete("/api/follows/{username}", dependencies=[USER_CHARGED])
async def unfollow(request: Request, username: str, user: LoggedIn) -> dict[str, Any]:
    return await _relations(request).unfollow(user, username)


@router.put("/api/blocks/{username}", dependencies=[USER_CHARGED])
async def block(request: Request, username: str, user: LoggedIn) -> dict[str, Any]:
    return await _relations(request).block(user, username)


@router.delete("/api/blocks/{username}", dependencies=[USER_CHARGED])
async def unblock(request: Request, username: str, user: LoggedIn) -> dict[str, Any]:
    return await _relations(request).unblock(user, username)


@router.get("/api/friends", dependencies=[USER_CHARGED])
async def friends(request: Request, user: Reader) -> dict[str, Any]:
    return await _relations(request).friends(user)


@router.get("/api/blocks", dependencies=[USER_CHARGED])
async def blocks(request: Request, user: Reader) -> dict[str, Any]:
    return await _relations(request).blocks(user)


@router.get("/api/relations/{username}", dependencies=[USER_CHARGED])
async def relation(request: Request, username: str, user: Reader) -> dict[str, Any]:
    return await _relations(request).relation(user, username)

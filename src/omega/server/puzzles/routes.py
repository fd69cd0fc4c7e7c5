"""The puzzles' routes (``docs/server-api.md``, Puzzles): the next puzzle, one by its id, an
attempt; and ``setup``, which wires the service.

>>> sorted(r.path for r in router.routes)
['/api/puzzles/next', '/api/puzzles/{puzzle_id}', '/api/puzzles/{puzzle_id}/attempt']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request

from omega.server.accounts.routes import USER_CHARGED, Body, cookie_writer, current_user
from omega.server.accounts.store import User
from omega.server.infra.state import from_app
from omega.server.puzzles.schemas import parse_attempt
from omega.server.puzzles.service import Puzzles
from omega.server.tables.core import TableCore

__all__ = ["router", "setup"]

router = APIRouter()

#: The caller, logged in or a guest; a write with a session cookie must come from the site.
Caller = Annotated[User | None, Depends(current_user)]
Writer = Annotated[User | None, Depends(cookie_writer)]


def setup(app: FastAPI, core: TableCore) -> Puzzles:
    """The puzzles of the app (``app.state.puzzles``), the shipped set loaded on first use."""
    puzzles = Puzzles(core)
    app.state.puzzles = puzzles
    return puzzles


Service = Annotated[Puzzles, from_app("puzzles")]


@router.get("/api/puzzles/next", dependencies=[USER_CHARGED])
async def next_puzzle(request: Request, user: Caller, puzzles: Service) -> dict[str, Any]:
    skip = request.query_params.get("skip") or None
    return await puzzles.next(user, skip[:32] if skip else None)


@router.get("/api/puzzles/{puzzle_id}", dependencies=[USER_CHARGED])
async def one_puzzle(puzzle_id: str, user: Caller, puzzles: Service) -> dict[str, Any]:
    return await puzzles.get(user, puzzle_id)


@router.post("/api/puzzles/{puzzle_id}/attempt", dependencies=[USER_CHARGED])
async def attempt(puzzle_id: str, user: Writer, raw: Body, puzzles: Service) -> dict[str, Any]:
    return await puzzles.attempt(user, puzzle_id, parse_attempt(raw).turn)

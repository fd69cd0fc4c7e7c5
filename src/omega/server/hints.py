"""Hints: at a table whose creator allows them, the player to move may ask the computer for
the best turn it finds in about a second (``thinking.HINT_SECONDS``).

The hint is searched in the computer players' workers (in the table owner's place in their
rotation, like the table's computer turns), then a ``hint`` event is stored through the one
action path: every socket of the table sees who asked on which turn, and the record carries
a ``Hints`` tag.  The hint is only shown to the player; they may still play anything.  A
hint is not a change of the play, so a turn chosen before it is still accepted.
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import zlib
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, FastAPI

from omega.game import SWAP
from omega.server.computers import ComputerPlayers
from omega.server.core import TableCore, seat_of
from omega.server.errors import ApiError
from omega.server.events import Event
from omega.server.identity import Identity
from omega.server.storage import Writer
from omega.server.table import TableState, decide_hint
from omega.server.thinking import hint

__all__ = ["hint_routes"]


def hint_routes(app: FastAPI, core: TableCore, computers: ComputerPlayers | None,
                actor: Callable[..., Awaitable[Identity]], charged: Sequence[Any], queue: int) -> None:
    """Add ``POST /api/tables/{id}/hint`` (docs/server-api.md) to ``app``: ``actor`` is the
    app's dependency that identifies a seat, ``charged`` its rate limit, ``queue`` the
    computer work waiting past which a hint is refused (``busy``)."""

    Actor = Annotated[Identity, Depends(actor)]

    @app.post("/api/tables/{table_id}/hint", dependencies=list(charged))
    async def post_hint(table_id: str, who: Actor) -> dict[str, Any]:
        seat = seat_of(who)
        if seat is None:
            raise ApiError("forbidden", "only a player can ask for a hint")
        await core.visit(table_id, who)
        cached = await core.fresh(table_id)
        decide_hint(cached.state, seat, core.clock.now())  # refused at once, before any search
        if computers is None:
            raise ApiError("unavailable", "this server has no computer players to give hints")
        if computers.status()["waiting"] >= queue:
            raise ApiError("busy", "the computer players are busy; try again in a minute")
        version = cached.state.play_version
        seed = zlib.crc32(f"hint:{table_id}:{version}".encode())
        try:
            action = await computers.work(cached.owner, hint, cached.state.game.copy(), seed)
        except TimeoutError:
            raise ApiError("busy", "the computer took too long to find a hint; try again") from None

        def decision(state: TableState, w: Writer, now: datetime) -> list[Event]:
            if state.play_version != version:
                raise ApiError("stale_version", "the game moved on while the computer was thinking")
            return decide_hint(state, seat, now)

        cached, stored = await core.write(table_id, decision)
        return {"version": stored[-1].version, "hint": SWAP if action == SWAP else list(action),
                "state": cached.state.view(seat)}

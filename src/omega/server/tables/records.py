"""A table's game as a record (text and JSON) and as a replay, for anyone who may see it."""

from __future__ import annotations

from typing import Any

from omega.i18n import translatable as _
from omega.record import to_json
from omega.server.errors import ApiError
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Identity
from omega.server.tables.views import game_view

__all__ = ["Records"]


class Records:
    """Records and replays of the tables of one process."""

    def __init__(self, core: TableCore) -> None:
        self.core = core

    async def record(self, table_id: str, who: Identity) -> tuple[str, dict[str, Any]]:
        """The text and JSON records of the table's game (``who`` has been identified)."""
        del who  # every identity of the table may download its record
        state = (await self.core.get(table_id)).state
        tags = state.record_tags()
        data = to_json(state.game, tags)
        data["table"] = {"id": state.config.id, "status": state.status,
                         "ranking": state.view(viewer=False)["game"]["ranking"],
                         "resigned": [state.game.color_of(s).label for s in state.resigned
                                      if s not in state.timed_out],
                         "timed_out": [state.game.color_of(s).label for s in state.timed_out],
                         "end_reason": state.end_reason,
                         "time_control": state.config.time_control.text}
        return state.game.record(tags), data

    async def replay(self, table_id: str, who: Identity, at: int) -> dict[str, Any]:
        """The game view after the first ``at`` history entries."""
        del who
        state = (await self.core.get(table_id)).state
        history = state.game.history
        if not 0 <= at <= len(history):
            raise ApiError("bad_request", _("bad request: at must be from 0 to {count}", count=len(history)))
        game = state.game.position_after(at)
        final = at == len(history)
        view = game_view(game, state.resigned if final else (), state.over if final else None,
                         timed_out=state.timed_out if final else ())
        view["at"] = at
        view["length"] = len(history)
        return view

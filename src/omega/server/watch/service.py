"""The live list (``GET /api/games/live``) and what other features may ask of it: the
listed games, highest rated first, a listed game opened as a spectator, a player's current
game for their profile, and the account's listing setting.

A game is ordered by the mean display rating (``ratings``) of its seated accounts at its
player count, an account not yet rated there counting as a newcomer; the ratings have none
for a computer's level, so a computer seat adds nothing, and a game without an account seated
(which the list never holds today: every human seat of a listed game is an account's) would
come last.  Ties: the latest moved first.

>>> games = [{"id": "a", "rating": None, "updated_at": "2027-01-02T00:00:00Z"},
...          {"id": "b", "rating": 990, "updated_at": "2027-01-01T00:00:00Z"},
...          {"id": "c", "rating": 990, "updated_at": "2027-01-03T00:00:00Z"},
...          {"id": "d", "rating": 1200, "updated_at": "2027-01-01T00:00:00Z"}]
>>> [g["id"] for g in ordered(games)]
['d', 'c', 'b', 'a']
"""

from __future__ import annotations

from typing import Any

from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Spectator
from omega.server.watch.schemas import Filters
from omega.server.watch.store import WatchStore, live_candidates

__all__ = ["Watching", "LIVE_MAX", "ordered", "NOT_LISTED"]

#: Games the live list shows at most.
LIVE_MAX = 50
#: The answer for a game that is not on the list (finished, private, or a player said no).
NOT_LISTED = _("this game is not on the live list: it is over, private, or a player keeps their games off it")


def ordered(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``games`` highest rated first, those without a rating last, and among equals the
    latest moved first (``updated_at`` is ISO text in UTC, which sorts as time does)."""
    latest_first = sorted(games, key=lambda g: g["updated_at"] or "", reverse=True)
    return sorted(latest_first, key=lambda g: (g["rating"] is None, -(g["rating"] or 0)))  # stable: keeps ties' order


class Watching:
    """The live list of the site, on the server's database."""

    def __init__(self, core: TableCore, ratings: RatingStore) -> None:
        self.core = core
        self.ratings = ratings
        self.store = WatchStore(core.repo)

    def _rated(self, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each game with its seats' ratings and their mean (blocking)."""
        newcomer = self.ratings.unrated()["display"]
        by_count: dict[int, set[int]] = {}
        for g in games:
            by_count.setdefault(g["players"], set()).update(s["user_id"] for s in g["seats"] if s["user_id"] is not None)
        known = {n: self.ratings.of_users(sorted(users), n) for n, users in by_count.items()}
        for g in games:
            values = []
            for s in g["seats"]:
                user = s.pop("user_id")
                s["rating"] = None if user is None else known[g["players"]].get(user, {}).get("display", newcomer)
                if s["rating"] is not None:
                    values.append(s["rating"])
            g["rating"] = round(sum(values) / len(values)) if values else None
        return games

    def _live(self, filters: Filters, table_id: str | None = None) -> list[dict[str, Any]]:
        games = self._rated(live_candidates(self.core.repo, filters, table_id))
        return ordered(games)[:LIVE_MAX]

    async def live(self, filters: Filters) -> list[dict[str, Any]]:
        """The listed games that pass ``filters``, highest rated first (at most :data:`LIVE_MAX`)."""
        return await self.core.db(self._live, filters)

    async def watch(self, table_id: str) -> dict[str, Any]:
        """A listed game as its list shows it, with the table as a spectator sees it
        (``state``): anyone, logged in or not, may open it so; ``not_found`` for a game not
        on the list."""
        if not (0 < len(table_id) <= 32):
            raise ApiError("not_found", NOT_LISTED)
        found = await self.core.db(self._live, Filters(), table_id)
        if not found:
            raise ApiError("not_found", NOT_LISTED)
        return {**found[0], "state": await self.core.view(table_id, Spectator())}

    async def current(self, username: str) -> dict[str, Any] | None:
        """The listed game ``username`` plays now (the highest rated of them), None if none is listed."""
        games = await self.core.db(self._live, Filters(username=username))
        return games[0] if games else None

    async def setting(self, user_id: int) -> dict[str, Any]:
        """The account's listing setting."""
        return {"listed": await self.core.db(self.store.listed, user_id)}

    async def set_setting(self, user_id: int, listed: bool) -> dict[str, Any]:
        """Change the account's listing setting; the setting after it."""
        await self.core.db(self.store.set_listed, user_id, listed, self.core.clock.now())
        return {"listed": listed}

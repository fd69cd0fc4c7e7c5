"""The tournament pages' sockets of one server process: each is told when its tournament
changed, and sends its page the tournament again (several changes while one view is being
read make one more view, never a queue of them).

>>> feed = TournamentFeed()
>>> sub = feed.add("t1")
>>> feed.changed("t1"); feed.changed("t2"); sub.dirty.is_set()
True
>>> feed.remove(sub); feed.count()
0
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from omega.server.infra.groups import leave

__all__ = ["TournamentFeed", "Watcher"]


@dataclass(eq=False)
class Watcher:
    """One socket watching ``tournament_id``: ``dirty`` is set when it changed."""

    tournament_id: str
    dirty: asyncio.Event = field(default_factory=asyncio.Event)


class TournamentFeed:
    """Who watches which tournament here."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[Watcher]] = {}

    def add(self, tournament_id: str) -> Watcher:
        """A socket starts watching ``tournament_id``."""
        watcher = Watcher(tournament_id)
        self._watchers.setdefault(tournament_id, set()).add(watcher)
        return watcher

    def remove(self, watcher: Watcher) -> None:
        """The socket closed."""
        leave(self._watchers, watcher.tournament_id, watcher)

    def changed(self, tournament_id: str) -> None:
        """``tournament_id`` changed (here, or in another process: its note)."""
        for watcher in self._watchers.get(tournament_id, ()):
            watcher.dirty.set()

    def resync_all(self) -> None:
        """Notes may have been missed (the listener reconnected): every page reads again."""
        for watchers in self._watchers.values():
            for watcher in watchers:
                watcher.dirty.set()

    def count(self) -> int:
        """Sockets watching here."""
        return sum(len(w) for w in self._watchers.values())

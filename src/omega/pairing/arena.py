"""The arena: played on the clock, each player paired again as soon as their game ends.

``pair`` seats only the ``waiting`` entrants (those whose game ended and who are not paused):
sorted by the standings (points, then rating, then id), they are cut into tables from the
top, each table taking the nearest players who were not at the table of their previous game
(when there are not enough such players, the nearest ones). With fewer than ``players``
waiting nobody is paired, and when the waiting do not fill whole tables those no table took
wait for the next call; both come back in ``Round.byes`` (still waiting, no points).

Points: as in every format (a point per tablemate finished above), with lichess's streak:
after two wins in a row a player is *on fire* and each game counts double until the first
game that is not a win (which still counts double). With 3 or 4 players a win is a first
place. Tie-break: performance (:func:`omega.pairing.points.performance`).

>>> from omega.pairing.model import Entrant, History, Played
>>> field = [Entrant(i, 1600.0 - 10 * i) for i in range(1, 6)]
>>> history = History(games=(Played(1, (1, 2), (0, 1)),))   # 1 beat 2; 1 leads, 2 is next
>>> Arena(players=2).pair(field, history, 2, waiting=[1, 2, 3, 4, 5])   # no rematch; 5 waits
Round(tables=((3, 1), (2, 4)), byes=(5,))
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from omega.pairing.model import (
    Entrant,
    History,
    Round,
    Standing,
    check_entrants,
    check_history,
    check_players,
    check_round,
    check_waiting,
)
from omega.pairing.points import standings_of, tally
from omega.pairing.seats import seat_history, seat_order

__all__ = ["Arena"]


@dataclass(frozen=True)
class Arena:
    """An arena for tables of ``players``.

    >>> Arena(players=3).rounds_for(40) is None, Arena(players=3).tiebreak_names
    (True, ('performance',))
    """

    players: int
    name: str = field(default="arena", init=False)
    tiebreak_names: tuple[str, ...] = field(default=("performance",), init=False)

    def __post_init__(self) -> None:
        check_players(self.players)

    def rounds_for(self, entrants: int) -> int | None:
        """None: an arena is played until its clock runs out."""
        return None

    def standings(self, entrants: Sequence[Entrant], history: History) -> list[Standing]:
        """Every entrant by points (streaks doubled), then performance.

        >>> from omega.pairing.model import Entrant, History, Played
        >>> wins = tuple(Played(0, (1, 2), (0, 1)) for _ in range(3))
        >>> [(s.entrant, s.points, s.fire) for s in Arena(2).standings([Entrant(1, 0.0), Entrant(2, 0.0)],
        ...                                                              History(games=wins))]
        [(1, 4.0, True), (2, 0.0, False)]
        """
        return standings_of(entrants, history, self.players, 0.0, self.tiebreak_names, streaks=True)

    def pair(self, entrants: Sequence[Entrant], history: History, round: int,
             waiting: Collection[int] | None = None) -> Round:
        """Tables for the ``waiting`` entrants (``round`` is the wave recorded in their games).

        >>> from omega.pairing.model import Entrant, History
        >>> Arena(players=3).pair([Entrant(i, 0.0) for i in (1, 2, 3, 4)], History(), 0, waiting=[4, 2])
        Round(tables=(), byes=(2, 4))
        """
        by_id = check_entrants(entrants)
        check_history(history, self.players)
        check_round(round, 0, None, "an arena")
        if waiting is None:
            raise ValueError("an arena pairs the waiting entrants: pass waiting")
        ready = check_waiting(waiting, by_id)
        tallies = tally(history, self.players, 0.0, streaks=True, entrants=list(by_id))
        order = sorted(ready, key=lambda x: (-tallies[x].points, -by_id[x].rating, x))
        p = self.players
        # Every waiting player is a candidate: the one left over (len % p) is whoever no
        # table took, not the lowest ranked, so a pair that just met is not paired again
        # while someone else waits.
        pool = list(order)
        last_mates: dict[int, set[int]] = {}
        for game in history.games:  # later games replace earlier ones: the last one stays
            for x in game.seats:
                last_mates[x] = set(game.seats) - {x}
        rank = {x: i for i, x in enumerate(order)}
        seats_of = seat_history(history)
        tables: list[tuple[int, ...]] = []
        while len(pool) >= p:
            table = [pool.pop(0)]
            for y in pool:  # the nearest who were not at the table of anyone's last game here
                if len(table) == p:
                    break
                if not any(y in last_mates.get(z, ()) or z in last_mates.get(y, ()) for z in table):
                    table.append(y)
            for y in list(pool):  # not enough new faces: the nearest
                if len(table) == p:
                    break
                if y not in table:
                    table.append(y)
            for y in table[1:]:
                pool.remove(y)
            tables.append(seat_order(sorted(table, key=rank.__getitem__), seats_of))
        return Round(tables=tuple(tables), byes=tuple(sorted(pool, key=rank.__getitem__)))

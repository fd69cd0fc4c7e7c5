"""Tournament formats as a pure library: Swiss, round robin and arena, for 2 to 4 players.

Nothing here plays a game, stores anything or knows the server: a format takes the entrants
and what has been played so far (:class:`History`) and answers the next round's tables,
seats already rotated (:class:`Round`), or the standings. ``docs/tournaments.md`` states
each format's rules for players and developers.

>>> swiss = format_named("swiss", players=2, rounds=3)
>>> field = [Entrant(id=i, rating=1500.0 - i) for i in (1, 2, 3, 4)]
>>> first = swiss.pair(field, History(), round=1)
>>> first.tables
((1, 3), (2, 4))
>>> played = History(games=tuple(Played(1, seats, (0, 1)) for seats in first.tables))
>>> [(s.entrant, s.points) for s in swiss.standings(field, played)]
[(1, 1.0), (2, 1.0), (3, 0.0), (4, 0.0)]
"""

from __future__ import annotations

from omega.pairing.arena import Arena
from omega.pairing.model import Bye, Entrant, Format, History, Played, Round, Standing
from omega.pairing.roundrobin import RoundRobin
from omega.pairing.swiss import Swiss

__all__ = [
    "Arena", "Bye", "Entrant", "FORMATS", "Format", "History", "Played", "Round", "RoundRobin", "Standing",
    "Swiss", "format_named",
]

#: The formats by name, as ``format_named`` takes them.
FORMATS = ("swiss", "round_robin", "arena")


def format_named(name: str, players: int, rounds: int | None = None) -> Format:
    """The format called ``name`` for tables of ``players``; a Swiss needs ``rounds``, the
    others take none (a round robin's follow from its field, an arena runs on the clock).

    ValueError with a clear message for anything else.

    >>> format_named("round_robin", 3)
    RoundRobin(players=3, name='round_robin', tiebreak_names=('sonneborn_berger', 'wins'))
    >>> format_named("knockout", 2)
    Traceback (most recent call last):
    ...
    ValueError: unknown tournament format 'knockout'; choose one of swiss, round_robin, arena
    >>> format_named("arena", 2, rounds=5)
    Traceback (most recent call last):
    ...
    ValueError: an arena takes no rounds (it is played on the clock), got 5
    """
    if name == "swiss":
        if rounds is None:
            raise ValueError("a Swiss needs its number of rounds")
        return Swiss(players=players, rounds=rounds)
    if name == "round_robin":
        if rounds is not None:
            raise ValueError(f"a round robin takes no rounds (its field decides them), got {rounds!r}")
        return RoundRobin(players=players)
    if name == "arena":
        if rounds is not None:
            raise ValueError(f"an arena takes no rounds (it is played on the clock), got {rounds!r}")
        return Arena(players=players)
    raise ValueError(f"unknown tournament format {name!r}; choose one of {', '.join(FORMATS)}")

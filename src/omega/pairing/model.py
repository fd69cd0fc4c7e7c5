"""The values a tournament is made of: entrants, the games and byes so far, a round to play,
a line of the standings, and the :class:`Format` every pairing system answers to.

They are plain frozen values, checked when they are made, so the server can store them and
hand them back as they were; nothing here knows the rules of Omega or any storage.

>>> game = Played(round=1, seats=(7, 3), places=(1, 0))   # 7 was White, 3 won
>>> History(games=(game,), byes=(Bye(1, 9),)).games[0].winner
3
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

# The number of seats is the rules' own limit (and message): its one home is omega.game,
# plain Python like this package. Nothing else of the game is needed here.
from omega.game import MAX_PLAYERS, MIN_PLAYERS, check_players

__all__ = [
    "Entrant", "Played", "Bye", "History", "Round", "Standing", "Format",
    "check_players", "check_entrants", "check_history", "check_round", "check_waiting",
]



@dataclass(frozen=True)
class Entrant:
    """One player of a tournament: an id (the server's user id, the CLI's own number) and a
    rating, higher for stronger, used for seeding and within a score group.

    >>> Entrant(id=4, rating=1500.0).rating
    1500.0
    """

    id: int
    rating: float

    def __post_init__(self) -> None:
        if not isinstance(self.id, int) or isinstance(self.id, bool):
            raise ValueError(f"an entrant's id must be a whole number, got {self.id!r}")
        if not isinstance(self.rating, int | float) or not math.isfinite(self.rating):
            raise ValueError(f"entrant {self.id}'s rating must be a finite number, got {self.rating!r}")


@dataclass(frozen=True)
class Played:
    """One game of a tournament: the round it was paired in (1-based; an arena's wave, or 0),
    the entrants in seat order (``seats[0]`` moves first, as White) and each seat's finishing
    place (``places[i]`` of ``seats[i]``; 0 is the winner), or ``None`` while it is played.

    Omega has no draws (equal scores go to the later colour), so the places are always a
    permutation of ``0 .. len(seats) - 1``.

    >>> Played(2, (1, 2, 3), (2, 0, 1)).winner
    2
    >>> Played(2, (1, 2), (0, 0))
    Traceback (most recent call last):
    ...
    ValueError: a game's places must be each of 0 to 1 once (Omega has no draws), got (0, 0)
    """

    round: int
    seats: tuple[int, ...]
    places: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.round, int) or self.round < 0:
            raise ValueError(f"a game's round must be a whole number from 0, got {self.round!r}")
        # Kept as tuples whatever sequence came in, so a game stays hashable and comparable.
        seats = tuple(self.seats)
        object.__setattr__(self, "seats", seats)
        if self.places is not None:
            object.__setattr__(self, "places", tuple(self.places))
        if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
            raise ValueError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} seats, got {len(seats)}: {seats}")
        if len(set(seats)) != len(seats):
            raise ValueError(f"an entrant holds two seats of one game: {seats}")
        if self.places is not None and sorted(self.places) != list(range(len(seats))):
            raise ValueError(f"a game's places must be each of 0 to {len(seats) - 1} once "
                             f"(Omega has no draws), got {tuple(self.places)}")

    @property
    def finished(self) -> bool:
        """Whether the game has its result."""
        return self.places is not None

    @property
    def winner(self) -> int | None:
        """The entrant who finished first, once the game is over."""
        return None if self.places is None else self.seats[self.places.index(0)]


@dataclass(frozen=True)
class Bye:
    """A round an entrant was given no table (and the points the format gives for it).

    >>> Bye(round=3, entrant=12).entrant
    12
    """

    round: int
    entrant: int

    def __post_init__(self) -> None:
        if not isinstance(self.round, int) or self.round < 0:
            raise ValueError(f"a bye's round must be a whole number from 0, got {self.round!r}")


@dataclass(frozen=True)
class History:
    """Everything played so far, in the order it was paired: games (finished or not) and byes.

    >>> History().games
    ()
    """

    games: tuple[Played, ...] = ()
    byes: tuple[Bye, ...] = ()


@dataclass(frozen=True)
class Round:
    """What a format answers for the next round: each table's entrants in seat order (the
    seats already rotated) and the entrants left without a table.

    >>> Round(tables=((3, 1), (2, 4))).tables[0]
    (3, 1)
    """

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Standing:
    """One line of the standings.

    ``rank`` is 1-based; entrants equal on points and on every tie-break share it (1, 2, 2,
    4) and are listed by rating, then id. ``tiebreaks`` follow the format's
    ``tiebreak_names``. ``seats[s]`` counts the games played in seat ``s`` (with 2 players:
    White, Black); ``places[k]`` the games finished in place ``k``; ``streak`` the wins in a
    row up to the last finished game and ``fire`` whether the next game counts double (an
    arena's streak bonus; False elsewhere).

    >>> Standing(entrant=5, rank=1, points=3.0, tiebreaks=(4.0, 2.0), games=3).wins
    0
    """

    entrant: int
    rank: int
    points: float
    tiebreaks: tuple[float, ...]
    games: int
    wins: int = 0
    byes: int = 0
    seats: tuple[int, ...] = ()
    places: tuple[int, ...] = ()
    streak: int = 0
    fire: bool = False


class Format(Protocol):
    """A pairing system: ``Swiss``, ``RoundRobin`` or ``Arena``, for tables of ``players``.

    ``pair`` answers the tables of round ``round`` (1-based) for the active ``entrants`` (a
    withdrawn entrant is simply not passed; their games stay in ``history``); an arena pairs
    only the ``waiting`` entrants (those whose game ended and who are not paused). Entrants
    left without a table come back in ``Round.byes`` (in an arena they keep waiting). Games
    still being played count as met and for seats, not for points. ``standings`` ranks every
    entrant passed (withdrawn ones included). Bad input raises ValueError.
    """

    @property
    def name(self) -> str:
        """``"swiss"``, ``"round_robin"`` or ``"arena"``."""
        ...

    @property
    def players(self) -> int:
        """Seats per table, 2 to 4."""
        ...

    @property
    def tiebreak_names(self) -> tuple[str, ...]:
        """The names of :attr:`Standing.tiebreaks`, in order, e.g. ``("buchholz", ...)``."""
        ...

    def rounds_for(self, entrants: int) -> int | None:
        """The rounds a field of ``entrants`` plays (None: an arena is played on the clock)."""
        ...

    def pair(self, entrants: Sequence[Entrant], history: History, round: int,
             waiting: Collection[int] | None = None) -> Round:
        """The tables of ``round``."""
        ...

    def standings(self, entrants: Sequence[Entrant], history: History) -> list[Standing]:
        """Every entrant's line, best first."""
        ...


# -- checks shared by the formats ---------------------------------------------------------


def check_entrants(entrants: Sequence[Entrant]) -> dict[int, Entrant]:
    """The entrants by id; ValueError for one that is not an :class:`Entrant` or an id twice.

    >>> sorted(check_entrants([Entrant(2, 1.0), Entrant(1, 1.0)]))
    [1, 2]
    >>> check_entrants([Entrant(2, 1.0), Entrant(2, 3.0)])
    Traceback (most recent call last):
    ...
    ValueError: entrant 2 is entered twice
    """
    by_id: dict[int, Entrant] = {}
    for entrant in entrants:
        if not isinstance(entrant, Entrant):
            raise ValueError(f"an entrant must be an Entrant, got {entrant!r}")
        if entrant.id in by_id:
            raise ValueError(f"entrant {entrant.id} is entered twice")
        by_id[entrant.id] = entrant
    return by_id


def check_history(history: History, players: int, known: Collection[int] | None = None) -> None:
    """ValueError for a history that does not fit: not a :class:`History`, a game with another
    number of seats than ``players``, or (when ``known`` is given) an id that is not among them.

    >>> check_history(History(games=(Played(1, (1, 2), (0, 1)),)), 3)
    Traceback (most recent call last):
    ...
    ValueError: a game of round 1 has 2 seats; this tournament's tables have 3
    >>> check_history(History(byes=(Bye(1, 8),)), 2, known={1, 2})
    Traceback (most recent call last):
    ...
    ValueError: a bye of round 1 names entrant 8, who is not an entrant
    """
    if not isinstance(history, History):
        raise ValueError(f"history must be a History, got {type(history).__name__}")
    for game in history.games:
        if not isinstance(game, Played):
            raise ValueError(f"a history's games must be Played values, got {game!r}")
        if len(game.seats) != players:
            raise ValueError(f"a game of round {game.round} has {len(game.seats)} seats; "
                             f"this tournament's tables have {players}")
        if known is not None:
            for entrant in game.seats:
                if entrant not in known:
                    raise ValueError(f"a game of round {game.round} seats {entrant}, who is not an entrant")
    for bye in history.byes:
        if not isinstance(bye, Bye):
            raise ValueError(f"a history's byes must be Bye values, got {bye!r}")
        if known is not None and bye.entrant not in known:
            raise ValueError(f"a bye of round {bye.round} names entrant {bye.entrant}, who is not an entrant")


def check_round(round: int, first: int, last: int | None, what: str) -> int:
    """``round`` if ``what`` (a format's name, for the message) has it, else ValueError.

    >>> check_round(6, 1, 5, "a 5-round Swiss")
    Traceback (most recent call last):
    ...
    ValueError: round must be from 1 to 5 in a 5-round Swiss, got 6
    """
    if (not isinstance(round, int) or isinstance(round, bool) or round < first
            or (last is not None and round > last)):
        span = f"from {first} to {last}" if last is not None else f"at least {first}"
        raise ValueError(f"round must be {span} in {what}, got {round!r}")
    return round


def check_waiting(waiting: Collection[int], known: Collection[int]) -> list[int]:
    """The waiting ids, once each, in the order given; ValueError for one that is not an
    active entrant.

    >>> check_waiting([3, 3, 1], known={1, 2, 3})
    [3, 1]
    """
    if isinstance(waiting, str | bytes) or not isinstance(waiting, Collection):
        raise ValueError(f"waiting must be a collection of entrant ids, got {waiting!r}")
    seen: dict[int, None] = {}
    for entrant in waiting:
        if entrant not in known:
            raise ValueError(f"waiting entrant {entrant!r} is not an active entrant")
        seen[entrant] = None
    return list(seen)

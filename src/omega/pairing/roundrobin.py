"""Round robin: everyone meets everyone, on a schedule fixed from the start.

**2 players**: the Berger tables (the circle method as FIDE prints it). The entrants are
numbered 1 to n in id order (n + 1 with a bye when n is odd: who meets number n + 1 rests);
in round r the number s with 2s = r + 1 (mod n - 1) meets n, and s + k meets s - k for
k = 1, 2, ..., s + k taking White; n is Black in odd rounds and White in even ones. Over the
n - 1 rounds every pair meets once and no one's colours differ by more than 1.

**3 or 4 players, as many entrants as seats**: ``players`` rounds at one table, the seats
turning one place each round, so each player has each seat exactly once.

**3 or 4 players, more entrants** (up to :data:`MAX_FIELD`): rounds that split the field
into tables and rests so that every pair shares a table at least once and everyone rests
equally often (so everyone plays the same number of games); the schedule is the first one of
the fewest rounds that a deterministic search finds (:func:`schedule`, ``docs/tournaments.md``
lists the rounds per field). The seats of the whole schedule are then chosen together, so
that each player's seats are as even as their games allow (:func:`seat_schedule`).

A rest gives no points: everyone has as many. A player who withdraws leaves the schedule as it
is: their tablemates of later rounds rest instead (no points, as for any rest). Tie-breaks:
Sonneborn-Berger, then wins.

>>> from omega.pairing.model import Entrant, History
>>> field = [Entrant(i, 0.0) for i in (1, 2, 3, 4)]
>>> [RoundRobin(players=2).pair(field, History(), r).tables for r in (1, 2, 3)]
[((1, 4), (2, 3)), ((4, 3), (1, 2)), ((2, 4), (3, 1))]
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Collection, Iterator, Sequence
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
)
from omega.pairing.points import standings_of

__all__ = ["RoundRobin", "MAX_FIELD", "berger_round", "schedule", "seat_schedule"]

#: The largest field a round robin of 3- or 4-player tables takes: beyond it the schedule's
#: search slows (12 entrants take about a second) and the event is better run as a Swiss.
MAX_FIELD = 9

#: Nodes the schedule search may visit for one number of rounds before it tries one more
#: (the fields up to MAX_FIELD need far fewer; the bound keeps the search finite).
SEARCH_LIMIT = 20_000


@dataclass(frozen=True)
class RoundRobin:
    """A round robin for tables of ``players``.

    >>> RoundRobin(players=2).rounds_for(5), RoundRobin(players=3).rounds_for(3)
    (5, 3)
    >>> RoundRobin(players=3).rounds_for(12)
    Traceback (most recent call last):
    ...
    ValueError: a round robin of 3-player tables takes 3 to 9 entrants, got 12; run a Swiss instead
    """

    players: int
    name: str = field(default="round_robin", init=False)
    tiebreak_names: tuple[str, ...] = field(default=("sonneborn_berger", "wins"), init=False)

    def __post_init__(self) -> None:
        check_players(self.players)

    def rounds_for(self, entrants: int) -> int | None:
        """The rounds of a round robin of ``entrants`` (the field at the start).

        >>> [RoundRobin(players=4).rounds_for(n) for n in (4, 5, 6, 8)]
        [4, 5, 3, 3]
        """
        return len(self._schedule(entrants))

    def standings(self, entrants: Sequence[Entrant], history: History) -> list[Standing]:
        """Every entrant by points, Sonneborn-Berger, wins.

        >>> from omega.pairing.model import Entrant, History, Played
        >>> h = History(games=(Played(1, (1, 2, 3), (2, 0, 1)), Played(2, (2, 3, 1), (1, 2, 0))))
        >>> [(s.entrant, s.points) for s in RoundRobin(3).standings([Entrant(i, 0.0) for i in (1, 2, 3)], h)]
        [(2, 3.0), (1, 2.0), (3, 1.0)]
        """
        return standings_of(entrants, history, self.players, 0.0, self.tiebreak_names)

    def pair(self, entrants: Sequence[Entrant], history: History, round: int,
             waiting: Collection[int] | None = None) -> Round:
        """The tables of ``round`` of the schedule of the whole field: the active entrants and
        everyone in the history (a withdrawn player keeps their place in it).

        >>> from omega.pairing.model import Entrant, History
        >>> [RoundRobin(players=3).pair([Entrant(i, 0.0) for i in (7, 8, 9)], History(), r).tables
        ...  for r in (1, 2, 3)]
        [((7, 8, 9),), ((9, 7, 8),), ((8, 9, 7),)]
        """
        by_id = check_entrants(entrants)
        check_history(history, self.players)
        if waiting is not None:
            raise ValueError("waiting is for an arena; a round robin pairs every active entrant")
        everyone = sorted(set(by_id) | {x for game in history.games for x in game.seats}
                          | {bye.entrant for bye in history.byes})
        rounds = self._schedule(len(everyone))
        check_round(round, 1, len(rounds), f"this {len(rounds)}-round round robin")
        tables: list[tuple[int, ...]] = []
        byes = [everyone[i] for i in range(len(everyone)) if all(i not in t for t in rounds[round - 1])]
        for table in rounds[round - 1]:
            members = tuple(everyone[i] for i in table)
            if any(x not in by_id for x in members):
                byes += [x for x in members if x in by_id]  # a withdrawn tablemate: the others rest
            else:
                tables.append(members)
        return Round(tables=tuple(tables), byes=tuple(sorted(x for x in byes if x in by_id)))

    def _schedule(self, entrants: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
        if not isinstance(entrants, int) or isinstance(entrants, bool):
            raise ValueError(f"entrants must be a whole number, got {entrants!r}")
        if self.players == 2:
            if entrants < 2:
                raise ValueError(f"a round robin takes at least 2 entrants, got {entrants}")
            return tuple(berger_round(entrants, r) for r in range(1, entrants + entrants % 2))
        if not self.players <= entrants <= MAX_FIELD:
            raise ValueError(f"a round robin of {self.players}-player tables takes {self.players} to "
                             f"{MAX_FIELD} entrants, got {entrants}; run a Swiss instead")
        return schedule(entrants, self.players)


def berger_round(entrants: int, round: int) -> tuple[tuple[int, ...], ...]:
    """Round ``round`` of the Berger tables for ``entrants``: the tables as pairs of indices
    (0-based numbers), White first; with an odd field, the one who would meet the missing
    number rests (is in no table).

    >>> [[(a + 1, b + 1) for a, b in berger_round(6, r)] for r in (1, 2)]
    [[(1, 6), (2, 5), (3, 4)], [(6, 4), (5, 3), (1, 2)]]
    >>> berger_round(5, 1)   # number 1 (index 0) rests
    ((1, 4), (2, 3))
    """
    n = entrants + entrants % 2
    circle = n - 1
    # The number that meets n this round: 2s = r + 1 (mod n - 1); 2 has the inverse n / 2.
    s = (round + 1) * (n // 2) % circle or circle
    out: list[tuple[int, ...]] = []
    if n == entrants:
        out.append((s - 1, n - 1) if round % 2 else (n - 1, s - 1))
    for k in range(1, n // 2):
        white = (s + k - 1) % circle + 1
        black = (s - k - 1) % circle + 1
        out.append((white - 1, black - 1))
    return tuple(out)


@functools.cache
def schedule(entrants: int, players: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """A round robin's rounds for tables of ``players``: each round's tables as index tuples
    in seat order, the entrants in no table resting.

    With as many entrants as seats, one table whose seats turn one place a round; with more,
    the first schedule of the fewest rounds found in which every pair meets and everyone
    rests equally often, seated by :func:`seat_schedule`.

    >>> [tables for tables in schedule(5, 4)]   # each of the five rests once, has each seat once
    [((4, 3, 1, 2),), ((2, 4, 3, 0),), ((3, 0, 4, 1),), ((1, 2, 0, 4),), ((0, 1, 2, 3),)]
    >>> len(schedule(9, 3))   # the nine schoolgirls: 4 rounds, each pair meets once
    4
    """
    if entrants == players:
        return tuple(((tuple((i - r) % players for i in range(players))),) for r in range(players))
    rests = entrants % players
    pairs = entrants * (entrants - 1) // 2
    per_round = entrants // players * players * (players - 1) // 2
    rounds = max(1, math.ceil(pairs / per_round))
    while True:
        # Everyone rests equally often only if the rests of all rounds share out evenly.
        if rounds * rests % entrants == 0:
            each = rounds * rests // entrants
            if (rounds - each) * (players - 1) >= entrants - 1:
                found = _search(entrants, players, rounds, each)
                if found is not None:
                    return seat_schedule(found, entrants, players)
        rounds += 1


def _partitions(items: Sequence[int], players: int) -> Iterator[list[tuple[int, ...]]]:
    """Every way to cut ``items`` into tables of ``players`` (each table's first member its
    smallest, tables by their first member)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for mates in itertools.combinations(rest, players - 1):
        left = [x for x in rest if x not in mates]
        for more in _partitions(left, players):
            yield [(first, *mates), *more]


def _search(entrants: int, players: int, rounds: int, rests_each: int) -> tuple[tuple[tuple[int, ...], ...], ...] | None:
    """A depth-first search for ``rounds`` rounds covering every pair, each entrant resting
    ``rests_each`` times; the round that meets the most new pairs is tried first."""
    index = {pair: i for i, pair in enumerate(itertools.combinations(range(entrants), 2))}
    full = (1 << len(index)) - 1
    resting = entrants % players
    candidates: list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]] = []
    for rest in itertools.combinations(range(entrants), resting):
        playing = [x for x in range(entrants) if x not in rest]
        for tables in _partitions(playing, players):
            mask = 0
            for table in tables:
                for pair in itertools.combinations(table, 2):
                    mask |= 1 << index[pair]
            candidates.append((rest, tuple(tables), mask))
    per_round = entrants // players * players * (players - 1) // 2
    rested = [0] * entrants
    chosen: list[tuple[tuple[int, ...], ...]] = []
    visited = 0

    def extend(covered: int) -> bool:
        nonlocal visited
        visited += 1
        left = rounds - len(chosen)
        if left == 0:
            return covered == full
        if (full & ~covered).bit_count() > left * per_round or visited > SEARCH_LIMIT:
            return False
        options = [c for c in candidates if all(rested[x] < rests_each for x in c[0])]
        options.sort(key=lambda c: -(c[2] & ~covered).bit_count())  # stable: ties keep their order
        for rest, tables, mask in options:
            for x in rest:
                rested[x] += 1
            # Whoever still has rests to take must have rounds enough left to take them.
            if all(rests_each - rested[x] <= left - 1 for x in range(entrants)):
                chosen.append(tables)
                if extend(covered | mask):
                    return True
                chosen.pop()
            for x in rest:
                rested[x] -= 1
            if visited > SEARCH_LIMIT:
                return False
        return False

    return tuple(chosen) if extend(0) else None


def seat_schedule(rounds: Sequence[Sequence[tuple[int, ...]]], entrants: int,
                  players: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The same rounds with each table in a seat order that gives every player each seat once
    in each run of ``players`` consecutive games of theirs, so that at every point of the
    schedule no player's seat counts differ by more than one.

    It is an edge colouring: each player's games, in order, are cut into blocks of
    ``players`` (the last block may be short), and a table-block edge stands for each game.
    Padded with stand-in tables to be ``players``-regular, that bipartite graph splits into
    ``players`` perfect matchings (Hall's theorem: a regular bipartite graph has one, and
    removing it leaves another regular one); the k-th matching gives seat k.

    >>> seat_schedule([((0, 1, 2),), ((0, 1, 2),), ((0, 1, 2),)], 3, 3)
    (((2, 0, 1),), ((1, 2, 0),), ((0, 1, 2),))
    """
    tables = [tuple(table) for tables_ in rounds for table in tables_]
    games_so_far = [0] * entrants
    edges: list[tuple[int, int]] = []  # (table, block), one per game
    member: list[int] = []  # the entrant of each edge (-1: a stand-in)
    block_of: dict[tuple[int, int], int] = {}
    for t, table in enumerate(tables):
        for x in table:
            key = (x, games_so_far[x] // players)
            games_so_far[x] += 1
            block = block_of.setdefault(key, len(block_of))
            edges.append((t, block))
            member.append(x)
    # Stand-in tables take the seats a short block lacks, so every node has degree `players`.
    short = [b for b in range(len(block_of)) for _ in range(players - sum(e[1] == b for e in edges))]
    for i, b in enumerate(short):
        edges.append((len(tables) + i // players, b))
        member.append(-1)
    left = len(tables) + len(short) // players
    seat = [-1] * len(edges)
    for k in range(players):
        for e in _perfect_matching(left, len(block_of), [i for i in range(len(edges)) if seat[i] < 0], edges):
            seat[e] = k
    out: list[list[int]] = [[-1] * players for _ in tables]
    for e, (t, _) in enumerate(edges):
        if member[e] >= 0:
            out[t][seat[e]] = member[e]
    it = iter(out)
    return tuple(tuple(tuple(next(it)) for _ in tables_) for tables_ in rounds)


def _perfect_matching(left: int, right: int, free: list[int], edges: list[tuple[int, int]]) -> list[int]:
    """A perfect matching of a regular bipartite multigraph (Kuhn's augmenting paths), as the
    edges it uses, in a fixed order."""
    at: list[list[int]] = [[] for _ in range(left)]
    for e in free:
        at[edges[e][0]].append(e)
    holder: list[int] = [-1] * right  # the edge that matches each right node

    def augment(node: int, seen: list[bool]) -> bool:
        for e in at[node]:
            b = edges[e][1]
            if seen[b]:
                continue
            seen[b] = True
            if holder[b] < 0 or augment(edges[holder[b]][0], seen):
                holder[b] = e
                return True
        return False

    for node in range(left):
        if not augment(node, [False] * right):
            raise AssertionError("a regular bipartite graph has a perfect matching")
    return [e for e in holder if e >= 0]

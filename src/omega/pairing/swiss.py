"""The Swiss system: a fixed number of rounds, each pairing players of equal (or near) scores
who have not met.

**2 players** (``docs/tournaments.md`` has the whole rule): a maximum-weight matching
(``networkx.max_weight_matching`` with ``maxcardinality=True``) over the active players,
whose edge weights put, in this order of importance: no second bye and no repeated pairing
(such edges exist only when nothing else pairs everyone, and then the fewest are used, a
second bye being the worse: it is a point without a game); no
colour difference above 2; no third colour in a row; equal scores, then near ones; colour
wishes (the colour one had less, else the other colour than last time); and, within a score
group, the stronger half against the weaker half in order (1 against k+1, 2 against k+2, as
FIDE's Dutch system does). With an odd number the matching also chooses the bye: the lowest
ranked of the lowest score group who has not had one. Colours then follow
:mod:`omega.pairing.seats`: the colour each had less, White to the higher ranked on equal
history.

For speed, edges join only players near each other in the order of that ideal pairing (a
window of :data:`WINDOW` places), widened until everyone is paired without a repeat; 200
players take well under a second a round (``bench/pairing.py``).

**3 or 4 players**: tables seated by standings (points, tie-breaks, rating): the field, sorted,
is cut into tables, the remainder getting byes (the lowest ranked of those with the fewest
byes). Players are then swapped between tables, nearest tables first, while a swap lets the
seats rotate better or, seats equal, avoids an identical table met before; then each table's
seats are rotated. Seats come first: with full tables every player's seat counts then stay
within one of each other, round after round.

>>> from omega.pairing.model import Entrant, History
>>> field = [Entrant(i, 2000.0 - i) for i in range(1, 5)]
>>> Swiss(players=2, rounds=3).pair(field, History(), 1).tables   # 1 v 3, 2 v 4
((1, 3), (2, 4))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
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
from omega.pairing.points import Tally, rank_standings, standings_of, tally
from omega.pairing.seats import SeatCost, best_seats, seat_history, seat_order

__all__ = ["Swiss", "WINDOW", "COLOUR_REACH", "SWAP_REACH"]

#: How many places apart in the ideal pairing order two players may be to get an edge in the
#: first try (2 players); doubled until everyone is paired without a repeat.
WINDOW = 8

#: The window is widened up to this many times its first width to keep colours within their
#: limits (beyond, a limit is broken rather than the matching made slow: it happens only when
#: nothing near can help).
COLOUR_REACH = 4

#: How far (in tables) a swap looks first, with 3-4 players, before looking at every table.
SWAP_REACH = 3

#: At most this many rounds of swaps with 3-4 players (each keeps the better one; in practice
#: a handful suffice).
MAX_PASSES = 64


@dataclass(frozen=True)
class Swiss:
    """The Swiss system for tables of ``players`` over ``rounds`` rounds.

    A bye is worth a win with 2 players (1 point, as lichess and FIDE give) and an average
    game with 3 or 4 (1 point of 2, 1.5 of 3: a win would be worth more than the players it
    is given to usually score). Tie-breaks: Buchholz, then Sonneborn-Berger.

    >>> Swiss(players=3, rounds=6).bye_points, Swiss(players=2, rounds=5).rounds_for(32)
    (1.0, 5)
    >>> Swiss(players=2, rounds=0)
    Traceback (most recent call last):
    ...
    ValueError: a Swiss needs at least 1 round, got 0
    """

    players: int
    rounds: int
    #: The first try's window (2 players): ``bench/pairing.py`` sets the whole field as its
    #: yardstick. The pairing is the same either way whenever the window finds the best one.
    window: int = field(default=WINDOW, repr=False, compare=False)
    name: str = field(default="swiss", init=False)
    tiebreak_names: tuple[str, ...] = field(default=("buchholz", "sonneborn_berger"), init=False)

    def __post_init__(self) -> None:
        check_players(self.players)
        if not isinstance(self.rounds, int) or isinstance(self.rounds, bool) or self.rounds < 1:
            raise ValueError(f"a Swiss needs at least 1 round, got {self.rounds!r}")
        if not isinstance(self.window, int) or self.window < 1:
            raise ValueError(f"a Swiss's window must be at least 1, got {self.window!r}")

    @property
    def bye_points(self) -> float:
        """The points of a bye: a win with 2 players, an average game with 3 or 4."""
        return 1.0 if self.players == 2 else (self.players - 1) / 2

    def rounds_for(self, entrants: int) -> int | None:
        """The rounds it was made with, whatever the field (repeats are avoided while the
        field allows).

        >>> Swiss(players=2, rounds=7).rounds_for(8)
        7
        """
        return self.rounds

    def standings(self, entrants: Sequence[Entrant], history: History) -> list[Standing]:
        """Every entrant (withdrawn ones included) by points, Buchholz, Sonneborn-Berger.

        >>> from omega.pairing.model import Entrant, History, Played
        >>> field = [Entrant(i, 0.0) for i in (1, 2, 3, 4)]
        >>> h = History(games=(Played(1, (1, 2), (0, 1)), Played(1, (3, 4), (0, 1)),
        ...                    Played(2, (3, 1), (0, 1)), Played(2, (2, 4), (0, 1))))
        >>> [(s.entrant, s.points, s.tiebreaks) for s in Swiss(2, 2).standings(field, h)]
        [(3, 2.0, (1.0, 1.0)), (1, 1.0, (3.0, 1.0)), (2, 1.0, (1.0, 0.0)), (4, 0.0, (3.0, 0.0))]
        """
        return standings_of(entrants, history, self.players, self.bye_points, self.tiebreak_names)

    def pair(self, entrants: Sequence[Entrant], history: History, round: int,
             waiting: Collection[int] | None = None) -> Round:
        """The tables of ``round`` for the active ``entrants``.

        >>> from omega.pairing.model import Entrant, History, Played
        >>> field = [Entrant(i, 2000.0 - i) for i in range(1, 5)]
        >>> first = History(games=(Played(1, (1, 3), (0, 1)), Played(1, (2, 4), (1, 0))))
        >>> Swiss(players=2, rounds=3).pair(field, first, 2).tables   # winners meet, colours swap
        ((4, 1), (3, 2))
        """
        by_id = check_entrants(entrants)
        check_history(history, self.players)
        check_round(round, 1, self.rounds, f"a {self.rounds}-round Swiss")
        if waiting is not None:
            raise ValueError("waiting is for an arena; a Swiss pairs every active entrant")
        tallies = tally(history, self.players, self.bye_points, entrants=list(by_id))
        if self.players == 2:
            return _pair_two(list(entrants), tallies, history, self.window)
        return _pair_tables(self, list(entrants), tallies, history)


# -- 2 players: a weighted matching --------------------------------------------------------


#: The parts of an edge's cost, most important first (see the module doc).
_LEVELS = ("second_bye", "repeat", "over_two", "three_running", "score", "colour_wish", "fold")

#: An edge's cost: one figure per level of :data:`_LEVELS`.
Cost = tuple[int, ...]


def _ideal_order(ranked: Sequence[Entrant], points: dict[int, float]) -> list[int]:
    """The entrants in the order of the ideal pairing: score groups from the top, each its
    stronger half interleaved with its weaker half (1, k+1, 2, k+2, ...), so that the ideal
    opponents are neighbours."""
    out: list[int] = []
    for _, group in itertools.groupby(ranked, key=lambda e: points[e.id]):
        members = [e.id for e in group]
        half = len(members) // 2
        for a, b in zip(members[:half], members[half:], strict=False):
            out += [a, b]
        out += members[2 * half:]
    return out


def _pair_two(entrants: list[Entrant], tallies: dict[int, Tally], history: History, first_window: int) -> Round:
    if not entrants:
        return Round(tables=())
    points = {e.id: tallies[e.id].points for e in entrants}
    ranked = sorted(entrants, key=lambda e: (-points[e.id], -e.rating, e.id))
    rank = {e.id: i for i, e in enumerate(ranked)}
    if len(ranked) == 1:
        return Round(tables=(), byes=(ranked[0].id,))
    order = _ideal_order(ranked, points)
    place = {entrant: i for i, entrant in enumerate(order)}
    seats_of = seat_history(history)
    met = {frozenset(pair) for game in history.games for pair in itertools.combinations(game.seats, 2)}
    n = len(order)
    odd = n % 2 == 1
    lowest = min(points.values())
    without_bye = [x for x in order if tallies[x].byes == 0]

    def pair_cost(a: int, b: int) -> Cost:
        high, low = (a, b) if rank[a] < rank[b] else (b, a)
        seats: SeatCost = best_seats((high, low), seats_of)[1]
        return (0, int(frozenset((a, b)) in met), seats[0], seats[1], round(4 * (points[a] - points[b]) ** 2),
                2 * seats[2] + seats[4], abs(place[a] - place[b]) - 1)

    def bye_cost(x: int) -> Cost:
        below = n - 1 - rank[x]  # the lowest ranked gets it first
        return (tallies[x].byes, 0, 0, 0, round(4 * (points[x] - lowest) ** 2), 0, below)

    bye = min(order) - 1  # the bye's node: no entrant's id

    def attempt(span: int, repeats: bool) -> tuple[list[tuple[int, int]] | None, dict[tuple[int, int], Cost]]:
        costs: dict[tuple[int, int], Cost] = {}
        for i, a in enumerate(order):
            for b in order[i + 1:i + 1 + span]:
                if repeats or frozenset((a, b)) not in met:
                    costs[(a, b)] = pair_cost(a, b)
        if odd:
            for x in order if repeats or not without_bye else without_bye:
                costs[(x, bye)] = bye_cost(x)
        return _match(costs, (n + 1) // 2), costs

    # Widen the window until everyone is paired without a repeat, and (a little further) while
    # a colour limit is broken; with no such pairing at all, allow repeats (fewest first).
    window = first_window
    while True:
        matching, costs = attempt(window, repeats=False)
        everything = window >= n - 1
        if matching is not None:
            clean = all(costs[edge][2] == costs[edge][3] == 0 for edge in matching)
            if clean or everything or window >= COLOUR_REACH * first_window:
                break
        if everything:
            matching, costs = attempt(n, repeats=True)
            break
        window *= 2
    assert matching is not None
    tables: list[tuple[int, ...]] = []
    byes: tuple[int, ...] = ()
    for a, b in matching:
        if b == bye:
            byes = (a,)
            continue
        high, low = (a, b) if rank[a] < rank[b] else (b, a)
        tables.append(seat_order((high, low), seats_of))
    tables.sort(key=lambda t: min(rank[x] for x in t))
    return Round(tables=tuple(tables), byes=byes)


def _match(costs: dict[tuple[int, int], Cost], wanted: int) -> list[tuple[int, int]] | None:
    """The matching of least cost (compared level by level) among those of most edges, or
    None when fewer than ``wanted`` pairs can be made."""
    if not costs:
        return None if wanted else []
    levels = len(_LEVELS)
    top = [max(c[k] for c in costs.values()) for k in range(levels)]
    # Integer weights, each level worth more than everything below it can add up to over a
    # whole matching, so the matching's total weight compares the levels in order (exact:
    # Python's integers do not round).
    scale = [0] * levels
    unit = 1
    for k in reversed(range(levels)):
        scale[k] = unit
        unit *= top[k] * wanted + 1
    # Imported here: a process that never pairs a Swiss round (every server, every worker)
    # does not pay networkx's import (about 0.3 s of CPU).
    import networkx as nx

    graph: nx.Graph[int] = nx.Graph()
    for (a, b), cost in costs.items():
        graph.add_edge(a, b, weight=unit - sum(s * c for s, c in zip(scale, cost, strict=True)))
    found = nx.max_weight_matching(graph, maxcardinality=True)
    if len(found) < wanted:
        return None
    # The edge keys of ``costs`` are ordered; networkx may give either end first.
    return [(a, b) if (a, b) in costs else (b, a) for a, b in found]


# -- 3 or 4 players: tables by standings, then swaps ---------------------------------------


#: A table's cost in the swaps: identical table met before, then the seat cost's parts.
_TableCost = tuple[int, int, int, int, int, int]


def _pair_tables(swiss: Swiss, entrants: list[Entrant], tallies: dict[int, Tally], history: History) -> Round:
    p = swiss.players
    standings = rank_standings(entrants, tallies, swiss.tiebreak_names)
    ranked = [s.entrant for s in standings]
    rank = {x: i for i, x in enumerate(ranked)}
    left_over = len(ranked) % p
    # The byes: the fewest byes had first, then the lowest ranked.
    byes = sorted(sorted(ranked, key=lambda x: (tallies[x].byes, -rank[x]))[:left_over], key=rank.__getitem__)
    resting = set(byes)
    seated = [x for x in ranked if x not in resting]
    tables = [seated[i:i + p] for i in range(0, len(seated), p)]
    home = {x: i // p for i, x in enumerate(seated)}
    seats_of = seat_history(history)
    met_tables = {frozenset(game.seats) for game in history.games}
    cache: dict[frozenset[int], _TableCost] = {}

    def cost(table: Sequence[int]) -> _TableCost:
        key = frozenset(table)
        if key not in cache:
            c = best_seats(tuple(table), seats_of)[1]
            cache[key] = (int(key in met_tables), *c)
        return cache[key]

    def total(index: int, table: Sequence[int]) -> tuple[int, ...]:
        # The order of what a swap may trade: the seats' limits and balance first (the last
        # seat wins 2 games in 3 with three players: fairness is the seats), then a table
        # met before, then how far players moved from their table by standings, then the rest.
        c = cost(table)
        moved = sum(abs(index - home[x]) for x in table)
        return (c[1], c[2], c[3], c[0], moved, c[4], c[5])

    for _ in range(MAX_PASSES):
        if not _improve(tables, total):
            break
    out = tuple(seat_order(sorted(table, key=rank.__getitem__), seats_of) for table in tables)
    return Round(tables=out, byes=tuple(byes))


def _improve(tables: list[list[int]], total: Callable[[int, Sequence[int]], tuple[int, ...]]) -> bool:
    """One pass of swaps: for each table not at its best, the best swap of one of its players
    with one of another table (nearest tables first); True if anything changed."""
    changed = False
    for i in range(len(tables)):
        now_i = total(i, tables[i])
        if now_i[:4] == (0, 0, 0, 0):
            continue
        for reach in (SWAP_REACH, len(tables)):
            best: tuple[tuple[int, ...], int, int, int] | None = None
            for j in sorted(range(len(tables)), key=lambda j: (abs(j - i), j)):
                if j == i or abs(j - i) > reach:
                    continue
                before = _add(now_i, total(j, tables[j]))
                for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
                    ti, tj = tables[i].copy(), tables[j].copy()
                    ti[a], tj[b] = tj[b], ti[a]
                    after = _add(total(i, ti), total(j, tj))
                    gain = tuple(x - y for x, y in zip(after, before, strict=True))
                    if gain < (0,) * len(gain) and (best is None or gain < best[0]):
                        best = (gain, j, a, b)
            if best is not None:
                _, j, a, b = best
                tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
                changed = True
                break
    return changed


def _add(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a + b for a, b in zip(x, y, strict=True))

"""Seat rotation: who sits where at a table, so that every player has each seat as evenly as
the rounds allow.

Seats matter in Omega: White wins about 4 games in 5 on side 5 without the pie rule, and with
three players the last seat wins about 2 in 3 between equal computers. With 2 players the
seats are the colours, and the same rule gives each player the colour they had less.

For a table, every order of its players (at most 4! = 24) is scored, and the lowest score
wins; the score compares, in turn:

1. players whose seat counts would then differ by more than 2 (with 2 players: a colour
   difference above 2);
2. players who would take the same seat a third time in a row;
3. the sum, over the players, of how often each has already had the seat they get, counted
   above their least-taken seat (within one table this orders the choices as the plain
   count does; counted this way it also compares different tables fairly);
4. the sum of each player's spread (most minus fewest games in one seat) after this game;
5. players who would take the same seat as in their last game.

Orders still equal go by rank: the higher ranked player takes the earlier seat (White on
equal colour history). Games still being played count: a seat is taken when it is paired.

>>> from omega.pairing.model import History, Played
>>> history = History(games=(Played(1, (1, 2, 3), None), Played(2, (2, 3, 1), None)))
>>> seat_order((1, 2, 3), seat_history(history))   # each takes the seat they have not had
(3, 1, 2)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from omega.pairing.model import History

__all__ = ["SeatCost", "seat_history", "seat_cost", "seat_order", "best_seats", "spread"]

#: What one order of a table costs: the five counts of the module doc, compared in order.
SeatCost = tuple[int, int, int, int, int]

_NOTHING: SeatCost = (0, 0, 0, 0, 0)


def seat_history(history: History) -> dict[int, list[int]]:
    """The seats each entrant took, game by game in the order they were paired.

    >>> from omega.pairing.model import Played
    >>> seat_history(History(games=(Played(1, (4, 7)), Played(2, (7, 4)))))
    {4: [0, 1], 7: [1, 0]}
    """
    out: dict[int, list[int]] = {}
    for game in history.games:
        for seat, entrant in enumerate(game.seats):
            out.setdefault(entrant, []).append(seat)
    return out


def spread(counts: Sequence[int]) -> int:
    """Most games in one seat minus fewest in another.

    >>> spread([2, 0, 1])
    2
    """
    return max(counts) - min(counts)


def _counts(taken: Sequence[int], players: int) -> list[int]:
    counts = [0] * players
    for seat in taken:
        counts[seat] += 1
    return counts


def _player_cost(taken: Sequence[int], players: int) -> list[SeatCost]:
    """What each seat costs one player with this seat history."""
    counts = _counts(taken, players)
    out: list[SeatCost] = []
    for seat in range(players):
        after = counts.copy()
        after[seat] += 1
        grown = spread(after)
        out.append((
            int(grown > 2),
            int(len(taken) >= 2 and taken[-1] == taken[-2] == seat),
            counts[seat] - min(counts),
            grown,
            int(bool(taken) and taken[-1] == seat),
        ))
    return out


def best_seats(table: Sequence[int], seats_of: Mapping[int, Sequence[int]]) -> tuple[tuple[int, ...], SeatCost]:
    """The best order of ``table`` (its players in rank order, best first) and its cost.

    >>> best_seats((5, 6), {5: [0, 0], 6: [1, 0]})   # 5 had White twice: Black now
    ((6, 5), (0, 0, 0, 2, 1))
    """
    players = len(table)
    costs = [_player_cost(seats_of.get(entrant, ()), players) for entrant in table]
    best: tuple[int, ...] | None = None
    best_cost: SeatCost = _NOTHING
    # permutations() runs in lexicographic order of "the seat of the k-th ranked player", so
    # the first order of the lowest cost gives the higher ranked players the earlier seats.
    for seats in itertools.permutations(range(players)):
        parts = [costs[k][seat] for k, seat in enumerate(seats)]
        cost: SeatCost = (
            sum(c[0] for c in parts), sum(c[1] for c in parts), sum(c[2] for c in parts),
            sum(c[3] for c in parts), sum(c[4] for c in parts),
        )
        if best is None or cost < best_cost:
            best, best_cost = seats, cost
    assert best is not None
    order = [0] * players
    for k, seat in enumerate(best):
        order[seat] = table[k]
    return tuple(order), best_cost


def seat_order(table: Sequence[int], seats_of: Mapping[int, Sequence[int]]) -> tuple[int, ...]:
    """The players of ``table`` (given in rank order, best first) in the seat order they take.

    >>> seat_order((1, 2), {})   # no history: the higher ranked is White
    (1, 2)
    >>> seat_order((1, 2), {1: [0], 2: [0]})   # equal histories: rank decides again
    (1, 2)
    """
    return best_seats(table, seats_of)[0]


def seat_cost(table: Sequence[int], seats_of: Mapping[int, Sequence[int]]) -> SeatCost:
    """The cost of the best order of ``table``: zero when each player gets a seat they have had
    least and none repeats their last one.

    >>> seat_cost((1, 2, 3), {1: [0], 2: [0], 3: [0]})   # three players who all had seat 0
    (0, 0, 1, 4, 1)
    """
    return best_seats(table, seats_of)[1]

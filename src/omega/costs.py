"""Who cost whom what: each player's share of every colour's score, and the score scale.

A colour's score is the product of its group sizes, so its **log-score** is the sum of the
logs (natural logarithms) of its group sizes: 0 with no stones (the empty product) and
``log(score)`` once it has any.  In Omega every turn places one stone of every colour in
play, and a colour's groups depend only on its own stones, so each stone's effect on its
colour is well defined and independent of the order of the stones within the turn:

* the **account** of ``(player, colour)`` is the sum, over the turns that player made, of
  the change of that colour's log-score the turn caused (which is the change caused by the
  one stone of that colour the turn placed).  ``gain`` sums the rises and ``cost`` the falls
  (as a positive number), so ``net = gain - cost``.  A stone starting a new group changes
  nothing (a factor 1), one joining a group of s makes ``log((s+1)/s)``, and one merging
  groups can lower the product (groups of 3 and 3 joined by a stone: 7 instead of 9);
* a pie-rule swap places nothing and changes no account; accounts are kept by player (the
  seat that made the turn), whatever colour the player holds at the end.

Summed over the players, a colour's account is its log-score at the end (a telescoping sum):
this is the identity ``tests/test_costs.py`` checks over random games.  The **margin** of a
colour in a position is its log-score minus the best log-score of the other colours
(positive for the colour ahead): the review's score scale.

The worked example of docs/ai.md, a side-3 board where White's last Black stone (b2)
joins Black's groups of 3 and 3 into one of 7:

>>> from omega.game import Game
>>> g = Game.from_history([("e3", "a1"), ("e4", "a2"), ("e5", "a3"), ("d2", "c2"), ("b4", "c3"),
...                        ("b1", "c4"), ("c5", "b2")], size=3)
>>> a = account(g)
>>> a.net[0][1], a.cost[0][1], a.net[1][1]      # White's seat took 0.2513 from Black
(0.8473, 0.2513, 1.0986)
>>> a.final, round(a.net[0][1] + a.net[1][1], 4)   # log 8 and log 7
((2.0794, 1.9459), 1.9459)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log
from typing import Any

from omega.game import SWAP, Color, Game

__all__ = ["Account", "account", "log_score", "log_scores", "margins", "score_curve", "DIGITS"]

#: Decimals kept in an account and the score scale (the JSON forms round to these).
DIGITS = 4


def log_score(game: Game, color: Color | int) -> float:
    """The log-score of ``color``: the sum of the logs of its group sizes (0 without stones).

    >>> g = Game.from_history([("a1", "e5"), ("a2", "e3")], size=3)
    >>> round(log_score(g, Color.WHITE), 4), log_score(g, Color.BLACK)   # one group of 2; two of 1
    (0.6931, 0.0)
    """
    return sum((log(size) for size in game.group_sizes(color)), 0.0)


def log_scores(game: Game) -> tuple[float, ...]:
    """Every colour's log-score (colour order).

    >>> log_scores(Game(players=3, size=3))
    (0.0, 0.0, 0.0)
    """
    return tuple(log_score(game, c) for c in game.colors)


def margins(values: tuple[float, ...]) -> tuple[float, ...]:
    """Each colour's margin: its value minus the best value of the other colours.

    >>> margins((2.0, 0.5, 1.0))
    (1.0, -1.5, -1.0)
    """
    return tuple(v - max(w for j, w in enumerate(values) if j != i) for i, v in enumerate(values))


def score_curve(game: Game) -> tuple[tuple[float, ...], ...]:
    """Every colour's log-score at each position of ``game``: the empty board, then after
    each entry of its history (rounded to :data:`DIGITS`).

    >>> score_curve(Game.from_history([("a1", "e5"), ("a2", "e3")], size=3))
    ((0.0, 0.0), (0.0, 0.0), (0.6931, 0.0))
    """
    replay = Game(players=game.players, size=game.size, pie_rule=game.pie_rule)
    curve = [_rounded(log_scores(replay))]
    for action in game.history:
        replay.apply(action)
        curve.append(_rounded(log_scores(replay)))
    return tuple(curve)


@dataclass(frozen=True)
class Account:
    """Who changed which colour's log-score by how much: ``net[player][colour]``, with its
    rises (``gain``) and falls (``cost``, positive); ``final`` is each colour's log-score at
    the end and ``holds[player]`` the colour the player holds then (see the module doc).

    >>> account(Game(size=3)).to_json()["final"]
    {'White': 0.0, 'Black': 0.0}
    """

    players: int
    net: tuple[tuple[float, ...], ...]
    gain: tuple[tuple[float, ...], ...]
    cost: tuple[tuple[float, ...], ...]
    final: tuple[float, ...]
    holds: tuple[Color, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON form (the review's ``account``; docs/ai.md).

        >>> g = Game.from_history([("a1", "e5"), ("a2", "e3")], size=3)
        >>> account(g).to_json()["players"][1]
        {'player': 1, 'color': 'Black', 'net': {'White': 0.6931, 'Black': 0.0}, 'gain': {'White': 0.6931, 'Black': 0.0}, 'cost': {'White': 0.0, 'Black': 0.0}}
        """
        def by_color(row: tuple[float, ...]) -> dict[str, float]:
            return {Color(c).label: v for c, v in enumerate(row)}

        return {
            "players": [
                {"player": p, "color": self.holds[p].label, "net": by_color(self.net[p]),
                 "gain": by_color(self.gain[p]), "cost": by_color(self.cost[p])}
                for p in range(self.players)
            ],
            "final": by_color(self.final),
        }


def account(game: Game) -> Account:
    """The account of ``game`` (finished or not: up to its last entry), replayed with the
    rules of :mod:`omega.game`.

    >>> a = account(Game.from_history([("a1", "e5"), ("a2", "e3")], size=3))
    >>> a.net, a.holds
    (((0.0, 0.0), (0.6931, 0.0)), (<Color.WHITE: 0>, <Color.BLACK: 1>))
    """
    n = game.players  # as many colours as players
    gain = [[0.0] * n for _ in range(n)]
    cost = [[0.0] * n for _ in range(n)]
    replay = Game(players=game.players, size=game.size, pie_rule=game.pie_rule)
    before = log_scores(replay)
    for action in game.history:
        player = replay.current_player
        assert player is not None, "a game's history continues only while it is on"
        replay.apply(action)
        after = log_scores(replay)
        if action != SWAP:
            for c in range(n):
                change = after[c] - before[c]
                if change > 0:
                    gain[player][c] += change
                else:
                    cost[player][c] -= change
        before = after
    net = tuple(_rounded(tuple(g - c for g, c in zip(gain[p], cost[p], strict=True))) for p in range(n))
    return Account(n, net, tuple(_rounded(tuple(row)) for row in gain), tuple(_rounded(tuple(row)) for row in cost),
                   _rounded(before), tuple(game.color_of(p) for p in range(n)))


def _rounded(values: tuple[float, ...]) -> tuple[float, ...]:
    # ``+ 0.0`` turns a rounded -0.0 into 0.0, so a cost of nothing reads 0.0.
    return tuple(round(v, DIGITS) + 0.0 for v in values)

"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), for puzzles and
the players who solve them.

A rating is ``(rating, deviation, volatility)`` on the Glicko scale (1500 and 350 for a
newcomer).  :func:`rate` is one rating period: the steps of the paper in order, the new
volatility found by the Illinois method.  The puzzles rate each attempt as its own period
for both sides, a solve a win for the player and a loss for the puzzle, as lichess does.

The paper's worked example (a player of 1500, 200, 0.06 against three opponents, with
tau 0.5) gives 1464.06, 151.52 and 0.05999; the paper rounds its steps to four places, and
unrounded the rating is 1464.05:

>>> r = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                                    (Rating(1700, 300), 0.0)], tau=0.5)
>>> round(r.rating, 2), round(r.deviation, 2), round(r.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Rating", "NEWCOMER", "TAU", "MIN_DEVIATION", "rate", "expected"]

#: Glicko-2's scale factor between the Glicko scale and its own.
SCALE = 173.7178
#: The system constant: how much volatility may change (the paper suggests 0.3 to 1.2).
TAU = 0.75
#: A rating's deviation never falls below this, so that a rating keeps moving.
MIN_DEVIATION = 45.0
#: The convergence tolerance of the volatility's iteration.
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


#: Where every player and puzzle starts.
NEWCOMER = Rating()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(a: Rating, b: Rating) -> float:
    """The chance ``a`` beats ``b`` (Glicko-2's expectation, ``b``'s deviation counted).

    >>> round(expected(Rating(1700, 50), Rating(1500, 50)), 3)
    0.757
    """
    return _e((a.rating - 1500) / SCALE, (b.rating - 1500) / SCALE, b.deviation / SCALE)


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    # Step 5: the new volatility, the root of f by the Illinois method.
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU,
         min_deviation: float = 0.0) -> Rating:
    """``player``'s rating after one period of ``results`` (each an opponent and a score:
    1 a win, 0 a loss, 0.5 a draw).  A period without results only widens the deviation.

    >>> rate(NEWCOMER, []).deviation == NEWCOMER.deviation
    True
    >>> rate(NEWCOMER, [(NEWCOMER, 1.0)]).rating > 1500 > rate(NEWCOMER, [(NEWCOMER, 0.0)]).rating
    True
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    if not results:
        widened = min(math.sqrt(phi * phi + player.volatility ** 2) * SCALE, NEWCOMER.deviation)
        return Rating(player.rating, widened, player.volatility)
    terms = []
    for opponent, score in results:
        mu_j, phi_j = (opponent.rating - 1500.0) / SCALE, opponent.deviation / SCALE
        terms.append((_g(phi_j), _e(mu, mu_j, phi_j), score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    gained = sum(g * (s - e) for g, e, s in terms)
    sigma = _volatility(player.volatility, phi, v, v * gained, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gained
    deviation = min(max(new_phi * SCALE, min_deviation), NEWCOMER.deviation)
    return Rating(new_mu * SCALE + 1500.0, deviation, sigma)

"""The computer player's levels: the one list of them, for the bots, the server and the page.

A level is an MCTS search budget: at most ``iterations`` simulations and at most ``seconds``
of thinking a turn, whichever ends first.  The iteration budget keeps a level equally strong
on a fast or a busy machine and makes seeded games reproducible; the time cap keeps big
boards responsive.  The weakest levels also ``blunder``: each stone of their turn goes,
with that chance, to an empty cell drawn at random (a search of one simulation is the
greedy player, already far above random play; blunders make the steps below it).  A level
that answers in milliseconds waits ``think`` seconds from the move it answers before its
reply is played (the server's computer players wait; the bot does not), so a person sees
it think.

Each level was measured against the one below it, and each has a ``rating`` on the site's
display scale (docs/ratings.md) with its 95% interval ``rating_low`` to ``rating_high``:
``docs/measured/2026-12-06-sixteen-levels.md``.  The numbers changed meaning twice on 2026-12-06
(five levels became twelve, then sixteen to split the steepest steps); migrations 0026 and
0027 moved every stored computer seat (finished tables' too, so their records still name the
computer played) to the level of the same budget (:data:`RENUMBERED`,
:data:`RENUMBERED_TWELVE`).

This module is plain data (no NumPy, no Numba), so the server can import it cheaply.

>>> level(13).iterations, level(13).seconds, MIN_LEVEL, MAX_LEVEL
(4000, 2.0, 1, 16)
"""

from __future__ import annotations

from dataclasses import dataclass

from omega.i18n import N_, Message
from omega.i18n import translatable as _

__all__ = ["LEVELS", "MAST", "MAX_LEVEL", "MIN_LEVEL", "find_level", "RENUMBERED", "RENUMBERED_TWELVE", "STAND_IN_LEVEL", "Level", "level", "computer_name",
           "level_rating", "nearest_level"]


@dataclass(frozen=True)
class Level:
    """One level of the computer player: its search budget, how people see it, and its
    measured strength.

    >>> LEVELS[0].name, LEVELS[0].number, LEVELS[0].think > 0
    ('Beginner', 1, True)
    """

    number: int
    iterations: int
    seconds: float
    name: str
    description: str
    #: Chance that each stone of a turn goes to a random empty cell instead.
    blunder: float = 0.0
    #: Seconds from the move it answers before its reply is played, at least.
    think: float = 0.0
    #: Display rating (docs/ratings.md) and its 95% interval, from the ladder.
    rating: int = 0
    rating_low: int = 0
    rating_high: int = 0


#: How a level's simulations choose their cells (``mast`` of :class:`omega.ai.mcts.MctsBot`):
#: 0, uniformly at random, as the ladder measured every level.  The search's default learns
#: where stones pay (``MAST_SIZE`` of :mod:`omega.ai.simulation`) and is stronger at the same
#: budget, so the levels keep the ratings they were measured with until the ladder is run
#: again with it.
MAST = 0

#: Every level, weakest first, numbered from 1 without gaps.
LEVELS: tuple[Level, ...] = (
    Level(1, 1, 1.0, N_("Beginner"), N_("knows the rules, and often puts stones down without a plan"), blunder=0.7,
          think=0.8, rating=702, rating_low=621, rating_high=783),
    Level(2, 2, 1.0, N_("Novice"), N_("grows its groups, with some careless stones"), blunder=0.3, think=0.8,
          rating=912, rating_low=854, rating_high=971),
    Level(3, 8, 1.0, N_("Learner"), N_("looks at a few turns, and still slips"), blunder=0.3, think=0.8,
          rating=1000, rating_low=1000, rating_high=1000),
    Level(4, 10, 1.0, N_("Casual"), N_("plays what looks best right now"), think=0.4,
          rating=1187, rating_low=1127, rating_high=1247),
    Level(5, 18, 1.0, N_("Friendly"), N_("looks one turn ahead, and forgives a mistake or two"), think=0.4,
          rating=1323, rating_low=1250, rating_high=1396),
    Level(6, 30, 1.0, N_("Easy"), N_("looks a little ahead; still easy to outplay"), think=0.4,
          rating=1497, rating_low=1419, rating_high=1574),
    Level(7, 55, 1.0, N_("Keen"), N_("starts to read your groups as well as its own"), think=0.4,
          rating=1783, rating_low=1683, rating_high=1883),
    Level(8, 100, 1.0, N_("Steady"), N_("reads a few turns ahead and rarely gives a group away"), think=0.4,
          rating=1910, rating_low=1808, rating_high=2012),
    Level(9, 170, 1.0, N_("Solid"), N_("builds sound groups and seldom leaves one open"),
          rating=2077, rating_low=1965, rating_high=2190),
    Level(10, 300, 1.0, N_("Medium"), N_("a fair test for a regular player"),
          rating=2239, rating_low=2123, rating_high=2354),
    Level(11, 600, 1.0, N_("Skilled"), N_("plans its groups and blocks yours"),
          rating=2364, rating_low=2240, rating_high=2489),
    Level(12, 1_500, 1.5, N_("Advanced"), N_("a fair test for an experienced player"),
          rating=2578, rating_low=2441, rating_high=2714),
    Level(13, 4_000, 2.0, N_("Hard"), N_("searches deeply and punishes loose play"),
          rating=2706, rating_low=2561, rating_high=2850),
    Level(14, 10_000, 2.5, N_("Strong"), N_("searches long, and few players beat it"),
          rating=2852, rating_low=2700, rating_high=3003),
    Level(15, 25_000, 3.0, N_("Expert"), N_("searches deeper still, and rarely lets a chance go"),
          rating=3017, rating_low=2862, rating_high=3172),
    Level(16, 300_000, 5.0, N_("Strongest"), N_("thinks longest, on two cores, and remembers its analysis between turns"),
          rating=3271, rating_low=3102, rating_high=3441),
)

#: Earlier numberings, each level as the level of the same budget now (old: new): the five
#: levels before 2026-12-06 (migrations 0026 and 0027 together) and the twelve of
#: 2026-12-06 (migration 0027), whose steepest steps the four new levels split.
RENUMBERED: dict[int, int] = {1: 4, 2: 11, 3: 13, 4: 15, 5: 16}
RENUMBERED_TWELVE: dict[int, int] = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 10, 8: 11, 9: 12, 10: 13, 11: 15, 12: 16}

#: The level the computer plays a resigned player's seat at (3 and 4 players), and the level
#: tried when a stronger one misses its deadline: answers at once, and plays sensibly.
STAND_IN_LEVEL = 4

MIN_LEVEL = LEVELS[0].number
MAX_LEVEL = LEVELS[-1].number

_BY_NUMBER = {lv.number: lv for lv in LEVELS}


def find_level(number: object) -> Level | None:
    """The level numbered ``number``, or None (no such level: one no longer known, or not a
    number at all).

    >>> find_level(1).name, find_level(17), find_level(None)
    ('Beginner', None, None)
    """
    return _BY_NUMBER.get(number) if isinstance(number, int) else None


def level(number: int) -> Level:
    """The level numbered ``number``; ValueError if there is none.

    >>> level(16).name
    'Strongest'
    >>> level(17)
    Traceback (most recent call last):
    ...
    ValueError: level must be from 1 to 16, got 17
    """
    found = find_level(number)
    if found is not None:
        return found
    raise ValueError(f"level must be from {MIN_LEVEL} to {MAX_LEVEL}, got {number!r}")


def computer_name(number: int, seat: int | None = None) -> Message:
    """What a computer player of level ``number`` is called at a table, wherever it is
    shown (its seat's name, the record, the lobby's and the account's lists): the level's
    name in words.  ``seat`` (its seat's number, from 1) tells apart two computers of one
    level at a table; a level no longer known reads as its number.

    >>> computer_name(1), computer_name(6, seat=3), computer_name(17)
    ('Computer (Beginner)', 'Computer 3 (Easy)', 'Computer (level 17)')
    """
    known = find_level(number)
    word = Message(known.name) if known is not None else _("level {number}", number=number)
    return _("Computer {seat} ({level})", seat=seat, level=word) if seat is not None else _("Computer ({level})", level=word)


def level_rating(number: int | None) -> int | None:
    """The display rating of computer level ``number`` (None: no such level, or none).

    >>> level_rating(MAX_LEVEL) == LEVELS[-1].rating, level_rating(99)
    (True, None)
    """
    known = find_level(number)
    return known.rating if known is not None else None


def nearest_level(rating: float) -> int:
    """The level whose rating is nearest ``rating`` (the weaker of two as near).

    >>> nearest_level(0), nearest_level(10_000)
    (1, 16)
    """
    return min(LEVELS, key=lambda lv: (abs(lv.rating - rating), lv.number)).number

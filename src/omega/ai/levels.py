"""The computer player's levels: the one list of them, for the bots, the server and the page.

A level is an MCTS search budget: at most ``iterations`` simulations and at most ``seconds``
of thinking a turn, whichever ends first.  The iteration budget keeps a level equally strong
on a fast or a busy machine and makes seeded games reproducible; the time cap keeps big
boards responsive.  Each level beat the one below it in most games
(``docs/measured/2026-12-02-levels-ladder.md``).

This module is plain data (no NumPy, no Numba), so the server can import it cheaply.

>>> level(3).iterations, level(3).seconds, MIN_LEVEL, MAX_LEVEL
(4000, 2.0, 1, 5)
"""

from __future__ import annotations

from dataclasses import dataclass

from omega.i18n import N_, Message
from omega.i18n import translatable as _

__all__ = ["LEVELS", "MAX_LEVEL", "MIN_LEVEL", "Level", "level", "computer_name"]


@dataclass(frozen=True)
class Level:
    """One level of the computer player: its search budget and how people see it.

    >>> LEVELS[0].name, LEVELS[0].number
    ('Beginner', 1)
    """

    number: int
    iterations: int
    seconds: float
    name: str
    description: str


#: Every level, weakest first, numbered from 1 without gaps.
LEVELS: tuple[Level, ...] = (
    Level(1, 10, 0.5, N_("Beginner"), N_("moves at once and makes plenty of mistakes")),
    Level(2, 600, 1.0, N_("Easy"), N_("looks a little ahead; still easy to outplay")),
    Level(3, 4_000, 2.0, N_("Medium"), N_("a fair test once you know the rules")),
    Level(4, 25_000, 3.0, N_("Hard"), N_("searches deeply and punishes loose play")),
    Level(5, 300_000, 5.0, N_("Strongest"), N_("thinks longest, on two cores, and remembers its analysis between turns")),
)

MIN_LEVEL = LEVELS[0].number
MAX_LEVEL = LEVELS[-1].number


def level(number: int) -> Level:
    """The level numbered ``number``; ValueError if there is none.

    >>> level(5).name
    'Strongest'
    >>> level(6)
    Traceback (most recent call last):
    ...
    ValueError: level must be from 1 to 5, got 6
    """
    for found in LEVELS:
        if found.number == number:
            return found
    raise ValueError(f"level must be from {MIN_LEVEL} to {MAX_LEVEL}, got {number!r}")


def computer_name(number: int, seat: int | None = None) -> Message:
    """What a computer player of level ``number`` is called at a table, wherever it is
    shown (its seat's name, the record, the lobby's and the account's lists): the level's
    name in words.  ``seat`` (its seat's number, from 1) tells apart two computers of one
    level at a table; a level no longer known reads as its number.

    >>> computer_name(1), computer_name(2, seat=3), computer_name(9)
    ('Computer (Beginner)', 'Computer 3 (Easy)', 'Computer (level 9)')
    """
    known = next((Message(lv.name) for lv in LEVELS if lv.number == number), None)
    word = known if known is not None else _("level {number}", number=number)
    return _("Computer {seat} ({level})", seat=seat, level=word) if seat is not None else _("Computer ({level})", level=word)

"""The name a seat shows until its player picks one: people numbered by seat, computers
named by their level in words (``omega.ai.levels.computer_name``).

>>> default_name(0, Seat("human", None))
'Player 1'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from omega.ai.levels import MIN_LEVEL, computer_name
from omega.i18n import Message
from omega.i18n import translatable as _

__all__ = ["default_name", "SeatLike", "Seat"]


class SeatLike(Protocol):
    """What naming needs of a seat (``tables.state.SeatConfig`` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def level(self) -> int | None: ...


@dataclass(frozen=True)
class Seat:
    """A seat's kind and level, for naming a seat that is not a table's ``SeatConfig``."""

    kind: str
    level: int | None


def default_name(index: int, seat: SeatLike, seats: Sequence[SeatLike] = ()) -> Message:
    """The name a seat shows until its player picks one (computer seats keep it).

    A computer is named by its level in words (``omega.ai.levels.computer_name``, the one
    home of that name); where ``seats`` (the table's) hold another computer of the same
    level, its seat number tells the two apart.  People are numbered by seat ("Player 2");
    the colour is left out because a pie swap changes it.  Derived from the table's
    settings only, so a restart gives the same names.

    >>> two = (Seat("human", None), Seat("computer", 3), Seat("computer", 3))
    >>> default_name(1, two[1]), default_name(1, two[1], two), default_name(2, two[2], two)
    ('Computer (Learner)', 'Computer 2 (Learner)', 'Computer 3 (Learner)')
    >>> default_name(0, Seat("human", None))
    'Player 1'
    """
    if seat.kind == "computer":
        level = seat.level if seat.level is not None else MIN_LEVEL
        twins = sum(1 for s in seats if s.kind == "computer" and s.level == seat.level)
        return computer_name(level, index + 1 if twins > 1 else None)
    return _("Player {number}", number=index + 1)

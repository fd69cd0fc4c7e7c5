"""The challenges' request body, checked whole (``POST /api/challenges``).

>>> c = parse_new(b'{"to": "Bob", "size": 6, "pie": true, "time_control": "5+05"}')
>>> c.to, c.players, c.size, c.pie, c.rated, c.clock.text, c.level
('Bob', 2, 6, True, False, '5+5', None)
>>> parse_new(b'{"to": null, "players": 3}').level   # the computer seat's level, by default
3
>>> parse_new(b'{"to": "Bob", "rated": true}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: a rated table needs a time control (real time such as 5+5, or turn-based such as 1d)
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, TypeAdapter

from omega.server.config import DEFAULT_LEVEL, DEFAULT_SIZE, LEVEL_RANGE, TABLE_SIZES
from omega.server.infra.bodies import Strict, bad_body, parse
from omega.server.tables.timecontrol import TimeControl, body_clock, require_clock

__all__ = ["NewChallenge", "parse_new", "PLAYERS"]

#: Players a challenged table may have: the two people, and computers in the seats past them.
PLAYERS = range(2, 5)


class NewChallenge(Strict):
    """``to``: the challenged username (null: open to whoever opens the link first);
    ``players`` (past two, computers at ``level``), ``size``, ``pie`` (two players only),
    ``rated`` (two people only, with a clock), ``time_control`` as a table's."""

    to: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None
    players: Annotated[int, Field(ge=PLAYERS.start, le=PLAYERS.stop - 1)] = 2
    size: Annotated[int, Field(ge=TABLE_SIZES.start, le=TABLE_SIZES.stop - 1)] = DEFAULT_SIZE
    pie: bool = False
    rated: bool = False
    time_control: Annotated[str, StringConstraints(max_length=16)] | None = None
    level: Annotated[int, Field(ge=LEVEL_RANGE.start, le=LEVEL_RANGE.stop - 1)] | None = None

    @property
    def clock(self) -> TimeControl:
        """The table's time control (none: untimed); ``bad_request`` if it is not one."""
        return body_clock(self.time_control)


_new = TypeAdapter(NewChallenge)


def parse_new(raw: bytes) -> NewChallenge:
    """A challenge's settings, checked as a whole, its time control as a table's."""
    c = parse(_new, raw)
    clock = c.clock
    c.time_control = clock.text if clock.timed else None
    if c.pie and c.players != 2:
        raise bad_body("pie: the pie rule is a 2-player option")
    if c.players == 2 and c.level is not None:
        raise bad_body("level: only the seats past two players are computers")
    if c.rated and c.players != 2:
        raise bad_body("rated: a rated challenge is between two people (a rated table has no computer seats)")
    require_clock(c.rated, clock)
    if c.players > 2 and c.level is None:
        c.level = DEFAULT_LEVEL
    return c

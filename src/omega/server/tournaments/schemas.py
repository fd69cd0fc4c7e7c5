"""The tournaments' request bodies, and every limit they are checked against (one home:
the page reads them from ``GET /api/config``).

>>> t = parse_new(b'{"name": "Friday Swiss", "format": "swiss", "rounds": 5, "time_control": "3+2", '
...               b'"starts_at": "2026-12-04T20:00:00+01:00"}')
>>> t.format, t.players, t.size, t.starts_time.isoformat(), t.rated
('swiss', 2, 5, '2026-12-04T19:00:00+00:00', True)
>>> parse_new(b'{"name": "x", "format": "knockout", "time_control": "3+2", "starts_at": "2026-12-04T20:00:00Z"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: format: Input should be 'swiss', 'arena' or 'round_robin'
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, TypeAdapter, field_validator

from omega.server.config import TABLE_SIZES
from omega.server.infra.bodies import Strict, bad_body, parse, utc_time
from omega.server.tables.timecontrol import TimeControl, body_clock, require_clock

__all__ = ["NewTournament", "PauseBody", "parse_new", "parse_pause", "RANGES", "NAME_MAX", "STARTS_WITHIN_DAYS",
           "limits_config"]

#: Every limit of a tournament's settings, lowest and highest allowed.
RANGES: dict[str, tuple[int, int]] = {
    "players": (2, 4),
    "rounds": (1, 20),
    "arena_minutes": (5, 24 * 60),
    "round_minutes": (1, 60 * 24 * 30),
    "gap_seconds": (0, 3600),
    "max_missed": (1, 10),
    "entrants": (2, 256),
}
#: The longest name, and how far ahead a start may be set (days).
NAME_MAX = 64
STARTS_WITHIN_DAYS = 60


def limits_config() -> dict[str, object]:
    """The limits as ``GET /api/config`` serves them (ranges as ``[low, high]``).

    >>> limits_config()["rounds"]
    [1, 20]
    """
    return {**{k: list(v) for k, v in RANGES.items()}, "name_max": NAME_MAX, "starts_within_days": STARTS_WITHIN_DAYS}


def _low(key: str) -> int:
    return RANGES[key][0]


def _high(key: str) -> int:
    return RANGES[key][1]


class NewTournament(Strict):
    """``POST /api/tournaments``.

    ``rounds``: Swiss only (round robin plays as many as its entrants need, arena none);
    ``minutes``: an arena's length.  ``round_minutes``: a round lasts at most this long
    (turn-based: the round's deadline; real time: rounds at set times); absent, a round waits
    for its last game.  ``gap_seconds``: the pause between a round's last game and the next
    round (default: 15 s in real time, none turn-based)."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_MAX)]
    format: Literal["swiss", "arena", "round_robin"]
    players: Annotated[int, Field(ge=_low("players"), le=_high("players"))] = 2
    size: Annotated[int, Field(ge=TABLE_SIZES.start, le=TABLE_SIZES.stop - 1)] = 5
    pie_rule: bool = True
    time_control: Annotated[str, StringConstraints(max_length=16)]
    rated: bool = True
    public: bool = False
    vacation: bool = False
    rounds: Annotated[int, Field(ge=_low("rounds"), le=_high("rounds"))] | None = None
    minutes: Annotated[int, Field(ge=_low("arena_minutes"), le=_high("arena_minutes"))] | None = None
    round_minutes: Annotated[int, Field(ge=_low("round_minutes"), le=_high("round_minutes"))] | None = None
    gap_seconds: Annotated[int, Field(ge=_low("gap_seconds"), le=_high("gap_seconds"))] | None = None
    max_missed: Annotated[int, Field(ge=_low("max_missed"), le=_high("max_missed"))] = 2
    min_players: Annotated[int, Field(ge=_low("entrants"), le=_high("entrants"))] | None = None
    max_players: Annotated[int, Field(ge=_low("entrants"), le=_high("entrants"))] = 64
    starts_at: Annotated[str, StringConstraints(max_length=40)]

    @field_validator("starts_at")
    @classmethod
    def _offset_required(cls, value: str) -> str:
        return utc_time(value, "starts_at")

    @property
    def starts_time(self) -> datetime:
        """``starts_at`` as a UTC time."""
        return datetime.fromisoformat(self.starts_at)

    @property
    def clock(self) -> TimeControl:
        """The games' time control; ``bad_request`` if it is not one."""
        return body_clock(self.time_control)


class PauseBody(Strict):
    """``POST /api/tournaments/{id}/pause``: pause (true) or come back (false); arena only."""

    paused: bool


_new = TypeAdapter(NewTournament)
_pause = TypeAdapter(PauseBody)


def parse_new(raw: bytes) -> NewTournament:
    """A new tournament's settings, checked as a whole."""
    t = parse(_new, raw)
    clock = t.clock
    t.time_control = clock.text
    if not clock.timed:
        raise bad_body("time_control: a tournament's games need a clock (real time such as 3+2, or turn-based such as 1d)")
    require_clock(t.rated, clock)
    if t.pie_rule and t.players != 2:
        t.pie_rule = False  # the pie rule is a 2-player option: 3-4 players simply play without it
    if t.format == "swiss" and t.rounds is None:
        raise bad_body("rounds: a Swiss tournament needs its number of rounds")
    if t.format != "swiss" and t.rounds is not None:
        raise bad_body(f"rounds: only a Swiss tournament sets its rounds ({t.format.replace('_', ' ')} does not)")
    if t.format == "arena":
        if t.minutes is None:
            raise bad_body("minutes: an arena needs its length in minutes")
        if clock.kind != "realtime":
            raise bad_body("time_control: an arena is played in real time (such as 3+2)")
        if t.round_minutes is not None:
            raise bad_body("round_minutes: an arena has no rounds")
    elif t.minutes is not None:
        raise bad_body("minutes: only an arena has a length in minutes")
    if t.vacation and clock.kind != "turn_based":
        raise bad_body("vacation: only turn-based games pause for a vacation")
    if t.min_players is None:
        t.min_players = t.players
    if t.min_players < t.players:
        raise bad_body(f"min_players: at least {t.players}, the players of one table")
    if t.max_players < t.min_players:
        raise bad_body("max_players: at least min_players")
    if t.gap_seconds is None:
        t.gap_seconds = 15 if clock.kind == "realtime" else 0
    return t


def parse_pause(raw: bytes) -> PauseBody:
    """``{"paused": true}`` or false."""
    return parse(_pause, raw)

"""The puzzles' inputs: an attempt's body.

>>> parse_attempt(b'{"turn": ["e5", "a1"]}').turn
['e5', 'a1']
>>> parse_attempt(b'{"turn": "e5 a1"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: turn: Input should be a valid array
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter

from omega.game import MAX_PLAYERS
from omega.server.infra.bodies import Strict, parse

__all__ = ["Attempt", "parse_attempt"]


class Attempt(Strict):
    """``POST /api/puzzles/{id}/attempt``: the turn played, one cell per colour in colour order."""

    turn: Annotated[list[Annotated[str, Field(max_length=4)]], Field(min_length=2, max_length=MAX_PLAYERS)]


_attempt = TypeAdapter(Attempt)


def parse_attempt(raw: bytes) -> Attempt:
    """An attempt's body (``bad_request`` for anything else)."""
    return parse(_attempt, raw)

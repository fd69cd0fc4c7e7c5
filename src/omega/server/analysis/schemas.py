"""The analysis board's bodies: a new empty board, a board from a finished game's position,
a tree to save, and a position to evaluate.

>>> parse_new(b'{"players": 3, "size": 6}')
NewBoard(players=3, size=6, pie_rule=False)
>>> parse_new(b'{"players": 5, "size": 6}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: players must be one of 2, 3, 4
>>> parse_position(b'{"players": 2, "size": 5, "actions": [["e5", "a1"], "swap"], "stream": "tab1"}').actions
[['e5', 'a1'], 'swap']
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, TypeAdapter

from omega.server.config import TABLE_PLAYERS, TABLE_SIZES
from omega.server.infra.bodies import Strict, bad_body, parse

__all__ = ["NewBoard", "FromGame", "SaveTree", "Position", "parse_new", "parse_from_game", "parse_save",
           "parse_position", "TREE_BODY_MAX", "MAX_NODES", "STREAM_MAX"]

#: Largest body of a tree's save or a position (the site's other bodies stop at 4 KiB, a
#: long study does not fit that): about 1,500 entries of four cells.
TREE_BODY_MAX = 65536
#: Most entries a board's tree may hold.
MAX_NODES = 1500
#: Longest name of an evaluation stream (a page's board): a newer evaluation in the same
#: stream replaces the older one.
STREAM_MAX = 40


class NewBoard(Strict):
    """``POST /api/analysis``: an empty board of a setting the site offers."""

    players: int
    size: int
    pie_rule: bool = False


class FromGame(Strict):
    """``POST /api/tables/{id}/analysis``: the position after ``ply`` entries of the game
    (None: its end)."""

    ply: int | None = Field(default=None, ge=0)


class SaveTree(Strict):
    """``POST /api/analysis/{id}``: the whole tree (the flat form), saved over ``version``."""

    nodes: list[Any] = Field(max_length=MAX_NODES)
    version: int


class Position(Strict):
    """``POST /api/analysis/evaluate``: a position as the entries that reach it from the
    empty board, and the page's stream (a newer request in it cancels an older one)."""

    players: int
    size: int
    pie_rule: bool = False
    actions: list[Any] = Field(max_length=MAX_NODES)
    stream: str = Field(default="", max_length=STREAM_MAX)


def _setting(players: int, size: int, pie_rule: bool) -> None:
    if players not in TABLE_PLAYERS:
        raise bad_body(f"players must be one of {', '.join(map(str, TABLE_PLAYERS))}")
    if size not in TABLE_SIZES:
        raise bad_body(f"size must be one of {', '.join(map(str, TABLE_SIZES))}")
    if pie_rule and players != 2:
        raise bad_body("the pie rule is a 2-player option")


_new, _from_game, _save, _position = (TypeAdapter(NewBoard), TypeAdapter(FromGame), TypeAdapter(SaveTree),
                                      TypeAdapter(Position))


def parse_new(raw: bytes) -> NewBoard:
    """A new board's body (``bad_request`` for anything else)."""
    body = parse(_new, raw)
    _setting(body.players, body.size, body.pie_rule)
    return body


def parse_from_game(raw: bytes) -> FromGame:
    """A board from a game's body (empty: the game's end)."""
    return parse(_from_game, raw or b"{}")


def parse_save(raw: bytes) -> SaveTree:
    """A save's body."""
    return parse(_save, raw)


def parse_position(raw: bytes) -> Position:
    """A position's body."""
    body = parse(_position, raw)
    _setting(body.players, body.size, body.pie_rule)
    return body

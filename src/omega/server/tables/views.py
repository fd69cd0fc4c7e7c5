"""How a game looks to its players: the JSON views of ``docs/server-api.md`` and the
record's texts that are made of a game alone (no table, no clock).

>>> g = Game(); g.play(["e5", "a1"])
>>> game_view(g)["to_move"], [c.label for c in final_ranking(g, [])]
('Black', ['Black', 'White'])
"""

from __future__ import annotations

from typing import Any

from omega.game import SWAP, Color, Game

__all__ = ["game_view", "final_ranking", "with_viewer", "hints_text"]


def with_viewer(shared: dict[str, Any], you: int | None) -> dict[str, Any]:
    """A table view (``viewer=False``) with the viewer's part added: the JSON of
    ``TableState.view(you)``, from the one view shared by every viewer of a version.

    >>> with_viewer({"version": 3}, 1)
    {'version': 3, 'you': {'seat': 1}}
    """
    return {**shared, "you": {"seat": you}}


def hints_text(hints: list[tuple[int, str, int]]) -> str:
    """The record's ``Hints`` tag: who asked for a hint on which turn.

    >>> hints_text([(0, "White", 3), (1, "Black", 4), (0, "White", 7)])
    'White on turn 3, Black on turn 4, White on turn 7'
    """
    return ", ".join(f"{color} on turn {turn}" for _, color, turn in hints)


def final_ranking(game: Game, resigned: list[int]) -> list[Color]:
    """Colours best first: players still in by the rules' ranking, then resigners, the
    latest resigner above earlier ones.

    >>> g = Game(players=3); g.play(["e5", "a1", "i9"])
    >>> [c.label for c in final_ranking(g, [0])]
    ['Red', 'Black', 'White']
    """
    out = [game.color_of(s) for s in resigned]
    return [c for c in game.ranking() if c not in out] + out[::-1]


def game_view(game: Game, resigned: list[int] | tuple[int, ...] = (), over: bool | None = None, *,
              timed_out: list[int] | tuple[int, ...] = ()) -> dict[str, Any]:
    """The game view of ``docs/server-api.md`` for ``game`` (over = the table is over;
    ``resigned``: the seats out of play in the order they left, of which ``timed_out``
    ran out of time).

    >>> g = Game(); g.play(["e5", "a1"]); v = game_view(g)
    >>> v["to_move"], v["stones"], v["last_turn"], v["scores"]
    ('Black', {'a1': 'Black', 'e5': 'White'}, {'index': 0, 'cells': {'White': 'e5', 'Black': 'a1'}}, {'White': '1', 'Black': '1'})
    """
    resigned = list(resigned)
    is_over = game.is_over if over is None else over
    scores = game.scores()
    ranking = final_ranking(game, resigned)
    active = [c for c in ranking if game.player_of(c) not in resigned]
    last_turn = None
    for index in range(len(game.history) - 1, -1, -1):
        action = game.history[index]
        if action != SWAP:
            last_turn = {"index": index, "cells": {Color(i).label: cell for i, cell in enumerate(action)}}
            break
    return {
        "to_move": None if is_over or game.to_move is None else game.to_move.label,
        "current_seat": None if is_over else game.current_player,
        "can_swap": game.can_swap and not is_over,
        "turn_number": game.turns_played + (0 if is_over else 1),
        "over": is_over,
        "stones": {cell: color.label for cell, color in sorted(game.stones().items())},
        "history": [SWAP if a == SWAP else list(a) for a in game.history],
        "last_turn": last_turn,
        "scores": {c.label: str(scores[c]) for c in game.colors},
        "factors": {c.label: game.group_sizes(c) for c in game.colors},
        "ranking": [c.label for c in ranking],
        "winner": ranking[0].label if is_over else None,
        "tiebreak": bool(is_over and len(active) >= 2 and scores[active[0]] == scores[active[1]]),
        "resigned": [game.color_of(s).label for s in resigned if s not in timed_out],
        "timed_out": [game.color_of(s).label for s in timed_out],
    }

"""What tests compare to show that an action changed a game, or changed nothing."""

from __future__ import annotations

from typing import Any

from omega import Game


def observable_state(game: Game) -> dict[str, Any]:
    """Everything the public API shows about a game, record included."""
    return {
        "history": game.history,
        "stones": game.stones(),
        "to_move": game.to_move,
        "current_player": game.current_player,
        "players_of": [game.player_of(c) for c in game.colors],
        "swapped": game.swapped,
        "can_swap": game.can_swap,
        "is_over": game.is_over,
        "scores": game.scores(),
        "groups": {c: sorted(map(sorted, game.groups(c))) for c in game.colors},
        "ranking": game.ranking(),
        "winner": game.winner,
        "empty": game.empty_cells(),
        "round": game.round,
        "record": game.record(),
    }

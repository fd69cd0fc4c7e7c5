"""What the rules say a stone-per-action game amounts to, stated here without the code under test.

A turn is the mover's own colour first, then the following colours in turn order; the swap is
the action numbered like the cell count.  ``replay`` rebuilds the ``Game`` from the actions, and
``expected_returns`` reads the rewards off its ranking: +1 for the winner, -1 for the last,
evenly spaced between.
"""

from __future__ import annotations

from collections.abc import Iterable

from omega import Game


def replay(actions: Iterable[int], players: int, size: int, pie_rule: bool = False) -> Game:
    game = Game(players=players, size=size, pie_rule=pie_rule)
    cells = game.cells
    turn: dict[int, str] = {}
    for action in actions:
        if action == len(cells):
            assert not turn, "a swap in the middle of a turn"
            game.swap()
            continue
        mover = game.to_move
        assert mover is not None, "an action after the end"
        turn[(int(mover) + len(turn)) % players] = cells[action]
        if len(turn) == players:
            game.play([turn[c] for c in range(players)])
            turn.clear()
    assert not turn, "the actions end inside a turn"
    return game


def expected_returns(game: Game) -> list[float]:
    assert game.is_over
    n = game.players
    steps = [1 - 2 * k / (n - 1) for k in range(n)]
    result = [0.0] * n
    for rank, color in enumerate(game.ranking()):
        result[game.player_of(color)] = steps[rank]
    return result

"""The random bot: a uniformly random legal turn; it never swaps.

>>> from omega import Game
>>> bot = RandomBot(seed=1)
>>> len(bot.choose(Game(players=3)))
3
"""

from __future__ import annotations

import random

from omega.ai.base import int_option, no_more_options, register
from omega.game import Action, Game, IllegalMove

__all__ = ["RandomBot"]


class RandomBot:
    """Plays uniformly random empty cells, one per colour in play."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random" if seed is None else f"random:seed={seed}"
        self._rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        """A random legal turn for the side to move."""
        if game.is_over:
            raise IllegalMove("the game is over")
        return tuple(self._rng.sample(game.empty_cells(), game.players))


@register("random")
def _make_random(options: dict[str, str]) -> RandomBot:
    seed = int_option(options, "seed", None, 0, 2**63 - 1)
    no_more_options("random", options)
    return RandomBot(seed=seed)

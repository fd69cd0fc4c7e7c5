"""Computer players. Make one from a spec with :func:`make_bot`.

>>> from omega import Game
>>> bot = make_bot("random:seed=1")
>>> game = Game(); game.play(bot.choose(game)); game.turns_played
1
"""

from __future__ import annotations

from omega.ai import levels
from omega.ai import random_bot as _random_bot  # noqa: F401  (registers "random")
from omega.ai.base import Bot, create, parse_spec, registered
from omega.ai.levels import LEVELS, MAX_LEVEL, MIN_LEVEL, Level, level
from omega.game import Game

__all__ = [
    "LEVELS", "MAX_LEVEL", "MIN_LEVEL", "Bot", "Level", "bot_for_level", "level", "load_kernels", "make_bot",
    "parse_spec", "registered",
]


def make_bot(spec: str) -> Bot:
    """The bot a spec names: ``random``, ``greedy``, ``mcts:time=1.0``, ``mcts:level=3,seed=2``.

    Raises ValueError with a clear message for an unknown name or a bad option.
    """
    _load_optional_bots()
    return create(spec)


def bot_for_level(level: int, seed: int | None = None) -> Bot:
    """The computer player of a web-app level (1 = quick and beatable, 5 = strongest).

    >>> bot_for_level(2, seed=4).name
    'mcts:level=2,seed=4'
    """
    levels.level(level)  # ValueError for a level that does not exist
    spec = f"mcts:level={level}" + (f",seed={seed}" if seed is not None else "")
    return make_bot(spec)


def _load_optional_bots() -> None:
    # The search bots need NumPy and Numba; import them on first use only.
    import importlib

    for module in ("omega.ai.greedy", "omega.ai.mcts_specs"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise


def load_kernels() -> None:
    """Compile the search kernels, or load them from Numba's cache where an earlier run left
    them: a short game of each bot that uses them, for 2 to 4 players, with a search tree
    kept from one turn to the next.  Run once before starting many processes (the test
    suite, a site's computer players): processes that start together on a fresh install
    would otherwise each compile the same kernels (about 15 s of CPU each).

    >>> load_kernels()
    """
    for players in (2, 3, 4):
        # The pie rule: greedy weighs the swap with its own kernel.
        game = Game(players=players, size=4, pie_rule=players == 2)
        searcher, greedy = make_bot("mcts:iterations=400,seed=0"), make_bot("greedy:seed=0")
        for bot in (searcher, greedy, searcher, searcher):
            if not game.is_over:
                game.play(bot.choose(game))

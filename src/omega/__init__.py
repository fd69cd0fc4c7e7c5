"""Omega, the hex-board game where every turn you place a stone of every colour.

>>> from omega import Game, Color
>>> g = Game(players=2, size=5)
>>> g.play(["e5", "a1"])
>>> g.scores()
{<Color.WHITE: 0>: 1, <Color.BLACK: 1>: 1}
"""

from omega.board import Board, cell_count
from omega.game import SWAP, Color, Game, IllegalMove

__all__ = ["Board", "Color", "Game", "IllegalMove", "SWAP", "cell_count", "__version__"]

__version__ = "0.1.0"

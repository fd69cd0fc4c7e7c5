"""Omega one stone per action: the layout that :mod:`omega.env` and :mod:`omega.spiel` share.

A turn of Omega places one stone of every colour in play, which makes a huge action space
(every ordered choice of 2 to 4 cells).  Learning environments and general tree searches want a
small one, so here a turn is taken one stone per action: the mover's own colour first, then the
following colours in turn order (the order of :func:`omega.kernel.next_stone`), and the pie-rule
swap is one action of its own.  The rules stay ``Game``'s: a turn is handed to
:meth:`omega.game.Game.play` once all its stones are chosen, and the end, the scores and the
ranking are read from it.

Actions: ``0 .. cells - 1`` place the next stone on the cell with that index (the order of
:attr:`omega.game.Game.cells`, row by row); action ``cells`` is the swap, legal only right after
the first turn of a 2-player game with the pie rule.

Rewards come only at the end, from the final ranking: the colour ranked ``k``-th (from 0) gives
its player ``1 - 2k / (players - 1)``, so +1 for the winner and -1 for the last; with 2 players
that is +1 and -1, with 3 it is +1, 0, -1, with 4 it is +1, +1/3, -1/3, -1.  They add up to 0.

>>> s = StepwiseGame(players=2, size=3)
>>> s.num_actions, s.placing, s.current_player
(20, <Color.WHITE: 0>, 0)
>>> s.apply(s.game.board.index("c3")); s.placing, s.staged
(<Color.BLACK: 1>, ('c3',))
>>> s.apply(0); s.game.history, s.current_player
((('c3', 'a1'),), 1)
"""

from __future__ import annotations

import operator
from functools import cache
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from omega.game import Color, Game, IllegalMove
from omega.kernel import next_stone
from omega.picture import board_picture

__all__ = ["StepwiseGame", "StepwiseHolder", "check_playable", "rank_reward"]

# Stones are kept as colour numbers; a cell nobody has played on yet holds this.
_EMPTY = -1


def rank_reward(rank: int, players: int) -> float:
    """The final reward of the player whose colour is ranked ``rank`` (0 = the winner) among
    ``players``: +1 for the winner, -1 for the last, evenly spaced between (the sum is 0).

    >>> [rank_reward(k, 2) for k in range(2)], [rank_reward(k, 3) for k in range(3)]
    ([1.0, -1.0], [1.0, 0.0, -1.0])
    """
    # One division, so that the ranks k and N - 1 - k get exactly opposite rewards.
    return (players - 1 - 2 * rank) / (players - 1)


def check_playable(players: int, size: int, pie_rule: bool = False) -> None:
    """ValueError unless these settings make a game with at least one action: the rules'
    ValueError for bad settings, and one for a board too small for the players (3 or 4
    players on side 2), whose game is over before its first stone.

    >>> check_playable(4, 3)
    >>> check_playable(4, 2)
    Traceback (most recent call last):
    ...
    ValueError: a game of 4 players on side 2 is over before its first stone; take a larger side
    """
    if Game(players=players, size=size, pie_rule=pie_rule).is_over:
        raise ValueError(f"a game of {players} players on side {size} is over before its first stone; take a larger side")


@cache
def _axial(size: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    # Row and column (from 0) of every cell, in cell order: where each cell sits in a plane.
    coords = np.array(Game(size=size).board.coords, dtype=np.intp) - 1
    return coords[:, 0], coords[:, 1]


class StepwiseGame:
    """A :class:`~omega.game.Game` taken one stone (or the swap) per action.

    The stones of an unfinished turn are on the board here (:meth:`colors`, :meth:`planes`)
    but not yet in :attr:`game`, which receives the turn when its last stone is chosen.

    >>> s = StepwiseGame(players=3, size=3)
    >>> for cell in ("c3", "a1", "e5"):   # White's turn: White, Black, Red
    ...     s.apply(s.game.board.index(cell))
    >>> s.placing, s.game.scores()
    (<Color.BLACK: 1>, {<Color.WHITE: 0>: 1, <Color.BLACK: 1>: 1, <Color.RED: 2>: 1})
    """

    __slots__ = ("game", "_colors", "_staged")

    def __init__(self, players: int = 2, size: int = 5, pie_rule: bool = False) -> None:
        self.game = Game(players=players, size=size, pie_rule=pie_rule)
        self._colors: list[int] = [_EMPTY] * len(self.game.cells)
        self._staged: list[int] = []

    def __repr__(self) -> str:
        return f"<StepwiseGame {self.game!r} staged={list(self.staged)}>"

    # -- the action layout ----------------------------------------------------------------

    @property
    def num_actions(self) -> int:
        """How many actions there are: one per cell, then the swap.

        >>> StepwiseGame(size=5).num_actions
        62
        """
        return len(self.game.cells) + 1

    @property
    def swap_action(self) -> int:
        """The number of the pie-rule swap action (the last one).

        >>> StepwiseGame(size=2).swap_action
        7
        """
        return len(self.game.cells)

    def action_name(self, action: int) -> str:
        """The cell name of a stone action, or ``"swap"``.

        >>> s = StepwiseGame(size=5); s.action_name(30), s.action_name(s.swap_action)
        ('e5', 'swap')
        """
        action = self._check_number(action)
        return "swap" if action == self.swap_action else self.game.cells[action]

    def max_length(self) -> int:
        """The most actions a game can last: every stone of every round, and the swap.

        >>> StepwiseGame(size=5).max_length(), StepwiseGame(size=5, pie_rule=True).max_length()
        (60, 61)
        """
        players = self.game.players
        rounds = len(self.game.cells) // (players * players)
        return rounds * players * players + int(self.game.pie_rule)

    # -- reading the position -------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.game.is_over

    @property
    def current_player(self) -> int | None:
        """The player (0-based seat) who chooses the next action; None once the game is over."""
        return self.game.current_player

    @property
    def placing(self) -> Color | None:
        """The colour of the next stone; None once the game is over."""
        turn = self.game.to_move
        if turn is None:
            return None
        return Color(next_stone(self.game.players, int(turn), len(self._staged), self.game.empty_count)[2])

    @property
    def staged(self) -> tuple[str, ...]:
        """The cells of the stones already chosen in the unfinished turn, in the order chosen."""
        return tuple(self.game.cells[i] for i in self._staged)

    def colors(self) -> tuple[int, ...]:
        """The colour number on every cell, in cell order, -1 for empty; stones of the
        unfinished turn included.

        >>> s = StepwiseGame(size=2); s.apply(0); s.colors()
        (0, -1, -1, -1, -1, -1, -1)
        """
        return tuple(self._colors)

    def legal_actions(self) -> list[int]:
        """The legal actions, in increasing order (none once the game is over).

        >>> s = StepwiseGame(size=2, pie_rule=True)
        >>> s.apply(0); s.apply(1); s.legal_actions()
        [2, 3, 4, 5, 6, 7]
        """
        if self.game.is_over:
            return []
        actions = [i for i, c in enumerate(self._colors) if c == _EMPTY]
        if self._swap_allowed():
            actions.append(self.swap_action)
        return actions

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now.

        >>> s = StepwiseGame(size=2); s.apply(0); s.is_legal(0), s.is_legal(1), s.is_legal(7)
        (False, True, False)
        """
        try:
            action = self._check_number(action)
        except IllegalMove:
            return False
        if self.game.is_over:
            return False
        if action == self.swap_action:
            return self._swap_allowed()
        return self._colors[action] == _EMPTY

    def returns(self) -> list[float]:
        """Each player's reward, indexed by player: from :func:`rank_reward` once the game is
        over, all 0.0 before.

        >>> s = StepwiseGame(size=2)
        >>> for cell in ("a1", "c3", "b1", "a2"):
        ...     s.apply(s.game.board.index(cell))
        >>> s.is_over, s.game.scores(), s.returns()
        (True, {<Color.WHITE: 0>: 2, <Color.BLACK: 1>: 1}, [1.0, -1.0])
        """
        game = self.game
        result = [0.0] * game.players
        if game.is_over:
            for rank, color in enumerate(game.ranking()):
                result[game.player_of(color)] = rank_reward(rank, game.players)
        return result

    def planes(self, observer: int, layout: Literal["chw", "hwc"] = "chw") -> NDArray[np.int8]:
        """The position seen by player ``observer`` as 0/1 planes on the axial grid.

        The grid has ``2n - 1`` rows and columns (side ``n``): cell (row letter ``r``, column
        ``c``) sits at ``[r - 1, c - 1]`` (``a1`` at ``[0, 0]``); the corners off the hexagon are 0
        in every plane.  With ``players`` colours the ``3 * players + 1`` planes are:
        ``0 .. players - 1`` the stones of each colour (White, Black, Red, Blue); ``players`` the
        empty cells; then ``players`` planes of which the one of the next stone's colour is all
        ones on the board (all zero once the game is over); then ``players`` planes of which the
        one of the observer's colour is all ones.  ``layout`` puts the planes first (``"chw"``)
        or last (``"hwc"``).

        >>> s = StepwiseGame(size=2); s.apply(s.game.board.index("b2"))
        >>> p = s.planes(observer=1); p.shape
        (7, 3, 3)
        >>> p[0].tolist(), int(p[2].sum()), int(p[4].sum()), int(p[6].sum())
        ([[0, 0, 0], [0, 1, 0], [0, 0, 0]], 6, 7, 7)
        """
        game = self.game
        players, span = game.players, 2 * game.size - 1
        rows, cols = _axial(game.size)
        out = np.zeros((3 * players + 1, span, span), dtype=np.int8)
        colors = np.array(self._colors, dtype=np.int8)
        for c in range(players):
            out[c, rows, cols] = colors == c
        out[players, rows, cols] = colors == _EMPTY
        placing = self.placing
        if placing is not None:
            out[players + 1 + placing, rows, cols] = 1
        out[2 * players + 1 + game.color_of(observer), rows, cols] = 1
        return np.ascontiguousarray(np.moveaxis(out, 0, -1)) if layout == "hwc" else out

    def __str__(self) -> str:
        """The board at the start of the turn as ``omega show`` draws it, then the stones
        chosen so far in the turn.

        >>> s = StepwiseGame(size=2); s.apply(0); print(s)
               1   2
         a   .   .   3
         b .   .   .
         c   .   .
        White's turn; chosen so far: White a1
        """
        lines = [board_picture(self.game)]
        placing = self.placing
        if placing is None:
            lines.append("game over")
        else:
            mover = self.game.to_move
            assert mover is not None  # the game is not over
            chosen = ", ".join(
                f"{Color(self._colors[i]).label} {self.game.cells[i]}" for i in self._staged
            )
            lines.append(f"{mover.label}'s turn" + (f"; chosen so far: {chosen}" if chosen else ""))
        return "\n".join(lines)

    # -- acting ---------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Take one action: the next stone on cell number ``action``, or the swap.

        Raises :class:`~omega.game.IllegalMove` and changes nothing if it is not legal.

        >>> s = StepwiseGame(size=2); s.apply(0)
        >>> try:
        ...     s.apply(0)
        ... except IllegalMove as e:
        ...     print(e)
        cell a1 is occupied by White
        """
        action = self._check_number(action)
        game = self.game
        if game.is_over:
            raise IllegalMove("the game is over")
        if action == self.swap_action:
            if self._staged:
                raise IllegalMove("swap is allowed only before the first stone of a turn")
            game.swap()
            return
        if self._colors[action] != _EMPTY:
            name = game.cells[action]
            raise IllegalMove(f"cell {name} is occupied by {Color(self._colors[action]).label}")
        color = self.placing
        assert color is not None  # the game is not over
        self._colors[action] = int(color)
        self._staged.append(action)
        if len(self._staged) == game.players:
            turn = [""] * game.players
            for i in self._staged:
                turn[self._colors[i]] = game.cells[i]
            self._staged.clear()
            game.play(turn)

    def copy(self) -> StepwiseGame:
        """An independent copy (cheap: the board geometry is shared).

        >>> s = StepwiseGame(size=2); t = s.copy(); t.apply(0); s.colors()[0]
        -1
        """
        other = StepwiseGame.__new__(StepwiseGame)
        other.game = self.game.copy()
        other._colors = list(self._colors)
        other._staged = list(self._staged)
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> StepwiseGame:
        # OpenSpiel clones a Python state by deep-copying its attributes; the shared,
        # immutable board geometry need not be copied with it.
        return self.copy()

    # -- helpers --------------------------------------------------------------------------

    def _swap_allowed(self) -> bool:
        return self.game.can_swap and not self._staged

    def _check_number(self, action: object) -> int:
        try:
            number = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            raise IllegalMove(f"an action is a whole number, got {action!r}") from None
        if isinstance(action, bool) or not 0 <= number < self.num_actions:
            raise IllegalMove(f"actions are 0 to {self.num_actions - 1}, got {action!r}")
        return number


class StepwiseHolder:
    """What an adapter playing through a :class:`StepwiseGame` shows of it (the PettingZoo
    environment and the OpenSpiel state both do): the game and the stone-by-stone position.

    The adapter keeps that position in ``_steps``, an attribute of this class that it sets
    itself (in ``__init__`` or ``reset``), as it has its own ways of starting a game.

    >>> holder = StepwiseHolder(); holder._steps = StepwiseGame(size=2)
    >>> holder.stepwise.num_actions, holder.game.size
    (8, 2)
    """

    _steps: StepwiseGame

    @property
    def game(self) -> Game:
        """The game as :class:`omega.game.Game` holds it: the stones of finished turns only."""
        return self._steps.game

    @property
    def stepwise(self) -> StepwiseGame:
        """The position stone by stone, the unfinished turn included."""
        return self._steps

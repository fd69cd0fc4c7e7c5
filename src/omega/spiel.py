"""Omega as an OpenSpiel game (``pip install omega-hex[research]``).

Importing this module registers the Python game ``omega`` with ``pyspiel``, with the
parameters ``players`` (2-4, default 2), ``size`` (board side 2-13, default 5) and ``pie_rule``
(default false).  OpenSpiel's algorithms then load it by name, like its own games.  The
actions, the observation planes and the returns are :mod:`omega.stepwise`'s: one stone per
action (the mover's own colour first, then the following colours in turn order), action
``cells`` for the pie swap; terminal returns +1 for the winner, -1 for the last, evenly spaced
between (zero-sum).  The observation tensor holds the planes first: ``(3N + 1, 2n - 1, 2n - 1)``.

>>> import pyspiel
>>> game = pyspiel.load_game("omega", {"players": 2, "size": 3})
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_actions()), game.num_distinct_actions()
(0, 19, 20)
>>> state.apply_action(9); state.apply_action(0)     # White's turn: White c3, Black a1
>>> state.current_player(), state.game.history
(1, (('c3', 'a1'),))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from omega.game import MAX_PLAYERS, MIN_PLAYERS, Game
from omega.stepwise import StepwiseGame, StepwiseHolder, check_playable, rank_reward

__all__ = ["GAME_TYPE", "OmegaGame", "OmegaObserver", "OmegaState", "load"]

# The parameters' defaults are Game's.
_DEFAULT = Game()

#: The game's type as OpenSpiel registers it: sequential, deterministic, perfect information,
#: zero-sum, rewards at the end only.
GAME_TYPE = pyspiel.GameType(
    short_name="omega",
    long_name="Omega",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": _DEFAULT.players, "size": _DEFAULT.size, "pie_rule": _DEFAULT.pie_rule},
)


class OmegaGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """The game ``omega`` for given parameters; OpenSpiel makes it from ``pyspiel.load_game``.

    Settings the rules refuse, or whose game is over before its first stone (3 or 4 players on
    side 2), raise ValueError.

    >>> game = OmegaGame({"players": 3, "size": 4})
    >>> game.num_players(), game.max_game_length(), game.observation_tensor_shape()
    (3, 36, [10, 7, 7])
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        settings = {**GAME_TYPE.parameter_specification, **(params or {})}
        players, size, pie_rule = settings["players"], settings["size"], settings["pie_rule"]
        check_playable(players, size, pie_rule)
        layout = StepwiseGame(players=players, size=size, pie_rule=pie_rule)
        info = pyspiel.GameInfo(
            num_distinct_actions=layout.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=rank_reward(players - 1, players),
            max_utility=rank_reward(0, players),
            utility_sum=0.0,
            max_game_length=layout.max_length(),
        )
        super().__init__(GAME_TYPE, info, settings)
        self.players, self.size, self.pie_rule = players, size, pie_rule

    def new_initial_state(self) -> OmegaState:
        """The start of a game.

        >>> load(size=2).new_initial_state().legal_actions()
        [0, 1, 2, 3, 4, 5, 6]
        """
        return OmegaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> OmegaObserver | IIGObserverForPublicInfoGame:
        """The observer OpenSpiel asks for: the planes for observations, the history for
        information states (every player sees everything)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return OmegaObserver(self, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class OmegaState(StepwiseHolder, pyspiel.State):  # type: ignore[misc]  # pyspiel ships no type information
    """A position of ``omega``, taken one stone (or the swap) per action.

    >>> state = load(size=2, pie_rule=True).new_initial_state()
    >>> for action in (3, 0, 7):   # White b2, Black a1, then Black's player swaps
    ...     state.apply_action(action)
    >>> state.current_player(), state.game.player_of(0), state.history_str()
    (0, 1, '3, 0, 7')
    """

    def __init__(self, game: OmegaGame) -> None:
        super().__init__(game)
        self._steps = StepwiseGame(players=game.players, size=game.size, pie_rule=game.pie_rule)

    def current_player(self) -> int:
        """The player to act, or ``pyspiel.PlayerId.TERMINAL`` once the game is over."""
        player = self._steps.current_player
        return int(pyspiel.PlayerId.TERMINAL) if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        return self._steps.legal_actions()

    def _apply_action(self, action: int) -> None:
        self._steps.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._steps.action_name(action)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._steps.is_over

    def returns(self) -> list[float]:
        """Each player's return: from the final ranking once over, all 0.0 before."""
        return self._steps.returns()

    def __str__(self) -> str:
        return str(self._steps)


class OmegaObserver:
    """OpenSpiel's observer of ``omega``: the planes of :meth:`StepwiseGame.planes` (planes
    first) as ``tensor`` and ``dict["observation"]``, and the board as text.

    >>> game = load(size=2)
    >>> observer = game.make_py_observer()
    >>> state = game.new_initial_state(); state.apply_action(0)
    >>> observer.set_from(state, 1); observer.dict["observation"].shape, observer.tensor[0]
    ((7, 3, 3), np.float32(1.0))
    """

    def __init__(self, game: OmegaGame, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"the omega observer takes no parameters, got {params}")
        span = 2 * game.size - 1
        shape = (3 * game.players + 1, span, span)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: OmegaState, player: int) -> None:
        """Fill the tensor with ``state`` as ``player`` sees it."""
        self.dict["observation"][...] = state.stepwise.planes(player)

    def string_from(self, state: OmegaState, player: int) -> str:
        """The board as text (every player sees the same)."""
        return str(state.stepwise)


def load(players: int = 2, size: int = 5, pie_rule: bool = False) -> Any:
    """``pyspiel.load_game("omega", ...)`` with these parameters.

    >>> load(players=4, size=3)
    omega(pie_rule=False,players=4,size=3)
    """
    return pyspiel.load_game(GAME_TYPE.short_name, {"players": players, "size": size, "pie_rule": pie_rule})


pyspiel.register_game(GAME_TYPE, OmegaGame)

"""Omega as a PettingZoo AEC environment, one stone per step (``pip install omega-hex[research]``).

Agents ``player_0`` .. ``player_{N-1}`` are the seats (player 0 starts as White; after a pie
swap players 0 and 1 hold each other's colour).  The agent to act places the next stone of the
turn, its own colour first, then the following colours in turn order, so a turn is 2 to 4
steps by the same agent; where the pie rule is on, the swap is one more action.  The action
layout, the observation planes and the rewards are :mod:`omega.stepwise`'s:

- action ``i < cells``: the next stone on cell ``i`` (:attr:`omega.game.Game.cells` order);
  action ``cells``: the swap;
- observation ``{"observation": planes, "action_mask": mask}``: ``planes`` is an ``int8`` array
  of shape ``(2n - 1, 2n - 1, 3N + 1)`` (side ``n``, ``N`` players, planes last, as PettingZoo's
  board games have them) laid out as :meth:`omega.stepwise.StepwiseGame.planes` says, and
  ``mask`` an ``int8`` array of length ``cells + 1``, 1 for each legal action of the agent to
  act (all 0 for the others);
- rewards only at the end, from the final ranking: +1 for the winner, -1 for the last, evenly
  spaced between (:func:`omega.stepwise.rank_reward`).

>>> e = env(players=2, size=3)
>>> e.reset(seed=0)
>>> e.agent_selection, e.observe("player_0")["observation"].shape
('player_0', (5, 5, 7))
>>> final = {}
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     if terminated:
...         final[agent] = reward
...         e.step(None)
...     else:
...         e.step(int(obs["action_mask"].argmax()))   # the first legal action
>>> e.unwrapped.game.scores(), final
({<Color.WHITE: 0>: 12, <Color.BLACK: 1>: 8}, {'player_1': -1.0, 'player_0': 1.0})
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from omega.game import Color
from omega.stepwise import StepwiseGame, StepwiseHolder, check_playable

__all__ = ["OmegaEnv", "env", "raw_env"]

Observation = dict[str, NDArray[np.int8]]


def _agent(player: int) -> str:
    return f"player_{player}"


class OmegaEnv(StepwiseHolder, AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """Omega for 2 to 4 agents on a board of side 2 to 13, one stone per step.

    Settings whose game is over before it starts (3 or 4 players on side 2) are refused with
    a ValueError, like the ones the rules refuse.

    ``render_mode`` ``"ansi"`` makes :meth:`render` return the board as text, ``"human"``
    prints it.  Illegal actions raise :class:`omega.game.IllegalMove` (a ValueError) and
    change nothing; wrap the environment in PettingZoo's ``TerminateIllegalWrapper`` to end
    the game with a penalty instead.

    >>> e = OmegaEnv(players=3, size=4); e.reset()
    >>> e.possible_agents, e.action_space("player_2")
    (['player_0', 'player_1', 'player_2'], Discrete(38))
    >>> e.step(18); e.agent_selection, e.unwrapped.placing
    ('player_0', <Color.BLACK: 1>)
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "omega_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False,
    }

    def __init__(self, players: int = 2, size: int = 5, pie_rule: bool = False, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        # PettingZoo needs a first agent to act: a game over before its first stone has none.
        check_playable(players, size, pie_rule)
        self.players, self.size, self.pie_rule = players, size, pie_rule
        self.render_mode = render_mode
        self.possible_agents: list[str] = [_agent(p) for p in range(players)]
        self._start()
        span, actions = 2 * size - 1, self._steps.num_actions
        planes = spaces.Box(0, 1, shape=(span, span, 3 * players + 1), dtype=np.int8)
        mask = spaces.Box(0, 1, shape=(actions,), dtype=np.int8)
        # One space object per agent for the life of the environment: seeding a space must last.
        self.observation_spaces = {
            a: spaces.Dict({"observation": planes, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}

    def _start(self) -> None:
        self._steps = StepwiseGame(players=self.players, size=self.size, pie_rule=self.pie_rule)
        self.agents: list[str] = list(self.possible_agents)
        self.rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.terminations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.truncations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        player = self._steps.current_player
        self.agent_selection: str = _agent(player if player is not None else 0)

    # -- the AEC interface --------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.  Omega has no chance, so ``seed`` changes nothing; it is taken
        because PettingZoo passes it.

        >>> e = OmegaEnv(size=2); e.reset(seed=3); e.agents
        ['player_0', 'player_1']
        """
        self._start()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object at every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: one action per cell, then the swap."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Observation:
        """What ``agent`` sees: the planes from its side and its action mask.

        >>> e = OmegaEnv(size=2); e.reset(); e.observe("player_1")["action_mask"].tolist()
        [0, 0, 0, 0, 0, 0, 0, 0]
        """
        player = self.possible_agents.index(agent)
        mask = np.zeros(self._steps.num_actions, dtype=np.int8)
        if agent == self.agent_selection and not self._steps.is_over:
            mask[self._steps.legal_actions()] = 1
        return {"observation": self._steps.planes(player, layout="hwc"), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The agent to act takes ``action`` (``None`` for an agent whose game has ended).

        >>> e = OmegaEnv(size=2); e.reset(); e.step(0); e.step(1); e.agent_selection
        'player_1'
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and its game is not over: None is not an action")
        self._steps.apply(action)
        # Its reward so far has been seen through last(); from here it collects anew.
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._steps.is_over:
            for player, reward in enumerate(self._steps.returns()):
                self.rewards[_agent(player)] = reward
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            mover = self._steps.current_player
            assert mover is not None  # the game is not over
            self.agent_selection = _agent(mover)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``), printed with ``"human"``.

        >>> e = OmegaEnv(size=2, render_mode="ansi"); e.reset(); print(e.render())
               1   2
         a   .   .   3
         b .   .   .
         c   .   .
        White's turn
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; give one to OmegaEnv")
            return None
        text = str(self._steps)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window, no process)."""

    # -- reading the game -----------------------------------------------------------------

    @property
    def placing(self) -> Color | None:
        """The colour of the next stone (:class:`omega.game.Color`); None once the game is over."""
        return self._steps.placing


#: PettingZoo's name for the environment class without wrappers.
raw_env = OmegaEnv


def env(players: int = 2, size: int = 5, pie_rule: bool = False, render_mode: str | None = None) -> Any:
    """The environment in PettingZoo's order-enforcing wrapper (an error for stepping before
    :meth:`~OmegaEnv.reset`, and the like).

    >>> e = env(players=4, size=3); e.reset(); e.num_agents
    4
    """
    return wrappers.OrderEnforcingWrapper(
        OmegaEnv(players=players, size=size, pie_rule=pie_rule, render_mode=render_mode)
    )

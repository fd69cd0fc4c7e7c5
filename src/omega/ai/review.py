"""Review of a game: what the search thinks of every turn played.

Each position of the game (the empty board, then the position after each entry) is searched
once by :class:`~omega.ai.mcts.MctsBot`; the position after turn k is the position before
turn k+1, so a game of n entries costs n + 1 searches (fewer when the last position is
over).  For every entry (turns and pie-rule swaps alike) the review gives:

* each colour's **win probability** before and after it: the search's mean reward per
  colour at the root (:attr:`SearchResult.values`).  A reward is 0.95 for a win plus a
  0.05 share for the score margin, so a sure win reads between 0.95 and 1.  A finished
  position is not searched: its winner has 1, every other colour 0;
* the **best turn** the search found in the position before it (or ``"swap"``);
* the **loss** of the entry played: how much the mover's win probability dropped, never
  below 0, and 0 when the entry played is the best one found (the rest is search noise);
* a **mark**: ``"blunder"`` for a loss of at least :data:`BLUNDER`, ``"mistake"`` for at
  least :data:`MISTAKE`.

Beside the search's figures, the review carries two of the rules' own (:mod:`omega.costs`):
the game's **account** (how much each player's stones changed each colour's log-score) and
the **score scale** (each colour's log-score and margin at every position), so the graph
can show the score as well as the win chance.

The mover is a player, so the pie rule counts: before the swap decision the player may end
up with either colour (their value is the better of White's and Black's), and the first turn
of a pie game is worth what the opponent's choice leaves (the worse of the two), against one
half for a perfectly balanced opening.

>>> from omega import Game
>>> g = Game(players=2, size=3)
>>> for turn in (["b2", "a1"], ["c5", "c1"], ["a3", "b4"], ["d2", "e3"]):
...     g.play(turn)
>>> r = review(g, iterations=300)
>>> len(r.turns), r.turns[0].color.label, r.over
(4, 'White', False)
>>> 0.0 <= r.turns[1].loss <= 1.0 and r.turns[1].mark in (None, "mistake", "blunder")
True
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from omega.ai import levels
from omega.ai.mcts import MctsBot
from omega.costs import Account, account, margins, score_curve
from omega.game import SWAP, Action, Color, Game
from omega.kernel import KernelState

__all__ = [
    "MISTAKE", "BLUNDER", "DEFAULT_ITERATIONS", "DEFAULT_SECONDS", "REVIEW_FORMAT", "REVIEW_VERSION",
    "NOTHING_TO_REVIEW", "Review", "TurnReview", "PositionValue", "assemble", "mark_for", "position_seed",
    "positions_of", "review", "search_position",
]

#: A turn that loses at least this much of the mover's win probability is a mistake ...
MISTAKE = 0.10
#: ... and at least this much, a blunder.
BLUNDER = 0.25
#: The search of each position: at most this many simulations ...
DEFAULT_ITERATIONS = 40_000
#: ... and at most this many seconds (a cap for big boards and busy machines).
DEFAULT_SECONDS = 1.5
#: The JSON form of a review (``omega analyze --json``, the server's review).
REVIEW_FORMAT = "omega-review"
REVIEW_VERSION = 2  # 2 added ``account`` and ``scores`` (the score scale)

#: Why a game without any entry has no review.
NOTHING_TO_REVIEW = "nothing to review: the game has no turns yet"

#: Called after each searched position with (positions done, positions to search).
Progress = Callable[[int, int], None]


def mark_for(loss: float) -> str | None:
    """The mark a loss earns: ``"blunder"``, ``"mistake"`` or None.

    >>> mark_for(0.3), mark_for(0.1), mark_for(0.05)
    ('blunder', 'mistake', None)
    """
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return None


@dataclass(frozen=True)
class PositionValue:
    """What the search says of one position: each colour's win probability (colour order)
    and the best action found (None once the game is over)."""

    values: tuple[float, ...]
    best: Action | None
    iterations: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class TurnReview:
    """One entry of the game as the search judges it (see the module doc)."""

    #: The entry's index in the game's history (0 = the first turn).
    index: int
    #: The player who made it, and the colour to move then.
    player: int
    color: Color
    played: Action
    best: Action
    #: Each colour's win probability before and after the entry (colour order).
    before: tuple[float, ...]
    after: tuple[float, ...]
    #: The mover's own win probability before (with best play) and after the entry.
    mover_before: float
    mover_after: float
    loss: float
    mark: str | None

    def to_json(self) -> dict[str, Any]:
        """The JSON form of this entry (one item of ``turns``; see docs/ai.md)."""
        return {
            "index": self.index, "number": self.index + 1, "player": self.player, "color": self.color.label,
            "played": _action_json(self.played), "best": _action_json(self.best),
            "before": _values_json(self.before), "after": _values_json(self.after),
            "mover_before": round(self.mover_before, 4), "mover_after": round(self.mover_after, 4),
            "loss": round(self.loss, 4), "mark": self.mark,
        }


@dataclass(frozen=True)
class Review:
    """The review of a game: one :class:`TurnReview` per entry of its history."""

    players: int
    size: int
    pie_rule: bool
    over: bool
    turns: tuple[TurnReview, ...]
    iterations: int
    seconds: float
    #: Simulations run and seconds spent over every searched position.
    total_iterations: int = 0
    total_seconds: float = 0.0
    #: The game's account and each colour's log-score at every position (the empty board,
    #: then after each entry): :mod:`omega.costs`.
    account: Account | None = None
    log_scores: tuple[tuple[float, ...], ...] = ()

    def mistakes(self, player: int) -> list[TurnReview]:
        """``player``'s marked entries, biggest loss first.

        >>> Review(2, 5, False, False, (), 1, 1.0).mistakes(0)
        []
        """
        marked = [t for t in self.turns if t.player == player and t.mark is not None]
        return sorted(marked, key=lambda t: (-t.loss, t.index))

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``omega analyze --json``; the schema is in docs/ai.md).

        >>> Review(2, 5, False, False, (), 1, 1.0).to_json()["thresholds"]
        {'mistake': 0.1, 'blunder': 0.25}
        """
        return {
            "format": REVIEW_FORMAT, "version": REVIEW_VERSION,
            "players": self.players, "size": self.size, "pie_rule": self.pie_rule, "over": self.over,
            "budget": {"iterations": self.iterations, "seconds": self.seconds},
            "thresholds": {"mistake": MISTAKE, "blunder": BLUNDER},
            "turns": [t.to_json() for t in self.turns],
            "summary": [
                {"player": p, "mistakes": sum(t.mark == "mistake" for t in self.mistakes(p)),
                 "blunders": sum(t.mark == "blunder" for t in self.mistakes(p)),
                 "biggest": [t.index for t in self.mistakes(p)[:3]]}
                for p in range(self.players)
            ],
            "searched": {"iterations": self.total_iterations, "seconds": round(self.total_seconds, 3)},
            **({"account": self.account.to_json()} if self.account is not None else {}),
            **({"scores": _scores_json(self.log_scores)} if self.log_scores else {}),
        }


def _scores_json(curve: tuple[tuple[float, ...], ...]) -> dict[str, list[dict[str, float]]]:
    # The score scale: one item per position, each colour's log-score and its margin.
    return {"log": [_values_json(values) for values in curve],
            "margin": [_values_json(margins(values)) for values in curve]}


def _action_json(action: Action) -> str | list[str]:
    return SWAP if action == SWAP else list(action)


def _values_json(values: tuple[float, ...]) -> dict[str, float]:
    return {Color(i).label: round(v, 4) for i, v in enumerate(values)}


def search_position(game: Game, iterations: int = DEFAULT_ITERATIONS, seconds: float | None = DEFAULT_SECONDS,
                    seed: int | None = None) -> PositionValue:
    """Search one position: each colour's win probability and the best action found
    (``"swap"`` when taking the other colour is worth more than playing on).

    >>> from omega import Game
    >>> search_position(Game(size=3), iterations=200, seed=1).best[0] in Game(size=3).cells
    True
    """
    if game.is_over:
        winner = game.winner
        return PositionValue(tuple(1.0 if c == winner else 0.0 for c in game.colors), None)
    # Uniform simulations, as the levels play: the review's figures, the analysis board's
    # "level-4 strength" and the puzzles' promised margins were all measured with them.
    bot = MctsBot(iterations=iterations, time=seconds, seed=seed, mast=levels.MAST)
    state = KernelState.from_game(game)
    result = bot.search(state, balanced=game.pie_rule and game.turns_played == 0)
    values = tuple(result.values)
    best: Action = tuple(game.cells[i] for i in result.cells)
    if game.can_swap and values[Color.WHITE] > values[Color.BLACK]:
        best = SWAP
    return PositionValue(values, best, result.iterations, result.seconds)


def position_seed(seed: int, index: int) -> int:
    """The seed of the search of position ``index`` (after that many entries) in a review
    seeded ``seed``: one per position, so the review is the same whatever order threads
    take the positions in.

    >>> position_seed(0, 3), position_seed(1, 0)
    (3, 1000003)
    """
    return seed * 1_000_003 + index


def _mover_before(game: Game, values: tuple[float, ...]) -> float:
    """The mover's win probability with the best action in ``game``."""
    to_move = game.to_move
    assert to_move is not None
    if game.can_swap:
        return max(values[Color.WHITE], values[Color.BLACK])
    if game.pie_rule and game.turns_played == 0:
        # The opponent will take whichever colour is better: the best opening leaves them
        # nothing to choose, one half each.
        return 0.5
    return values[to_move]


def _mover_after(after_game: Game, player: int, values: tuple[float, ...]) -> float:
    """The win probability of ``player`` (who just moved) in ``after_game``."""
    if after_game.can_swap:
        # The first turn of a pie game: the opponent picks the colour they like better.
        return min(values[Color.WHITE], values[Color.BLACK])
    return values[after_game.color_of(player)]


def positions_of(game: Game) -> list[Game]:
    """Every position of ``game``: the empty board, then the position after each entry.

    >>> g = Game(size=3); g.play(["b2", "a1"]); [p.turns_played for p in positions_of(g)]
    [0, 1]
    """
    positions = [Game(players=game.players, size=game.size, pie_rule=game.pie_rule)]
    for action in game.history:
        nxt = positions[-1].copy()
        nxt.apply(action)
        positions.append(nxt)
    return positions


def assemble(game: Game, found: list[PositionValue], iterations: int, seconds: float | None) -> Review:
    """The review of ``game`` from the search of each of its positions (``found[k]``: the
    position after k entries, as :func:`positions_of` lists them).

    >>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"])
    >>> start = PositionValue((0.3, 0.7), ("b2", "a1"))
    >>> after = PositionValue((0.1, 0.9), ("b2", "a2"))
    >>> r = assemble(g, [start, after, search_position(g)], 100, None)
    >>> round(r.turns[0].loss, 3), r.turns[1].mover_after, r.turns[1].mark
    (0.2, 1.0, None)
    >>> scores = r.to_json()["scores"]                  # no stone touches its colour's: all 0
    >>> len(scores["log"]), scores["margin"][2]
    (3, {'White': 0.0, 'Black': 0.0})
    """
    if len(found) != len(game.history) + 1:
        raise ValueError(f"{len(game.history) + 1} positions to review, {len(found)} searched")
    positions = positions_of(game)
    turns = []
    for k, action in enumerate(game.history):
        before_game, after_game = positions[k], positions[k + 1]
        player = before_game.current_player
        color = before_game.to_move
        best = found[k].best
        assert player is not None and color is not None and best is not None
        before, after = found[k].values, found[k + 1].values
        mover_before = _mover_before(before_game, before)
        mover_after = _mover_after(after_game, player, after)
        loss = 0.0 if action == best else max(0.0, mover_before - mover_after)
        turns.append(TurnReview(k, player, color, action, best, before, after, mover_before, mover_after,
                                loss, mark_for(loss)))
    return Review(game.players, game.size, game.pie_rule, game.is_over, tuple(turns), iterations,
                  seconds if seconds is not None else 0.0, sum(f.iterations for f in found),
                  sum(f.seconds for f in found), account(game), score_curve(game))


def review(game: Game, *, iterations: int = DEFAULT_ITERATIONS, seconds: float | None = DEFAULT_SECONDS,
           seed: int = 0, jobs: int = 1, progress: Progress | None = None) -> Review:
    """Review every entry of ``game`` (finished or not: an unfinished game is reviewed up to
    its last entry).  Each position is searched with at most ``iterations`` simulations and
    ``seconds`` (None: no time cap); ``seed`` makes an iteration-bounded review
    reproducible, whatever ``jobs`` (positions searched at once, on threads: the search
    kernels release the interpreter lock).  ``progress(done, total)`` follows the searches.

    ValueError for a game with no entry.
    """
    if not game.history:
        raise ValueError(NOTHING_TO_REVIEW)
    positions = positions_of(game)
    total = len(positions)
    done = 0

    def one(k: int) -> PositionValue:
        return search_position(positions[k], iterations, seconds, seed=position_seed(seed, k))

    found: list[PositionValue] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="omega-review") as pool:
        for value in pool.map(one, range(total)):
            found.append(value)
            done += 1
            if progress is not None:
                progress(done, total)
    return assemble(game, found, iterations, seconds)

"""Self-play data for the learnt evaluation (:mod:`omega.ai.net`): games of the MCTS bot
against itself, each searched stone kept with the visits the search gave its cells and the
game's winner.

A turn is several stones, and the search places them one at a time (the mover's colour
first, :mod:`omega.ai.tree`), so one searched turn gives one example per stone: the board
with the turn's earlier stones on it, the colour to place, and the visit share of each
cell at that stone's node of the tree (along the turn the bot played).  The value target
is the game's winner.

The games are reproducible: game ``g`` of seed ``s`` gets its bots' seeds and its random
opening from ``(s, g)`` alone, so the same seed writes the same file, whatever ``jobs``.

>>> data = selfplay(games=1, size=3, players=2, bot="mcts:iterations=200", seed=1)
>>> data["boards"].shape[1], data["policy"].shape == data["boards"].shape
(19, True)
>>> bool(np.allclose(data["policy"].sum(axis=1), 1.0)), set(data["winner"].tolist()) <= {0, 1}
(True, True)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from omega.ai.base import Bot, create, parse_spec
from omega.ai.mcts import MctsBot
from omega.board import cell_count
from omega.game import Game
from omega.kernel import KernelState

__all__ = ["DEFAULT_BOT", "FIELDS", "Rows", "play_one", "selfplay", "selfplay_main"]

#: Named arrays: a self-play file's rows and settings.
Rows: TypeAlias = dict[str, Any]

#: The searcher of the self-play games: our bot, one core, an iteration budget (so the
#: machine's load changes nothing).
DEFAULT_BOT = "mcts:iterations=1000"

#: The arrays of a self-play file, one row per searched stone: the board (-1 empty, else
#: the colour), the colour to move, the colour placed, the visit shares of the cells, the
#: game's winner, and the game's number.
FIELDS = ("boards", "turn", "colour", "policy", "winner", "game")


def _bot(spec: str, seed: int) -> Bot:
    name, options = parse_spec(spec)
    options["seed"] = str(seed)
    return create(name + ":" + ",".join(f"{k}={v}" for k, v in options.items()))


def play_one(index: int, size: int, players: int, bot: str, seed: int, opening: int) -> Rows:
    """Game ``index`` of the self-play of ``seed``: its rows (see :data:`FIELDS`)."""
    rng = np.random.default_rng([seed, index])
    bots = [_bot(bot, int(rng.integers(0, 2**62))) for _ in range(players)]
    game = Game(players=players, size=size)
    rows: dict[str, list[object]] = {name: [] for name in FIELDS}
    while not game.is_over:
        mover = game.to_move
        assert mover is not None
        if game.turns_played < opening:
            # A random opening spreads the games over more positions than the searcher's
            # own first turn; its stones are not searched, so they give no rows.
            empty = game.empty_cells()
            game.play([empty[int(i)] for i in rng.choice(len(empty), size=players, replace=False)])
            continue
        searcher = bots[int(mover)]
        action = searcher.choose(game)
        result = searcher.last if isinstance(searcher, MctsBot) else None
        if result is not None:
            state = KernelState.from_game(game)
            for colour, (cells_seen, visits) in zip(state.turn_colors(), result.plies, strict=False):
                policy = np.zeros(state.arrays.ncell, dtype=np.float32)
                policy[cells_seen] = visits
                rows["boards"].append(state.board.copy())
                rows["turn"].append(int(mover))
                rows["colour"].append(colour)
                rows["policy"].append(policy / max(float(policy.sum()), 1.0))
                state.place(result.cells[colour], colour)
        game.apply(action)
    winner = game.winner
    assert winner is not None
    count = len(rows["boards"])
    ncell = cell_count(size)
    return {
        "boards": np.array(rows["boards"], dtype=np.int8).reshape(count, ncell),
        "turn": np.array(rows["turn"], dtype=np.int8),
        "colour": np.array(rows["colour"], dtype=np.int8),
        "policy": np.array(rows["policy"], dtype=np.float32).reshape(count, ncell),
        "winner": np.full(count, int(winner), dtype=np.int8),
        "game": np.full(count, index, dtype=np.int32),
    }


def _games(games: int, size: int, players: int, bot: str, seed: int, opening: int, jobs: int
           ) -> Iterator[Rows]:
    if jobs <= 1:
        for g in range(games):
            yield play_one(g, size, players, bot, seed, opening)
        return
    with ProcessPoolExecutor(jobs) as pool:
        n = range(games)
        yield from pool.map(play_one, n, [size] * games, [players] * games, [bot] * games, [seed] * games,
                            [opening] * games, chunksize=4)


def selfplay(games: int, size: int = 5, players: int = 2, bot: str = DEFAULT_BOT, seed: int = 0, opening: int = 1,
             jobs: int = 1, progress: bool = False) -> Rows:
    """Play ``games`` self-play games of ``bot`` (a spec; each seat gets its own seed) on
    side ``size`` with ``players`` players, ``opening`` random turns first, and return
    their rows (:data:`FIELDS`) with the settings (``size``, ``players``, ``seed``...)."""
    _bot(bot, 0)  # a bad spec fails here, before any process starts
    parts = []
    start = time.perf_counter()
    for part in _games(games, size, players, bot, seed, opening, jobs):
        parts.append(part)
        if progress and len(parts) % 50 == 0:
            rate = len(parts) / (time.perf_counter() - start)
            print(f"{len(parts)}/{games} games, {rate:.2f} games/s", file=sys.stderr)
    data = {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}
    data.update(size=np.array(size), players=np.array(players), seed=np.array(seed), games=np.array(games),
                opening=np.array(opening), bot=np.array(bot))
    return data


def selfplay_main(args: argparse.Namespace) -> int:
    """``omega train selfplay``: play the games and write them to ``args.output`` (npz)."""
    try:
        start = time.perf_counter()
        data = selfplay(args.games, args.size, args.players, args.bot, args.seed, args.opening, args.jobs,
                        progress=True)
    except ValueError as e:
        print(f"omega train selfplay: {e}", file=sys.stderr)
        return 2
    np.savez_compressed(Path(args.output), **data)
    seconds = time.perf_counter() - start
    print(f"{args.games} games, {len(data['boards'])} positions in {seconds:.0f} s -> {args.output}")
    return 0

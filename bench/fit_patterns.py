"""Fit the weights of the search's pattern priors to the turns of recorded games, and
write them to ``src/omega/ai/pattern_weights.py``.

Each stone of each turn is one choice among the empty cells (the stones of a turn in the
search's order: the mover's own colour first, then the next colours). The model gives a
cell the weight of its pattern class (``omega.ai.patterns``) and the chance
``exp(weight) / sum of exp(weight)`` over the empty cells; the weights maximise the
log-likelihood of the cells chosen, less an L2 penalty, by Adam. A share of the games is
held out and the script prints how well the weights predict its choices, against picking
a cell at random.

The shipped weights come from games of the search playing itself (docs/measured/2026-12-02-search-experiments.md):

    .venv/bin/omega match 'mcts:iterations=100000,threads=1,reuse=0,manage=0' \\
        'mcts:iterations=100000,threads=1,reuse=0,manage=0' --games 240 --size 5 --seed 80 \\
        --record-dir /tmp/selfplay
    .venv/bin/python bench/fit_patterns.py /tmp/selfplay/*.txt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from omega.ai.patterns import CLASS_COUNT, pattern_class, ring_neighbours
from omega.game import SWAP
from omega.kernel import EMPTY
from omega.record import read_file

OUT = Path(__file__).resolve().parent.parent / "src" / "omega" / "ai" / "pattern_weights.py"


class Choices:
    """Every choice of the games as rows (choice number, pattern class, chosen or not)."""

    def __init__(self, paths: list[str]) -> None:
        choice, classes, chosen = [], [], []
        n = 0
        for path in paths:
            game = read_file(path).game
            ring = ring_neighbours(game.size)
            board = np.full(len(game.board), EMPTY, dtype=np.int8)
            turns = [action for action in game.history if action != SWAP]
            for t, turn in enumerate(turns):
                mover = t % game.players
                for step in range(game.players):
                    colour = (mover + step) % game.players
                    cell = game.board.index(turn[colour])
                    for x in np.flatnonzero(board == EMPTY).tolist():
                        choice.append(n)
                        classes.append(pattern_class(board, ring, x, colour, colour == mover))
                        chosen.append(x == cell)
                    board[cell] = colour
                    n += 1
        self.count = n
        self.choice = np.array(choice, dtype=np.int64)
        self.classes = np.array(classes, dtype=np.int64)
        self.chosen = np.array(chosen, dtype=bool)

    def scores(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's weight, and the highest weight of its choice (row by row)."""
        s = weights[self.classes]
        top = np.full(self.count, -np.inf)
        np.maximum.at(top, self.choice, s)
        return s, top[self.choice]

    def chances(self, weights: np.ndarray) -> np.ndarray:
        """Each row's chance of being the chosen cell of its choice."""
        return self._chances(*self.scores(weights))

    def _chances(self, s: np.ndarray, top: np.ndarray) -> np.ndarray:
        e = np.exp(s - top)
        return e / np.bincount(self.choice, e, self.count)[self.choice]

    def report(self, weights: np.ndarray) -> str:
        s, top = self.scores(weights)
        p = self._chances(s, top)
        ll = float(np.log(p[self.chosen]).mean())
        uniform = float(-np.log(np.bincount(self.choice, minlength=self.count)).mean())
        best = s >= top
        ties = np.bincount(self.choice, best.astype(float), self.count)
        first = float((best[self.chosen] / ties[self.choice[self.chosen]]).mean())
        return (f"{self.count} choices: log-likelihood {ll:.3f} a choice (random cells {uniform:.3f}), "
                f"best-weighted cell chosen {first:.1%}")


def fit(data: Choices, l2: float, steps: int, rate: float = 0.1) -> np.ndarray:
    """The weights maximising the mean log-likelihood of ``data`` less ``l2 |w|^2 / 2``."""
    w = np.zeros(CLASS_COUNT)
    m = np.zeros(CLASS_COUNT)
    v = np.zeros(CLASS_COUNT)
    picked = np.bincount(data.classes[data.chosen], minlength=CLASS_COUNT)
    for t in range(1, steps + 1):
        grad = (np.bincount(data.classes, data.chances(w), CLASS_COUNT) - picked) / data.count + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def write(weights: np.ndarray, games: int, out: Path) -> None:
    rows = [", ".join(f"{x:.3f}" for x in weights[i:i + 10]) for i in range(0, len(weights), 10)]
    body = ",\n    ".join(rows)
    out.write_text(
        '"""The learnt weights of the pattern classes of :mod:`omega.ai.patterns`, one per class.\n\n'
        f"Written by ``bench/fit_patterns.py`` from {games} recorded games; do not edit by hand.\n"
        '"""\n\n'
        f"WEIGHTS: tuple[float, ...] = (\n    {body},\n)\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="game records (text or JSON form)")
    parser.add_argument("--l2", type=float, default=1e-4, help="L2 penalty (default 1e-4)")
    parser.add_argument("--steps", type=int, default=500, help="Adam steps (default 500)")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of games to test on (default 0.2)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"file to write (default {OUT})")
    args = parser.parse_args(argv)
    paths = sorted(args.records)
    cut = len(paths) - int(len(paths) * args.held_out)
    if cut < len(paths):
        train = Choices(paths[:cut])
        w = fit(train, args.l2, args.steps)
        print(f"fitted on {cut} games:", train.report(w))
        print(f"held out {len(paths) - cut} games:", Choices(paths[cut:]).report(w))
    every = Choices(paths)
    w = fit(every, args.l2, args.steps)
    print(f"fitted on all {len(paths)} games:", every.report(w))
    write(w, len(paths), args.out)
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

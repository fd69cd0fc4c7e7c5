"""``omega puzzles make RECORDS... -o FILE`` and ``omega puzzles check FILE``.

``make`` mines every record named (a file, or a folder's ``*.txt`` and ``*.json``), one
record a process (``--jobs``), and writes the puzzles found, each position once, in the
order of the records; ``check`` searches each puzzle of a file again, deeper, and says
which still hold (exit status 1 if any does not); ``--keep OUT`` writes those that hold with
room to spare, by the confirming search's own margin (:data:`~omega.puzzles.mine.CONFIRM_MARGIN`),
so that yet another search, on other random streams, still finds the promised one.

>>> import argparse
>>> puzzles_main(argparse.Namespace(action="make", records=["/nonexistent"], output="x.jsonl", seed=0, jobs=1,
...                                 limit=None))
2
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from omega.puzzles.format import Puzzle, puzzle_line, read_puzzles, write_puzzles
from omega.puzzles.mine import CONFIRM_MARGIN, check, mine_game
from omega.puzzles.values import DEEP, Budget
from omega.record import RecordFileError, read_file

__all__ = ["puzzles_main", "record_paths", "mine_file", "CHECK"]

#: ``omega puzzles check``'s search: deeper than the one that confirmed the puzzles.
CHECK = Budget(playouts=DEEP.playouts * 2, searched=DEEP.searched + 2, iterations=DEEP.iterations * 2)


def record_paths(names: list[str]) -> list[str]:
    """The record files ``names`` stand for: files as given, folders' ``*.txt`` and
    ``*.json`` in name order; ValueError for a name that is neither.

    >>> record_paths([])
    []
    """
    paths: list[str] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            paths += sorted(str(p) for p in path.iterdir() if p.suffix in (".txt", ".json") and p.name != "match.json")
        elif path.is_file():
            paths.append(name)
        else:
            raise ValueError(f"no such record file or folder: {name}")
    return paths


def mine_file(path: str, seed: int) -> tuple[str, list[Puzzle], float]:
    """The puzzles of one record file, and the seconds it took."""
    started = time.perf_counter()
    game = read_file(path).game
    found = list(mine_game(game, path, seed=seed))
    return path, found, time.perf_counter() - started


def _make(args: argparse.Namespace) -> int:
    try:
        paths = record_paths(args.records)
        for path in paths:
            read_file(path)  # a bad record stops the command before any search
    except (ValueError, RecordFileError) as e:
        print(f"omega puzzles make: {e}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    seen: set[str] = set()
    written = 0
    # Written as found, a line each, so a long run stopped early keeps what it made.
    with open(args.output, "w", encoding="utf-8") as out, ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(mine_file, path, args.seed) for path in paths]
        for future in futures:
            path, found, seconds = future.result()
            fresh = [p for p in found if p.id not in seen][:None if args.limit is None else args.limit - written]
            seen.update(p.id for p in fresh)
            for puzzle in fresh:
                out.write(puzzle_line(puzzle))
            out.flush()
            written += len(fresh)
            print(f"{path}: {len(fresh)} puzzles in {seconds:.1f} s; {written} in all", file=sys.stderr)
            if args.limit is not None and written >= args.limit:
                for rest in futures:
                    rest.cancel()
                break
    print(f"{written} puzzles from {len(paths)} records in {time.perf_counter() - started:.0f} s: {args.output}")
    return 0


def _check(args: argparse.Namespace) -> int:
    try:
        puzzles = read_puzzles(args.file)
    except (OSError, ValueError) as e:
        print(f"omega puzzles check: {e}", file=sys.stderr)
        return 2
    if args.sample is not None:
        puzzles = random.Random(args.seed).sample(puzzles, min(args.sample, len(puzzles)))
    kept: list[Puzzle] = []
    failed = 0
    for puzzle in puzzles:
        verdict = check(puzzle, CHECK, seed=args.seed)
        held = verdict is not None and verdict.answer == puzzle.answer and verdict.margin >= puzzle.margin
        if held and verdict is not None and verdict.margin >= CONFIRM_MARGIN:
            kept.append(puzzle)
        failed += not held
        margin = "-" if verdict is None else f"{verdict.margin:.3f}"
        print(f"{puzzle.id}: {'holds' if held else 'FAILS'} (margin {margin}, promised {puzzle.margin})")
    print(f"{len(puzzles) - failed} of {len(puzzles)} puzzles hold; {len(kept)} by {CONFIRM_MARGIN} or more")
    if args.keep is not None:
        write_puzzles(args.keep, kept)
    return 1 if failed else 0


def puzzles_main(args: argparse.Namespace) -> int:
    """Run ``omega puzzles make`` or ``omega puzzles check``."""
    return _make(args) if args.action == "make" else _check(args)

"""``omega bench``: playout and search speed of the kernel, against a C yardstick.

Three figures for one board side and player count, each measured for ``--seconds``
after a warm-up (Numba compiles, or loads its cache, outside the timing):

* ``playouts_per_s``: uniform random playouts from the empty board, each to the end of
  the game and fully scored (log-scores, exact products when close), in one thread;
* ``mcts_iterations_per_s``: iterations of the MCTS bot's search from the empty board, in
  one thread, and ``mcts_v1_iterations_per_s`` the same for the first version's kernel
  (``mcts-v1``, the search's yardstick), with ``mcts_ratio_to_v1``; and
  ``mcts_uniform_iterations_per_s``, the bot with uniform simulations (``mast=0``, as the
  levels play), with ``mast_ratio``, what the learning simulations cost an iteration;
* ``c_playouts_per_s``: the reference C loop (``playout.c``, compiled here with
  ``cc -O2``), when a C compiler and the source are found, and ``ratio_to_c``.

The C source is looked up at ``$OMEGA_REF_PLAYOUT``, then ``../shared/ref/playout.c``
next to the repository.

>>> result = measure(size=3, players=2, seconds=0.05, reference=False)
>>> result["playouts_per_s"] > 0 and result["mcts_iterations_per_s"] > 0
True
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from omega.ai import make_bot
from omega.ai.mcts import MctsBot
from omega.kernel import KernelState

__all__ = ["bench_main", "find_reference", "measure", "measure_c", "measure_mcts", "measure_playouts"]


def measure_playouts(size: int, players: int, seconds: float) -> float:
    """Uniform random playouts per second from the empty board (one thread)."""
    state = KernelState(players, size)
    state.playouts(16, seed=0)  # compile or load the cache outside the timing
    batch = 256
    done = 0
    start = time.perf_counter()
    elapsed = 0.0
    seed = 1
    while elapsed < seconds:
        state.playouts(batch, seed=seed)
        seed += 1
        done += batch
        elapsed = time.perf_counter() - start
        if elapsed < seconds / 20:
            batch *= 2  # keep Python's share of the loop negligible
    return done / elapsed


def measure_mcts(size: int, players: int, seconds: float, bot: str = "mcts:threads=1,manage=0,seed=1") -> float:
    """MCTS iterations per second of one search from the empty board by the bot spec
    ``bot``, which has options (by default the current bot on one thread;
    ``"mcts-v1:seed=1"``: the first version)."""
    state = KernelState(players, size)
    warm, timed = make_bot(f"{bot},iterations=64"), make_bot(f"{bot},time={seconds}")
    assert isinstance(warm, MctsBot) and isinstance(timed, MctsBot)
    warm.search(state)  # compile or load the cache
    result = timed.search(state)
    return result.iterations / result.seconds


def find_reference() -> Path | None:
    """The C yardstick's source: ``$OMEGA_REF_PLAYOUT`` or ``../shared/ref/playout.c``."""
    env = os.environ.get("OMEGA_REF_PLAYOUT")
    candidates = [Path(env)] if env else []
    repo = Path(__file__).resolve().parents[2]
    candidates += [repo.parent / "shared" / "ref" / "playout.c", Path.cwd().parent / "shared" / "ref" / "playout.c"]
    for path in candidates:
        if path.is_file():
            return path
    return None


def measure_c(size: int, players: int, seconds: float, source: Path) -> float | None:
    """Playouts per second of the C yardstick compiled with ``cc -O2``; None without ``cc``."""
    cc = shutil.which("cc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "playout"
        subprocess.run([cc, "-O2", str(source), "-o", str(exe), "-lm"], check=True, capture_output=True)
        out = subprocess.run([str(exe), str(size), str(players), str(seconds)], check=True,
                             capture_output=True, text=True).stdout
    found = re.search(r"playouts_per_s\s+([0-9.]+)", out)
    return float(found.group(1)) if found else None


def measure(size: int, players: int, seconds: float, reference: bool = True) -> dict[str, Any]:
    """All figures of one bench run as a dict (the ``--json`` object)."""
    result: dict[str, Any] = {"size": size, "players": players, "seconds": seconds}
    result["playouts_per_s"] = round(measure_playouts(size, players, seconds))
    result["mcts_iterations_per_s"] = round(measure_mcts(size, players, seconds))
    result["mcts_v1_iterations_per_s"] = round(measure_mcts(size, players, seconds, "mcts-v1:seed=1"))
    result["mcts_ratio_to_v1"] = round(result["mcts_iterations_per_s"] / max(1, result["mcts_v1_iterations_per_s"]), 3)
    uniform = round(measure_mcts(size, players, seconds, "mcts:threads=1,manage=0,seed=1,mast=0"))
    result["mcts_uniform_iterations_per_s"] = uniform
    result["mast_ratio"] = round(result["mcts_iterations_per_s"] / max(1, uniform), 3)
    if reference:
        source = find_reference()
        c_rate = measure_c(size, players, seconds, source) if source is not None else None
        if c_rate:
            result["c_reference"] = str(source)
            result["c_playouts_per_s"] = round(c_rate)
            result["ratio_to_c"] = round(result["playouts_per_s"] / c_rate, 3)
    return result


def bench_main(args: argparse.Namespace) -> int:
    """Entry point of ``omega bench`` (arguments parsed by ``omega.cli``)."""
    result = measure(args.size, args.players, args.seconds)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"side {args.size}, {args.players} players, {args.seconds:g} s per figure")
    print(f"  random playouts   {result['playouts_per_s']:>12,} /s")
    print(f"  MCTS iterations   {result['mcts_iterations_per_s']:>12,} /s")
    print(f"  mcts-v1 kernel    {result['mcts_v1_iterations_per_s']:>12,} /s   (ratio {result['mcts_ratio_to_v1']:.2f})")
    print(f"  uniform fill      {result['mcts_uniform_iterations_per_s']:>12,} /s   "
          f"(the bot's with mast: {result['mast_ratio']:.2f})")
    if "c_playouts_per_s" in result:
        print(f"  C yardstick       {result['c_playouts_per_s']:>12,} /s   (ratio {result['ratio_to_c']:.2f})")
    else:
        print("  C yardstick       not measured (no cc or no playout.c)", file=sys.stderr)
    return 0

"""The analysis board's evaluations: how long one takes to answer, and whether many open
boards starve real games of the computer players.

Starts a real ``omega serve`` (its own SQLite file, ``--ai-workers``), then:

1. **Latency**: from one address, asks ``POST /api/analysis/evaluate`` for ``--positions``
   different positions of side-5 two-player games (random games cut after 0 to 28 entries),
   one after another, and times each answer (request sent -> answer read; the search is
   level 4's: 25,000 simulations, at most 3 s).  The first answer, which waits for a worker
   process to start, is timed apart.  Then the same positions again (from the cache).
2. **Starvation**: a player from another address plays ``--replies`` turns against a
   computer of ``--level`` on side 10 and times each reply (bench/computer_fairness.py's
   victim), first alone, then while ``--boards`` analysis boards, each from an address of
   its own (so each a different owner: the hardest case for a fair share), ask for a new
   position as soon as the last one is answered (``--owners`` puts them on fewer addresses:
   one owner's boards beyond two are refused ``busy``).

Prints one JSON object: the latency's p50, p95 and max in milliseconds (and the search's
own seconds), the cached answers', and the victim's reply times alone and under the boards,
with the boards' answers counted by outcome.

    .venv/bin/python bench/analysis.py --positions 30 --boards 8 --replies 12
    .venv/bin/python bench/analysis.py --positions 10 --boards 8 --owners 1 --level 4 --replies 6
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from omega import Game

# The server's start and the victim who times a computer's replies are the fairness bench's.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import computer_fairness as fairness


def positions(count: int, seed: int) -> list[list[list[str]]]:
    """``count`` different positions: random side-5 games cut after 0 to 28 entries."""
    rng = random.Random(seed)
    found: dict[str, list[list[str]]] = {}
    while len(found) < count:
        game = Game(players=2, size=5)
        for _ in range(rng.randint(0, 28)):
            game.play(rng.sample(game.empty_cells(), 2))
        found.setdefault(json.dumps(game.history), [list(a) for a in game.history])
    return list(found.values())


def spread(ms: list[float]) -> dict[str, float]:
    """Median, 95th percentile and most, in milliseconds."""
    ordered = sorted(ms)
    return {"n": len(ordered), "p50": round(statistics.median(ordered)),
            "p95": round(ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]),
            "max": round(ordered[-1])}


def evaluate(http: httpx.Client, actions: list[list[str]], stream: str) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    r = http.post("/api/analysis/evaluate", json={"players": 2, "size": 5, "actions": actions, "stream": stream})
    return 1000 * (time.perf_counter() - started), r


def latency(base: str, count: int) -> dict[str, Any]:
    asked = positions(count + 1, seed=5)
    with fairness._client(base, "127.0.3.1") as http:
        first, r = evaluate(http, asked[0], "bench")
        r.raise_for_status()
        timed, searched, iterations = [], [], []
        for actions in asked[1:]:
            ms, r = evaluate(http, actions, "bench")
            r.raise_for_status()
            answer = r.json()
            if not answer["cached"] and not answer["over"]:
                timed.append(ms)
                searched.append(1000 * answer["seconds"])
                iterations.append(answer["iterations"])
        cached = [evaluate(http, actions, "bench")[0] for actions in asked[1:]]
    return {"first_ms": round(first), "answer_ms": spread(timed), "search_ms": spread(searched),
            "iterations_median": statistics.median(iterations), "cached_ms": spread(cached)}


def board(base: str, address: str, number: int, stop: threading.Event, counts: dict[str, int]) -> None:
    """Open analysis board ``number``: a new position as soon as the last one is answered."""
    rng = random.Random(number)
    with fairness._client(base, address) as http:
        while not stop.is_set():
            _, r = evaluate(http, positions(1, rng.randrange(10**9))[0], f"board{number}")
            key = "answered" if r.status_code == 200 else r.json()["error"]["code"]
            counts[key] = counts.get(key, 0) + 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=30, help="positions whose evaluation is timed")
    ap.add_argument("--boards", type=int, default=8, help="analysis boards asking at once")
    ap.add_argument("--owners", type=int, default=0, help="addresses the boards come from (0: one each)")
    ap.add_argument("--replies", type=int, default=15, help="computer replies the player times, alone and under the boards")
    ap.add_argument("--level", type=int, default=1, help="the player's computer level")
    ap.add_argument("--ai-workers", type=int, default=4, help="worker processes for computers")
    args = ap.parse_args()
    omega = str(Path(sys.executable).with_name("omega"))
    port = fairness._free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([omega, "serve", "--port", str(port), "--host", "0.0.0.0", "--db",
                                   f"sqlite:///{tmp}/omega.sqlite3", "--ai-workers", str(args.ai_workers)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            fairness._healthy(base)
            result: dict[str, Any] = {"ai_workers": args.ai_workers, "latency": latency(base, args.positions)}
            alone = fairness._victim(base, args.level, args.replies)
            stop, counts = threading.Event(), {}  # type: ignore[var-annotated]
            owners = args.owners or args.boards
            boards = [threading.Thread(target=board, args=(base, f"127.0.4.{i % owners + 1}", i, stop, counts),
                                       daemon=True) for i in range(args.boards)]
            for t in boards:
                t.start()
            time.sleep(3.0)  # the boards fill the workers' queue first
            loaded = fairness._victim(base, args.level, args.replies)
            stop.set()
            for t in boards:
                t.join(30)
            result["victim"] = {"level": args.level, "alone_ms": spread([1000 * w for w in alone]),
                                "under_boards_ms": spread([1000 * w for w in loaded]), "boards": args.boards,
                                "owners": owners,
                                "board_answers": counts,
                                "status": httpx.get(f"{base}/api/status", timeout=10).json().get("computers")}
            print(json.dumps(result, indent=2))
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()

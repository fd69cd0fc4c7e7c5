"""``omega worker`` as a subprocess for tests (:class:`WorkerProcess`).

Run as a script, this module is the real command (``omega.cli.main``: its logging, signals
and metrics port) with the worker's bot and timings swapped for the test's: a quick bot, or
one that thinks for ever so that the test can kill the worker in the middle of a turn, and a
short heartbeat so that a killed worker is found dead in seconds rather than 20 s.  Without
``--bot`` and the timings, :class:`WorkerProcess` runs the plain ``omega worker``.

``--review-budget ITERATIONS,SECONDS`` makes reviews small, and ``--clock-file`` puts the worker
on the same movable clock as ``clock_server.py``'s servers.

Usage: ``python tests/server/worker_process.py --bot random --dead-after 3 worker --db URL``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: The line a worker logs once its bots think about a computer's turn (``ComputerPlayers``).
THINKING = re.compile(r"computer turn at table (?P<table>\S+) \(version (?P<version>\d+), level \d+\): thinking")
#: Notified whenever a :class:`WorkerProcess` reads a line of its output, or its output ends.
_OUTPUT = threading.Condition()


class WorkerProcess:
    """``omega worker`` in a subprocess; ``ready`` waits for its start line and learns its
    server id (the name its claims carry in the ``due`` table)."""

    def __init__(self, db: str, args: tuple[str, ...] = (), *, bot: str | None = None,
                 dead_after: float | None = None, sweep_interval: float | None = None,
                 review_budget: tuple[int, float] | None = None, clock_file: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        tuned = [*(["--bot", bot] if bot else []),
                 *(["--dead-after", str(dead_after)] if dead_after is not None else []),
                 *(["--sweep-interval", str(sweep_interval)] if sweep_interval is not None else []),
                 *(["--review-budget", f"{review_budget[0]},{review_budget[1]}"] if review_budget else []),
                 *(["--clock-file", str(clock_file)] if clock_file is not None else [])]
        program = [sys.executable, __file__, *tuned] if tuned else [sys.executable, "-m", "omega.cli"]
        self.proc = subprocess.Popen([*program, "worker", "--db", db, *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=env or dict(os.environ), cwd=ROOT)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        #: Whether its output ended (the process exited).
        self.ended = False
        self.server_id = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with _OUTPUT:
                self.log.append(line)
                _OUTPUT.notify_all()
            self.lines.put(line)
        self.proc.stdout.close()  # at its end: left to the collector, it warns in another test
        self.lines.put(None)
        with _OUTPUT:
            self.ended = True
            _OUTPUT.notify_all()

    def ready(self, timeout: float = 60) -> str:
        """Wait until the worker plays; its server id."""
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError("omega worker exited:\n" + "".join(self.log))
            found = re.search(r"worker ([0-9a-f]+) playing computer turns", line)
            if found:
                self.server_id = found.group(1)
                return self.server_id

    @property
    def metrics_url(self) -> str:
        """Where a worker started with ``--metrics-port 0`` serves its metrics (from its
        log, once :meth:`ready`): the system chose the port when it bound it, so no other
        process can have taken it in between."""
        with _OUTPUT:
            found = next(m for line in self.log if (m := re.search(r"metrics on (http://\S+)/metrics", line)))
        return found.group(1)

    def thinking(self, table_id: str, timeout: float = 60) -> int:
        """Wait until this worker logs that its bots think about the computer's turn at
        ``table_id``; the table's version in that line."""
        return thinking_at([self], table_id, timeout=timeout)[1]

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(30)

    def stop(self) -> int:
        """SIGTERM, then the exit status (SIGKILL after 30 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode


def thinking_at(workers: Iterable[WorkerProcess], table_id: str, since_version: int = 0,
                timeout: float = 60) -> tuple[WorkerProcess, int]:
    """Wait until one of ``workers`` logs that its bots think about a computer's turn at
    ``table_id`` at version ``since_version`` or later (earlier turns' lines are passed
    over); that worker, and the version in its line.  It blocks on the workers' output
    (each line read wakes it) and never polls: ``timeout`` only bounds the wait."""
    workers = list(workers)
    read = [0] * len(workers)  # lines of each worker's log already looked at
    deadline = time.monotonic() + timeout
    with _OUTPUT:
        while True:
            for i, worker in enumerate(workers):
                new, read[i] = worker.log[read[i]:], len(worker.log)
                for line in new:
                    found = THINKING.search(line)
                    if found and found["table"] == table_id and int(found["version"]) >= since_version:
                        return worker, int(found["version"])
            left = deadline - time.monotonic()
            if left <= 0 or all(w.ended for w in workers):
                logs = "\n".join(f"worker {w.server_id or w.proc.pid}:\n{''.join(w.log[-20:])}" for w in workers)
                raise AssertionError(f"no worker thought about a computer turn at table {table_id} "
                                     f"(version {since_version} or later) within {timeout:g} s; their last lines:\n"
                                     f"{logs}")
            _OUTPUT.wait(left)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bot", default=None, help="a bot spec for every level (default: the real levels)")
    parser.add_argument("--dead-after", type=float, default=None)
    parser.add_argument("--sweep-interval", type=float, default=None)
    parser.add_argument("--review-budget", default=None, help="ITERATIONS,SECONDS per reviewed position")
    parser.add_argument("--clock-file", type=Path, default=None, help="clock_server.py's clock file")
    ours, rest = parser.parse_known_args(argv)

    import omega.server.work.worker
    from omega.cli import main as omega_main
    from omega.server.config import Settings
    from omega.server.work.thinking import spec_bot

    settings: dict[str, Any] = {}
    if ours.dead_after is not None:
        settings["dead_after"] = ours.dead_after
    if ours.sweep_interval is not None:
        settings["sweep_interval"] = ours.sweep_interval
    swapped: dict[str, Any] = {"settings": Settings(**settings)}
    if ours.bot:
        swapped["bot_factory"] = spec_bot(ours.bot)
    if ours.review_budget:
        iterations, seconds = ours.review_budget.split(",")
        swapped["review_budget"] = (int(iterations), float(seconds))
    if ours.clock_file is not None:
        from clock_server import FileClock  # this script's directory is on the path

        swapped["clock"] = FileClock(ours.clock_file)
    omega.server.work.worker.Worker = functools.partial(omega.server.work.worker.Worker, **swapped)  # type: ignore[misc]
    return omega_main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What ``NOTIFY`` costs a PostgreSQL commit: commits per second of a turn-sized transaction
(an event row inserted and a table row updated) from many connections at once, without
``pg_notify``, with it in the transaction (the server until December 2026), and with it
after the commit (the server now: one publisher gathers the committed versions and sends
them every 2 ms as one ``pg_notify`` in a transaction of its own, ``synchronous_commit``
off), on a throwaway cluster with ``fsync`` on.

PostgreSQL serialises the commits of transactions that notified (they take one lock, held
until after the commit, so that notifications are queued in commit order); commits that did
not notify share their disk flushes (group commit).  The difference is the ceiling a NOTIFY
in every turn's commit put on a site (docs/scaling.md).

    .venv/bin/python bench/notify.py --seconds 10 --connections 16
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster import Postgres

#: How the transactions notify: not at all, inside each commit, or batched after the commits.
MODES = ("without_notify", "with_notify", "notify_after_commit")


def _run(url: str, connections: int, seconds: float, mode: str) -> dict[str, float]:
    import psycopg

    notify = mode == "with_notify"
    committed: list[str] = []  # versions for the publisher (list.append is atomic)
    batches = [0]
    counts = [0] * connections
    latencies: list[list[float]] = [[] for _ in range(connections)]
    start = threading.Barrier(connections + 1)
    stop_at = [0.0]

    def client(i: int) -> None:
        with psycopg.connect(url) as conn:
            conn.execute(f"INSERT INTO tabs VALUES ({i}, 0) ON CONFLICT DO NOTHING")
            conn.commit()
            start.wait()
            while time.monotonic() < stop_at[0]:
                began = time.monotonic()
                row = conn.execute("SELECT v FROM tabs WHERE id = %s FOR UPDATE", (i,)).fetchone()
                assert row is not None
                version = row[0] + 1
                conn.execute("INSERT INTO events VALUES (%s, %s, %s)", (i, version, '{"kind":"turn"}' * 8))
                conn.execute("UPDATE tabs SET v = %s WHERE id = %s", (version, i))
                if notify:
                    conn.execute("SELECT pg_notify('bench', %s)", (f"0123456789abcdef:{i:08d}:{version}",))
                conn.commit()
                if mode == "notify_after_commit":
                    committed.append(f"0123456789abcdef:{i:08d}:{version}")
                latencies[i].append(time.monotonic() - began)
                counts[i] += 1

    def publisher() -> None:
        with psycopg.connect(url) as conn:
            start.wait()
            while time.monotonic() < stop_at[0] or committed:
                time.sleep(0.002)  # the server's window (pubsub.PUBLISH_WINDOW)
                taken = [committed.pop(0) for _ in range(len(committed))]
                if taken:
                    conn.execute("SET LOCAL synchronous_commit = off")
                    conn.execute("SELECT pg_notify('bench', %s)", ("\n".join(taken)[:7900],))
                    conn.commit()
                    batches[0] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    if mode == "notify_after_commit":
        start = threading.Barrier(connections + 2)
        threads.append(threading.Thread(target=publisher))
    for t in threads:
        t.start()
    stop_at[0] = time.monotonic() + seconds + 0.5
    start.wait()
    began = time.monotonic()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    every = sorted(x for per in latencies for x in per)

    def at(q: float) -> float:
        return round(1000 * every[min(len(every) - 1, int(q * len(every)))], 2)

    out = {"commits_per_s": round(sum(counts) / elapsed, 1), "p50_ms": at(0.5), "p99_ms": at(0.99)}
    if mode == "notify_after_commit":
        out["notify_batches_per_s"] = round(batches[0] / elapsed, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each mode, alternated")
    args = parser.parse_args(argv)
    pg = Postgres(fsync=True)
    try:
        pg.sql("CREATE TABLE tabs (id int PRIMARY KEY, v int)")
        pg.sql("CREATE TABLE events (t int, v int, data text, PRIMARY KEY (t, v))")
        url = f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres"
        result: dict[str, Any] = {"connections": args.connections, "seconds": args.seconds,
                                  **{mode: [] for mode in MODES}}
        for _ in range(args.rounds):
            for mode in MODES:  # alternated: the machine's load drifts
                result[mode].append(_run(url, args.connections, args.seconds, mode))
        print(json.dumps(result))
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

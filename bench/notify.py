"""What ``NOTIFY`` costs a PostgreSQL commit: commits per second of a turn-sized transaction
(an event row inserted and a table row updated) from many connections at once, with and
without ``pg_notify`` in the transaction, on a throwaway cluster with ``fsync`` on.

PostgreSQL serialises the commits of transactions that notified (they take one lock, held
until after the commit, so that notifications are queued in commit order); commits that did
not notify share their disk flushes (group commit).  The difference is the ceiling the
server's one NOTIFY per stored turn puts on a site (docs/scaling.md).

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


def _run(url: str, connections: int, seconds: float, notify: bool) -> dict[str, float]:
    import psycopg

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
                latencies[i].append(time.monotonic() - began)
                counts[i] += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
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

    return {"commits_per_s": round(sum(counts) / elapsed, 1), "p50_ms": at(0.5), "p99_ms": at(0.99)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args(argv)
    pg = Postgres(fsync=True)
    try:
        pg.sql("CREATE TABLE tabs (id int PRIMARY KEY, v int)")
        pg.sql("CREATE TABLE events (t int, v int, data text, PRIMARY KEY (t, v))")
        url = f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres"
        result: dict[str, Any] = {"connections": args.connections, "seconds": args.seconds,
                                  "without_notify": [], "with_notify": []}
        for notify in (False, True, False, True):  # alternated: the machine's load drifts
            result["with_notify" if notify else "without_notify"].append(
                _run(url, args.connections, args.seconds, notify))
        print(json.dumps(result))
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

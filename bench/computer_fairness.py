"""The computer players under attack: one or more addresses flood them with strong computer
games while a player from another address plays a quick level; how long the player waits
for each computer reply.

Starts a real ``omega serve`` (its own SQLite file, the default limits, ``--ai-workers``),
then, from ``--addresses`` loopback addresses (127.0.1.x), tries to open ``--tables``
tables of four players on side 10 with three level-5 computers each and keeps every one it
got moving (a random turn whenever the person is to move); the creation cap
(``Limits.computer_load``) refuses most of them, and the run says how many were opened.
Meanwhile the victim, from 127.0.2.1, plays ``--replies`` turns against a computer of
``--level`` on side 10 and times each reply (turn acknowledged -> the computer's turn in the
table's state, polled every 60 ms: the rate limit allows 20 requests a second).  Prints one JSON object: tables opened and refused,
the reply's p50, p95 and max in milliseconds, and the server's ``/api/status`` figures.

With ``--db postgresql`` it runs the site as deployed on several machines instead: a
PostgreSQL cluster of its own (bench/cluster.py's), ``--servers`` ``omega serve --no-workers``
processes and ``--worker-processes`` ``omega worker`` processes sharing the ``--ai-workers``
between them (one by default: a worker keeps one of its slots for quick levels from three
slots up, see ``FairSlots``);
the attacking addresses are spread over the servers and the victim plays on the last one,
so its computer turns are claimed from the queue that every worker shares.

    .venv/bin/python bench/computer_fairness.py --tables 24 --addresses 1 --level 1
    .venv/bin/python bench/computer_fairness.py --tables 64 --addresses 8 --level 3
    .venv/bin/python bench/computer_fairness.py --db postgresql --servers 2 --tables 24 --addresses 8
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
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

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client(base: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=60, transport=httpx.HTTPTransport(local_address=address))


def _turn(http: httpx.Client, table: dict[str, Any], state: dict[str, Any], rng: random.Random) -> httpx.Response:
    cells = rng.sample(_empty_cells(state), state["players"])
    return http.post(f"/api/tables/{table['id']}/actions",
                     json={"type": "turn", "cells": cells, "request_id": secrets.token_hex(8),
                           "version": state["version"]},
                     headers={"authorization": f"Bearer {table['token']}"})


def _empty_cells(state: dict[str, Any]) -> list[str]:
    cells = Game(players=state["players"], size=state["size"]).cells
    return [c for c in cells if c not in state["game"]["stones"]]


def _state(http: httpx.Client, table: dict[str, Any]) -> dict[str, Any]:
    r = http.get(f"/api/tables/{table['id']}", headers={"authorization": f"Bearer {table['token']}"})
    r.raise_for_status()
    return dict(r.json())


def _healthy(base: str) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"no server answered at {base}")


def _attacker(base: str, address: str, tables: int, stop: threading.Event, counts: dict[str, int]) -> None:
    rng = random.Random(address)
    seats = [{"kind": "human"}] + [{"kind": "computer", "level": 5}] * 3
    with _client(base, address) as http:
        mine = []
        for _ in range(tables):
            r = http.post("/api/tables", json={"players": 4, "size": 10, "seats": seats})
            if r.status_code == 201:
                mine.append(r.json())
                counts["opened"] += 1
            else:
                counts["refused"] += 1
        while not stop.is_set() and mine:
            for table in mine:
                state = _state(http, table)
                if state["status"] == "playing" and state["game"]["current_seat"] == 0:
                    _turn(http, table, state, rng)
            stop.wait(0.2)


def _victim(base: str, level: int, replies: int) -> list[float]:
    rng = random.Random(7)
    waits = []
    with _client(base, "127.0.2.1") as http:
        r = http.post("/api/tables", json={"players": 2, "size": 10,
                                           "seats": [{"kind": "human"}, {"kind": "computer", "level": level}]})
        r.raise_for_status()
        table = r.json()
        state = _state(http, table)
        for _ in range(replies):
            acked = _turn(http, table, state, rng)
            acked.raise_for_status()
            start = time.monotonic()
            while True:
                state = _state(http, table)
                if state["status"] != "playing" or state["game"]["current_seat"] == 0:
                    break
                time.sleep(0.06)  # under the 20 requests a second of a token
            waits.append(time.monotonic() - start)
            if state["status"] != "playing":
                break
    return waits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=24, help="strong computer tables the attack tries to open")
    ap.add_argument("--addresses", type=int, default=1, help="attacking addresses")
    ap.add_argument("--level", type=int, default=1, help="the victim's computer level")
    ap.add_argument("--replies", type=int, default=20, help="computer replies the victim times")
    ap.add_argument("--ai-workers", type=int, default=4, help="worker processes for computers, in all")
    ap.add_argument("--warm", type=float, default=10.0, help="seconds the attack runs before the victim plays")
    ap.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--servers", type=int, default=1, help="omega serve processes (PostgreSQL)")
    ap.add_argument("--worker-processes", type=int, default=1, help="omega worker processes (PostgreSQL)")
    args = ap.parse_args()
    if args.db == "sqlite" and args.servers != 1:
        ap.error("SQLite is for one server process")
    omega = str(Path(sys.executable).with_name("omega"))
    pg = None
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.db == "postgresql":
                sys.path.insert(0, str(ROOT / "bench"))
                from cluster import Postgres  # the benchmarks' own PostgreSQL cluster
                pg = Postgres(fsync=True)
                db = pg.url
            else:
                db = f"sqlite:///{tmp}/omega.sqlite3"
            ports = [_free_port() for _ in range(args.servers)]
            bases = [f"http://127.0.0.1:{port}" for port in ports]
            for port, base in zip(ports, bases, strict=True):
                extra = ["--no-workers"] if pg is not None else ["--ai-workers", str(args.ai_workers)]
                processes.append(subprocess.Popen([omega, "serve", "--port", str(port), "--host", "0.0.0.0",
                                                   "--db", db, *extra],
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                _healthy(base)  # one at a time: the first one upgrades the database
            if pg is not None:
                share = [args.ai_workers // args.worker_processes + (i < args.ai_workers % args.worker_processes)
                         for i in range(args.worker_processes)]
                for n in share:
                    processes.append(subprocess.Popen([omega, "worker", "--db", db, "--ai-workers", str(n)],
                                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            stop = threading.Event()
            counts = {"opened": 0, "refused": 0}
            per = [args.tables // args.addresses + (i < args.tables % args.addresses) for i in range(args.addresses)]
            attackers = [threading.Thread(target=_attacker, args=(bases[i % len(bases)], f"127.0.1.{i + 1}", n, stop, counts))
                         for i, n in enumerate(per)]
            load_before = os.getloadavg()[0]
            for t in attackers:
                t.start()
            time.sleep(args.warm)
            waits = _victim(bases[-1], args.level, args.replies)
            status = httpx.get(f"{bases[-1]}/api/status", timeout=10).json()
            stop.set()
            for t in attackers:
                t.join(120)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(30)
            if pg is not None:
                pg.stop()
    ordered = sorted(waits)
    print(json.dumps({
        "database": args.db, "servers": args.servers, "ai_workers": args.ai_workers,
        "worker_processes": args.worker_processes if args.db == "postgresql" else 0,
        "load_average_before": round(load_before, 2),
        "tables_tried": args.tables, "addresses": args.addresses, "opened": counts["opened"],
        "refused": counts["refused"], "victim_level": args.level, "replies": len(waits),
        "reply_ms": {"p50": round(1000 * statistics.median(ordered)),
                     "p95": round(1000 * ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]),
                     "max": round(1000 * ordered[-1])},
        "server": status.get("computers", status),
    }))


if __name__ == "__main__":
    main()

"""Load test of the game server on loopback: many 2-player tables, both seats played by
simulated people over WebSockets (protocol ``omega.v2``: each player applies the events'
changes to the table it holds, as the page does) with random legal turns.

Starts a server process (its own SQLite file in a temporary directory unless ``--db`` is
given; or plays against a running server with ``--url``), creates ``--tables`` tables, opens
two sockets per table and plays until every game is over, ``--turns`` turns per table are
played, or ``--seconds`` run out.  The simulated players run in ``--clients`` processes of
their own, so the load generator's work is not the server's.  Then it checks every table's
stored history against the acknowledged turns and prints (``--json``: one JSON object) the
move round-trip latency (send -> ack) percentiles and maximum, when the slowest 1 % of moves
were sent (``slowest_sent_at_s``: a count per second of the run, which tells a burst from a
steady tail), turns per second, the number of lost and duplicated turns, which must both be
0, and (for a server it started) the server process's own CPU time per acknowledged turn.
Moves are timed from the moment every player has its table's sync (a person sees the board
before moving); how long opening every socket took is ``connect_s``.

With ``--clock 3+2`` the tables have that time control and, at each table, one player stops
moving after a few turns of its own (2 to 8): its clock runs out, and the server must
notice.  Besides the move round trips it prints how late each timeout reached the stalled
player's socket after its flag fell (``timeout_lateness_ms``: the page's view of lateness,
the commit and the push included; client and server share this machine's clock).  Give
``--seconds`` enough for the flags to fall (the base time and a minute more).  With
``--everyone-plays`` as well, nobody walks away: every timed game is played to its end, to
measure what the clocks cost a turn (each turn moves its table's flag, stored as due work
in the turn's commit).

    .venv/bin/python bench/load.py --tables 200 --seconds 120
    .venv/bin/python bench/load.py --tables 200 --clock 3+2 --think 1 --seconds 330
    .venv/bin/python bench/load.py --tables 200 --clock 3+2 --everyone-plays
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import secrets
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

from omega import Game
from omega.server.infra.patch import apply as apply_changes


def _serve(url: str, port: int, synchronous: str = "FULL") -> None:
    """The server process: the real app with generous limits (one client address plays every seat)."""
    import logging

    import uvicorn

    from omega.server.app import create_app
    from omega.server.infra.limits import Limits
    from omega.server.run import settle_memory, uvicorn_options

    logging.basicConfig(level=logging.WARNING)
    limits = Limits(create_rate=10_000.0, create_burst=10_000, http_rate=10_000.0, http_burst=10_000,
                    ws_connect_rate=10_000.0, ws_connect_burst=10_000)
    app = create_app(url, bot_factory=None, limits=limits, sqlite_synchronous=synchronous)
    settle_memory()  # as omega serve does
    uvicorn.run(app, host="127.0.0.1", port=port,
                log_level="warning", backlog=2048, **uvicorn_options())  # type: ignore[arg-type]


@dataclass
class Table:
    id: str
    tokens: list[str]
    spectator: str
    #: Acknowledged turns with the version each was stored at: with several server
    #: processes the two seats' acknowledgements may arrive out of version order.
    acked: list[tuple[int, list[str]]] = field(default_factory=list)
    done: bool = False


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    #: When each of those moves was sent (``time.monotonic()``, one clock for every process).
    sent_at: list[float] = field(default_factory=list)
    #: Seconds from opening the first socket to the last socket's sync.
    connect_s: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    #: Seconds from a flag's fall (the server's flag_at) to the timeout event at the stalled seat.
    lateness: list[float] = field(default_factory=list)


async def _player(base_ws: str, table: Table, seat: int, max_turns: int, deadline: float, stats: Stats,
                  rng: random.Random, ready: asyncio.Event, connected: list[int], think: float,
                  stall_after: int | None = None) -> None:
    cells = Game(players=2, size=5).cells
    url = f"{base_ws}/ws/tables/{table.id}"
    # The seat token travels as a subprotocol, never in the URL.
    protocols = ["omega.v2", f"omega.token.{table.tokens[seat]}"]
    async with websockets.connect(url, subprotocols=protocols, open_timeout=60,  # type: ignore[arg-type]
                                  max_size=2**22) as ws:
        # Connected once the table is on screen (its sync came): the moves are timed from
        # there, and the opening burst is timed apart (``connect_s``).
        first: list[str | bytes] = [await asyncio.wait_for(ws.recv(), timeout=60)]
        connected.append(seat)
        await ready.wait()
        pending: dict[str, tuple[float, list[str]]] = {}
        moved_at = -1  # the version we last moved at: each position is answered once
        last_state: dict[str, Any] | None = None
        my_turns = 0
        flag_at: float | None = None  # when my running clock's flag falls (server time, epoch s)

        async def maybe_move(state: dict[str, Any]) -> None:
            nonlocal moved_at, my_turns
            game = state["game"]
            if state["status"] == "over" or len(table.acked) + len(pending) >= max_turns:
                if state["status"] == "over" or not pending:
                    table.done = True
                return
            if game["current_seat"] != seat or pending or state["version"] == moved_at:
                return
            if stall_after is not None and my_turns >= stall_after:
                return  # this player has walked away: its clock runs out
            empty = [c for c in cells if c not in game["stones"]]
            turn = rng.sample(empty, 2)
            if think > 0:  # a person looks at the board before moving (latency is not counted)
                await asyncio.sleep(rng.expovariate(1.0 / think))
            rid = secrets.token_hex(8)
            pending[rid] = (time.monotonic(), turn)
            moved_at = state["version"]
            my_turns += 1
            await ws.send(json.dumps({"type": "action", "request_id": rid, "version": state["version"],
                                      "action": {"type": "turn", "cells": turn}}))

        while not table.done and time.monotonic() < deadline:
            try:
                raw = first.pop() if first else await asyncio.wait_for(
                    ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "ack":
                sent, turn = pending.pop(msg["request_id"])
                stats.latencies.append(time.monotonic() - sent)
                stats.sent_at.append(sent)
                table.acked.append((msg["version"], turn))
                continue
            if kind == "error":
                code = msg["error"]["code"]
                stats.errors[code] = stats.errors.get(code, 0) + 1
                pending.pop(msg.get("request_id") or "", None)
                # A presence event overtook our turn: move again from the newest state seen.
                if last_state is not None and last_state["version"] != moved_at:
                    await maybe_move(last_state)
                continue
            if kind == "event":  # omega.v2: the changes to the state this client holds
                msg["state"] = apply_changes(last_state, msg["changes"], in_place=True)
            if "state" in msg:
                event = msg.get("event") or {}
                if event.get("kind") == "timeout" and event.get("seat") == seat and flag_at is not None:
                    stats.lateness.append(time.time() - flag_at)
                last_state = msg["state"]
                clock = last_state.get("clock")
                if clock and clock["running"] == seat and clock["flag_at"]:
                    flag_at = datetime.fromisoformat(clock["flag_at"]).timestamp()
                await maybe_move(last_state)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _clients(base_ws: str, tables: list[Table], args: argparse.Namespace, seed: float,
             ready: Any, go: Any, out: Any) -> None:
    """One client process: plays both seats of ``tables``; puts what it saw on ``out``."""
    async def play() -> tuple[list[Table], Stats, list[str]]:
        stats = Stats()
        rng = random.Random(seed)
        start = asyncio.Event()
        connected: list[int] = []
        deadline = time.monotonic() + args.seconds + 60
        # With clocks, one player per table walks away after a few turns of its own.
        stalls = {t.id: (rng.randrange(2), rng.randint(2, 8)) for t in tables} \
            if args.clock and not args.everyone_plays else {}
        opening = time.monotonic()
        tasks = [asyncio.create_task(_player(base_ws, t, seat, args.turns, deadline, stats,
                                             random.Random(rng.random()), start, connected, args.think,
                                             stalls[t.id][1] if t.id in stalls and stalls[t.id][0] == seat else None))
                 for t in tables for seat in (0, 1)]
        while len(connected) < len(tasks) and not any(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        stats.connect_s = time.monotonic() - opening
        await asyncio.get_running_loop().run_in_executor(None, ready.wait)  # every process connected
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        start.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        return tables, stats, [repr(r) for r in results if isinstance(r, BaseException)][:5]

    out.put(asyncio.run(play()))


def _slowest_by_second(latencies: list[float], sent_at: list[float], started: float) -> dict[str, int]:
    """When the slowest 1 % of moves were sent: how many in each second of the run (a tail
    that is a burst shows as one or two seconds; a steady one spreads over the run)."""
    ranked = sorted(zip(latencies, sent_at, strict=True), reverse=True)[:max(1, len(latencies) // 100)]
    counts: dict[str, int] = {}
    for _, at in ranked:
        second = str(int(at - started))
        counts[second] = counts.get(second, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: int(kv[0])))


def _cpu_seconds(pid: int | None) -> float | None:
    """User plus system CPU time of process ``pid`` so far (Linux), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _run(args: argparse.Namespace, base: str, server_pid: int | None) -> dict[str, Any]:
    base_ws = "ws" + base.removeprefix("http")
    async with httpx.AsyncClient(base_url=base, timeout=60,
                                 limits=httpx.Limits(max_connections=64)) as http:
        start_wait = time.monotonic()
        while True:  # the server process is starting: ask until it answers
            try:
                if (await http.get("/api/health")).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() - start_wait > 60:
                    raise
            await asyncio.sleep(0.1)

        async def create() -> Table:
            body: dict[str, Any] = {"players": 2, "size": 5}
            if args.clock:
                body["time_control"] = args.clock
            r = await http.post("/api/tables", json=body)
            r.raise_for_status()
            d = r.json()
            return Table(d["id"], [d["invites"]["0"], d["invites"]["1"]], d["spectator_key"])

        tables = await asyncio.gather(*(create() for _ in range(args.tables)))
        procs = max(1, min(args.clients, len(tables)))
        context = multiprocessing.get_context("spawn")
        ready, go, out = context.Barrier(procs + 1), context.Event(), context.Queue()
        rng = random.Random(args.seed)
        workers = [context.Process(target=_clients, daemon=True,
                                   args=(base_ws, tables[i::procs], args, rng.random(), ready, go, out))
                   for i in range(procs)]
        for w in workers:
            w.start()
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, ready.wait)
        cpu_before = _cpu_seconds(server_pid)
        started = time.monotonic()
        go.set()
        done = [await loop.run_in_executor(None, out.get) for _ in workers]
        elapsed = time.monotonic() - started
        cpu_after = _cpu_seconds(server_pid)
        for w in workers:
            w.join(30)
        tables = [t for played, _, _ in done for t in played]
        lat = [x for _, stats, _ in done for x in stats.latencies]
        sent_at = [x for _, stats, _ in done for x in stats.sent_at]
        late = [x for _, stats, _ in done for x in stats.lateness]
        errors: dict[str, int] = {}
        for _, stats, _ in done:
            for code, n in stats.errors.items():
                errors[code] = errors.get(code, 0) + n
        failures = [f for _, _, fs in done for f in fs]

        lost = duplicated = 0
        for t in tables:
            r = await http.get(f"/api/tables/{t.id}", headers={"authorization": f"Bearer {t.spectator}"})
            history = r.json()["game"]["history"]
            # Every acknowledged turn is stored once, in order; nothing unacknowledged was stored
            # (a turn whose ack was still in flight at the deadline may be stored: not a loss).
            stored = [h for h in history if h != "swap"]
            acked = [turn for _, turn in sorted(t.acked)]
            lost += sum(1 for i, turn in enumerate(acked) if i >= len(stored) or stored[i] != turn)
            duplicated += max(0, len(stored) - len(acked) - 1) + sum(
                1 for i in range(1, len(stored)) if stored[i] == stored[i - 1])
        turns = sum(len(t.acked) for t in tables)
        cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
        return {
            "tables": len(tables), "sockets": 2 * len(tables), "client_processes": procs, "think_s": args.think,
            "connect_s": round(max(stats.connect_s for _, stats, _ in done), 2),
            "turns": turns, "games_over": sum(1 for t in tables if t.done),
            "seconds": round(elapsed, 2), "turns_per_s": round(turns / elapsed, 1) if elapsed else 0.0,
            "latency_ms": {"p50": round(1000 * _percentile(lat, 0.50), 1),
                           "p95": round(1000 * _percentile(lat, 0.95), 1),
                           "p99": round(1000 * _percentile(lat, 0.99), 1),
                           "max": round(1000 * max(lat), 1) if lat else None,
                           "mean": round(1000 * statistics.fmean(lat), 1) if lat else None},
            "slowest_sent_at_s": _slowest_by_second(lat, sent_at, started),
            "server_cpu_ms_per_turn": round(1000 * cpu / turns, 3) if cpu is not None and turns else None,
            **({"clock": args.clock, "timeouts": len(late),
                "timeout_lateness_ms": {"p50": round(1000 * _percentile(late, 0.50), 1),
                                        "p95": round(1000 * _percentile(late, 0.95), 1),
                                        "p99": round(1000 * _percentile(late, 0.99), 1),
                                        "max": round(1000 * max(late), 1) if late else None}}
               if args.clock else {}),
            "lost_turns": lost, "duplicated_turns": duplicated,
            "errors": errors, "client_failures": failures,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--turns", type=int, default=30, help="turns per table at most (a side-5 game has 30)")
    parser.add_argument("--seconds", type=float, default=120.0, help="stop after this long in any case")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a player thinks before moving (0: move at once, saturating the server)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", default=None, metavar="CONTROL",
                        help="time control of every table (3+2, ...); one player per table stops moving")
    parser.add_argument("--everyone-plays", action="store_true",
                        help="with --clock: no player stops moving (every timed game played to its end)")
    parser.add_argument("--sqlite-synchronous", choices=("FULL", "NORMAL"), default="FULL",
                        help="SQLite durability: FULL (the server's default) or NORMAL (to measure FULL's cost)")
    parser.add_argument("--clients", type=int, default=2,
                        help="processes the simulated players run in (default 2), apart from the server's")
    parser.add_argument("--url", default=None,
                        help="play against this running server (http://host:port) instead of starting one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.url:
        result = asyncio.run(_run(args, args.url.rstrip("/"), None))
        result["database"] = "unknown (--url)"
    else:
        with tempfile.TemporaryDirectory(prefix="omega-load-") as tmp:
            url = args.db or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            server = multiprocessing.get_context("spawn").Process(
                target=_serve, args=(url, port, args.sqlite_synchronous), daemon=True)
            server.start()
            try:
                result = asyncio.run(_run(args, f"http://127.0.0.1:{port}", server.pid))
            finally:
                server.terminate()
                server.join(30)
        result["database"] = "sqlite" if args.db is None else url.split(":", 1)[0]
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>18}: {value}")
    ok = result["lost_turns"] == 0 and result["duplicated_turns"] == 0 and not result["client_failures"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

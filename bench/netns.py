"""A rehearsal of a site on several machines, on this one: PostgreSQL, each ``omega serve``
process, an ``omega worker`` and the edge (nginx with docs/deploy.md's site file, and the
load's simulated players) each in a network namespace of its own, joined by veth pairs to a
bridge in one more namespace, with ``tc netem`` delay on every packet that leaves a part's
namespace (``--delay-ms``: that much one way between any two parts, twice it a round trip).  Then bench/load.py plays through nginx, and the result says the move round
trips (p50/p95/p99), the turns a second in all and per server process, and the CPU each
part used per turn.

Needs root (``ip netns``).  Everything is made under the names ``omega-r-*`` and the
addresses 10.77.0.0/24, which route nowhere, and is removed at the end, also after an
error; nothing leaves the namespaces made here.  Where the kernel has no ``netem`` the delay
is added by relays instead (bench/relay.py: one in front of PostgreSQL, one in front of each
server process, each holding every byte back ``--delay-ms`` each way), and the result says
so (``delay_by``: ``relay``, with the kernel's refusal in ``netem_missing`` and the relays'
CPU per turn apart); ``--delay-ms 0`` adds none.

    .venv/bin/python bench/netns.py --servers 2 --delay-ms 1 -- --tables 200
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster import ROOT, SERVE, Nginx, Postgres, cpu_seconds, cpu_used, end

PREFIX = "omega-r-"
NET = "10.77.0"
DB, EDGE, WORKER = f"{NET}.2", f"{NET}.3", f"{NET}.4"
PORT = 8000
#: Where a part's relay listens (bench/relay.py), when the delay is added by relays.
RELAYED = 1


def _sh(*command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=check, capture_output=True, text=True)


def _in(ns: str) -> tuple[str, ...]:
    return ("ip", "netns", "exec", PREFIX + ns)


class Namespaces:
    """The namespaces, the bridge and the links; :meth:`remove` takes them all away."""

    def __init__(self, hosts: dict[str, str], delay_ms: float) -> None:
        self.names = ["sw", *hosts]
        self.delay_missing = ""
        for name in self.names:
            _sh("ip", "netns", "add", PREFIX + name)
            _sh(*_in(name), "ip", "link", "set", "lo", "up")
        _sh(*_in("sw"), "ip", "link", "add", "br0", "type", "bridge")
        _sh(*_in("sw"), "ip", "link", "set", "br0", "up")
        for i, (name, address) in enumerate(hosts.items()):
            port = f"p{i}"
            _sh(*_in("sw"), "ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", PREFIX + name)
            _sh(*_in("sw"), "ip", "link", "set", port, "master", "br0", "up")
            _sh(*_in(name), "ip", "addr", "add", f"{address}/24", "dev", "eth0")
            _sh(*_in(name), "ip", "link", "set", "eth0", "up")
            if delay_ms > 0 and not self.delay_missing:  # on leaving the part: once per packet
                done = _sh(*_in(name), "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay",
                           f"{delay_ms}ms", check=False)
                if done.returncode != 0:
                    self.delay_missing = done.stderr.strip() or "tc netem failed"

    def remove(self) -> None:
        for name in self.names:
            _sh("ip", "netns", "del", PREFIX + name, check=False)


def _relay(ns: str, listen: str, to: str, delay_ms: float) -> subprocess.Popen[bytes]:
    """bench/relay.py inside ``ns``: ``listen`` -> ``to``, ``delay_ms`` each way; once it listens."""
    relay = subprocess.Popen([*_in(ns), sys.executable, str(ROOT / "bench" / "relay.py"), "--listen", listen,
                              "--to", to, "--delay-ms", str(delay_ms)], stdout=subprocess.PIPE, cwd=ROOT)
    assert relay.stdout is not None
    if relay.stdout.readline().strip() != b"ready":
        raise RuntimeError(f"the relay {listen} -> {to} did not start")
    return relay


def _healthy(ns: str, url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while _sh(*_in(ns), "curl", "-sf", "-o", "/dev/null", url, check=False).returncode != 0:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer")
        time.sleep(0.2)  # a poll interval while the process starts


def _registered(pg: Postgres, processes: int, timeout: float = 120) -> None:
    """Wait until ``processes`` processes have their ``servers`` row (each has started)."""
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(f"host={pg.dir} port={pg.port} user=postgres dbname=omega", autocommit=True) as conn:
        while True:
            row = conn.execute("SELECT count(*) FROM servers").fetchone()
            if row is not None and row[0] >= processes:
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the processes did not all start")
            time.sleep(0.2)  # a poll interval while they start


def edge(upstreams: list[str], load_args: list[str]) -> int:
    """Inside the edge's namespace: nginx in front of ``upstreams``, and the load through it."""
    nginx = Nginx(8080, upstreams, host=EDGE, per_address=8192)
    try:
        run = subprocess.run([sys.executable, str(ROOT / "bench" / "load.py"), "--url", nginx.url, "--json",
                              *load_args], capture_output=True, text=True, cwd=ROOT)
        print(run.stdout if run.stdout.strip() else run.stderr, file=sys.stdout if run.stdout.strip() else sys.stderr)
        return run.returncode
    finally:
        nginx.stop()


def rehearse(servers: int, delay_ms: float, load_args: list[str]) -> dict[str, Any]:
    """Set up, play, take down: the load's result with the rehearsal's figures."""
    hosts = {"db": DB, "edge": EDGE, "work": WORKER, **{f"app{i}": f"{NET}.{11 + i}" for i in range(servers)}}
    spaces = Namespaces(hosts, delay_ms)
    pg: Postgres | None = None
    procs: list[subprocess.Popen[bytes]] = []
    try:
        pg = Postgres(True, host=DB, prefix=_in("db"))
        addresses = [f"{NET}.{11 + i}" for i in range(servers)]
        relayed = delay_ms > 0 and bool(spaces.delay_missing)
        relays: list[subprocess.Popen[bytes]] = []
        db_url = pg.url
        if relayed:  # the servers and the worker reach PostgreSQL through the db part's relay
            relays.append(_relay("db", f"{DB}:{pg.port + RELAYED}", f"{DB}:{pg.port}", delay_ms))
            db_url = pg.url.replace(f"{DB}:{pg.port}/", f"{DB}:{pg.port + RELAYED}/")
        for i, address in enumerate(addresses):
            procs.append(subprocess.Popen(
                [*_in(f"app{i}"), sys.executable, str(SERVE), "serve", "--host", address, "--port", str(PORT),
                 "--db", db_url, "--no-workers", "--forwarded-allow-ips", f"{EDGE},{address}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT))
            _healthy(f"app{i}", f"http://{address}:{PORT}/api/health")
            if relayed:  # the edge reaches each server through the server part's relay
                relays.append(_relay(f"app{i}", f"{address}:{PORT + RELAYED}", f"{address}:{PORT}", delay_ms))
        port = PORT + RELAYED if relayed else PORT
        procs.append(subprocess.Popen([*_in("work"), sys.executable, "-m", "omega.cli", "worker", "--db", db_url,
                                       "--ai-workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      cwd=ROOT))
        procs.extend(relays)
        _registered(pg, servers + 1)  # the worker too, before its start-up's CPU is counted
        handshakes = sorted(float(_sh(*_in("edge"), "curl", "-s", "-o", "/dev/null", "-w", "%{time_connect}",
                                      f"http://{addresses[0]}:{port}/api/health").stdout) for _ in range(5))
        parts = {"servers": [p.pid for p in procs[:servers]], "worker": [procs[servers].pid]}
        if relays:
            parts["relays"] = [p.pid for p in relays]
        before = {k: cpu_seconds(v) for k, v in parts.items()} | {"postgresql": cpu_seconds(pg.pids())}
        run = subprocess.run([*_in("edge"), sys.executable, __file__, "--edge", ",".join(
            f"{a}:{port}" for a in addresses), "--", *load_args], capture_output=True, text=True, cwd=ROOT)
        after = {k: cpu_seconds(v) for k, v in parts.items()} | {"postgresql": cpu_seconds(pg.pids())}
        if not run.stdout.strip():
            raise RuntimeError(run.stderr)
        result: dict[str, Any] = json.loads(run.stdout)
        turns = max(1, int(result["turns"]))
        result["server_processes"] = servers
        result["delay_ms"] = delay_ms if relayed or not spaces.delay_missing else 0
        result["delay_by"] = "relay" if relayed else "netem" if delay_ms > 0 else "none"
        if spaces.delay_missing:
            result["netem_missing"] = spaces.delay_missing
        result["edge_to_server_tcp_handshake_ms"] = round(1000 * handshakes[2], 2)  # the median of 5
        result["turns_per_s_per_server"] = round(result["turns_per_s"] / servers, 1)
        result["cpu_ms_per_turn"] = {k: round(1000 * cpu_used(before[k], after[k]) / turns, 3) for k in before}
        return result
    finally:
        end(procs)
        if pg is not None:
            pg.stop()
        spaces.remove()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--delay-ms", type=float, default=1.0, help="added delay on each link, each way")
    parser.add_argument("--edge", default=None, help=argparse.SUPPRESS)  # inside the edge's namespace
    parser.add_argument("load_args", nargs="*", help="arguments for bench/load.py (after --)")
    args = parser.parse_args(argv)
    if args.edge is not None:
        return edge(args.edge.split(","), args.load_args)
    print(json.dumps(rehearse(args.servers, args.delay_ms, args.load_args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

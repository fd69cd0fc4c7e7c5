"""The load test (``bench/load.py --url``) through nginx in front of one or more server
processes, on PostgreSQL or SQLite, with the CPU each part used and the database's writes.

Starts a throwaway PostgreSQL cluster (``fsync`` on, as in production, unless ``--pg-fsync
off``) or an SQLite file, ``--servers`` processes of the real ``omega serve`` (with
``--no-workers`` on PostgreSQL, and the request-counting rate limits raised, as the fuzz
suite runs it: one client address plays every seat here), and nginx with the site file of
docs/deploy.md in front of them (its connections per address raised for the same reason;
a table's requests and sockets reach one process, by the table's id); then runs ``bench/load.py --url <nginx> --json`` with the arguments after ``--`` and
prints its result with, per acknowledged turn, the CPU milliseconds of the server
processes, nginx and PostgreSQL (whole run, connection set-up included) and the bytes of
write-ahead log PostgreSQL wrote; and the servers' peak memory and the machine's load
average before and after.  With several ``--servers`` counts it runs each in turn (a fresh
database each time) and prints ``by_servers``: the server CPU per turn and turns a second
of each count, with the CPU per turn as a ratio to one process's, and every run's result.

    .venv/bin/python bench/cluster.py --db postgresql --servers 2 -- --tables 200
    .venv/bin/python bench/cluster.py --db postgresql --servers 1 2 4 -- --tables 200
    .venv/bin/python bench/cluster.py --db sqlite --servers 1 -- --tables 200 --think 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))  # nginx with the doc's site file

from nginx_proxy import Nginx  # noqa: E402

#: ``omega serve`` with the request and connection rate limits raised.
SERVE = ROOT / "tests" / "server" / "fuzz_server.py"

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Postgres:
    """A PostgreSQL cluster in a temporary directory (run as ``postgres`` when we are root),
    listening on ``host`` (and its socket directory); ``prefix`` runs its server inside
    something (``ip netns exec NAME``: bench/netns.py)."""

    def __init__(self, fsync: bool, host: str = "127.0.0.1", prefix: tuple[str, ...] = ()) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="omega-bench-pg-"))
        self.port = _port() if host == "127.0.0.1" else 5432
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_pg:
            shutil.chown(self.dir, "postgres")
        data = self.dir / "data"
        subprocess.run([*self.as_pg, str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
                       check=True, capture_output=True)
        if host != "127.0.0.1":
            with (data / "pg_hba.conf").open("a") as hba:
                hba.write(f"host all all {host.rsplit('.', 1)[0]}.0/24 trust\n")
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses={host} -c max_connections=300 "
                   f"-c fsync={'on' if fsync else 'off'}")
        subprocess.run([*prefix, *self.as_pg, str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                        str(self.dir / "log"), "-w", "-t", "60", "start"], check=True, capture_output=True)
        self.data = data
        self.sql("CREATE DATABASE omega")
        self.url = f"postgresql+psycopg://postgres@{host}:{self.port}/omega"

    def sql(self, query: str) -> Any:
        """Run ``query``; the first column of its first row, if it has one."""
        import psycopg

        with psycopg.connect(f"host={self.dir} port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            cursor = conn.execute(query)
            row = cursor.fetchone() if cursor.description else None
            return None if row is None else row[0]

    def wal_position(self) -> int:
        return int(self.sql("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"))

    def pids(self) -> list[int]:
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        return [postmaster, *_children(postmaster)]

    def stop(self) -> None:
        subprocess.run([*self.as_pg, str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def end(processes: list[subprocess.Popen[bytes]]) -> None:
    """Ask every process to stop, then wait for each (they stop side by side)."""
    for p in processes:
        p.terminate()
    for p in processes:
        p.wait(30)


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(parent: int) -> list[int]:
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat(int(entry.name))
        if fields is not None and int(fields[1]) == parent:
            out.append(int(entry.name))
    return out


def _group(pgid: int) -> list[int]:
    out = []
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat(int(entry.name))
        if fields is not None and int(fields[2]) == pgid:
            out.append(int(entry.name))
    return out


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system) of each process so far."""
    out = {}
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    # A process that started during the run (a PostgreSQL backend) counts from zero.
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def _peak_rss_mb(pid: int) -> float | None:
    """The most memory the process has held (VmHWM), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _healthy(port: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)  # a poll interval while the process starts


def _run(args: argparse.Namespace, count: int) -> tuple[int, dict[str, Any] | None]:
    """One run with ``count`` server processes on a fresh database: bench/load.py's exit
    code and its result with the CPU figures (None if it failed)."""
    pg = Postgres(args.pg_fsync == "on") if args.db == "postgresql" else None
    tmp = Path(tempfile.mkdtemp(prefix="omega-bench-"))
    url = pg.url if pg is not None else f"sqlite:///{tmp / 'load.sqlite3'}"
    ports = [_port() for _ in range(count)]
    servers: list[subprocess.Popen[bytes]] = []
    nginx = None
    try:
        for port in ports:
            servers.append(subprocess.Popen(
                [sys.executable, str(SERVE), "serve", "--port", str(port), "--db", url,
                 "--forwarded-allow-ips", "127.0.0.1", *(["--no-workers"] if pg is not None else [])],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT))
            _healthy(port)
        # One client address holds every socket here (two per table): the doc's cap of 64
        # open connections per address is for people, so it is raised as the rate limits are.
        nginx = Nginx(_port(), ports, per_address=8192)
        server_pids = [s.pid for s in servers]

        def sample() -> dict[str, dict[int, float]]:
            assert nginx is not None
            return {"servers": cpu_seconds(server_pids), "nginx": cpu_seconds(_group(nginx.proc.pid)),
                    "postgresql": cpu_seconds(pg.pids()) if pg is not None else {}}

        wal_before = pg.wal_position() if pg is not None else None
        load_before = os.getloadavg()[0]
        before = sample()
        run = subprocess.run([sys.executable, str(ROOT / "bench" / "load.py"), "--url", nginx.url, "--json",
                              *args.load_args], capture_output=True, text=True, cwd=ROOT)
        after = sample()
        if run.returncode not in (0, 1) or not run.stdout.strip():
            print(run.stderr, file=sys.stderr)
            return 2, None
        result: dict[str, Any] = json.loads(run.stdout)
        turns = max(1, int(result["turns"]))
        result["database"] = args.db if pg is None else f"postgresql (fsync {args.pg_fsync})"
        result["server_processes"] = count
        result["cpu_ms_per_turn"] = {part: round(1000 * cpu_used(before[part], after[part]) / turns, 3)
                                     for part in before if after[part]}
        result["server_peak_rss_mb"] = [_peak_rss_mb(pid) for pid in server_pids]
        result["load_average"] = [load_before, os.getloadavg()[0]]
        if pg is not None and wal_before is not None:
            result["wal_bytes_per_turn"] = round((pg.wal_position() - wal_before) / turns)
        return run.returncode, result
    finally:
        if nginx is not None:
            nginx.stop()
        for s in servers:
            s.terminate()
            s.wait(30)
        if pg is not None:
            pg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def by_servers(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Server CPU per turn and turns a second by process count, and each count's CPU per
    turn as a ratio to one process's (the first run with one process, if there is one).

    >>> by_servers([{"server_processes": 1, "cpu_ms_per_turn": {"servers": 2.0}, "turns_per_s": 700},
    ...             {"server_processes": 2, "cpu_ms_per_turn": {"servers": 2.2}, "turns_per_s": 650}])
    {'1': {'server_cpu_ms_per_turn': 2.0, 'turns_per_s': 700, 'cpu_ratio_to_one': 1.0}, '2': {'server_cpu_ms_per_turn': 2.2, 'turns_per_s': 650, 'cpu_ratio_to_one': 1.1}}
    """
    one = next((r["cpu_ms_per_turn"]["servers"] for r in runs if r["server_processes"] == 1), None)
    out: dict[str, Any] = {}
    for r in runs:
        cpu = r["cpu_ms_per_turn"]["servers"]
        row: dict[str, Any] = {"server_cpu_ms_per_turn": cpu, "turns_per_s": r.get("turns_per_s")}
        if one:
            row["cpu_ratio_to_one"] = round(cpu / one, 2)
        out[str(r["server_processes"])] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--servers", type=int, nargs="+", default=[1],
                        help="server processes; several counts run one after the other (e.g. 1 2 4)")
    parser.add_argument("--pg-fsync", choices=("on", "off"), default="on")
    parser.add_argument("load_args", nargs="*", help="arguments for bench/load.py (after --)")
    args = parser.parse_args(argv)
    if args.db == "sqlite" and args.servers != [1]:
        parser.error("SQLite is for one server process")
    runs = []
    worst = 0
    for count in args.servers:
        code, result = _run(args, count)
        worst = max(worst, code)
        if result is None:
            return code
        runs.append(result)
    if len(runs) == 1:
        print(json.dumps(runs[0]))
    else:
        print(json.dumps({"by_servers": by_servers(runs), "runs": runs}))
    return worst


if __name__ == "__main__":
    sys.exit(main())

"""nginx in front of ``omega serve`` processes, with the site configuration that
docs/deploy.md shows: the test reads it from the doc and changes only what differs on a test
machine (the listening port, the upstream ports and the log path), each replacement checked
to happen exactly once, so a change to the doc is a change to what is tested.

nginx runs unprivileged (as ``nobody`` when the tests run as root), with a prefix of its
own and a main configuration shaped like Debian's ``nginx.conf`` (which includes the site).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
#: The first line of the doc's site configuration block.
SITE_HEADER = "# /etc/nginx/sites-available/omega"


def site_config_from_doc(doc: Path = DEPLOY_DOC) -> str:
    """The nginx site file exactly as docs/deploy.md shows it."""
    blocks = re.findall(r"```nginx\n(.*?)```", doc.read_text(encoding="utf-8"), flags=re.DOTALL)
    found = [b for b in blocks if b.startswith(SITE_HEADER)]
    assert len(found) == 1, f"docs/deploy.md must show one nginx block starting with {SITE_HEADER!r}"
    return found[0]


def _replace_once(text: str, pattern: str, replacement: str) -> str:
    new, count = re.subn(pattern, lambda _: replacement, text, flags=re.MULTILINE)
    assert count == 1, f"the site configuration of docs/deploy.md no longer has one {pattern!r}"
    return new


def site_config(listen: int, upstreams: Sequence[int | str], log: Path, host: str = "127.0.0.1",
                per_address: int | None = None) -> str:
    """The doc's site file for this machine: nginx on ``host:listen``, the servers on
    ``upstreams`` (ports on 127.0.0.1, or ``address:port``), the access log at ``log``; ``per_address`` replaces
    the open connections allowed per client address (a load test plays every seat from one
    address, as it raises the servers' rate limits)."""
    text = site_config_from_doc()
    if per_address is not None:
        text = _replace_once(text, r"^    limit_conn omega_per_address \d+;$", f"    limit_conn omega_per_address {per_address};")
    servers = re.findall(r"^    server 127\.0\.0\.1:\d+ (.*);$", text, flags=re.MULTILINE)
    assert servers and len(set(servers)) == 1, "the upstreams list their servers with the same options"
    lines = "".join(f"    server {u if isinstance(u, str) else f'127.0.0.1:{u}'} {servers[0]};\n" for u in upstreams)
    # Each upstream (any process; a table's process) lists the same servers: each list is
    # replaced, once per upstream block.
    groups = len(re.findall(r"^upstream \w+ \{$", text, flags=re.MULTILINE))
    text, count = re.subn(r"^(    server 127\.0\.0\.1:\d+ .*;\n)+", lambda _: lines, text, flags=re.MULTILINE)
    assert groups >= 1 and count == groups, "each upstream of docs/deploy.md lists its servers together"
    text = _replace_once(text, r"^    listen 80;$", f"    listen {host}:{listen};")
    return _replace_once(text, r"/var/log/nginx/omega\.access\.log", str(log))


MAIN = """\
# Debian's nginx.conf, with paths under this prefix: it includes the site file.
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
# Notices on standard error too: "start worker process" says nginx listens (its sockets are
# bound before its workers start), which the test waits for instead of polling the port.
error_log stderr notice;
worker_rlimit_nofile 16384;
events {{
    worker_connections 8192;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/sites-enabled/*;
}}
"""


class Nginx:
    """nginx on 127.0.0.1:``port`` in front of servers on ``upstreams``; ``stop`` ends it."""

    def __init__(self, port: int, upstreams: Sequence[int | str], host: str = "127.0.0.1",
                 per_address: int | None = None) -> None:
        self.port = port
        self.url = f"http://{host}:{port}"
        self.prefix = Path(tempfile.mkdtemp(prefix="omega-nginx-"))
        (self.prefix / "sites-enabled").mkdir()
        self.access_log = self.prefix / "omega.access.log"
        (self.prefix / "sites-enabled" / "omega").write_text(site_config(
            port, upstreams, self.access_log, host, per_address))
        conf = self.prefix / "nginx.conf"
        conf.write_text(MAIN.format(prefix=self.prefix))
        as_user: list[str] = []
        if os.geteuid() == 0:  # never as root: the master would keep root's privileges
            as_user = ["runuser", "-u", "nobody", "--"]
            for path in [self.prefix, *self.prefix.rglob("*")]:
                shutil.chown(path, "nobody")
        command = [*as_user, NGINX, "-p", str(self.prefix), "-c", str(conf), "-e", str(self.prefix / "error.log")]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.proc = subprocess.Popen([*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self._wait_listening()

    def _wait_listening(self, timeout: float = 30) -> None:
        """Read nginx's notices until it starts a worker (it listens then), and keep reading
        them in the background so that its standard error never fills up."""
        assert self.proc.stderr is not None
        stderr = self.proc.stderr
        started = threading.Event()
        listening: list[bool] = []

        def read() -> None:
            for line in stderr:
                if "start worker process" in line:
                    listening.append(True)
                    started.set()
            started.set()  # nginx exited: stop waiting

        threading.Thread(target=read, daemon=True).start()
        if not started.wait(timeout):
            raise TimeoutError("nginx did not listen:\n" + self.error_log())
        if not listening:
            raise RuntimeError("nginx exited:\n" + self.error_log())

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            # The master and its worker are in a session of their own: end them together.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGQUIT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        shutil.rmtree(self.prefix, ignore_errors=True)

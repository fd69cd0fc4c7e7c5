"""Quiet, bounded connections (issue 29, findings 5 and 6), with real sockets.

A bad WebSocket frame is closed with its code and logs one line, no traceback; a request whose
headers come too slowly (slowloris), too big, or whose body stalls is closed; and the
connections waiting for headers are bounded, the oldest going first.  ``omega serve`` runs as
a subprocess with ``--header-timeout 1``; the cap and the body's deadline, which have no
option, are checked on the same protocol under an in-process uvicorn.  Every wait is a
socket read with a deadline, never a sleep.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from omega.server.infra.limits import Limits
from omega.server.run import uvicorn_options

from .server_helpers import Api, ServeProcess

pytestmark = pytest.mark.timeout(120)

#: The header timeout the served process gets (``omega serve --header-timeout``).
HEADER_TIMEOUT = 1.0


# -- helpers ---------------------------------------------------------------------------------

def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _read_until_closed(sock: socket.socket, within: float) -> bytes:
    """Everything the server sends until it closes the connection; AssertionError if it is
    still open after ``within`` seconds."""
    deadline = time.monotonic() + within
    out = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"still open after {within:g} s; received {out[:200]!r}")
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return out
        if not chunk:
            return out
        out += chunk


def _still_open(sock: socket.socket, for_seconds: float = 0.3) -> bool:
    """Whether the server leaves ``sock`` open, sending nothing, for ``for_seconds``."""
    sock.settimeout(for_seconds)
    try:
        sock.recv(1)  # something sent, or b"": closed
    except TimeoutError:
        return True
    except ConnectionResetError:
        pass
    return False


def _response(sock: socket.socket) -> bytes:
    """One whole HTTP response (headers and a Content-Length body) from a kept-alive connection."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed mid-response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, f"closed mid-body: {data!r}"
        body += chunk
    return head + b"\r\n\r\n" + body


def _masked(opcode: int, payload: bytes, *, mask: bool = True) -> bytes:
    """One final WebSocket frame as a client sends it."""
    head = bytes([0x80 | opcode])
    length = len(payload)
    size = (bytes([length]) if length < 126 else bytes([126]) + length.to_bytes(2, "big") if length < 65536
            else bytes([127]) + length.to_bytes(8, "big"))
    if not mask:
        return head + size + payload
    key = os.urandom(4)
    size = bytes([size[0] | 0x80]) + size[1:]
    return head + size + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def _open_table_socket(port: int, table: dict[str, Any]) -> tuple[socket.socket, bytes]:
    """A raw WebSocket on the table as its creator, past the handshake, and the bytes that
    came after the handshake's answer."""
    sock = _connect(port)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/tables/{table['id']} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Sec-WebSocket-Protocol: omega.v2, omega.token.{table['token']}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, f"closed during the handshake: {head!r}"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101 "), head
    return sock, head.partition(b"\r\n\r\n")[2]


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole (unmasked) frames the server sent in ``data``: opcode and payload each."""
    out, at = [], 0
    while at + 2 <= len(data):
        opcode, length, start = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if length == 126:
            length, start = int.from_bytes(data[start:start + 2], "big"), start + 2
        elif length == 127:
            length, start = int.from_bytes(data[start:start + 8], "big"), start + 8
        if start + length > len(data):
            break
        out.append((opcode, data[start:start + length]))
        at = start + length
    return out


def _close_code(data: bytes) -> int | None:
    """The code of the close frame among the server's frames in ``data``."""
    codes = [int.from_bytes(payload[:2], "big") for opcode, payload in _frames(data) if opcode == 0x8]
    return codes[0] if codes else None


def _open_for(sock: socket.socket, seconds: float) -> bytes:
    """What the server sends in ``seconds``; AssertionError if it closes the connection."""
    deadline = time.monotonic() + seconds
    out = b""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        assert chunk, f"closed after {out[-200:]!r}"
        out += chunk
    return out


def _bad_frame_lines(serve: ServeProcess) -> list[str]:
    return [line for line in serve.log if "bad frame" in line or "UTF-8" in line]


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """One ``omega serve`` (SQLite) with a 1 s header timeout, for the whole module."""
    db = tmp_path_factory.mktemp("connections") / "omega.sqlite3"
    process = ServeProcess(f"sqlite:///{db}", args=("--header-timeout", str(HEADER_TIMEOUT)))
    process.ready()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def table(serve: ServeProcess) -> dict[str, Any]:
    """A new table per test: new sockets are rate-limited per seat token."""
    api = Api(serve.url)
    try:
        return api.create(players=2)
    finally:
        api.close()


# -- finding 5: a bad frame is one line in the log ------------------------------------------------

BAD_FRAMES = [
    pytest.param(_masked(0x1, b"\xff\xfe"), 1007, id="text-not-utf8"),
    pytest.param(_masked(0x1, b'{"type": "ping", "x": "\xc3"}'), 1007, id="text-cut-utf8"),
    pytest.param(_masked(0x1, b"{}", mask=False), 1002, id="unmasked"),
    pytest.param(_masked(0x3, b"x"), 1002, id="reserved-opcode"),
    pytest.param(_masked(0x2, b"x" * (Limits().ws_max_frame + 1)), 1009, id="too-big"),
]


@pytest.mark.parametrize(("frame", "code"), BAD_FRAMES)
def test_a_bad_frame_is_closed_with_its_code_and_logs_one_line(serve: ServeProcess, table: dict[str, Any],
                                                               frame: bytes, code: int) -> None:
    before = len(_bad_frame_lines(serve))
    sock, _ = _open_table_socket(serve.port, table)
    try:
        sock.sendall(frame)
        assert _close_code(_read_until_closed(sock, within=10)) == code
    finally:
        sock.close()
    line = serve.wait_for_line(lambda line: "bad frame" in line or "UTF-8" in line)
    assert f"closed {code}" in line and "127.0.0.1:" in line, line
    # Another bad frame, and its line: whatever the first one logged has been read by now.
    sock, _ = _open_table_socket(serve.port, table)
    try:
        sock.sendall(_masked(0x1, b"\xff"))
        assert _close_code(_read_until_closed(sock, within=10)) == 1007
    finally:
        sock.close()
    serve.wait_for_line(lambda line: "bad frame" in line or "UTF-8" in line)
    log = "".join(serve.log)
    assert "Traceback" not in log and "UnicodeDecodeError" not in log, log
    assert len(_bad_frame_lines(serve)) == before + 2, _bad_frame_lines(serve)[before:]


def test_good_text_still_reaches_the_table(serve: ServeProcess, table: dict[str, Any]) -> None:
    # The UTF-8 check must not eat good text: a chat line in two-byte UTF-8 comes back.
    sock, got = _open_table_socket(serve.port, table)
    try:
        sock.sendall(_masked(0x1, '{"type": "chat", "text": "héllo ☃"}'.encode()))
        deadline = time.monotonic() + 10
        # The server writes JSON in ASCII: the text comes back escaped.
        while not any(b'"chat"' in payload and b"h\\u00e9llo \\u2603" in payload for _, payload in _frames(got)):
            assert time.monotonic() < deadline, got[-300:]
            got += _open_for(sock, 0.5)
    finally:
        sock.close()


# -- finding 6: slow, big and idle requests -------------------------------------------------------

def test_a_slow_sender_is_answered_408_and_closed_after_the_header_timeout(serve: ServeProcess) -> None:
    # The attack: one header line every so often, never the blank line that ends them.
    sock = _connect(serve.port)
    started = time.monotonic()
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        received = b""
        lines = 0
        while time.monotonic() - started < 10:
            sock.settimeout(0.25)  # the sender's pace: a read that waits at most a quarter second
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                lines += 1
                sock.sendall(f"X-Slow-{lines}: {lines}\r\n".encode())
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
        took = time.monotonic() - started
    finally:
        sock.close()
    assert received.startswith(b"HTTP/1.1 408 "), received
    assert HEADER_TIMEOUT * 0.9 <= took < HEADER_TIMEOUT + 4, took  # closed by the deadline, not the data
    assert lines >= 2  # it was sending all along


def test_many_slow_connections_are_all_closed(serve: ServeProcess) -> None:
    socks = [_connect(serve.port) for _ in range(200)]
    try:
        for n, sock in enumerate(socks):
            sock.sendall(b"GET / HTTP/1.1\r\n" if n % 2 else b"")  # half send nothing at all
        for sock in socks:
            _read_until_closed(sock, within=HEADER_TIMEOUT + 10)
    finally:
        for sock in socks:
            sock.close()
    # And the server answers someone who sends a request at once.
    sock = _connect(serve.port)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _read_until_closed(sock, within=10).startswith(b"HTTP/1.1 200 ")
    finally:
        sock.close()


def test_headers_past_the_size_limit_are_refused_431(serve: ServeProcess) -> None:
    sock = _connect(serve.port)
    try:
        filler = b"".join(b"X-Filler-%d: %s\r\n" % (n, b"a" * 1000) for n in range(Limits().max_header_bytes // 1000 + 2))
        # The server may close while the rest of the headers are still being sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + filler)
        assert _read_until_closed(sock, within=10).startswith(b"HTTP/1.1 431 ")
    finally:
        sock.close()


def test_a_kept_alive_connection_and_a_websocket_outlive_the_header_timeout(serve: ServeProcess,
                                                                            table: dict[str, Any]) -> None:
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    http = _connect(serve.port)
    ws, _ = _open_table_socket(serve.port, table)
    try:
        http.sendall(request)
        assert _response(http).startswith(b"HTTP/1.1 200 ")
        # Idle past the header timeout (under the keep-alive's 5 s): the deadline runs from a
        # request's first byte, not from the last answer.
        assert _still_open(http, for_seconds=HEADER_TIMEOUT + 0.5)
        http.sendall(request)
        assert _response(http).startswith(b"HTTP/1.1 200 ")
        # The socket was upgraded after its headers: no deadline of HTTP's closes it.
        received = _open_for(ws, HEADER_TIMEOUT + 0.5)
        ws.sendall(_masked(0x9, b"hi"))  # a ping: answered with a pong (opcode 0xA)
        deadline = time.monotonic() + 10
        while (0xA, b"hi") not in _frames(received):
            assert time.monotonic() < deadline, _frames(received)
            received += _open_for(ws, 0.5)
    finally:
        http.close()
        ws.close()


# -- the cap on waiting connections and the body's deadline, in process ----------------------------

class _Served:
    """A plain ASGI app under uvicorn with :func:`uvicorn_options` for ``limits``, in a thread.
    The app answers 200 after reading the whole body and records each disconnect it hears."""

    def __init__(self, limits: Limits) -> None:
        self.disconnected = threading.Event()
        # Listening before the server runs: a client's connection waits in the backlog.
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(512)
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", interface="asgi3",
                                **uvicorn_options(limits=limits))  # type: ignore[arg-type]
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])),
                                       daemon=True)
        self.thread.start()

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.disconnected.set()
                return
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.sock.close()


@pytest.fixture
def capped() -> Iterator[_Served]:
    served = _Served(Limits(waiting_connections=3, header_timeout=60, body_timeout=1.0))
    try:
        yield served
    finally:
        served.stop()


def test_past_the_cap_the_oldest_waiting_connection_is_closed(capped: _Served) -> None:
    socks = [_connect(capped.port) for _ in range(3)]
    try:
        for sock in socks:
            sock.sendall(b"GET / HTTP/1.1\r\n")
        assert all(_still_open(sock) for sock in socks)  # three may wait
        newcomer = _connect(capped.port)
        socks.append(newcomer)
        newcomer.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        assert _read_until_closed(socks[0], within=5).startswith(b"HTTP/1.1 408 ")
        assert all(_still_open(sock) for sock in socks[1:])
        # A client that sends its request at once is served (and makes room the same way).
        prompt = _connect(capped.port)
        socks.append(prompt)
        prompt.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _read_until_closed(prompt, within=5).startswith(b"HTTP/1.1 200 ")
        assert _read_until_closed(socks[1], within=5).startswith(b"HTTP/1.1 408 ")
        # Its headers done, a connection no longer counts: finishing them does not close others.
        socks[2].sendall(b"Host: x\r\nConnection: close\r\n\r\n")
        assert _read_until_closed(socks[2], within=5).startswith(b"HTTP/1.1 200 ")
        assert _still_open(socks[3])
    finally:
        for sock in socks:
            sock.close()


def test_a_body_that_stops_coming_closes_the_connection(capped: _Served) -> None:
    sock = _connect(capped.port)
    try:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"a" * 10)
        started = time.monotonic()
        assert _read_until_closed(sock, within=10) == b""
        assert time.monotonic() - started < 6
    finally:
        sock.close()
    # The application heard that the request is gone, and a body that keeps coming is read.
    assert capped.disconnected.wait(10), "the application never heard the disconnect"
    sock = _connect(capped.port)
    try:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\nab")
        for part in (b"cd", b"ef"):
            assert _still_open(sock, for_seconds=0.6)  # paused under the body's deadline
            sock.sendall(part)
        assert _read_until_closed(sock, within=5).startswith(b"HTTP/1.1 200 ")
    finally:
        sock.close()


def test_limits_have_one_home() -> None:
    # The served protocol takes its numbers from Limits, and the CLI option overrides one.
    options = uvicorn_options(limits=Limits(header_timeout=2.5, waiting_connections=7))
    protocol: Any = options["http"]
    assert (protocol.header_timeout, protocol.waiting.cap) == (2.5, 7)
    assert options["timeout_keep_alive"] == Limits().keep_alive_timeout
    # Each server gets its own count of waiting connections.
    assert uvicorn_options()["http"].waiting is not uvicorn_options()["http"].waiting  # type: ignore[attr-defined]

"""The fuzz suite's view of the server from outside: the contract read from
``docs/server-api.md``, the protocol details that change between versions of the API (in
:class:`Protocol` only), and WebSocket clients that check every message they receive.

Everything here raises :class:`Broken` when the server breaks its contract.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from omega.server.infra.patch import PatchError
from omega.server.infra.patch import apply as apply_changes

from .fuzz_server import CLOCK_ENV
from .server_helpers import ROOT, ServeProcess, Socket, subprotocols

API_DOC = ROOT / "docs" / "server-api.md"
LAUNCHER = Path(__file__).with_name("fuzz_server.py")

#: Seconds to wait for the answer to a message; far more than any answer needs.
ANSWER_TIMEOUT = 15.0
#: A log record at ERROR or above, as ``omega serve`` writes it: uvicorn's loggers as
#: ``ERROR:    message``, the others as ``<date> <time> ERROR name: message``.
ERROR_RECORD = re.compile(r"^(?:\S+ \S+ )?(?:ERROR|CRITICAL)\b")
#: Lines shown after each fault of the log (its traceback).
FAULT_CONTEXT = 30


class Broken(AssertionError):
    """The server broke its contract."""


def expect(condition: object, message: str) -> None:
    """Raise :class:`Broken` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise Broken(message)


# -- the contract ---------------------------------------------------------------------------


def _section(text: str, title: str) -> str:
    start = text.index("\n## " + title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


@dataclass(frozen=True)
class Contract:
    """What the API document promises about refusals: each error code with its HTTP status,
    and the codes a server may close a WebSocket with."""

    statuses: dict[str, int]
    close_codes: frozenset[int]

    @classmethod
    def from_docs(cls, path: Path = API_DOC) -> Contract:
        """Read the error codes, their statuses and the close codes from the API document.

        >>> contract = Contract.from_docs()
        >>> contract.statuses["stale_version"], 4401 in contract.close_codes
        (409, True)
        """
        text = path.read_text(encoding="utf-8")
        errors = _section(text, "Errors")
        statuses: dict[str, int] = {}
        # "`bad_request` 400, ..., `not_your_turn` / `stale_version` / ... 409" and "503 `unavailable`".
        for group, status in re.findall(r"((?:`[a-z_]+`\s*(?:/\s*)?)+)\s(\d{3})\b", errors):
            for code in re.findall(r"`([a-z_]+)`", group):
                statuses[code] = int(status)
        for status, code in re.findall(r"\b(\d{3})\s+`([a-z_]+)`", errors):
            statuses[code] = int(status)
        listed = set(re.findall(r"`([a-z_]+)`", errors.split("Codes:", 1)[1].split("HTTP statuses", 1)[0]))
        missing = listed - set(statuses)
        expect(statuses and not missing, f"{path.name}: no HTTP status for {sorted(missing)}")
        socket = _section(text, "WebSocket")
        # "4000 + the HTTP status" is a rule, not a code; the codes it gives are listed too.
        closes = frozenset(int(c) for c in re.findall(r"\b([14]\d{3})\b", socket) if not c.endswith("000"))
        expect(closes, f"{path.name}: no WebSocket close codes")
        return cls(statuses, closes)

    def http_error(self, r: httpx.Response, what: str) -> str:
        """The code of an error answer, checked: the documented shape, a documented code,
        the status that goes with it."""
        try:
            body = r.json()
        except ValueError:
            raise Broken(f"{what}: {r.status_code} with a body that is not JSON: {r.text[:200]!r}") from None
        code = self.error_code(body, what)
        expect(self.statuses[code] == r.status_code,
               f"{what}: {code!r} came with status {r.status_code}, documented {self.statuses[code]}")
        return code

    def error_code(self, body: Any, what: str) -> str:
        """The code of an error body ``{"error": {"code", "message"}}``, checked."""
        error = body.get("error") if isinstance(body, dict) else None
        expect(isinstance(body, dict) and list(body) == ["error"] and isinstance(error, dict)
               and set(error) == {"code", "message"} and isinstance(error["message"], str),
               f"{what}: error body of the wrong shape: {str(body)[:300]}")
        code = error["code"]
        expect(code in self.statuses, f"{what}: undocumented error code {code!r}: {body}")
        return str(code)


# -- the protocol -----------------------------------------------------------------------------


class Protocol:
    """How a socket proves who it is, and how it hears of presence: the parts of the API
    that changed between its versions.  The rest of the suite asks only this class.

    This version: the token travels as the ``omega.token.<token>`` subprotocol (a
    ``?token=`` in the URL counts as no token), and presence is live state, sent as
    unversioned ``presence`` messages that store nothing.
    """

    #: Presence changes store events and take table versions.
    presence_takes_versions = False
    #: A ``?token=`` in the socket's URL identifies the caller.
    token_in_url = False

    def open(self, ws_url: str, table_id: str, token: str | None, since: str | None) -> ClientConnection:
        """A socket to ``table_id`` for ``token`` (None: none offered), ``since`` as given."""
        return Socket(ws_url, table_id, token, since=None if since is None else quote(since, safe="")).conn  # type: ignore[arg-type]

    def open_with_url_token(self, ws_url: str, table_id: str, token: str) -> ClientConnection:
        """A socket that carries the token where old clients put it: in the URL."""
        return connect(f"{ws_url}/ws/tables/{table_id}?token={token}", subprotocols=subprotocols(None),  # type: ignore[arg-type]
                       open_timeout=30, max_size=2**22).__enter__()

    def presence(self, msg: dict[str, Any], players: int, computers: tuple[int, ...]) -> bool:
        """Whether ``msg`` is a presence message (checked); events are told apart elsewhere."""
        if self.presence_takes_versions or msg.get("type") != "presence":
            return False
        expect(set(msg) == {"type", "version", "seats"} and isinstance(msg["version"], int)
               and isinstance(msg["seats"], list) and len(msg["seats"]) == players
               and all(isinstance(s, bool) for s in msg["seats"]), f"bad presence message {msg}")
        expect(all(msg["seats"][i] for i in computers), f"a computer seat is not present: {msg}")
        return True

    @staticmethod
    def comparable(state: dict[str, Any]) -> dict[str, Any]:
        """A table state without what changes without an event (who is connected).

        >>> Protocol.comparable({"version": 3, "seats": [{"name": "Ann", "connected": True}]})
        {'version': 3, 'seats': [{'name': 'Ann'}]}
        """
        out = dict(state)
        out["seats"] = [{k: v for k, v in s.items() if k != "connected"} for s in state["seats"]]
        return out


# -- table states -----------------------------------------------------------------------------


def check_state(state: Any, players: int, you: int | None, what: str) -> None:
    """A table state as documented, and consistent: a game on has someone to move, a game
    over has a winner and no one to move."""
    expect(isinstance(state, dict) and isinstance(state.get("version"), int) and state.get("players") == players
           and isinstance(state.get("game"), dict) and isinstance(state.get("seats"), list),
           f"{what}: not a table state: {str(state)[:300]}")
    expect(state.get("you") == {"seat": you}, f"{what}: 'you' is {state.get('you')}, not seat {you}")
    seats, game = state["seats"], state["game"]
    expect([s.get("index") for s in seats] == list(range(players)), f"{what}: seats {seats}")
    for s in seats:
        expect(isinstance(s.get("name"), str) and s.get("kind") in ("human", "computer")
               and all(isinstance(s.get(k), bool) for k in ("resigned", "connected", "joined")),
               f"{what}: bad seat {s}")
    if state["status"] == "playing":
        expect(game["to_move"] is not None and game["current_seat"] is not None and not game["over"]
               and game["winner"] is None, f"{what}: a game on with no one to move: {game}")
    else:
        expect(state["status"] == "over" and game["over"] and game["to_move"] is None
               and game["winner"] is not None, f"{what}: status {state['status']!r} with game {game}")


# -- the server process -----------------------------------------------------------------------


def log_faults(lines: list[str]) -> str:
    """What in ``lines`` of the server's log says that something went wrong: each line that
    holds a traceback or starts a record at ERROR or above, numbered, with the lines after
    it (its traceback); "" when there is none.

    >>> log_faults(["INFO:     Application startup complete.\\n", "2027-01-01 10:00:00,000 INFO omega: ok\\n"])
    ''
    >>> print(log_faults(["INFO:     fine\\n", "2027-01-01 10:00:00,000 ERROR omega.server: it broke\\n",
    ...                   "Traceback (most recent call last):\\n"]), end="")
    line 2: 2027-01-01 10:00:00,000 ERROR omega.server: it broke
    line 3: Traceback (most recent call last):
    """
    shown: dict[int, str] = {}
    for i, line in enumerate(lines):
        if "Traceback" in line or ERROR_RECORD.match(line):
            for k in range(i, min(i + FAULT_CONTEXT, len(lines))):
                shown.setdefault(k, lines[k])
    return "".join(f"line {k + 1}: {line.rstrip()}\n" for k, line in sorted(shown.items()))


class FuzzServe(ServeProcess):
    """``omega serve`` with the fuzz suite's limits (``fuzz_server.py``), on the database
    ``db`` and, with a ``clock_file``, on the time in that file; otherwise a
    :class:`ServeProcess` (``ready``, ``stop``, the log in ``log``)."""

    def __init__(self, db: str, args: tuple[str, ...] = (), clock_file: Path | None = None) -> None:
        #: The last requests and messages sent to the server, for the report of its death.
        self.journal: deque[str] = deque(maxlen=40)
        #: What the server was sent and logged before it died (once it has).
        self.death: str | None = None
        self.db = db
        self.clock_file = clock_file
        env = {**os.environ, **({CLOCK_ENV: str(clock_file)} if clock_file is not None else {})}
        super().__init__(db, args=args, program=(sys.executable, str(LAUNCHER)), env=env)

    def alive(self) -> bool:
        """Whether the process is still running (its last words kept once it is not)."""
        if self.proc.poll() is None:
            return True
        if self.death is None:
            self.death = (f"the server process exited with {self.proc.returncode}. The last things it was sent:\n"
                          + "\n".join(f"  {line}" for line in self.journal)
                          + "\nIts last log lines:\n" + "".join(self.log[-15:]))
        return False

    def sent(self, what: str) -> None:
        """Note something sent to the server."""
        self.journal.append(what[:300])


# -- WebSocket clients ------------------------------------------------------------------------


@dataclass
class Wire:
    """One open socket of a table's client, and what it has received so far.

    Every message is checked as it arrives: a table state where one is sent, versions of
    events in order without gaps, replies of the documented shapes, and a close only with a
    documented code.
    """

    conn: ClientConnection
    contract: Contract
    protocol: Protocol
    players: int
    computers: tuple[int, ...]
    seat: int | None
    #: The version the socket asked to continue from, if it gave a usable one.
    since: int | None
    label: str
    #: Told of every message sent.
    journal: Callable[[str], None]
    #: The last table version the socket was sent (a sync or an event).
    last: int | None = None
    #: The close code, once the server closed it.
    closed: int | None = None
    #: Answers (ack, error, pong) not yet taken by :meth:`ask`.
    replies: list[dict[str, Any]] = field(default_factory=list)
    #: The table as this socket holds it (from its sync and every event's changes).
    state: dict[str, Any] | None = None
    #: Events received, in order.
    events: list[dict[str, Any]] = field(default_factory=list)

    def poll(self) -> None:
        """Take every message already waiting (without waiting for more)."""
        while self.closed is None:
            if not self.receive(0):
                return

    def send(self, message: str | bytes) -> None:
        """Send a message (a socket the server closed meanwhile shows its close code)."""
        expect(self.closed is None, f"{self.label}: sending on a socket closed with {self.closed}")
        self.journal(f"{self.label} sends {message[:200]!r}")
        try:
            self.conn.send(message)
        except ConnectionClosed as e:
            self.closed_with(e)

    def ask(self, message: str | bytes) -> dict[str, Any]:
        """Send a message and return the server's answer to it (every message gets one)."""
        expect(self.closed is None, f"{self.label}: asked on a closed socket")
        self.replies.clear()
        self.poll()
        expect(not self.replies, f"{self.label}: answers to nothing: {self.replies}")
        self.send(message)
        while not self.replies:
            expect(self.closed is None, f"{self.label}: closed ({self.closed}) instead of answering")
            expect(self.receive(ANSWER_TIMEOUT), f"{self.label}: no answer within {ANSWER_TIMEOUT:g} s")
        answer = self.replies.pop(0)
        return answer

    def send_too_big(self, message: bytes) -> int:
        """Send a frame larger than the server accepts; return the close code it answers with."""
        self.send(message)
        while self.closed is None:
            expect(self.receive(ANSWER_TIMEOUT), f"{self.label}: still open {ANSWER_TIMEOUT:g} s after a huge frame")
        return self.closed

    def close(self) -> None:
        """Close the socket from our side."""
        if self.closed is None:
            self.conn.close()
            self.closed = 1000

    def receive(self, timeout: float) -> bool:
        """Take one message (or the close); False if none came within ``timeout``."""
        try:
            raw = self.conn.recv(timeout=timeout)
        except TimeoutError:
            return False
        except ConnectionClosed as e:
            self.closed_with(e)
            return True
        self.take(raw)
        return True

    def closed_with(self, e: ConnectionClosed) -> None:
        """The server closed the socket: only with a documented code."""
        self.closed = e.rcvd.code if e.rcvd is not None else 1006
        expect(self.closed in self.contract.close_codes,
               f"{self.label}: dropped with close code {self.closed} ({e}), which is not documented")

    def take(self, raw: str | bytes) -> None:
        """Check one message from the server and remember what it says."""
        try:
            msg = json.loads(raw)
        except ValueError:
            raise Broken(f"{self.label}: a message that is not JSON: {raw[:200]!r}") from None
        expect(isinstance(msg, dict), f"{self.label}: a message that is not an object: {msg}")
        kind = msg.get("type")
        if self.protocol.presence(msg, self.players, self.computers):
            if self.state is not None:
                self.state["seats"] = [{**s, "connected": here} for s, here in zip(self.state["seats"], msg["seats"],
                                                                                   strict=True)]
            return
        if kind in ("ack", "error", "pong"):
            if kind == "error":
                expect(set(msg) == {"type", "request_id", "error"}, f"{self.label}: bad error message {msg}")
                self.contract.error_code({"error": msg["error"]}, self.label)
            elif kind == "ack":
                expect(set(msg) == {"type", "request_id", "version"} and isinstance(msg["version"], int)
                       and isinstance(msg["request_id"], str), f"{self.label}: bad ack {msg}")
            self.replies.append(msg)
            return
        expect(kind in ("sync", "event"), f"{self.label}: a message of unknown type: {str(msg)[:300]}")
        version, state = msg.get("version"), msg.get("state")
        if kind == "event" and "changes" in msg:  # omega.v2: the changes to the state held
            state = msg["state"] = self.changed(msg)
        if state is not None or kind == "sync":
            check_state(state, self.players, self.seat, f"{self.label} {kind}")
            expect(version == state["version"],
                   f"{self.label}: {kind} at version {version} with a state at {state['version']}")
            self.state = state
        if kind == "sync":
            expect(self.last is None or version >= self.last,
                   f"{self.label}: sync back to version {version} after version {self.last}")
        else:
            after = self.last if self.last is not None else self.since
            expect(after is not None and version == after + 1,
                   f"{self.label}: event at version {version} after version {after} (a gap, or no sync first)")
            event = msg.get("event")
            expect(isinstance(event, dict) and isinstance(event.get("kind"), str), f"{self.label}: bad event {msg}")
            expect(self.protocol.presence_takes_versions or event["kind"] != "presence",
                   f"{self.label}: a presence event took version {version}")
            self.events.append(msg)
        self.last = version


    def changed(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The state after an event's changes (None: this socket holds no state to apply
        them to, having asked for events since a version without a sync)."""
        changes = msg.get("changes")
        expect(isinstance(changes, list) and "state" not in msg, f"{self.label}: bad event {str(msg)[:300]}")
        if self.state is None:
            return None
        expect(self.state["version"] == msg.get("version", 0) - 1,
               f"{self.label}: changes for version {msg.get('version')} on a state at {self.state['version']}")
        try:
            return dict(apply_changes(self.state, changes))
        except PatchError as e:
            raise Broken(f"{self.label}: changes that do not apply: {e}") from None


def open_wire(protocol: Protocol, contract: Contract, ws_url: str, table_id: str, token: str | None,
              since: str | None, players: int, computers: tuple[int, ...], seat: int | None, label: str,
              journal: Callable[[str], None], *, url_token: bool = False) -> Wire | tuple[str, int]:
    """Open a socket; returns it (first message checked) or, when the server refuses the
    caller, the error code and close code it refused with (checked against each other)."""
    journal(f"{label} opens (since={since!r}, token in the URL: {url_token})")
    try:
        conn = protocol.open_with_url_token(ws_url, table_id, token) if url_token and token \
            else protocol.open(ws_url, table_id, token, since)
    except InvalidStatus as e:
        # A refusal before the socket opens: an HTTP error answer of the documented shape.
        body = (e.response.body or b"")[:300]
        raise Broken(f"{label}: connection refused with HTTP {e.response.status_code} {body!r}") from None
    try:
        # The server may read any number int() reads (digits of other scripts included); or
        # none, and then it sends a sync, which is always right.
        after = int(since) if since is not None else None
    except ValueError:
        after = None
    wire = Wire(conn, contract, protocol, players, computers, seat, after, label, journal)
    # A socket may have nothing to send at first (since= the current version): the answer to
    # a ping marks the end of what it sends on opening.
    with contextlib.suppress(ConnectionClosed):
        conn.send('{"type": "ping"}')
    try:
        first = conn.recv(timeout=ANSWER_TIMEOUT)
    except ConnectionClosed as e:
        raise Broken(f"{label}: closed ({e}) before its first message") from None
    except TimeoutError:
        raise Broken(f"{label}: no first message within {ANSWER_TIMEOUT:g} s") from None
    msg = json.loads(first)
    if isinstance(msg, dict) and msg.get("type") == "error":
        # Refused: one error, then the close (the ping is never read).
        code = contract.error_code({"error": msg.get("error")}, label)
        try:
            extra = conn.recv(timeout=ANSWER_TIMEOUT)
            raise Broken(f"{label}: refused with {code} but then sent {extra[:200]!r}")
        except ConnectionClosed as e:
            close = e.rcvd.code if e.rcvd is not None else 1006
        except TimeoutError:
            raise Broken(f"{label}: refused with {code} but not closed") from None
        expect(close == 4000 + contract.statuses[code] and close in contract.close_codes,
               f"{label}: refused with {code} and closed with {close}")
        return code, close
    wire.take(first)
    while not wire.replies:
        expect(wire.closed is None, f"{label}: closed ({wire.closed}) on opening")
        expect(wire.receive(ANSWER_TIMEOUT), f"{label}: no answer to a ping within {ANSWER_TIMEOUT:g} s")
    pong = wire.replies.pop(0)
    expect(pong["type"] == "pong", f"{label}: a ping on opening answered {pong}")
    return wire

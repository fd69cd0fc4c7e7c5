"""A fuzz suite against one real ``omega serve`` process: players, the spectator and strangers
send random valid and invalid actions over HTTP and WebSocket, and after every step the
server must still keep its promises, seen from outside only:

- no 5xx answer (but the documented 503s), and every error has the documented shape and code;
- no socket is closed except with a documented close code, and every socket's versions run
  without gaps;
- a refused action changes nothing, and the version a reader sees only grows;
- each acknowledged turn is in the stored record, in order, and the record reads back with
  ``Game.from_record`` (both forms, player names included);
- the process is alive, logs no traceback and no token.

Accounts play there too (``People``, one set for every run against the server): a flooder
keeps up to its cap of tables open in the lobby beside other creators, and rated duels end
by a resignation or a flag, aborted when a player had not made ``MIN_RATED_TURNS`` turns.
After every lobby step the listing's first page shows a table of every creator with one
open; after every aborted game the ratings are as before.  After the runs, the server's
whole log holds no traceback and no ERROR record, the database no rating change nor rated
game for an aborted table, and the lobby lists every creator still.

Where the outcome of an action is certain (no computer can move meanwhile) the suite also
knows which answer is right: the rules decide it, by ``omega.Game`` on the position the
spectator saw just before.

``make test`` runs a short profile.  ``make fuzz`` (``FUZZ_SECONDS=600 make fuzz``) runs the
machine over and over until the time is up and prints the runs, steps and failures.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from omega import Game, IllegalMove
from omega.names import NAME_MAX, check_name
from omega.record import load
from omega.server.lobby.service import LOBBY_PAGE
from omega.server.tables.state import MIN_RATED_TURNS
from omega.server.tables.timecontrol import TimeControl

from .clock_server import advance
from .fuzz_client import (
    ANSWER_TIMEOUT,
    Broken,
    Contract,
    FuzzServe,
    Protocol,
    Wire,
    check_state,
    expect,
    log_faults,
    open_wire,
)
from .fuzz_server import fuzz_limits
from .server_helpers import random_turn
from .site_helpers import Browser, ratings_in, rows, state_of

#: A long run (``make fuzz``): seconds to keep fuzzing for; unset or 0, the short profile.
FUZZ_SECONDS = float(os.environ.get("FUZZ_SECONDS", "0") or 0)
# Room for the last batch, and for shrinking a failure when asked to.
pytestmark = pytest.mark.timeout(int(2 * FUZZ_SECONDS) + 600)

#: Shrinking replays a failing sequence against the server hundreds of times (minutes): only
#: when asked for with FUZZ_SHRINK=1.  Unshrunk, the sequence is still printed in full.
SHRINK = os.environ.get("FUZZ_SHRINK") == "1"
SHORT = settings(max_examples=12, stateful_step_count=40, deadline=None, print_blob=True,
                 report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                 phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, *([Phase.shrink] if SHRINK else [])])
#: One batch of a long run; batches repeat until the time is up, each with new random choices.
LONG_BATCH = settings(SHORT, max_examples=25, stateful_step_count=50, database=None)

PROTOCOL = Protocol()
CONTRACT = Contract.from_docs()
#: Callers who hold no token of the table: none, invented ones, another table's.
STRANGERS = ("nobody", "junk", "near", "long", "alien", "alien-spectator")
#: Who sends a request: mostly the seat to move, then the next one, the spectator, strangers.
WHO = ("mover",) * 14 + ("next seat",) * 6 + ("spectator",) * 3 + STRANGERS
#: Answers that say nothing about the request: the server was busy or limited the caller.
NOT_ANSWERED = frozenset({"rate_limited", "unavailable", "busy"})


@dataclass(frozen=True)
class Spec:
    """A table of the fuzzed site; computer seats play at level 1 (real bots)."""

    name: str
    players: int
    pie_rule: bool
    computers: tuple[int, ...] = ()

    def seats(self) -> list[dict[str, Any]]:
        return [{"kind": "computer", "level": 1} if i in self.computers else {"kind": "human"}
                for i in range(self.players)]


SPECS = (Spec("pair", 2, True), Spec("trio", 3, False), Spec("quad", 4, False), Spec("bot", 2, True, (1,)))
TABLES = st.integers(0, len(SPECS) - 1)


@dataclass
class Accepted:
    """An action the server acknowledged: who sent it, what it was, at which version."""

    seat: int
    action: dict[str, Any]
    version: int


@dataclass
class Table:
    """What the suite knows of one table: its keys and every acknowledged action."""

    spec: Spec
    id: str
    tokens: dict[int, str]
    spectator: str
    #: The highest version a reader has seen.
    version: int = 0
    #: Version of the last change of play (a turn, swap, resignation or the end), and
    #: whether it is known: only while this suite alone changes the play.
    play_version: int = 0
    play_known: bool = True
    requests: dict[str, Accepted] = field(default_factory=dict)
    #: Acknowledged turns and swaps, in order: (index in the history if known, entry).
    acked: list[tuple[int | None, Any]] = field(default_factory=list)
    wires: dict[str, Wire] = field(default_factory=dict)


@dataclass
class Stats:
    """Counts over a whole run of the suite."""

    runs: int = 0
    steps: int = 0
    limited: int = 0
    #: Actions acknowledged, and games seen to end.
    acked: int = 0
    ended: int = 0
    answers: Counter[str] = field(default_factory=Counter)

    def line(self) -> str:
        top = ", ".join(f"{k} {v}" for k, v in self.answers.most_common())
        return (f"runs {self.runs}, steps {self.steps}, rate-limited steps {self.limited} "
                f"({100 * self.limited / max(self.steps, 1):.1f}%), actions acknowledged {self.acked}, "
                f"games ended {self.ended}; answers: {top}")


STATS = Stats()


# -- people with accounts ---------------------------------------------------------------------

#: The accounts that open casual tables in the lobby: the flooder many, the others few.
CREATORS = ("flooder", "ann", "bob")
#: The accounts that play the rated duels (they open no other table, so never meet a cap).
DUELLISTS = ("cyd", "dan")
#: The rated duels' clock: a minute each, run out by moving the server's time on.
DUEL_CLOCK = "1+0"
#: How a rated duel ends: a resignation by either, or the fall of a clock.
DUEL_ENDINGS = ("host resigns", "guest resigns", "flag")
#: Seconds that make the clock of the seat to move fall, whatever it had left.
PAST_THE_FLAG = TimeControl.parse(DUEL_CLOCK).full_ms / 1000 + 1


@dataclass
class People:
    """The accounts of the fuzzed site and what the suite knows they did there, over every
    run against one server: each creator's open lobby tables (oldest first; a table taken
    or cancelled is dropped), and the rated duels that ended aborted or counted."""

    server: FuzzServe
    browsers: dict[str, Browser]
    #: How many lobby tables an account may have open (the fuzz server's cap).
    cap: int
    open: dict[str, list[str]] = field(default_factory=dict)
    aborted: list[str] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)
    #: Lobby tables refused at the cap.
    capped: int = 0

    @classmethod
    def register(cls, server: FuzzServe) -> People:
        """Every account registered; then a flood (:meth:`flood`), a duel that counts, and
        two aborted ones, by a flag and by a resignation."""
        browsers = {}
        for name in (*CREATORS, *DUELLISTS):
            b = browsers[name] = Browser(server)
            r = b.register(name)
            expect(r.status_code == 201, f"registering {name}: {r.status_code} {r.text[:200]}")
        people = cls(server, browsers, fuzz_limits().lobby_open_per_account, {c: [] for c in CREATORS})
        people.flood()
        # Whatever the runs draw: ratings for the aborted games to leave as they are, and an
        # aborted duel of each ending for the checks after the runs.
        people.duel(DUELLISTS[0], 2 * MIN_RATED_TURNS, "guest resigns", 0)
        people.duel(DUELLISTS[0], 0, "flag", 1)
        people.duel(DUELLISTS[1], 2 * MIN_RATED_TURNS - 1, "guest resigns", 2)
        return people

    def flood(self) -> None:
        """The flooder opens tables up to its cap, and one more, refused; each other
        creator opens one."""
        capped = self.capped
        self.open_lobby_tables("flooder", self.cap - len(self.open["flooder"]) + 1)
        expect(self.capped == capped + 1, f"the flooder's table past its cap of {self.cap} was not refused")
        for creator in CREATORS[1:]:
            self.open_lobby_tables(creator, 1)

    def close(self) -> None:
        for b in self.browsers.values():
            b.close()

    def line(self) -> str:
        return (f"lobby tables open {sum(map(len, self.open.values()))} (refused at the cap {self.capped}), "
                f"rated duels aborted {len(self.aborted)}, counted {len(self.counted)}")

    def post(self, who: str, path: str, body: Any = None) -> tuple[int, str | None, Any]:
        """A POST by ``who``'s browser; returns (status, error code or None, body), after
        checking that the answer keeps the contract."""
        what = f"{who} POST {path} {body}"
        self.server.sent(what)
        try:
            r = self.browsers[who].post(path, body)
        except httpx.TransportError as e:
            expect(self.server.alive(), str(self.server.death))
            raise Broken(f"{what}: no answer: {e!r}") from None
        if r.status_code >= 400:
            code = CONTRACT.http_error(r, what)
            STATS.answers[code] += 1
            return r.status_code, code, r.json()
        expect(r.status_code in (200, 201), f"{what}: status {r.status_code}")
        STATS.answers["ok"] += 1
        return r.status_code, None, r.json()

    def listing(self) -> dict[str, Any]:
        """The lobby's first page."""
        self.server.sent("GET /api/lobby")
        r = self.browsers[CREATORS[1]].get("/api/lobby")
        expect(r.status_code == 200, f"GET /api/lobby: {r.status_code} {r.text[:200]}")
        return dict(r.json())

    def open_lobby_tables(self, creator: str, count: int) -> None:
        """``creator`` opens up to ``count`` tables in the lobby, one after the other: each
        is listed, up to the cap; past it one is refused with ``too_many_open_tables`` and
        changes nothing, and the creator stops.  Then the listing is checked."""
        for _ in range(count):
            full = len(self.open[creator]) >= self.cap
            before = self.listing() if full else None
            status, code, body = self.post(creator, "/api/lobby/tables", {"players": 2})
            if code in NOT_ANSWERED:
                continue
            if full:
                expect(code == "too_many_open_tables",
                       f"{creator}'s table past the cap of {self.cap}: answered {status} {code}")
                expect(self.listing() == before, f"{creator}'s refused table changed the lobby")
                self.capped += 1
                break  # the next ones would meet the same cap
            expect(code is None, f"{creator}'s table {len(self.open[creator]) + 1} of {self.cap}: {code} {body}")
            self.open[creator].append(body["id"])
        self.lobby_lists_every_creator(f"after {creator} opened {count} tables")

    def duel(self, host: str, turns: int, ending: str, seed: int) -> None:
        """A rated duel of the two duellists, ``host`` opening it, ended after ``turns``
        turns as ``ending`` says (:data:`DUEL_ENDINGS`): a resignation, or the fall of the
        clock of the seat to move (the server's time moved on).  Before each has made
        ``MIN_RATED_TURNS`` turns it is aborted: it names no winner, and every rating and
        rating change stays as it was; later it counts."""
        rng = random.Random(seed)
        guest = next(d for d in DUELLISTS if d != host)
        status, code, made = self.post(host, "/api/lobby/tables",
                                       {"players": 2, "rated": True, "time_control": DUEL_CLOCK})
        expect(code is None, f"{host} could not open a rated table: {status} {code}")
        table_id = made["id"]
        status, code, taken = self.post(guest, f"/api/lobby/tables/{table_id}/take", {})
        expect(code is None, f"{guest} could not take {host}'s rated table: {status} {code}")
        seated = {made["seat"]: host, taken["seat"]: guest}
        state, what = taken["state"], f"a rated duel ({table_id}) ended after {turns} turns: {ending}"
        for k in range(turns):
            mover = seated[state["game"]["current_seat"]]
            status, code, answer = self.post(mover, f"/api/tables/{table_id}/actions", {
                "type": "turn", "cells": random_turn(state, rng), "request_id": f"d{seed}.{k}"})
            expect(code is None, f"{what}: {mover}'s legal turn {k + 1} refused: {status} {code}")
            state = answer["state"]
        before = ratings_in(self.server.db)
        if ending == "flag":
            assert self.server.clock_file is not None
            advance(self.server.clock_file, PAST_THE_FLAG)
            # The mover's turn finds its clock fallen: refused, and the flag stored instead
            # (or the server's own look for due flags came first, and the game is over).
            mover = seated[state["game"]["current_seat"]]
            status, code, _ = self.post(mover, f"/api/tables/{table_id}/actions", {
                "type": "turn", "cells": random_turn(state, rng), "request_id": f"d{seed}.late"})
            expect(code in ("too_late", "game_over"), f"{what}: a turn after the flag answered {status} {code}")
            state = state_of(self.browsers[host], table_id)
        else:
            resigner = host if ending == "host resigns" else guest
            status, code, answer = self.post(resigner, f"/api/tables/{table_id}/actions",
                                             {"type": "resign", "request_id": f"d{seed}.resign"})
            expect(code is None, f"{what}: the resignation refused: {status} {code}")
            state = answer["state"]
        reason, winner = state["end_reason"], state["game"]["winner"]
        if turns < 2 * MIN_RATED_TURNS:
            expect(state["status"] == "over" and reason == "aborted" and winner is None,
                   f"{what}: {state['status']}, ended by {reason}, winner {winner}")
            expect(ratings_in(self.server.db) == before, f"{what}: aborted, yet the ratings changed")
            self.aborted.append(table_id)
        else:
            expect(state["status"] == "over" and reason == ("timeout" if ending == "flag" else "resignation"),
                   f"{what}: {state['status']}, ended by {reason}")
            self.counted.append(table_id)

    def lobby_lists_every_creator(self, what: str) -> None:
        """The lobby counts every open table, and its first page shows at least one table
        of every creator who has one open (a flooder fills the page with nobody else's)."""
        page = self.listing()
        waiting = {c: ids for c, ids in self.open.items() if ids}
        total = sum(map(len, waiting.values()))
        expect(page["total"] == total and len(page["tables"]) == min(total, LOBBY_PAGE),
               f"{what}: the lobby counts {page['total']} open tables and shows {len(page['tables'])}; "
               f"{total} are open")
        shown = [t["seats"][t["host"]]["user"] for t in page["tables"]]
        hidden = sorted(set(waiting) - set(shown))
        expect(not hidden, f"{what}: the lobby's first page shows no table of {hidden}, only of {Counter(shown)}")


def refusal(stranger: str) -> str:
    """How an existing table refuses a caller without a token of it: 401 without any token,
    403 with a wrong one."""
    return "auth_required" if stranger == "nobody" else "forbidden"


def turn_cells(state: dict[str, Any], rnd: random.Random, shape: str) -> list[str]:
    """Cells for a turn on the board of ``state``: legal ones if the seat is to move, or
    wrong in the way ``shape`` says (``occupied``, ``twice``, ``off-board``, ``few``,
    ``many``, ``upper``: legal ones in upper case)."""
    players = state["players"]
    taken = sorted(state["game"]["stones"])
    empty = [c for c in Game(players=players, size=state["size"]).cells if c not in taken]
    # An ended game may have fewer empty cells than a turn needs: any cells will do then.
    cells = rnd.sample(empty, players) if len(empty) >= players else rnd.sample(taken, players)
    if shape == "upper":
        cells = [c.upper() for c in cells]
    elif shape == "occupied" and taken:
        cells[rnd.randrange(players)] = rnd.choice(taken)
    elif shape == "twice":
        cells[1] = cells[0]
    elif shape == "off-board":
        cells[-1] = rnd.choice(["a9", "i1", "j5", "z1", "e0", "e10"])
    elif shape == "few":
        cells = cells[:-1]
    elif shape == "many" and players < 4:
        cells.append(next(c for c in empty if c not in cells))
    return cells


def fingerprint(action: dict[str, Any]) -> tuple[str, ...]:
    """Equal for actions the API counts as the same (cells compared in lower case)."""
    if action["type"] == "turn":
        return ("turn", *(c.strip().lower() for c in action["cells"]))
    return (action["type"],)


def mirror(state: dict[str, Any]) -> Game:
    """The game of a table state, rebuilt by the rules engine from its history."""
    game = Game(players=state["players"], size=state["size"], pie_rule=state["pie_rule"])
    for entry in state["game"]["history"]:
        if entry == "swap":
            game.swap()
        else:
            game.play(list(entry))
    return game


def play(game: Game, action: dict[str, Any]) -> Game:
    """``game`` after a turn or swap action (IllegalMove if the rules refuse it)."""
    if action["type"] == "swap":
        game.swap()
    else:
        game.play(list(action["cells"]))
    return game


@dataclass
class Outcome:
    """The answers an action may get: error codes, and whether it may be acknowledged
    (at ``version``, for a retry)."""

    codes: set[str]
    ok: bool = False
    version: int | None = None


# -- what random input looks like ------------------------------------------------------------

NAMES = st.one_of(
    st.sampled_from(["Ann", "  Bo  ", "Zoë 🙂", "#1 fan", "x" * NAME_MAX, "x" * (NAME_MAX + 1), "", "   ",
                     "a\u2028b", "a\u2029b", "a\x85b", "a\nb", "a\x00b", "\u202eevil", "a\tb", "\ud800",
                     "ﷺ" * 40, "e\u0301" * 20, "\u200dok"]),
    st.text(max_size=NAME_MAX + 5),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=12),
)

#: Query values for ?at= and ?since= (digits that int() refuses, signs, sizes, nothing).
ODD_NUMBERS = ["", "-1", "²", "١", "1e3", " 1", "+1", "0x1", "9" * 7, "9" * 30, "1.5", "abc", "0", "00"]


def nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def junk_bodies(rid: str) -> list[tuple[str, bytes]]:
    """Bodies no endpoint accepts, with the code each gets when nothing else is wrong."""
    turn = {"type": "turn", "cells": ["e5", "a1"], "request_id": rid}
    out: list[tuple[str, bytes]] = [
        ("bad_request", b""), ("bad_request", b"not json"), ("bad_request", b"{"), ("bad_request", b"[]"),
        ("bad_request", b"null"), ("bad_request", b"1e999"), ("bad_request", b'"turn"'),
        ("bad_request", b'{"name": "\xff\xfe"}'), ("bad_request", b"\xef\xbb\xbf{}"),
        ("bad_request", nested(2000, "list").encode()), ("bad_request", nested(600, "object").encode()),
        ("too_large", nested(3000, "list").encode()), ("too_large", json.dumps({**turn, "pad": "x" * 5000}).encode()),
        ("too_large", b"[" + b"1," * 40000 + b"1]"),
        ("bad_request", ('{"type":"turn","request_id":"n","cells":' + nested(1900, "list") + "}").encode()),
    ]
    wrong = [
        {**turn, "extra": 1}, {**turn, "type": "fly"}, {**turn, "cells": "e5"}, {**turn, "cells": []},
        {**turn, "cells": ["e5", 5]}, {**turn, "cells": ["e5", "toolong"]}, {**turn, "cells": [""]},
        {**turn, "cells": ["a1", "b2", "c3", "d4", "e5"]}, {**turn, "request_id": ""},
        {**turn, "request_id": "r" * 129}, {**turn, "request_id": 5}, {"type": "turn", "cells": ["e5", "a1"]},
        {**turn, "version": -1}, {**turn, "version": "3"}, {**turn, "version": 1.5}, {**turn, "version": True},
        {"type": "swap", "request_id": rid, "cells": ["e5"]}, {"type": "resign"}, {"request_id": rid},
        {"name": 5}, {"name": None}, {}, {"players": "2"}, {"players": 2, "size": 4},
        {"players": 3, "pie_rule": True}, {"players": 2, "seats": [{"kind": "human"}, {"kind": "robot"}]},
    ]
    out += [("bad_request", json.dumps(w).encode()) for w in wrong]
    return out


def request_id_in(text: str) -> str | None:
    """The request id a message names, if any can be read from it."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    rid = data.get("request_id") if isinstance(data, dict) else None
    return rid if isinstance(rid, str) else None


def junk_messages(rid: str) -> list[tuple[str, str]]:
    """WebSocket messages the server refuses, with the code it refuses each with."""
    action = {"type": "turn", "cells": ["e5", "a1"]}
    msg = {"type": "action", "request_id": rid, "action": action}
    out = [("bad_request", "not json"), ("bad_request", "[]"), ("bad_request", "null"), ("bad_request", ""),
           ("bad_request", '{"type": "action"}'), ("bad_request", nested(2000, "list")),
           ("bad_request", nested(600, "object")),
           ("bad_request", '{"type":"action","request_id":"n","action":' + nested(1900, "list") + "}"),
           ("too_large", nested(3000, "list")), ("too_large", json.dumps({"type": "ping", "pad": "x" * 5000})),
           ("too_large", "é" * 2100)]
    wrong = [{**msg, "extra": 1}, {**msg, "action": {**action, "type": "fly"}}, {**msg, "action": "turn"},
             {**msg, "request_id": 7}, {**msg, "request_id": ""}, {**msg, "version": "1"}, {**msg, "version": -2},
             {**msg, "type": "act"}, {"type": "ping", "extra": 1}, {"type": "pong"},
             {**msg, "action": {"type": "turn", "cells": "e5"}}, {**msg, "action": {"type": "swap", "cells": []}}]
    out += [("bad_request", json.dumps(w)) for w in wrong]
    return out


# -- the machine ---------------------------------------------------------------------------------


class FuzzTables(RuleBasedStateMachine):
    """Four tables of one server (2, 3 and 4 people, and a person against a level-1 computer)
    and everyone who may, or may not, talk to them."""

    server: FuzzServe
    people: People

    def __init__(self) -> None:
        super().__init__()
        self.http = httpx.Client(base_url=self.server.url, timeout=30)
        self.tables: list[Table] = []
        self.log_seen = len(self.server.log)
        self.limited = False
        self.rids = 0
        #: No step has failed: the teardown checks the tables one last time.
        self.clean = False
        STATS.runs += 1

    # -- talking to the server ---------------------------------------------------------------

    def rid(self) -> str:
        self.rids += 1
        return f"r{self.rids}"

    def call(self, method: str, path: str, *, token: str | None = None, how: str = "header",
             body: bytes | None = None, what: str = "") -> tuple[int, str | None, Any]:
        """One HTTP request; returns (status, error code or None, body), after checking that
        the answer keeps the contract."""
        headers, params = {}, ""
        if token is not None:
            if how == "header":
                headers["authorization"] = f"Bearer {token}"
            else:
                params = ("&" if "?" in path else "?") + ("token=" if how == "query" else "%74oken=") + token
        what = what or f"{method} {path}"
        self.clean = False
        if body is not None:
            headers["content-type"] = "application/json"
        self.server.sent(f"{method} {path + params} {(body or b'')[:200]!r}")
        try:
            r = self.http.request(method, path + params, content=body, headers=headers)
        except httpx.TransportError as e:
            expect(self.server.alive(), str(self.server.death))
            raise Broken(f"{what}: no answer: {e!r}") from None
        if r.status_code >= 500:
            # Only the 5xx answers documented for the request: the database is unreachable
            # (any request), or a new table with computers past the site's queue.
            code = CONTRACT.http_error(r, what)
            expect(code == "unavailable" or (code == "busy" and path == "/api/tables"),
                   f"{what}: {r.status_code} {code}: {r.json()}")
        if r.status_code >= 400:
            code = CONTRACT.http_error(r, what)
            self.note(code)
            return r.status_code, code, r.json()
        expect(r.status_code in (200, 201), f"{what}: status {r.status_code}")
        self.note("ok")
        if "/record." in path:  # read back as sent
            return r.status_code, None, r.text
        try:
            return r.status_code, None, r.json()
        except ValueError:
            raise Broken(f"{what}: {r.status_code} with a body that is not JSON: {r.text[:200]!r}") from None

    def note(self, code: str) -> None:
        STATS.answers[code] += 1
        if code == "rate_limited":
            self.limited = True

    def token(self, t: Table, who: str) -> str | None:
        """The token a caller presents: a seat's, the spectator's, or a stranger's."""
        if who.startswith("seat"):
            return t.tokens[int(who[4:])]
        if who == "spectator":
            return t.spectator
        other = self.tables[(self.tables.index(t) + 1) % len(self.tables)]
        return {"nobody": None, "junk": "A" * 32, "near": t.spectator[:-1] + ("x" if t.spectator[-1] != "x" else "y"),
                "long": "t" * 600, "alien": next(iter(other.tokens.values())), "alien-spectator": other.spectator}[who]

    def read_state(self, t: Table) -> dict[str, Any]:
        """The table as its spectator sees it now; its version never goes back."""
        status, code, state = self.call("GET", f"/api/tables/{t.id}", token=t.spectator, what=f"{t.spec.name}: spectator read")
        expect(status == 200, f"{t.spec.name}: the spectator cannot read its table: {code}")
        check_state(state, t.spec.players, None, f"{t.spec.name}: spectator read")
        expect(state["version"] >= t.version, f"{t.spec.name}: version went back from {t.version} to {state['version']}")
        t.version = state["version"]
        game = mirror(state)
        if state["status"] == "playing":
            expect(state["game"]["current_seat"] == game.current_player and state["game"]["can_swap"] == game.can_swap,
                   f"{t.spec.name}: the state's turn differs from the rules' {state['game']}")
        return state

    def wire(self, t: Table, who: str, since: str | None = None, *, url_token: bool = False) -> Wire | tuple[str, int]:
        seat = int(who[4:]) if who.startswith("seat") else None
        return open_wire(PROTOCOL, CONTRACT, self.server.ws_url, t.id, self.token(t, who), since, t.spec.players,
                         t.spec.computers, seat, f"{t.spec.name} socket of {who}", self.server.sent, url_token=url_token)

    def open_wire(self, t: Table, who: str) -> Wire:
        """The open socket of a seat or the spectator, opened if needed."""
        w = t.wires.get(who)
        if w is None or w.closed is not None:
            opened = self.wire(t, who)
            expect(isinstance(opened, Wire), f"{t.spec.name}: {who} could not open a socket: {opened}")
            assert isinstance(opened, Wire)
            w = t.wires[who] = opened
        return w

    # -- set-up and teardown -------------------------------------------------------------------

    @initialize()
    def create_tables(self) -> None:
        for spec in SPECS:
            status, code, made = self.call("POST", "/api/tables", body=json.dumps(
                {"players": spec.players, "pie_rule": spec.pie_rule, "seats": spec.seats()}).encode())
            expect(status == 201, f"creating a {spec.name} table: {code}")
            tokens = {int(k): v for k, v in made["invites"].items()}
            expect(sorted(tokens) == [i for i in range(spec.players) if i not in spec.computers],
                   f"invites {sorted(tokens)} for {spec}")
            t = Table(spec, made["id"], tokens, made["spectator_key"], play_known=not spec.computers)
            self.tables.append(t)
            self.read_state(t)

    def teardown(self) -> None:
        try:
            for t in self.tables:
                for w in t.wires.values():
                    w.close()
            if self.clean and self.server.alive():
                for t in self.tables:
                    self.check_table(t, text=True)
        finally:
            self.http.close()

    # -- after every step ------------------------------------------------------------------------

    @invariant()
    def server_keeps_its_promises(self) -> None:
        STATS.steps += 1
        STATS.limited += self.limited
        self.limited = False
        expect(self.server.alive(), f"the server process exited with {self.server.proc.returncode}")
        for t in self.tables:
            for w in t.wires.values():
                w.poll()
        lines = self.server.log[self.log_seen:]
        self.log_seen += len(lines)
        faults = log_faults(lines)
        expect(not faults, f"the server logged an error:\n{faults}")
        tokens = [tok for t in self.tables for tok in (*t.tokens.values(), t.spectator)]
        for line in lines:
            leaked = [tok for tok in tokens if tok in line]
            expect(not leaked, f"a token in the server's log: {line.strip()}")
        self.clean = True

    def check_table(self, t: Table, *, text: bool = False) -> None:
        """The table's state and record agree, and the record holds every acknowledged turn."""
        state = self.read_state(t)
        status, code, text = self.call("GET", f"/api/tables/{t.id}/record.json", token=t.spectator,
                                       what=f"{t.spec.name}: record.json")
        expect(status == 200, f"{t.spec.name}: record.json refused: {code}")
        try:
            data = json.loads(text)
            record = load(text)
            expect(Game.from_record(text) == record.game, f"{t.spec.name}: two readings of one record differ")
        except ValueError as e:
            raise Broken(f"{t.spec.name}: record.json does not read back: {e}\n{text}") from None
        history = [list(e) if e != "swap" else e for e in record.game.history]
        expect(history == data["actions"], f"{t.spec.name}: the record reads back as {history}, not {data['actions']}")
        expect(history[:len(state["game"]["history"])] == state["game"]["history"],
               f"{t.spec.name}: the record {history} does not continue the state's {state['game']['history']}")
        if len(history) == len(state["game"]["history"]):
            for seat in state["seats"]:
                expect(record.tags.get(seat["color"]) == seat["name"],
                       f"{t.spec.name}: record tag {seat['color']}={record.tags.get(seat['color'])!r}, "
                       f"seat name {seat['name']!r}")
        rest = iter(enumerate(history))
        for index, entry in t.acked:
            if index is not None:
                expect(index < len(history) and history[index] == entry,
                       f"{t.spec.name}: acknowledged {entry} is not entry {index} of the record {history}")
            expect(any(e == entry and (index is None or i == index) for i, e in rest),
                   f"{t.spec.name}: acknowledged {entry} is missing from the record {history} (in order)")
        if text:
            status, code, body = self.call("GET", f"/api/tables/{t.id}/record.txt", token=t.spectator,
                                           what=f"{t.spec.name}: record.txt")
            expect(status == 200, f"{t.spec.name}: record.txt refused: {code}")
            try:
                from_text = load(body)
                expect(Game.from_record(body) == from_text.game, f"{t.spec.name}: two readings of one record differ")
            except ValueError as e:
                raise Broken(f"{t.spec.name}: record.txt does not read back: {e}\n{body}") from None
            expect(list(from_text.game.history)[:len(history)] == list(record.game.history),
                   f"{t.spec.name}: the text record {from_text.game.history} differs from the JSON one")
            for at in sorted({0, len(history) // 2, len(history)}):
                status, code, view = self.call("GET", f"/api/tables/{t.id}/replay?at={at}", token=t.spectator,
                                               what=f"{t.spec.name}: replay at {at}")
                expect(status == 200 and view["at"] == at and view["history"] == history[:at],
                       f"{t.spec.name}: replay at {at} of {history}: {status} {code} {view}")

    # -- judging an action ---------------------------------------------------------------------

    @staticmethod
    def settled(t: Table, state: dict[str, Any]) -> bool:
        """Whether the play stays as in ``state`` until this suite acts: no computer is to
        move (for a computer seat, or for a seat that resigned)."""
        if state["status"] == "over":
            return True
        mover = state["game"]["current_seat"]
        return mover not in t.spec.computers and not state["seats"][mover]["resigned"]

    def judge(self, t: Table, before: dict[str, Any], who: str, action: dict[str, Any], rid: str,
              version: Any, shape: str) -> Outcome:
        """What the API allows as the answer to ``action`` by ``who``, on the table as the
        spectator saw it just before."""
        if not who.startswith("seat"):
            return Outcome({"forbidden" if who == "spectator" else refusal(who)})
        seat = int(who[4:])
        prior = t.requests.get(rid)
        if prior is not None:
            if prior.seat == seat and fingerprint(prior.action) == fingerprint(action):
                return Outcome(set(), ok=True, version=prior.version)
            return Outcome({"conflict"})
        game = before["game"]
        over = before["status"] == "over"
        resigned = {s["index"] for s in before["seats"] if s["resigned"]}
        mover = game["current_seat"]
        certain = self.settled(t, before) and not PROTOCOL.presence_takes_versions
        codes: set[str] = set()
        if version is not None:
            if not certain or (version < before["version"] and not t.play_known):
                codes.add("stale_version")  # it may be, or may not be, stale
            elif not t.play_version <= version <= before["version"]:
                return Outcome({"stale_version"})
        if over:
            return Outcome(codes | {"game_over"})
        maybe_over = set() if certain else {"game_over"}
        if seat in resigned:
            return Outcome(codes | {"forbidden"} | maybe_over)
        if action["type"] == "resign":
            return Outcome(codes | maybe_over, ok=True)
        if seat != mover:
            decided = "not_your_turn"
        else:
            try:
                play(mirror(before), action)
                decided = "ok"
            except IllegalMove:
                decided = "illegal_move"
        if certain:
            return Outcome(codes | ({decided} - {"ok"}), ok=decided == "ok")
        # A computer may move first: any decision of the rules, but a turn that can never be
        # legal (off the board, a cell twice, a cell already taken) is never accepted.
        return Outcome(codes | maybe_over | {"not_your_turn", "illegal_move"}, ok=shape in ("legal", "upper", "swap"))

    def settle(self, t: Table, before: dict[str, Any], who: str, action: dict[str, Any], rid: str,
               outcome: Outcome, code: str | None, version: int | None, answer_state: dict[str, Any] | None,
               what: str) -> dict[str, Any]:
        """Check the answer against ``outcome`` and the table after it; the table after it."""
        if code in NOT_ANSWERED:
            return self.refused_changes_nothing(t, before, what)
        if code is not None:
            expect(code in outcome.codes, f"{what}: refused with {code!r}, expected {self.expected(outcome)}")
            return self.refused_changes_nothing(t, before, what)
        expect(outcome.ok, f"{what}: acknowledged at version {version}, expected {self.expected(outcome)}")
        assert version is not None
        after = self.read_state(t)
        if outcome.version is not None:  # a retry: the first answer, and nothing played twice
            expect(version == outcome.version, f"{what}: a retry answered version {version}, first {outcome.version}")
            self.changed_only_by_computers(t, before, after, what)
            return after
        expect(before["version"] < version <= after["version"],
               f"{what}: acknowledged at version {version}, table went {before['version']} -> {after['version']}")
        seat = int(who[4:])
        t.requests[rid] = Accepted(seat, action, version)
        STATS.acked += 1
        if action["type"] == "resign":
            expect(after["seats"][seat]["resigned"], f"{what}: acknowledged, but seat {seat} has not resigned")
        else:
            trial = play(mirror(before), action)
            entry = trial.history[-1] if action["type"] == "swap" else list(trial.history[-1])
            index = len(before["game"]["history"]) if before["game"]["current_seat"] == seat else None
            if answer_state is not None:
                index = len(answer_state["game"]["history"]) - 1
                expect(answer_state["game"]["history"][-1] == entry,
                       f"{what}: the answer's last entry is {answer_state['game']['history'][-1]}, not {entry}")
            t.acked.append((index, entry))
        if after["status"] == "over":
            STATS.ended += before["status"] != "over"
            # The end is the last change of play, and nothing but joins and names follows it.
            t.play_version, t.play_known = after["version"], not PROTOCOL.presence_takes_versions
        else:
            t.play_version = version
            # A resigned seat is played on by the computer, at versions this suite cannot know.
            t.play_known = t.play_known and action["type"] != "resign"
        return after

    @staticmethod
    def expected(outcome: Outcome) -> str:
        return " or ".join(sorted(outcome.codes) + (["acknowledged"] if outcome.ok else [])) or "nothing"

    def refused_changes_nothing(self, t: Table, before: dict[str, Any], what: str) -> dict[str, Any]:
        after = self.read_state(t)
        self.changed_only_by_computers(t, before, after, what)
        return after

    def changed_only_by_computers(self, t: Table, before: dict[str, Any], after: dict[str, Any], what: str) -> None:
        """Nothing changed from ``before`` to ``after`` but by the computer players (whose
        events a socket replays from ``before``'s version)."""
        if after["version"] == before["version"]:
            expect(PROTOCOL.comparable(after) == PROTOCOL.comparable(before),
                   f"{what}: the table changed without a new version:\n{before}\n{after}")
            return
        replay = self.wire(t, "spectator", str(before["version"]))
        expect(isinstance(replay, Wire), f"{what}: the spectator cannot replay: {replay}")
        assert isinstance(replay, Wire)
        try:
            while replay.last is None or replay.last < after["version"]:
                expect(replay.receive(ANSWER_TIMEOUT), f"{what}: no replay of versions up to {after['version']}")
                expect(replay.closed is None, f"{what}: the replay socket closed ({replay.closed})")
            if not replay.events:
                return  # a sync: the log was too long to replay; the version check stands
            for m in replay.events:
                event = m["event"]
                if m["version"] > after["version"]:
                    break
                by_computer = event.get("computer") is True or event["kind"] == "over" or (
                    PROTOCOL.presence_takes_versions and event["kind"] == "presence")
                expect(by_computer, f"{what}: a refused action, yet version {m['version']} stored {event}")
        finally:
            replay.close()

    # -- drawing what to send ----------------------------------------------------------------------

    # Every rule draws the same things whatever the server answered, so that a failing run
    # replays draw for draw (a computer's timing may change a value, never what is drawn).

    def draw_who(self, data: st.DataObject, t: Table, before: dict[str, Any]) -> str:
        """Mostly the seat to move; sometimes the next seat, the spectator or a stranger."""
        humans = sorted(t.tokens)
        mover = before["game"]["current_seat"]
        who = data.draw(st.sampled_from(WHO), label="who")
        if who in ("mover", "next seat"):
            # The mover, or the next person after it (the mover itself at a table of one person).
            start = mover if mover is not None else humans[0]
            order = [s for s in [*range(start, t.spec.players), *range(start)] if s in humans]
            return f"seat{order[0] if who == 'mover' or len(order) == 1 else order[1]}"
        return who

    def draw_action(self, data: st.DataObject, t: Table, before: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A turn (legal on the board, or not), a swap or a resignation; and its shape."""
        shape = data.draw(st.sampled_from(["legal"] * 8 + ["upper", "occupied", "twice", "off-board", "few", "many",
                                                           "swap", "swap", "resign"]), label="action")
        if shape in ("swap", "resign"):
            return shape, {"type": shape}
        rnd = random.Random(data.draw(st.integers(0, 2**16), label="seed"))
        return shape, {"type": "turn", "cells": turn_cells(before, rnd, shape)}

    def draw_request(self, data: st.DataObject, t: Table, before: dict[str, Any]) -> tuple[str, str, dict[str, Any], str]:
        """Who, shape, action and request id of an action: a new one, or a retry of an
        acknowledged one (the same action by the same seat, or anything else)."""
        retry = data.draw(st.sampled_from(["new"] * 6 + ["same", "other"]), label="request")
        pick = data.draw(st.integers(0, 2**16), label="retry of") if retry != "new" else 0
        who = self.draw_who(data, t, before)
        shape, action = self.draw_action(data, t, before)
        earlier = sorted(t.requests)
        if retry == "new" or not earlier:
            return who, shape, action, self.rid()
        rid = earlier[pick % len(earlier)]
        if retry == "same":
            prior = t.requests[rid]
            return f"seat{prior.seat}", "retry", prior.action, rid
        return who, shape, action, rid

    @staticmethod
    def draw_version(data: st.DataObject) -> str:
        """Which version an action says it was chosen at: none, the current one, or a stale
        one of some kind (see :meth:`version_for`)."""
        return data.draw(st.sampled_from(["none"] * 5 + ["current", "play", "ahead", "behind", "huge"]), label="version")

    @staticmethod
    def version_for(choice: str, t: Table, before: dict[str, Any]) -> int | None:
        return {"none": None, "current": before["version"], "play": t.play_version, "ahead": before["version"] + 1,
                "behind": max(t.play_version - 1, 0), "huge": 2**62}[choice]

    # -- rules -------------------------------------------------------------------------------------

    @rule(data=st.data(), table=TABLES)
    def play_over_http(self, data: st.DataObject, table: int) -> None:
        t = self.tables[table]
        before = self.read_state(t)
        who, shape, action, rid = self.draw_request(data, t, before)
        version = self.version_for(self.draw_version(data), t, before)
        self.post_action(t, before, who, shape, action, rid, version)
        self.check_table(t)

    @rule(table=TABLES, turns=st.integers(1, 12), seed=st.integers(0, 2**16))
    def play_on(self, table: int, turns: int, seed: int) -> None:
        """Legal turns in a row by whoever is to move, so that games reach their end."""
        t = self.tables[table]
        rnd = random.Random(seed)
        state = self.read_state(t)
        for _ in range(turns):
            if state["status"] == "over" or not self.settled(t, state):
                break
            action = {"type": "turn", "cells": turn_cells(state, rnd, "legal")}
            state = self.post_action(t, state, f"seat{state['game']['current_seat']}", "legal", action, self.rid(), None)
        self.check_table(t)

    def post_action(self, t: Table, before: dict[str, Any], who: str, shape: str, action: dict[str, Any], rid: str,
                    version: int | None) -> dict[str, Any]:
        """Send an action over HTTP and check its answer; the table after it."""
        outcome = self.judge(t, before, who, action, rid, version, shape)
        body = {**action, "request_id": rid, **({"version": version} if version is not None else {})}
        what = f"{t.spec.name}: {who} POST {body}"
        _, code, answer = self.call("POST", f"/api/tables/{t.id}/actions", token=self.token(t, who),
                                    body=json.dumps(body).encode(), what=what)
        state = None
        if code is None:
            expect(set(answer) == {"version", "state"} and isinstance(answer["version"], int), f"{what}: answer {answer}")
            state = answer["state"]
            check_state(state, t.spec.players, int(who[4:]), what)
        return self.settle(t, before, who, action, rid, outcome, code, answer.get("version") if code is None else None,
                           state if outcome.version is None else None, what)

    @rule(data=st.data(), table=TABLES)
    def play_over_socket(self, data: st.DataObject, table: int) -> None:
        t = self.tables[table]
        before = self.read_state(t)
        who, shape, action, rid = self.draw_request(data, t, before)
        choice = self.draw_version(data)
        if who in STRANGERS:
            self.refused_socket(t, who, None)
            self.check_table(t)
            return
        w = self.open_wire(t, who)
        before = self.read_state(t)  # opening a seat's first socket joins it
        version = self.version_for(choice, t, before)
        outcome = self.judge(t, before, who, action, rid, version, shape)
        msg = {"type": "action", "request_id": rid, "action": action, **({"version": version} if version is not None else {})}
        what = f"{t.spec.name}: {who} socket {msg}"
        reply = w.ask(json.dumps(msg))
        code = reply["error"]["code"] if reply["type"] == "error" else None
        # A message refused unread (too many a second) names no request.
        expect(reply["type"] in ("ack", "error") and (reply["request_id"] == rid or code in NOT_ANSWERED),
               f"{what}: answered {reply}")
        self.note(code or "ok")
        self.settle(t, before, who, action, rid, outcome, code, reply.get("version"), None, what)
        self.check_table(t)

    @rule(data=st.data(), table=TABLES, endpoint=st.sampled_from(["actions", "name", "create"]))
    def send_junk_over_http(self, data: st.DataObject, table: int, endpoint: str) -> None:
        t = self.tables[table]
        before = self.read_state(t)
        expected, body = data.draw(st.sampled_from(junk_bodies(self.rid())), label="body")
        path = "/api/tables" if endpoint == "create" else f"/api/tables/{t.id}/{endpoint}"
        who = "nobody" if endpoint == "create" else self.draw_who(data, t, before)
        what = f"{t.spec.name}: {who} POST {path} {body[:120]!r}"
        status, code, _ = self.call("POST", path, token=self.token(t, who), body=body, what=what)
        # The body may be read before or after the caller is known.
        allowed = {expected}
        if endpoint != "create" and who in STRANGERS:
            allowed.add(refusal(who))
        elif endpoint == "name" and who == "spectator":
            allowed.add("forbidden")
        if code not in NOT_ANSWERED:
            expect(code in allowed, f"{what}: answered {status} {code}, expected {' or '.join(sorted(allowed))}")
        self.refused_changes_nothing(t, before, what)
        self.check_table(t)

    @rule(data=st.data(), table=TABLES)
    def send_junk_over_socket(self, data: st.DataObject, table: int) -> None:
        t = self.tables[table]
        who = data.draw(st.sampled_from(["spectator", *(f"seat{s}" for s in t.tokens)]), label="who")
        w = self.open_wire(t, who)
        before = self.read_state(t)
        expected, text = data.draw(st.sampled_from([*junk_messages(self.rid()), ("huge", "")]), label="message")
        if expected == "huge":
            # Past the transport's frame limit: the documented close, 1009.
            size = data.draw(st.sampled_from([70_000, 300_000]), label="size")
            code = w.send_too_big(json.dumps({"type": "ping", "pad": "x" * size}).encode())
            expect(code == 1009, f"{t.spec.name}: a frame of {size} bytes closed the socket with {code}, not 1009")
            self.refused_changes_nothing(t, before, f"{t.spec.name}: a huge frame")
            self.check_table(t)
            return
        binary = data.draw(st.booleans(), label="binary frame")
        what = f"{t.spec.name}: {who} socket sends {text[:120]!r}"
        reply = w.ask(text.encode() if binary else text)
        expect(reply["type"] == "error", f"{what}: answered {reply}")
        code = reply["error"]["code"]
        self.note(code)
        if code not in NOT_ANSWERED:
            expect(code == expected, f"{what}: refused with {code}, expected {expected}")
        expect(reply["request_id"] in (None, request_id_in(text)), f"{what}: the error names request {reply['request_id']!r}")
        self.refused_changes_nothing(t, before, what)
        self.check_table(t)

    @rule(data=st.data(), table=TABLES, count=st.sampled_from([1, 2, 5, 30]))
    def ping(self, data: st.DataObject, table: int, count: int) -> None:
        """Pings, up to a flood: each gets a pong or ``rate_limited``, and the socket stays."""
        t = self.tables[table]
        who = data.draw(st.sampled_from(["spectator", *(f"seat{s}" for s in t.tokens)]), label="who")
        w = self.open_wire(t, who)
        w.poll()
        for _ in range(count):
            w.send('{"type": "ping"}')
        answers: Counter[str] = Counter()
        for i in range(count):
            while not w.replies:
                expect(w.closed is None, f"{t.spec.name}: {who} closed ({w.closed}) during pings")
                expect(w.receive(ANSWER_TIMEOUT), f"{t.spec.name}: no answer to ping {i + 1} of {count}")
            reply = w.replies.pop(0)
            answers[reply["error"]["code"] if reply["type"] == "error" else reply["type"]] += 1
        expect(set(answers) <= {"pong", "rate_limited"}, f"{t.spec.name}: pings answered {dict(answers)}")
        STATS.answers.update(answers)
        # A flood is meant to meet the limit: the step was answered if any ping was.
        self.limited = self.limited or not answers["pong"]

    @rule(data=st.data(), table=TABLES, how=st.sampled_from(["header", "query", "query-encoded"]),
          endpoint=st.sampled_from(["", "/record.txt", "/record.json", "/replay"]))
    def read(self, data: st.DataObject, table: int, how: str, endpoint: str) -> None:
        t = self.tables[table]
        before = self.read_state(t)
        who = self.draw_who(data, t, before)
        unknown = data.draw(st.sampled_from([False] * 6 + [True]), label="unknown table")
        path = f"/api/tables/{'Zz0Zz0Zz' if unknown else t.id}{endpoint}"
        length = len(before["game"]["history"])
        at = None
        if endpoint == "/replay":
            at = data.draw(st.one_of(st.sampled_from(["0", str(length // 2), str(length), str(length + 1)]),
                                     st.sampled_from(ODD_NUMBERS)), label="at")
            path += f"?at={quote(at, safe='')}"
        status, code, body = self.call("GET", path, token=self.token(t, who), how=how, what=f"{t.spec.name}: {who} GET {path}")
        bad_at = at is not None and not (at.isascii() and at.isdigit() and int(at) <= length)
        # A bad ?at= may be found before or after the caller is known.
        allowed = {"bad_request"} if bad_at else set()
        if code in NOT_ANSWERED:
            pass
        elif unknown:
            expect(code in allowed | {"not_found"}, f"{t.spec.name}: {who} read an unknown table: {status} {code}")
        elif who in STRANGERS:
            expect(code in allowed | {refusal(who)}, f"{t.spec.name}: {who} read {path}: {status} {code}")
        elif at is not None and bad_at:
            # A history that may have grown meanwhile may be long enough by now.
            if at.isascii() and at.isdigit() and not self.settled(t, before):
                allowed.add("ok")
            expect((code or "ok") in allowed, f"{t.spec.name}: replay ?at={at!r} answered {status} {code}")
        else:
            expect(code is None, f"{t.spec.name}: {who} cannot read {path}: {status} {code}")
            if endpoint == "":
                check_state(body, t.spec.players, int(who[4:]) if who.startswith("seat") else None, path)
            elif endpoint.startswith("/record"):
                try:
                    Game.from_record(body)
                except ValueError as e:
                    raise Broken(f"{t.spec.name}: {endpoint} does not read back: {e}\n{body}") from None
            elif endpoint == "/replay" and at is not None:
                # History only grows: its first entries are the ones the spectator saw.
                expect(body["at"] == int(at) and body["length"] >= length
                       and body["history"] == before["game"]["history"][:int(at)],
                       f"{t.spec.name}: replay at {at} shows {body}, history {before['game']['history']}")
        self.check_table(t)

    @rule(data=st.data(), table=TABLES, name=NAMES, where=st.sampled_from(["seat", "seat", "new table"]))
    def name(self, data: st.DataObject, table: int, name: str, where: str) -> None:
        """A name for a seat, or for the creator of a new table: valid, or not."""
        try:
            valid: str | None = check_name(name)
        except ValueError:
            valid = None
        body = json.dumps({"name": name} if where == "seat" else {"players": 2, "name": name},
                          ensure_ascii=data.draw(st.booleans(), label="ASCII JSON")).encode("utf-8", "surrogatepass")
        if where == "new table":
            what = f"create a table named {name!r}"
            status, code, made = self.call("POST", "/api/tables", body=body, what=what)
            if code not in NOT_ANSWERED:
                expect((code is None) == (valid is not None), f"{what}: answered {status} {code}")
            if code is None:
                expect(made["state"]["seats"][0]["name"] == valid, f"{what}: named {made['state']['seats'][0]['name']!r}")
                status, code, text = self.call("GET", f"/api/tables/{made['id']}/record.txt", token=made["token"])
                expect(status == 200 and load(text).tags.get("White") == valid, f"{what}: record {status} {code} {text!r}")
            return
        t = self.tables[table]
        before = self.read_state(t)
        who = self.draw_who(data, t, before)
        what = f"{t.spec.name}: {who} renames to {name!r}"
        status, code, answer = self.call("POST", f"/api/tables/{t.id}/name", token=self.token(t, who), body=body, what=what)
        if code in NOT_ANSWERED:
            self.refused_changes_nothing(t, before, what)
        elif not who.startswith("seat"):
            allowed = {"forbidden" if who == "spectator" else refusal(who)} | ({"bad_request"} if valid is None else set())
            expect(code in allowed, f"{what}: answered {status} {code}")
            self.refused_changes_nothing(t, before, what)
        elif valid is None:
            expect(code == "bad_request", f"{what}: a name the rule refuses answered {status} {code}")
            self.refused_changes_nothing(t, before, what)
        else:
            seat = int(who[4:])
            expect(code is None, f"{what}: a valid name refused with {code}")
            check_state(answer, t.spec.players, seat, what)
            expect(answer["seats"][seat]["name"] == valid, f"{what}: the seat is named {answer['seats'][seat]['name']!r}")
        self.check_table(t, text=True)

    @rule(data=st.data(), table=TABLES,
          since=st.one_of(st.none(), st.sampled_from(ODD_NUMBERS), st.sampled_from(["back", "now", "ahead"])))
    def connect(self, data: st.DataObject, table: int, since: str | None) -> None:
        """Open (or reopen, or close) a socket, with ``since`` of any shape; strangers are refused."""
        t = self.tables[table]
        before = self.read_state(t)
        who = self.draw_who(data, t, before)
        close_only = data.draw(st.sampled_from([False, False, True]), label="close only")
        old = t.wires.pop(who, None)
        if old is not None:
            old.close()
            if close_only:
                self.check_table(t)
                return
        since = {"back": str(max(before["version"] - 3, 0)), "now": str(before["version"]),
                 "ahead": str(before["version"] + 2)}.get(since or "", since)
        url_token = data.draw(st.booleans(), label="token in the URL") and who.startswith("seat")
        if who in STRANGERS or (url_token and not PROTOCOL.token_in_url):
            self.refused_socket(t, who, since, url_token=url_token)
        else:
            opened = self.wire(t, who, since, url_token=url_token)
            if isinstance(opened, Wire):
                t.wires[who] = opened
            else:
                expect(opened[0] in NOT_ANSWERED, f"{t.spec.name}: {who}'s socket (since={since!r}) refused with {opened}")
        self.check_table(t)

    # -- the lobby and rated games, by people with accounts ---------------------------------

    @rule(creator=st.sampled_from(("flooder",) * 3 + CREATORS[1:]), count=st.sampled_from([1, 2, 5, 10]))
    def open_in_the_lobby(self, creator: str, count: int) -> None:
        """A creator opens tables in the lobby: the flooder ``count`` at once, past its cap
        too; the others one."""
        self.people.open_lobby_tables(creator, count if creator == "flooder" else 1)

    @rule(pick=st.integers(0, 2**16), how=st.sampled_from(["take", "take", "cancel"]),
          taker=st.sampled_from(CREATORS + DUELLISTS))
    def leave_the_lobby(self, pick: int, how: str, taker: str) -> None:
        """An open table leaves the lobby: another account takes its free seat and the game
        starts, or its creator cancels it."""
        people = self.people
        creators = sorted(c for c, ids in people.open.items() if ids)
        if not creators:
            return
        creator = creators[pick % len(creators)]
        ids = people.open[creator]
        table_id = ids[pick // len(creators) % len(ids)]
        if how == "take":
            who = taker if taker != creator else DUELLISTS[0]
            status, code, body = people.post(who, f"/api/lobby/tables/{table_id}/take", {})
            want = "playing"
        else:
            who = creator
            status, code, body = people.post(who, f"/api/lobby/tables/{table_id}/cancel")
            want = "cancelled"
        if code in NOT_ANSWERED:
            self.limited = True
            return
        expect(code is None and body["state"]["status"] == want,
               f"{who}: {how} {creator}'s open table: {status} {code} {str(body)[:300]}")
        ids.remove(table_id)
        people.lobby_lists_every_creator(f"after {who}'s {how} of {creator}'s table")

    @rule(host=st.sampled_from(DUELLISTS), turns=st.integers(0, 2 * MIN_RATED_TURNS),
          ending=st.sampled_from(DUEL_ENDINGS), seed=st.integers(0, 2**16))
    def play_a_rated_duel(self, host: str, turns: int, ending: str, seed: int) -> None:
        """A rated duel, aborted or counted (:meth:`People.duel`)."""
        self.people.duel(host, turns, ending, seed)

    def refused_socket(self, t: Table, who: str, since: str | None, *, url_token: bool = False) -> None:
        """A socket the server must refuse: a stranger's, or one with its token in the URL."""
        refused = self.wire(t, who, since, url_token=url_token)
        want = "auth_required" if url_token else refusal(who)
        expect(not isinstance(refused, Wire), f"{t.spec.name}: a socket opened for {who} (token in the URL: {url_token})")
        assert not isinstance(refused, Wire)
        self.note(refused[0])
        expect(refused[0] in {want} | NOT_ANSWERED, f"{t.spec.name}: {who}'s socket refused with {refused}, not {want}")


# -- the tests ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzServe]:
    where = tmp_path_factory.mktemp("fuzz")
    server = FuzzServe(f"sqlite:///{where / 'omega.sqlite3'}", args=("--access-log", "--ai-workers", "2"),
                       clock_file=where / "clock")
    try:
        server.ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fuzz_people(fuzz_server: FuzzServe) -> Iterator[People]:
    people = People.register(fuzz_server)
    try:
        yield people
    finally:
        people.close()


def run_machine(people: People, profile: settings) -> None:
    server = FuzzTables.server = people.server
    FuzzTables.people = people
    try:
        run_state_machine_as_test(FuzzTables, settings=profile)
    except BaseException as e:
        # A dead server fails every replay of the sequence that killed it differently (and
        # Hypothesis then complains of flaky data): say what it was sent before it died.
        if not server.alive():
            raise Broken(server.death) from e
        raise


def test_the_contract_is_read_from_the_api_document() -> None:
    assert CONTRACT.statuses["bad_request"] == 400 and CONTRACT.statuses["conflict"] == 409
    assert {4401, 4403, 4404, 1009} <= CONTRACT.close_codes and 1006 not in CONTRACT.close_codes


@pytest.mark.slow
def test_the_server_survives_fuzzing(fuzz_people: People) -> None:
    if FUZZ_SECONDS > 0:
        fuzz_for(fuzz_people, FUZZ_SECONDS)
        return
    start = STATS.steps, STATS.limited
    run_machine(fuzz_people, SHORT)
    steps, limited = STATS.steps - start[0], STATS.limited - start[1]
    print(f"\nfuzz: {STATS.line()}; {fuzz_people.line()}")
    # A fuzzer that only hears "slow down" tests nothing.
    assert steps > 0 and limited <= steps / 2, STATS.line()
    after_the_runs(fuzz_people)


def after_the_runs(people: People) -> None:
    """What must hold once the runs are over.  After one more flood, the lobby's first page
    shows a table of every creator with one open.  No table whose rated game ended aborted
    has a rating change or a place among the rated games, each is stored as not counted
    (``aborted``), and every rating counts as many games as it has changes (so nothing
    moved a rating without one).  And the server's whole log, start-up and the last steps
    included, holds no traceback and no ERROR record."""
    server, db = people.server, people.server.db
    expect(server.alive(), str(server.death))
    # The runs may have emptied the lobby: fill it once more, checking it as it fills.
    people.flood()
    expect(people.aborted, f"the runs made nothing to check: {people.line()}")
    rated = {t for (t,) in rows(db, "SELECT table_id FROM rated_games")}
    changed = {t for (t,) in rows(db, "SELECT table_id FROM rating_changes")}
    expect(not (rated | changed) & set(people.aborted),
           f"aborted games rated: {sorted(rated & set(people.aborted))}, "
           f"with rating changes: {sorted(changed & set(people.aborted))}")
    unrated = dict(rows(db, "SELECT table_id, reason FROM unrated_games"))
    untold = {t: unrated.get(t) for t in people.aborted if unrated.get(t) != "aborted"}
    expect(not untold, f"aborted games not stored as not counted, aborted: {untold}")
    moved = [r for r in rows(db, "SELECT r.user_id, r.players, r.games, (SELECT count(*) FROM rating_changes c "
                                 "WHERE c.user_id = r.user_id AND c.players = r.players) FROM ratings r")
             if r[2] != r[3]]
    expect(not moved, f"ratings whose games differ from their changes (user, players, games, changes): {moved}")
    # The log is read as it is written: once a request made now has its line, every line
    # logged before it is in.
    mark = secrets.token_hex(8)
    httpx.get(f"{server.url}/?end-of-runs={mark}", timeout=30)
    server.wait_for_line(lambda line: mark in line)
    faults = log_faults(server.log)
    expect(not faults, f"the server's log holds errors:\n{faults}")


def fuzz_for(people: People, seconds: float) -> None:
    """Run the machine in batches until ``seconds`` have passed (a batch started in time is
    finished); print each failure with its sequence as it is found, then the counts.  Fails
    if anything failed."""
    started = time.monotonic()
    failures: list[str] = []
    batches = 0
    server = people.server
    while time.monotonic() - started < seconds and server.alive():
        batches += 1
        try:
            run_machine(people, LONG_BATCH)
        except Exception as e:
            failures.append(first_line(e))
            print(f"\n--- failure {len(failures)} (batch {batches}) ---", flush=True)
            traceback.print_exception(e, file=sys.stdout)
        print(f"fuzz: batch {batches} done at {time.monotonic() - started:.0f} s: {STATS.line()}", flush=True)
    bar = "=" * 78
    kinds = Counter(failures)
    print(f"\n{bar}\nFUZZ SUMMARY after {time.monotonic() - started:.0f} s: {STATS.line()}; {people.line()}\n"
          f"FAILURES: {len(failures)}" + "".join(f"\n  {n} x {k}" for k, n in kinds.most_common())
          + ("" if server.alive() else "\nTHE SERVER PROCESS DIED") + f"\n{bar}", flush=True)
    assert not failures and server.alive(), f"{len(failures)} failures; their sequences are printed above"
    after_the_runs(people)


def first_line(e: BaseException) -> str:
    """What a failure says, without the numbers that differ from one finding to the next."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    text = re.sub(r"\b(?:{})\b".format("|".join(s.name for s in SPECS)), "<table>", text)
    return re.sub(r"\d+", "N", f"{type(e).__name__}: {text}")[:160]

"""Protocol omega.v2: events carry the state's changes.  The changes rebuild every state,
in Python and in the page's own patch.js, and a socket speaking omega.v2 holds, after every
event, the state an omega.v1 socket is sent whole."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from omega.server.infra.patch import PatchError, apply, diff

from .server_helpers import ROOT, Api, LiveServer, Socket, random_turn

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "~/", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["x", "y", "a/b", "c~d", "-", "0"]),
                                                                 inner, max_size=4),
    max_leaves=12)


@given(json_values, json_values)
@settings(max_examples=300, deadline=None)
def test_the_changes_between_two_values_rebuild_the_second(old: Any, new: Any) -> None:
    before = json.loads(json.dumps(old))
    assert apply(old, diff(old, new)) == new
    assert old == before  # neither call changed the value it was given


def test_changes_that_do_not_fit_are_refused() -> None:
    for value, ops in [({"a": 1}, [["replace", "/b", 1]]), ([1], [["add", "/5", 1]]), ({"a": 1}, [["copy", "/a"]]),
                       ({"a": 1}, [["remove", "/a", 1]]), (3, [["add", "/a", 1]]), ({"a": [1]}, [["remove", "/a/x"]])]:
        try:
            apply(value, ops)
        except PatchError:
            continue
        raise AssertionError(f"{ops} applied to {value}")


def _game_states(seed: int) -> list[dict[str, Any]]:
    """Every table state of a random 3-player game, as a spectator is sent them (omega.v1)."""
    from omega.server.clock import FakeClock
    from omega.server.tables.actions import TurnAction
    from omega.server.tables.decide import decide
    from omega.server.tables.events import Event, Joined
    from omega.server.tables.state import SeatConfig, TableConfig, TableState

    config = TableConfig("t", 3, 4, False, "2026-12-01T00:00:00Z", (SeatConfig("human"),) * 3)
    state, clock, rng = TableState(config), FakeClock(), random.Random(seed)
    out = [state.view(viewer=False)]
    for seat in range(3):
        state.apply(Event(Joined(seat), at=clock.now(), version=state.version + 1))
        out.append(state.view(viewer=False))
    while not state.over:
        for e in decide(state, state.to_move_seat(), TurnAction(tuple(rng.sample(state.game.empty_cells(), 3))),
                        clock.now()).events:
            state.apply(e.with_version(state.version + 1))
            out.append(state.view(viewer=False))
    return out


def test_the_page_applies_the_servers_changes_to_the_same_states(tmp_path: Path) -> None:
    # The server's diff, the page's patch.js (run by Node): every state of a game rebuilt.
    states = _game_states(3)
    steps = [{"before": a, "changes": diff(a, b), "after": b} for a, b in itertools.pairwise(states)]
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    script = tmp_path / "check.mjs"
    script.write_text(
        f'import {{ readFileSync }} from "node:fs";\n'
        f'import {{ isDeepStrictEqual }} from "node:util";\n'
        f'import {{ applyChanges }} from "{(ROOT / "src/omega/web/js/patch.js").as_uri()}";\n'
        f'const steps = JSON.parse(readFileSync("{tmp_path / "steps.json"}", "utf8"));\n'
        'let bad = 0;\n'
        'for (const s of steps) if (!isDeepStrictEqual(applyChanges(s.before, s.changes), s.after)) bad += 1;\n'
        'console.log(`${steps.length} ${bad}`);\n')
    node = shutil.which("node")
    assert node is not None, "Node runs the page's tests (make test installs it)"
    out = subprocess.run([node, str(script)], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(len(steps)), "0"] and len(steps) > 10
    # And the changes are small: a turn's are a fraction of the state they change.
    turn = steps[-2]
    assert len(json.dumps(turn["changes"])) < len(json.dumps(turn["after"])) / 2


def _events_up_to(sock: Socket, final: int) -> list[dict[str, Any]]:
    """The events ``sock`` receives up to version ``final``."""
    events: list[dict[str, Any]] = []
    while not events or events[-1]["version"] < final:
        m = sock.recv()
        if m["type"] == "event":
            events.append(m)
    return events


def test_a_v2_socket_holds_what_a_v1_socket_is_sent(server: LiveServer, api: Api) -> None:
    t = api.create(players=2)
    tid, tokens = t["id"], [t["invites"]["0"], t["invites"]["1"]]
    whole = Socket(server.ws_url, tid, t["spectator_key"], protocol="omega.v1")
    changes = Socket(server.ws_url, tid, t["spectator_key"])
    rng = random.Random(5)
    try:
        assert whole.conn.subprotocol == "omega.v1" and changes.conn.subprotocol == "omega.v2"
        assert whole.recv()["type"] == "sync" and changes.recv()["type"] == "sync"
        # The second player arrives (a join) and names the seat, then the game is played out.
        r = api.http.post(f"/api/tables/{tid}/name", json={"name": "Bo"},
                          headers={"authorization": f"Bearer {tokens[1]}"})
        assert r.status_code == 200, r.text
        state = api.state(tid, tokens[1])
        while state["status"] == "playing":
            state = api.turn(tid, tokens[state["game"]["current_seat"]], random_turn(state, rng))["state"]
        final = state["version"]
        sent, held = _events_up_to(whole, final), _events_up_to(changes, final)
    finally:
        whole.close()
        changes.close()
    assert [m["version"] for m in held] == [m["version"] for m in sent] and len(sent) > 20
    for v1, v2 in zip(sent, held, strict=True):
        assert "changes" in v2 and "changes" not in v1
        # Socket added to each omega.v2 event the state it holds after applying its changes.
        assert v2["state"] == v1["state"], v1["version"]

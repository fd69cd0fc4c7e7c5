"""``omega match`` and :mod:`omega.arena`: seat rotation, reproducible seeds, statistics,
and the command line's JSON and errors."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from omega import Color, Game
from omega.ai import make_bot
from omega.ai.base import register, unregister
from omega.arena import (
    GameJob,
    elo_from_rate,
    elo_interval,
    run_match,
    seat_of_a,
    seeded_spec,
    wilson_interval,
)
from omega.cli import main
from omega.game import Action
from omega.record import parse_record

OMEGA = [sys.executable, "-m", "omega.cli"]


def omega(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*OMEGA, *args], capture_output=True, text=True, timeout=timeout)


# -- seats ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_bot_takes_each_colour_equally_often(players: int) -> None:
    games = 3 * players
    match = run_match("random", "random", games=games, size=3, players=players, seed=4, jobs=1)
    assert match.games == games
    assert match.by_color == {
        Color(c).label: {"games": 3, "a_wins": match.by_color[Color(c).label]["a_wins"]}
        for c in range(players)
    }
    assert [r.a_seat for r in match.results] == [i % players for i in range(games)]
    assert [r.a_color for r in match.results] == [Color(i % players).label for i in range(games)]
    # BOT_B holds every other seat: each colour is BOT_B's in (players - 1) of every players games.
    b_colours = Counter(Color(seat).label for r in match.results for seat in range(players) if seat != r.a_seat)
    assert b_colours == {Color(c).label: 3 * (players - 1) for c in range(players)}


def test_bot_a_really_plays_its_seat(tmp_path: Path) -> None:
    # Two distinguishable specs; replaying each seat's (seeded) bot must reproduce the record.
    spec_a, spec_b = "random:seed=1", "random:seed=2"
    run_match(spec_a, spec_b, games=6, size=3, players=3, seed=9, jobs=1, record_dir=tmp_path)
    files = sorted(tmp_path.glob("game-*.txt"))
    assert [f.name for f in files] == [f"game-{i:05d}.txt" for i in range(1, 7)]
    for index, path in enumerate(files):
        record = parse_record(path.read_text())
        job = GameJob(index, spec_a, spec_b, size=3, players=3, pie=False, seed=9)
        assert record.tags["BotA"] == Color(seat_of_a(index, 3)).label
        bots = [make_bot(job.spec_for_seat(seat)) for seat in range(3)]
        assert record.tags[Color(job.a_seat).label] == seeded_spec(spec_a, int(bots[job.a_seat].name.split("=")[1]))
        replay = Game(players=3, size=3)
        for action in record.game.history:
            seat = replay.current_player
            assert seat is not None
            assert bots[seat].choose(replay.copy()) == action
            replay.apply(action)
        assert replay.is_over and "Result" in record.tags


def test_seeded_spec_keeps_other_options() -> None:
    assert seeded_spec("random", 7) == "random:seed=7"
    assert seeded_spec("MCTS:iterations=50:seed=1", 2) == "mcts:iterations=50,seed=2"


# -- reproducibility -----------------------------------------------------------------------


def _outcomes(**kwargs: Any) -> list[tuple[object, ...]]:
    match = run_match("random", "random:seed=3", **kwargs)
    return [(r.index, r.a_won, r.winner, r.scores, r.turns, r.margin) for r in match.results]


def test_same_seed_same_games_whatever_the_jobs(tmp_path: Path) -> None:
    common = {"games": 8, "size": 4, "players": 2, "seed": 5}
    serial = _outcomes(**common, jobs=1, record_dir=tmp_path / "serial")
    parallel = _outcomes(**common, jobs=2, record_dir=tmp_path / "parallel")
    assert serial == parallel
    for i in range(1, 9):
        name = f"game-{i:05d}.txt"
        assert (tmp_path / "serial" / name).read_text() == (tmp_path / "parallel" / name).read_text()
    assert _outcomes(**{**common, "seed": 6}, jobs=1) != serial


def test_three_players_are_reproducible_in_parallel() -> None:
    common = {"games": 6, "size": 3, "players": 3, "seed": 1}
    assert _outcomes(**common, jobs=1) == _outcomes(**common, jobs=2)


# -- statistics ----------------------------------------------------------------------------


def test_elo_of_plain_rates() -> None:
    assert elo_from_rate(0.5, 100) == 0.0
    # 75%: the odds are 3 to 1, so 400 * log10(3) = 190.8485...
    assert elo_from_rate(0.75, 100) == pytest.approx(190.8485, abs=1e-4)
    # 60%: odds 1.5, 400 * log10(1.5) = 70.4365...
    assert elo_from_rate(0.6, 100) == pytest.approx(70.4365, abs=1e-4)
    assert elo_from_rate(0.4, 100) == pytest.approx(-70.4365, abs=1e-4)


def test_elo_of_a_clean_sweep_is_finite_and_grows_with_the_games() -> None:
    # 10-0 counts as 10.5 wins out of 11: odds 21, 400 * log10(21) = 528.89.
    assert elo_from_rate(1.0, 10) == pytest.approx(528.8877, abs=1e-4)
    assert elo_from_rate(0.0, 10) == pytest.approx(-528.8877, abs=1e-4)
    # 100-0: odds 201, 400 * log10(201) = 921.28.
    assert elo_from_rate(1.0, 100) == pytest.approx(921.2784, abs=1e-4)
    # A sweep always rates above n - 1 wins out of n.
    for n in (1, 2, 5, 10, 50):
        assert elo_from_rate(1.0, n) > elo_from_rate((n - 1) / n, n)
        assert math.isfinite(elo_from_rate(1.0, n))


def test_wilson_interval_by_hand() -> None:
    # 60 wins of 100, z = 1.96: centre = (0.6 + 1.96^2/200) / (1 + 1.96^2/100) = 0.619208/1.038415
    # = 0.596303; half = 1.96 * sqrt(0.24/100 + 1.96^2/40000) / 1.038415 = 0.094302.
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.502001, abs=1e-5)
    assert high == pytest.approx(0.690604, abs=1e-5)
    # 0 of 10: centre = half = (1.96^2/20) / (1 + 1.96^2/10) = 0.192073/1.384146 = 0.138767.
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.277535, abs=1e-5)
    assert wilson_interval(10, 10) == pytest.approx((1 - 0.277535, 1.0), abs=1e-5)


def test_elo_interval_maps_the_wilson_ends() -> None:
    low, high = elo_interval(60, 100)
    # -400 * log10(1/0.502001 - 1) = 1.39; -400 * log10(1/0.690604 - 1) = 139.48.
    assert low == pytest.approx(1.390, abs=1e-2)
    assert high == pytest.approx(139.48, abs=1e-2)
    assert elo_interval(40, 100) == pytest.approx((-139.48, -1.390), abs=1e-2)
    # A sweep: the low end comes from Wilson (0.722465 -> 166.20), the open end is the
    # sweep's own finite estimate.
    low, high = elo_interval(10, 10)
    assert low == pytest.approx(166.20, abs=1e-2)
    assert high == pytest.approx(elo_from_rate(1.0, 10))
    assert low < elo_from_rate(0.9, 10) < high


def test_match_result_fields() -> None:
    match = run_match("random", "random", games=10, size=3, seed=2, jobs=1)
    wins = match.wins
    assert wins["a"] + wins["b"] == 10
    assert match.score_rate == wins["a"] / 10
    assert match.elo_diff == pytest.approx(elo_from_rate(wins["a"] / 10, 10))
    assert match.elo_ci == pytest.approx(elo_interval(wins["a"], 10))
    data = match.to_json()
    assert data["margin"]["mean"] == pytest.approx(sum(r.margin for r in match.results) / 10)
    assert data["turns_per_game"] == 8  # side 3 (19 cells) with 2 players: 4 rounds
    for r in match.results:
        a_score = r.scores[r.a_color]
        other = max(s for c, s in r.scores.items() if c != r.a_color)
        assert r.margin == a_score - other
        assert r.a_won == (r.winner == r.a_color)


# -- bots that misbehave -------------------------------------------------------------------


class _Cheater:
    """Plays the first cell of the board for every colour: illegal from the start."""

    name = "cheater"

    def choose(self, game: Game) -> Action:
        return tuple([game.cells[0]] * game.players)


def test_an_illegal_action_names_the_bot() -> None:
    register("test-cheater")(lambda options: _Cheater())
    try:
        with pytest.raises(RuntimeError, match=r"game 0: bot 'test-cheater' played an illegal action"):
            run_match("test-cheater", "random", games=2, size=3, jobs=1)
    finally:
        unregister("test-cheater")


def test_library_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="BOT_A: unknown bot 'nobot'"):
        run_match("nobot", "random", games=2)
    with pytest.raises(ValueError, match="pie rule is a 2-player option"):
        run_match("random", "random", games=2, players=3, pie=True)
    with pytest.raises(ValueError, match="games must be at least 1"):
        run_match("random", "random", games=0)


# -- command line --------------------------------------------------------------------------


def test_cli_json_two_players() -> None:
    done = omega("match", "random", "random:seed=4", "--games", "6", "--size", "3", "--seed", "7",
                 "--jobs", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    data = json.loads(done.stdout)
    assert set(data) >= {"games", "wins", "score_rate", "elo_diff", "elo_ci", "by_color", "margin",
                         "seconds", "turns_per_game", "bot_a", "bot_b", "score_rate_ci"}
    assert data["games"] == 6
    assert set(data["wins"]) == {"a", "b"}
    assert data["wins"]["a"] + data["wins"]["b"] == 6
    assert data["score_rate"] == data["wins"]["a"] / 6
    assert data["bot_a"] == "random" and data["bot_b"] == "random:seed=4"
    assert isinstance(data["elo_diff"], float)
    low, high = data["elo_ci"]
    assert low <= data["elo_diff"] <= high
    assert data["by_color"]["White"]["games"] == data["by_color"]["Black"]["games"] == 3
    assert "swaps" not in data
    # The same command gives the same games with another --jobs.
    again = omega("match", "random", "random:seed=4", "--games", "6", "--size", "3", "--seed", "7",
                  "--jobs", "1", "--json")
    other = json.loads(again.stdout)
    for key in ("wins", "by_color", "margin", "turns_per_game", "elo_diff"):
        assert other[key] == data[key], key


def test_cli_json_four_players_with_pie_off_and_three_with_records(tmp_path: Path) -> None:
    done = omega("match", "random", "random", "--games", "4", "--size", "3", "--players", "4", "--json")
    data = json.loads(done.stdout)
    assert data["games"] == 4 and data["players"] == 4
    assert data["elo_diff"] is None and data["elo_ci"] is None
    assert data["expected_rate"] == 0.25
    assert {c: v["games"] for c, v in data["by_color"].items()} == {"White": 1, "Black": 1, "Red": 1, "Blue": 1}
    records = tmp_path / "records"
    done = omega("match", "random", "random", "--games", "3", "--size", "3", "--players", "3",
                 "--record-dir", str(records))
    assert done.returncode == 0, done.stderr
    assert sorted(f.name for f in records.iterdir()) == [
        "game-00001.txt", "game-00002.txt", "game-00003.txt", "match.json",
    ]
    summary = json.loads((records / "match.json").read_text())
    assert summary["games"] == 3 and summary["players"] == 3
    a_wins = 0
    for i in (1, 2, 3):
        record = parse_record((records / f"game-{i:05d}.txt").read_text())
        assert record.game.winner is not None
        a_wins += record.tags["BotA"] == record.game.winner.label  # no pie: BotA's colour is its seat's
    assert summary["wins"]["a"] == a_wins
    assert "A = random    B = random" in done.stdout
    assert "Elo" not in done.stdout  # no Elo with 3 players


def test_cli_pie_reports_swaps() -> None:
    data = json.loads(omega("match", "random", "random", "--games", "2", "--size", "3", "--pie", "--json").stdout)
    assert data["pie"] is True
    assert data["swaps"] == {"a": 0, "b": 0}  # the random bot never swaps


def test_cli_table() -> None:
    done = omega("match", "random", "random", "--games", "4", "--size", "3", "--jobs", "1")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "A = random    B = random"
    assert lines[1] == "4 games, 2 players, size 3, seed 0"
    assert any(line.startswith("White") and line.split()[1] == "2" for line in lines)
    assert any(line.startswith("Elo A - B: ") for line in lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobot", "random"], "omega match: BOT_A: unknown bot 'nobot'; choose one of "),
        (["random", "random:depth=2"], "omega match: BOT_B: bot 'random' has no option depth"),
        (["random", "random:seed"], "omega match: BOT_B: bot option 'seed' in 'random:seed' must look like key=value"),
        (["random", "random", "--players", "5"], "omega match: argument --players: players must be from 2 to 4, got 5"),
        (["random", "random", "--players", "3", "--pie"], "omega match: the pie rule is a 2-player option"),
        (["random", "random", "--games", "0"], "omega match: argument --games: '0' must be at least 1"),
        (["random", "random", "--size", "14"], "omega match: argument --size: size must be from 2 to 13, got 14"),
        (["random"], "omega match: the following arguments are required: BOT_B"),
    ],
)
def test_cli_bad_arguments_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # In-process through omega.cli.main (the subprocess path is checked just below).
    assert main(["match", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_cli_bad_spec_exits_2_in_a_real_process() -> None:
    done = omega("match", "random", "nobot", "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("omega match: BOT_B: unknown bot 'nobot'; choose one of ")
    assert done.stderr.count("\n") == 1


def test_cli_bad_record_dir_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = omega("match", "random", "random", "--games", "1", "--record-dir", str(blocker / "sub"))
    assert done.returncode == 2
    assert done.stderr.startswith("omega match: cannot use --record-dir ")
    assert done.stderr.count("\n") == 1


def test_progress_bar_only_on_a_terminal() -> None:
    args = ["match", "random", "random", "--games", "3", "--size", "3", "--jobs", "1"]
    assert omega(*args).stderr == ""  # a pipe: no progress bar
    controller, terminal = os.openpty()
    try:
        done = subprocess.run([*OMEGA, *args], stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=60)
        os.close(terminal)
        terminal = -1
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal side is closed: everything has been read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
        if terminal != -1:
            os.close(terminal)
    assert done.returncode == 0
    text = shown.decode()
    assert "\r[" in text
    assert "3/3 games" in text
    assert "#" * 30 in text  # a full bar at the end


def test_a_search_bot_from_the_registry_beats_random_in_worker_processes() -> None:
    # greedy comes from the bot registry like any spec; its workers load it by name.
    match = run_match("greedy", "random", games=8, size=4, seed=3, jobs=2)
    assert match.games == 8
    assert match.wins["a"] >= 6, match.to_json()
    assert match.by_color["White"]["games"] == match.by_color["Black"]["games"] == 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_equal_bots_score_one_nth(players: int) -> None:
    # BOT_B holds players - 1 seats, so equal bots give BOT_A about 1/N of the wins (not 1/2).
    games = 240 * players
    match = run_match("random", "random", games=games, size=4, players=players, seed=11, jobs=2)
    # A 99.9% interval (z = 3.29): a fixed seed, but not one picked to pass at 95%.
    low, high = wilson_interval(match.wins["a"], games, z=3.29)
    assert low < 1 / players < high
    if players > 2:
        assert high < 1 / 2


class _Swapper:
    """Swaps whenever the pie rule allows it, else plays the first empty cells."""

    name = "swapper"

    def choose(self, game: Game) -> Action:
        if game.can_swap:
            return "swap"
        return tuple(game.empty_cells()[: game.players])


def test_pie_swaps_follow_the_colour_not_the_seat() -> None:
    register("test-swapper")(lambda options: _Swapper())
    try:
        match = run_match("test-swapper", "random", games=4, size=3, seed=1, jobs=1, pie=True)
    finally:
        unregister("test-swapper")
    # Games 1 and 3: BOT_A sits in seat 1 (Black), swaps, and ends up holding White.
    assert [r.a_seat for r in match.results] == [0, 1, 0, 1]
    assert [r.swapped_by for r in match.results] == [None, "a", None, "a"]
    assert [r.a_color for r in match.results] == ["White"] * 4
    assert match.by_color == {
        "White": {"games": 4, "a_wins": match.wins["a"]},
        "Black": {"games": 0, "a_wins": 0},
    }
    assert match.to_json()["swaps"] == {"a": 2, "b": 0}
    for r in match.results:
        assert r.a_won == (r.winner == "White")

"""``omega tournament``: computer players play whole events here, and the events are fair (no
repeated pairing, colours and seats balanced); bad arguments get one line and exit status 2.

The games are real (the levels' bots on small boards, their thinking capped by ``--seconds``):
whatever they play, the checks below must hold."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

import pytest

from omega.cli import main

FAST = ["--size", "3", "--seconds", "0.01", "--jobs", "2"]


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["tournament", *args, *FAST, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    result: dict[str, Any] = json.loads(out)
    return result


def seat_counts(result: dict[str, Any]) -> dict[int, list[int]]:
    counts = {e["id"]: [0] * result["players"] for e in result["entrants"]}
    for game in result["games"]:
        for seat, x in enumerate(game["seats"]):
            counts[x][seat] += 1
    return counts


def test_a_32_player_swiss_of_levels_1_to_5_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, "--format", "swiss", "--players", "2", "--entrants", "32", "--levels", "1-5",
                      "--rounds", "5", "--seed", "1")
    entrants = result["entrants"]
    assert [(e["name"], e["level"]) for e in entrants[:6]] == [
        ("L1-1", 1), ("L2-2", 2), ("L3-3", 3), ("L4-4", 4), ("L5-5", 5), ("L1-6", 1)]
    ids = sorted(e["id"] for e in entrants)
    assert len(result["rounds"]) == 5 and len(result["games"]) == 5 * 16
    for paired in result["rounds"]:
        assert sorted(x for table in paired["tables"] for x in table) == ids and paired["byes"] == []
    # Round 1 pairs the stronger half (by level, the rating) against the weaker half.
    level = {e["id"]: e["level"] for e in entrants}
    top = set(sorted(ids, key=lambda x: (-level[x], x))[:16])
    assert all(len(top & set(table)) == 1 for table in result["rounds"][0]["tables"])
    # No pair met twice; each player's colours are 3-2 one way or the other.
    pairs = Counter(frozenset(g["seats"]) for g in result["games"])
    assert max(pairs.values()) == 1
    assert all(abs(white - black) == 1 for white, black in seat_counts(result).values())
    assert result["checks"] == {"repeated_pairings": 0, "repeated_tables": 0, "max_seat_spread": 1,
                                "max_byes": 0, "max_colour_difference": 1}
    # The standings: everyone, each game's point given once, ranks in order.
    standings = result["standings"]
    assert sorted(s["entrant"] for s in standings) == ids
    assert sum(s["points"] for s in standings) == 80 and all(s["games"] == 5 for s in standings)
    assert [s["rank"] for s in standings] == sorted(s["rank"] for s in standings)
    assert set(standings[0]["tiebreaks"]) == {"buchholz", "sonneborn_berger"}


def test_a_three_player_swiss_gives_each_seat_equally(capsys: pytest.CaptureFixture[str]) -> None:
    # 9 players, 6 rounds: three tables a round, and each player takes each seat twice.
    result = run_json(capsys, "--format", "swiss", "--players", "3", "--entrants", "9", "--levels", "1-5",
                      "--rounds", "6", "--seed", "2")
    assert len(result["games"]) == 18
    assert all(counts == [2, 2, 2] for counts in seat_counts(result).values())
    assert result["checks"]["max_seat_spread"] == 0
    assert all(s["seats"] == [2, 2, 2] and sum(s["places"]) == 6 for s in result["standings"])


def test_a_three_player_round_robin_with_a_rest_each_round(capsys: pytest.CaptureFixture[str]) -> None:
    # 7 players, two tables and one rest a round: 7 rounds, everyone rests once, meets everyone,
    # and has each seat twice in their 6 games.
    result = run_json(capsys, "--format", "round-robin", "--players", "3", "--entrants", "7", "--levels", "1-5")
    assert len(result["rounds"]) == 7
    assert Counter(x for paired in result["rounds"] for x in paired["byes"]) == Counter(range(1, 8))
    met = {frozenset(p) for g in result["games"] for p in itertools.combinations(g["seats"], 2)}
    assert len(met) == 21
    assert all(counts == [2, 2, 2] for counts in seat_counts(result).values())
    assert [s["points"] for s in result["standings"]] != [] and all(s["games"] == 6 for s in result["standings"])


def test_the_text_report_shows_each_round_and_the_standings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--format", "round-robin", "--players", "3", "--entrants", "3", "--levels", "2",
                 *FAST]) == 0
    out = capsys.readouterr().out
    assert out.count("Round ") == 3 and "places: " in out
    assert "Standings" in out and "sonneborn_berger" in out and "1-1-1" in out
    assert "largest seat spread: 0" in out


def test_an_arena_in_waves_counts_streaks(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, "--format", "arena", "--players", "2", "--entrants", "7", "--levels", "1-5",
                      "--rounds", "4")
    assert [g["round"] for g in result["games"]] == [w for w in (1, 2, 3, 4) for _ in range(3)]
    assert all(len(paired["byes"]) == 1 for paired in result["rounds"])  # one waits each wave
    # Each player's points: 1 a win, 2 a win on fire (after two wins in a row, until a loss).
    for line in result["standings"]:
        points, streak = 0, 0
        for game in result["games"]:
            if line["entrant"] in game["seats"]:
                won = game["places"][game["seats"].index(line["entrant"])] == 0
                points += (2 if streak >= 2 else 1) * won
                streak = streak + 1 if won else 0
        assert (line["points"], line["streak"], line["fire"]) == (points, streak, streak >= 2)
    assert result["standings"][0]["points"] == max(line["points"] for line in result["standings"])


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "5"], "omega tournament: argument --players: players must be from 2 to 4, got 5"),
    (["--format", "knockout"], "omega tournament: unknown tournament format 'knockout'; choose one of swiss"),
    (["--levels", "0-7", "--rounds", "3"], "omega tournament: level must be from 1 to 16, got 0"),
    (["--levels", "hard", "--rounds", "3"], "omega tournament: levels must be like 1-5, 3 or 1,3,5"),
    (["--rounds", "0"], "omega tournament: argument --rounds: '0' must be at least 1"),
    ([], "omega tournament: a Swiss needs --rounds (its rounds)"),
    (["--format", "arena"], "omega tournament: an arena needs --rounds (its waves)"),
    (["--format", "round-robin", "--rounds", "3"], "omega tournament: a round robin takes no rounds"),
    (["--players", "3", "--entrants", "2", "--rounds", "3"],
     "omega tournament: a tournament of 3-player tables needs at least 3 entrants, got 2"),
    (["--format", "round-robin", "--players", "3", "--entrants", "12"],
     "omega tournament: a round robin of 3-player tables takes 3 to 9 entrants, got 12"),
    (["--seconds", "0", "--rounds", "3"], "omega tournament: argument --seconds: '0' must be a positive number"),
    (["--seconds", "0.0001", "--rounds", "3"], "omega tournament: bot option time must be"),
    (["--pie", "--players", "3", "--rounds", "3"], "omega tournament: the pie rule is a 2-player option"),
    (["--size", "1", "--rounds", "3"], "omega tournament: argument --size: size must be from 2 to 13, got 1"),
])
def test_bad_arguments_get_one_line_and_exit_2(args: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and err.count("\n") == 1

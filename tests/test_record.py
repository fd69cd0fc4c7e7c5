"""Game records: the text format of docs/records.md, the JSON form, and every kind of bad record."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from omega import Color, Game, IllegalMove
from omega.record import from_json, load, parse_record, to_json
from omega.texts import factors_text, result_text

DOCS = Path(__file__).resolve().parent.parent / "docs"


def finished_pie_game() -> Game:
    game = Game(players=2, size=2, pie_rule=True)
    game.play(["a1", "c3"])
    game.swap()
    game.play(["c2", "b1"])
    return game


def test_text_record_of_a_finished_pie_game() -> None:
    text = finished_pie_game().record({"White": "Ann", "Black": "Bo", "Date": "2026-05-01"})
    assert text == (
        "Players: 2\n"
        "Size: 2\n"
        "Pie: yes\n"
        "White: Ann\n"
        "Black: Bo\n"
        "Date: 2026-05-01\n"
        "Result: White 1, Black 1; Black wins\n"
        "\n"
        "1. a1 c3\n"
        "2. swap\n"
        "3. c2 b1\n"
    )


def test_text_record_of_a_new_game_has_only_the_header() -> None:
    assert Game(players=4, size=7).record() == "Players: 4\nSize: 7\nPie: no\n\n"


def test_structural_tags_given_as_extra_tags_are_ignored() -> None:
    text = Game(players=3, size=5).record({"players": "4", "SIZE": "9", "Result": "Red wins", "Event": " x "})
    assert text == "Players: 3\nSize: 5\nPie: no\nEvent: x\n\n"


def test_parse_is_lenient_about_layout() -> None:
    text = (
        "# a comment line\r\n"
        "players: 3\r\n"
        "SIZE : 5\r\n"
        "\r\n"
        "White: Player #1\r\n"  # '#' inside a tag value is part of the value
        "1) E5, A1, i9   # comments after an entry are ignored\r\n"
        "\r\n"
        "e4 a2 i8\r\n"  # numbers are optional
        "3.e3,a3,i7\r\n"
    )
    record = parse_record(text)
    assert record.tags == {"White": "Player #1"}
    game = record.game
    assert (game.players, game.size, game.pie_rule) == (3, 5, False)
    assert game.history == (("e5", "a1", "i9"), ("e4", "a2", "i8"), ("e3", "a3", "i7"))


@pytest.mark.parametrize("value", ["yes", "YES", "on", "true", "no", "off", "False"])
def test_pie_values(value: str) -> None:
    game = parse_record(f"Players: 2\nSize: 5\nPie: {value}\n").game
    assert game.pie_rule is (value.lower() in ("yes", "on", "true"))


def test_result_tag_is_checked_against_the_game() -> None:
    text = finished_pie_game().record()
    assert parse_record(text).tags["Result"] == "White 1, Black 1; Black wins"
    # Free text without a winner is allowed, even before the end.
    assert parse_record("Players: 2\nSize: 5\nResult: adjourned\n\n1. e5 a1\n").tags["Result"] == "adjourned"


# -- bad records: every error names the line (and entry) and the problem -------------------

BAD_TEXT = [
    ("", r"^line 1: the record is empty"),
    ("# only a comment\n\n", r"^line 1: the record is empty"),
    ("Size: 5\n\n1. e5 a1\n", r"^line 1: the header has no Players tag"),
    ("\nPlayers: 2\n\n1. e5 a1\n", r"^line 2: the header has no Size tag"),
    ("Players: 5\nSize: 5\n", r"^line 1: Players must be a number from 2 to 4, got '5'"),
    ("Players: two\nSize: 5\n", r"^line 1: Players must be a number from 2 to 4, got 'two'"),
    ("Players: ²\nSize: 5\n", r"^line 1: Players must be a number from 2 to 4"),
    ("Players: 2\nSize: 14\n", r"^line 2: Size must be a number from 2 to 13, got '14'"),
    ("Players: 2\nSize: 5 # standard\n", r"^line 2: Size must be a number from 2 to 13, got '5 # standard'"),
    ("Players: 2\nSize: 5\nPie: maybe\n", r"^line 3: Pie must be yes or no, got 'maybe'"),
    ("Players: 3\nSize: 5\nPie: yes\n", r"^line 3: the pie rule is a 2-player option"),
    ("Players: 2\nplayers: 3\nSize: 5\n", r"^line 2: tag Players is given twice"),
    ("Players: 2\nSize: 5\n\n1. e5 a1\nEvent: late\n", r"^line 5: tag Event comes after the first entry"),
    ("Players: 2\nSize: 5\n\n1. e5 a1\n3. e4 a2\n", r"^line 5, entry 2: entries must be numbered in order, expected 2, got 3"),
    ("Players: 2\nSize: 5\n\n1. e5 x1\n", r"^line 4, entry 1: 'x1' is not a cell of the side-5 board"),
    ("Players: 2\nSize: 5\n\n1. e5 a9\n", r"^line 4, entry 1: 'a9' is not a cell of the side-5 board \(rows a-i"),
    ("Players: 2\nSize: 5\n\n1. e5 a1\n2. e4 A1\n", r"^line 5, entry 2: cell a1 is occupied by Black"),
    ("Players: 2\nSize: 5\n\n1. e5 E5\n", r"^line 4, entry 1: cell e5 is given twice in one turn"),
    ("Players: 3\nSize: 5\n\n1. e5 a1\n", r"^line 4, entry 1: a turn places 3 stones \(one per colour\), got 2 cells"),
    ("Players: 2\nSize: 5\n\n1.\n", r"^line 4, entry 1: a turn places 2 stones \(one per colour\), got 0 cells"),
    ("Players: 2\nSize: 5\n\n1. e5 a1\n2. swap\n", r"^line 5, entry 2: swap is not allowed: the pie rule is off"),
    ("Players: 2\nSize: 5\nPie: yes\n\n1. swap\n", r"^line 5, entry 1: swap is allowed only right after the first turn"),
    ("Players: 2\nSize: 5\nPie: yes\n\n1. e5 a1\n2. swap\n3. swap\n", r"^line 7, entry 3: swap is allowed only right after the first turn"),
    ("Players: 2\nSize: 2\n\n1. a1 c3\n2. c2 b1\n3. a2 b2\n", r"^line 6, entry 3: the game is over"),
    ("Players: 2\nSize: 2\nResult: White wins\n\n1. a1 c3\n2. c2 b1\n", r"^line 3: Result says White wins but Black wins"),
    ("Players: 2\nSize: 5\nResult: Black wins\n\n1. e5 a1\n", r"^line 3: Result names a winner but the game is not over"),
]


@pytest.mark.parametrize(("text", "message"), BAD_TEXT, ids=[m.split(":", 1)[-1].strip()[:40] for _, m in BAD_TEXT])
def test_bad_text_records(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_record(text)
    assert "\n" not in str(info.value)


def test_illegal_entries_raise_illegal_move() -> None:
    with pytest.raises(IllegalMove):
        Game.from_record("Players: 2\nSize: 5\n\n1. e5 e5\n")


def test_bad_tags_when_writing() -> None:
    game = Game()
    with pytest.raises(ValueError, match="tag name '1st' must be a letter followed by"):
        game.record({"1st": "x"})
    for value in ("two\nlines", "a\rb", "next\x85line", "para\u2029graph"):
        with pytest.raises(ValueError, match="tag Event must be one line of text"):
            game.record({"Event": value})


def test_parse_record_needs_text() -> None:
    with pytest.raises(ValueError, match="a record is text"):
        parse_record(b"Players: 2")  # type: ignore[arg-type]


# -- JSON -----------------------------------------------------------------------------------


def test_json_record_of_a_finished_pie_game() -> None:
    data = to_json(finished_pie_game(), {"White": "Ann"})
    assert data == {
        "format": "omega-record",
        "version": 1,
        "players": 2,
        "size": 2,
        "pie_rule": True,
        "tags": {"White": "Ann"},
        "actions": [["a1", "c3"], "swap", ["c2", "b1"]],
        "over": True,
        "scores": {"White": "1", "Black": "1"},
        "ranking": ["Black", "White"],
        "winner": "Black",
    }
    record = from_json(json.dumps(data))
    assert record.game == finished_pie_game() and record.tags == {"White": "Ann"}


def test_json_scores_are_decimal_strings_of_exact_products() -> None:
    game = Game(players=2, size=5)
    for w, b in [("a1", "i9"), ("a3", "i7"), ("a5", "i5"), ("c1", "g9")]:
        game.play([w, b])
    assert to_json(game)["scores"] == {"White": "1", "Black": "1"}
    game.play(["a2", "h8"])
    assert to_json(game)["scores"] == {"White": "3", "Black": "2"}


BASE: dict[str, Any] = {"format": "omega-record", "version": 1, "players": 2, "size": 5, "actions": []}

BAD_JSON: list[tuple[Any, str]] = [
    ("{not json", r"record JSON is not valid JSON: .*line 1 column 2"),
    ("[1, 2]", "record JSON must be an object"),
    ({**BASE, "format": "pgn"}, 'record JSON must have "format": "omega-record"'),
    ({**BASE, "version": 2}, "record JSON version 2 is not supported"),
    ({**BASE, "players": 5}, "record JSON: players must be 2, 3 or 4, got 5"),
    ({**BASE, "size": "5"}, "record JSON: board size must be an integer from 2 to 13, got '5'"),
    ({**BASE, "players": 3, "pie_rule": True}, "record JSON: the pie rule is a 2-player option"),
    ({**BASE, "tags": {"White": 7}}, "record JSON: tags must map text to text"),
    ({**BASE, "actions": "e5 a1"}, "record JSON: actions must be a list"),
    ({**BASE, "actions": [["e5", "a1"], ["e5", "b1"]]}, "record JSON, action 2: cell e5 is occupied by White"),
    ({**BASE, "actions": [["e5", "a1"], "pass"]}, r"record JSON, action 2: 'pass' is not an action"),
    ({**BASE, "actions": [["e5", "a1"], "swap"]}, "record JSON, action 2: swap is not allowed: the pie rule is off"),
    ({**BASE, "actions": [7]}, "record JSON, action 1: a turn is a list of 2 cells"),
]


@pytest.mark.parametrize(("data", "message"), BAD_JSON)
def test_bad_json_records(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_json(data)


# -- either form ----------------------------------------------------------------------------


def test_load_reads_either_form() -> None:
    game = finished_pie_game()
    text = game.record({"White": "Ann"})
    as_json = json.dumps(to_json(game, {"White": "Ann"}))
    for source in (text, as_json, "\n  " + as_json, "\ufeff" + text):
        record = load(source)
        assert record.game == game and record.tags["White"] == "Ann"
    assert Game.from_record(as_json) == game


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Players: 2\nSize: 5\n\n1. e5 e5\n", r"^line 4, entry 1: cell e5 is given twice in one turn$"),
        ("{broken", r"^record JSON is not valid JSON"),
        ('{"format": "omega-record", "version": 1, "players": 2, "size": 5, "actions": [["e5"]]}',
         r"^record JSON, action 1: a turn places 2 stones"),
        ("", r"^line 1: the record is empty"),
    ],
)
def test_load_names_the_problem_in_either_form(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load(text)


def test_load_needs_text() -> None:
    with pytest.raises(ValueError, match="a record is text"):
        load(b"{}")  # type: ignore[arg-type]


# -- helpers --------------------------------------------------------------------------------


def test_factors_and_result_text() -> None:
    game = Game(players=3, size=5)
    for turn in [("a1", "i9", "e1"), ("a2", "i8", "e3"), ("c1", "h8", "e5")]:
        game.play(list(turn))
    assert factors_text(game, Color.WHITE) == "2 x 1 = 2"
    assert factors_text(game, Color.BLACK) == "3 = 3"
    assert factors_text(game, Color.RED) == "1 x 1 x 1 = 1"
    assert factors_text(Game(), Color.WHITE) == "0"
    assert result_text(finished_pie_game()) == "White 1, Black 1; Black wins"


# -- the documentation's own example --------------------------------------------------------


def test_docs_records_example_parses_and_matches_its_result() -> None:
    doc = (DOCS / "records.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n(.*?)```", doc, flags=re.DOTALL)
    full = [b for b in blocks if b.startswith("Players:") and "Result:" in b]
    assert full, "docs/records.md shows a full record"
    record = parse_record(full[0])
    assert record.game.is_over
    assert record.game.record(record.tags) == full[0]  # the example is exactly what the engine writes
    json_blocks = re.findall(r"```json\n(.*?)```", doc, flags=re.DOTALL)
    assert json_blocks and from_json(json_blocks[0]).game == record.game


def test_byte_order_mark_is_ignored() -> None:
    record = parse_record("\ufeffPlayers: 2\nSize: 3\n\n1. a1 a2\n")
    assert record.game.history == (("a1", "a2"),)


def test_deeply_nested_json_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        from_json("[" * 100_000)

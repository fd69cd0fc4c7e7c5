"""Game records: a plain-text form people read and write, and a JSON form for programs.

The text form (documented in ``docs/records.md``) is a few ``Tag: value`` lines, a blank
line, then one numbered entry per line: the cells of a turn in colour order, or ``swap``.

>>> from omega import Game
>>> g = Game(players=2, size=5, pie_rule=True)
>>> g.play(["e5", "a1"]); g.swap()
>>> text = g.record({"White": "Ann", "Black": "Bo"})
>>> print(text)
Players: 2
Size: 5
Pie: yes
White: Ann
Black: Bo
<BLANKLINE>
1. e5 a1
2. swap
<BLANKLINE>
>>> parse_record(text).tags["White"]
'Ann'
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.board import MAX_SIZE, MIN_SIZE
from omega.game import MAX_PLAYERS, MIN_PLAYERS, SWAP, Color, Game, IllegalMove
from omega.texts import action_text, one_line, result_text

__all__ = ["Record", "load", "read_file", "RecordFileError", "format_record", "parse_record", "to_json", "from_json"]

JSON_FORMAT = "omega-record"
JSON_VERSION = 1

_STRUCTURAL = ("Players", "Size", "Pie")
_TAG_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)")
_ENTRY_RE = re.compile(r"(?:([0-9]+)\s*[.)]\s*)?(.*)")
_WINS_RE = re.compile(r"\b(white|black|red|blue)\s+wins\b", re.IGNORECASE)


@dataclass
class Record:
    """A parsed record: the game and its tags (player names, date, result, ...).

    >>> r = parse_record("Players: 2\\nSize: 5\\nEvent: club night\\n\\n1. e5 a1\\n")
    >>> r.tags, r.game.turns_played
    ({'Event': 'club night'}, 1)
    """

    game: Game
    tags: dict[str, str] = field(default_factory=dict)


def load(text: str) -> Record:
    """Read a record in either form: the JSON form's text, or the text form.

    ValueError (:class:`~omega.game.IllegalMove` for an illegal entry) saying where and why
    if it is bad.

    >>> load("Players: 2\\nSize: 5\\n\\n1. e5 a1\\n").game.stone("a1")
    <Color.BLACK: 1>
    >>> load('{"format": "omega-record", "version": 1, "players": 2, "size": 5, "actions": []}').game.size
    5
    """
    # A JSON record is an object, and a text record never starts with '{'.
    if isinstance(text, str) and text.lstrip().startswith("{"):
        return from_json(text)
    return parse_record(text)


def format_record(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The text record of ``game`` with optional extra ``tags`` (see ``docs/records.md``).

    >>> g = Game(players=3, size=4); g.play(["d4", "a1", "g7"])
    >>> print(format_record(g, {"Event": "test"}), end="")
    Players: 3
    Size: 4
    Pie: no
    Event: test
    <BLANKLINE>
    1. d4 a1 g7
    """
    lines = [f"Players: {game.players}", f"Size: {game.size}", f"Pie: {'yes' if game.pie_rule else 'no'}"]
    extra = dict(tags or {})
    for key, value in extra.items():
        _check_tag(key, value)
        if key.capitalize() in _STRUCTURAL or key.lower() == "result":
            continue  # these are derived from the game itself
        lines.append(f"{key}: {value.strip()}")  # read back stripped, so written stripped
    if game.is_over:
        lines.append(f"Result: {result_text(game)}")
    lines.append("")
    for number, action in enumerate(game.history, start=1):
        lines.append(f"{number}. {action_text(action)}")
    return "\n".join(lines) + "\n"


def _check_tag(key: str, value: str) -> None:
    if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key):
        raise ValueError(f"tag name {key!r} must be a letter followed by letters, digits, '-' or '_'")
    # str.splitlines() (used when reading) also breaks at \x0b, \x0c, \x1c-\x1e, \x85,
    # \u2028 and \u2029, so any of those would split the tag when the record is read back.
    if not isinstance(value, str) or "".join(value.splitlines()) != value:
        raise ValueError(f"tag {key} must be one line of text")


def parse_record(text: str) -> Record:
    """Parse a text record; ValueError naming the line (and turn) and the problem.

    >>> parse_record("Players: 2\\nSize: 5\\n\\n1. e5 e5\\n")
    Traceback (most recent call last):
    ...
    omega.game.IllegalMove: line 4, entry 1: cell e5 is given twice in one turn
    """
    if not isinstance(text, str):
        raise ValueError("a record is text")
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors put first
    raw_tags: dict[str, tuple[str, int]] = {}
    entries: list[tuple[int, str]] = []
    first_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # blank lines and whole-line comments may go anywhere
        first_line = first_line or number
        tag = _TAG_RE.fullmatch(line)
        if tag and not entries:
            key = tag.group(1)
            canonical = key.capitalize() if key.capitalize() in _STRUCTURAL or key.lower() == "result" else key
            if canonical in raw_tags:
                raise ValueError(f"line {number}: tag {canonical} is given twice")
            # A tag value is kept whole: '#' is an ordinary character there (a name such as
            # "Player #2" must survive a round trip), so no end-of-line comment on tag lines.
            raw_tags[canonical] = (tag.group(2).strip(), number)
            continue
        if tag:
            raise ValueError(f"line {number}: tag {tag.group(1)} comes after the first entry (tags belong in the header)")
        entries.append((number, line.split("#", 1)[0].strip()))
    if first_line == 0:
        raise ValueError("line 1: the record is empty (it needs at least 'Players: N' and 'Size: N' lines)")

    players = _int_tag(raw_tags, "Players", MIN_PLAYERS, MAX_PLAYERS, first_line)
    size = _int_tag(raw_tags, "Size", MIN_SIZE, MAX_SIZE, first_line)
    pie_value, pie_line = raw_tags.get("Pie", ("no", 0))
    if pie_value.lower() not in ("yes", "no", "on", "off", "true", "false"):
        raise ValueError(f"line {pie_line}: Pie must be yes or no, got {pie_value!r}")
    pie = pie_value.lower() in ("yes", "on", "true")
    try:
        game = Game(players=players, size=size, pie_rule=pie)
    except ValueError as e:
        raise ValueError(f"line {pie_line}: {e}") from None

    for index, (line_number, line) in enumerate(entries, start=1):
        match = _ENTRY_RE.fullmatch(line)
        assert match is not None  # the pattern accepts any text
        given, body = match.groups()
        where = f"line {line_number}, entry {index}"
        if given is not None and int(given) != index:
            raise ValueError(f"{where}: entries must be numbered in order, expected {index}, got {given}")
        words = body.replace(",", " ").split()
        try:
            if len(words) == 1 and words[0].lower() == SWAP:
                game.swap()
            else:
                game.play(words)
        except IllegalMove as e:
            raise IllegalMove(f"{where}: {e}") from None

    tags = {k: v for k, (v, _) in raw_tags.items() if k not in _STRUCTURAL}
    if "Result" in tags:
        _check_result(game, tags["Result"], raw_tags["Result"][1])
    return Record(game=game, tags=tags)


def _int_tag(tags: dict[str, tuple[str, int]], name: str, low: int, high: int, first_line: int) -> int:
    if name not in tags:
        raise ValueError(f"line {first_line}: the header has no {name} tag (it needs a '{name}: N' line)")
    value, line = tags[name]
    # ASCII digits only: str.isdigit() also accepts characters such as '²' that int() rejects.
    if not re.fullmatch(r"[0-9]{1,3}", value) or not low <= int(value) <= high:
        raise ValueError(f"line {line}: {name} must be a number from {low} to {high}, got {value!r}")
    return int(value)


def _check_result(game: Game, result: str, line: int) -> None:
    claimed = _WINS_RE.search(result)
    if claimed is None:
        return  # free text such as "adjourned" is allowed
    if not game.is_over:
        raise ValueError(f"line {line}: Result names a winner but the game is not over")
    if Color.parse(claimed.group(1)) != game.winner:
        winner = game.winner
        assert winner is not None
        raise ValueError(f"line {line}: Result says {claimed.group(0)} but {winner.label} wins")


def to_json(game: Game, tags: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The game as a JSON-ready dict; scores are decimal strings (they outgrow 2**53).

    >>> g = Game(); g.play(["e5", "a1"]); to_json(g)["actions"]
    [['e5', 'a1']]
    """
    for key, value in (tags or {}).items():
        _check_tag(key, value)
    scores = game.scores()
    return {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "players": game.players,
        "size": game.size,
        "pie_rule": game.pie_rule,
        "tags": dict(tags or {}),
        "actions": [a if a == SWAP else list(a) for a in game.history],
        "over": game.is_over,
        "scores": {c.label: str(scores[c]) for c in game.colors},
        "ranking": [c.label for c in game.ranking()],
        "winner": game.winner.label if game.winner is not None else None,
    }


def from_json(data: Mapping[str, Any] | str) -> Record:
    """Rebuild a game from :func:`to_json` output (a dict or its JSON text).

    >>> g = Game(); g.play(["e5", "a1"]); from_json(to_json(g)).game == g
    True
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise ValueError(f"record JSON is not valid JSON: {e}") from None
        except RecursionError:
            # The parser recurses per nesting level; no record nests more than three deep.
            raise ValueError("record JSON is nested too deeply") from None
    if not isinstance(data, Mapping):
        raise ValueError("record JSON must be an object")
    if data.get("format") != JSON_FORMAT:
        raise ValueError(f"record JSON must have \"format\": \"{JSON_FORMAT}\"")
    if data.get("version") != JSON_VERSION:
        raise ValueError(f"record JSON version {data.get('version')!r} is not supported (expected {JSON_VERSION})")
    try:
        game = Game(players=data.get("players"), size=data.get("size"), pie_rule=data.get("pie_rule", False))  # type: ignore[arg-type]
    except ValueError as e:
        raise ValueError(f"record JSON: {e}") from None
    tags = data.get("tags", {})
    if not isinstance(tags, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items()):
        raise ValueError("record JSON: tags must map text to text")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise ValueError("record JSON: actions must be a list")
    for index, action in enumerate(actions, start=1):
        try:
            game.apply(action)
        except IllegalMove as e:
            raise IllegalMove(f"record JSON, action {index}: {e}") from None
    return Record(game=game, tags=dict(tags))


class RecordFileError(ValueError):
    """A record file that cannot be read, or that holds no record: the message names the
    file (``standard input`` for ``-``) and the problem, in one line."""


def read_file(path: str) -> Record:
    """The record in the file ``path`` (``-``: standard input), text or JSON (see :func:`load`).

    >>> read_file("/nonexistent/game.txt")
    Traceback (most recent call last):
    ...
    omega.record.RecordFileError: cannot read /nonexistent/game.txt: No such file or directory
    """
    where = "standard input" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise RecordFileError(f"cannot read {where}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise RecordFileError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        return load(text)
    except ValueError as e:
        raise RecordFileError(f"{where}: {one_line(str(e), 'bad input')}") from None

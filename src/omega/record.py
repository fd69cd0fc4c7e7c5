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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omega.board import MAX_SIZE, MIN_SIZE
from omega.game import MAX_PLAYERS, MIN_PLAYERS, SWAP, Action, Color, Game, IllegalMove
from omega.texts import action_text, one_line, result_text

__all__ = ["Record", "load", "read_file", "RecordFileError", "format_record", "parse_record", "to_json", "from_json",
           "Variation", "VariationTree", "parse_tree", "format_tree"]

JSON_FORMAT = "omega-record"
JSON_VERSION = 1

_STRUCTURAL = ("Players", "Size", "Pie")
_TAG_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)")
_ENTRY_RE = re.compile(r"(?:([0-9]+)\s*[.)]\s*)?(.*)")
_WINS_RE = re.compile(r"\b(white|black|red|blue)\s+wins\b", re.IGNORECASE)
#: The lines that open and close a variation in a text record with variations.
_OPEN, _CLOSE = "(", ")"


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
    lines = _header(game, tags)
    for number, action in enumerate(game.history, start=1):
        lines.append(f"{number}. {action_text(action)}")
    return "\n".join(lines) + "\n"


def _header(game: Game, tags: Mapping[str, str] | None) -> list[str]:
    """The header lines of ``game``'s record (its result when over) and the blank line."""
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
    return lines


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
    raw_tags, entries, game = _read_header(text)
    for index, (line_number, line) in enumerate(entries, start=1):
        if line in (_OPEN, _CLOSE):
            raise ValueError(f"line {line_number}: this record has variations ('{line}' lines): "
                             "omega.record.parse_tree reads it")
        _play_entry(game, line, index, f"line {line_number}, entry {index}")
    tags = _free_tags(raw_tags, game)
    return Record(game=game, tags=tags)


def _read_header(text: str) -> tuple[dict[str, tuple[str, int]], list[tuple[int, str]], Game]:
    """The tags (value and line of each), the entry lines (line number and text, comments
    removed) and the empty game the header describes."""
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
    return raw_tags, entries, game


def _play_entry(game: Game, line: str, index: int, where: str) -> None:
    """Play the entry ``line`` (optionally numbered, which must be ``index``) on ``game``."""
    match = _ENTRY_RE.fullmatch(line)
    assert match is not None  # the pattern accepts any text
    given, body = match.groups()
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


def _free_tags(raw_tags: dict[str, tuple[str, int]], game: Game) -> dict[str, str]:
    """The tags besides the three structural ones; a ``Result`` naming a winner checked
    against ``game``."""
    tags = {k: v for k, (v, _) in raw_tags.items() if k not in _STRUCTURAL}
    if "Result" in tags:
        _check_result(game, tags["Result"], raw_tags["Result"][1])
    return tags


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


# -- records with variations -----------------------------------------------------------------


@dataclass(eq=False)
class Variation:
    """One position of a :class:`VariationTree`: the action that led to it from its parent
    (None at the root, the empty board) and the lines that go on from it, the main one first.

    >>> v = Variation(None); v.children.append(Variation(("e5", "a1"), v)); v.children[0].depth
    1
    """

    action: Action | None
    parent: Variation | None = field(default=None, repr=False)
    children: list[Variation] = field(default_factory=list)

    @property
    def depth(self) -> int:
        """How many entries lead here from the empty board (the entry's number)."""
        depth, node = 0, self
        while node.parent is not None:
            depth, node = depth + 1, node.parent
        return depth

    def path(self) -> list[Action]:
        """The actions from the empty board to here."""
        actions: list[Action] = []
        node: Variation | None = self
        while node is not None and node.action is not None:
            actions.append(node.action)
            node = node.parent
        return actions[::-1]

    def child(self, action: Action) -> Variation | None:
        """The line that goes on with ``action`` (in canonical form), if there is one."""
        return next((c for c in self.children if c.action == action), None)


class VariationTree:
    """A game with its variations: from the empty board of a setting (players, side, pie
    rule), a tree of entries whose first child at each position is the main line.  Written
    as a text record with variations by :func:`format_tree` (``docs/records.md``) and read
    back by :func:`parse_tree`; :meth:`nodes` and :meth:`from_nodes` give a flat form for
    programs (each entry with the index of its parent, parents first).

    >>> t = VariationTree(2, 5)
    >>> a = t.add(t.root, ["E5", "a1"]); b = t.add(t.root, ["c3", "c4"]); c = t.add(a, ["d4", "d5"])
    >>> t.nodes()
    [[0, ['e5', 'a1']], [1, ['d4', 'd5']], [0, ['c3', 'c4']]]
    >>> t.promote(b); [n.action for n in t.root.children]
    [('c3', 'c4'), ('e5', 'a1')]
    >>> t.main_line().history
    (('c3', 'c4'),)
    """

    def __init__(self, players: int = 2, size: int = 5, pie_rule: bool = False,
                 tags: Mapping[str, str] | None = None) -> None:
        Game(players=players, size=size, pie_rule=pie_rule)  # ValueError for a setting no game has
        self.players, self.size, self.pie_rule = players, size, pie_rule
        self.tags: dict[str, str] = dict(tags or {})
        self.root = Variation(None)

    @classmethod
    def of_game(cls, game: Game, tags: Mapping[str, str] | None = None) -> VariationTree:
        """The tree of one line: ``game``'s entries.

        >>> g = Game(); g.play(["e5", "a1"]); VariationTree.of_game(g).nodes()
        [[0, ['e5', 'a1']]]
        """
        tree = cls(game.players, game.size, game.pie_rule, tags)
        node = tree.root
        for action in game.history:
            node = tree._attach(node, action)
        return tree

    def new_game(self) -> Game:
        """The empty board of the tree's setting."""
        return Game(players=self.players, size=self.size, pie_rule=self.pie_rule)

    def game_at(self, node: Variation) -> Game:
        """The position at ``node``.

        >>> t = VariationTree(); t.game_at(t.add(t.root, ["e5", "a1"])).stone("e5")
        <Color.WHITE: 0>
        """
        return Game.from_history(node.path(), self.players, self.size, self.pie_rule)

    def main_line(self) -> Game:
        """The game of the main line (the first child at every position)."""
        game, node = self.new_game(), self.root
        while node.children:
            node = node.children[0]
            assert node.action is not None
            game.apply(node.action)
        return game

    def add(self, node: Variation, action: Action | Sequence[str]) -> Variation:
        """Play ``action`` at ``node``: the line that goes on with it, a new one (last of
        ``node``'s lines) unless it is there already.  :class:`IllegalMove` if it is illegal."""
        game = self.game_at(node)
        game.apply(action)
        return self._attach(node, game.history[-1])

    def _attach(self, node: Variation, action: Action) -> Variation:
        found = node.child(action)
        if found is None:
            found = Variation(action, node)
            node.children.append(found)
        return found

    def promote(self, node: Variation) -> None:
        """Make ``node``'s line the main one where it branches off (first among its parent's
        lines)."""
        if node.parent is not None:
            node.parent.children.remove(node)
            node.parent.children.insert(0, node)

    def remove(self, node: Variation) -> None:
        """Take ``node`` and every line after it out of the tree (not the root)."""
        if node.parent is not None:
            node.parent.children.remove(node)
            node.parent = None

    def walk(self) -> Iterator[Variation]:
        """Every node but the root, each before its children, the lines in order."""
        stack = list(reversed(self.root.children))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __len__(self) -> int:
        """The number of entries in the tree (every line's)."""
        return sum(1 for _ in self.walk())

    def nodes(self) -> list[list[Any]]:
        """The flat form: ``[parent, action]`` for each entry in :meth:`walk` order, where
        ``parent`` is 0 for the empty board and ``k`` for the k-th entry listed; a turn is a
        list of cells, a swap ``"swap"``."""
        index: dict[int, int] = {id(self.root): 0}
        out: list[list[Any]] = []
        for node in self.walk():
            assert node.parent is not None and node.action is not None
            out.append([index[id(node.parent)], node.action if node.action == SWAP else list(node.action)])
            index[id(node)] = len(out)
        return out

    @classmethod
    def from_nodes(cls, players: int, size: int, pie_rule: bool, nodes: Sequence[Any],
                   tags: Mapping[str, str] | None = None) -> VariationTree:
        """The tree of a flat form (:meth:`nodes`); ValueError naming the entry for a bad
        one (a parent not listed before it, an illegal action, an entry given twice).

        >>> VariationTree.from_nodes(2, 5, False, [[0, ["e5", "a1"]], [0, ["e5", "a1"]]])
        Traceback (most recent call last):
        ...
        ValueError: entry 2: this entry is already a line from its position
        >>> VariationTree.from_nodes(2, 5, False, [[2, ["e5", "a1"]]])
        Traceback (most recent call last):
        ...
        ValueError: entry 1: its parent must be 0 (the empty board) or an entry listed before it, got 2
        """
        tree = cls(players, size, pie_rule, tags)
        if not isinstance(nodes, Sequence) or isinstance(nodes, str):
            raise ValueError("the entries must be a list")
        listed: list[tuple[Variation, Game]] = [(tree.root, tree.new_game())]
        for index, item in enumerate(nodes, start=1):
            where = f"entry {index}"
            if not (isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2):
                raise ValueError(f"{where}: must be [parent, action]")
            parent, action = item
            if not (isinstance(parent, int) and not isinstance(parent, bool) and 0 <= parent < index):
                raise ValueError(f"{where}: its parent must be 0 (the empty board) or an entry listed before it, "
                                 f"got {parent!r}")
            if not (action == SWAP or (isinstance(action, Sequence) and not isinstance(action, str)
                                       and all(isinstance(c, str) for c in action))):
                raise ValueError(f"{where}: an action is a list of cells or \"swap\"")
            node, game = listed[parent]
            game = game.copy()
            try:
                game.apply(action)
            except IllegalMove as e:
                raise IllegalMove(f"{where}: {e}") from None
            if node.child(game.history[-1]) is not None:
                raise ValueError(f"{where}: this entry is already a line from its position")
            listed.append((tree._attach(node, game.history[-1]), game))
        return tree


def format_tree(tree: VariationTree) -> str:
    """The text record of ``tree`` with its variations (``docs/records.md``): the main line
    as in :func:`format_record`, each other line in parentheses after the entry it replaces.

    >>> t = VariationTree(2, 3); a = t.add(t.root, ["b2", "a1"]); _ = t.add(t.root, ["c3", "a1"])
    >>> _ = t.add(a, ["c1", "c2"])
    >>> print(format_tree(t), end="")
    Players: 2
    Size: 3
    Pie: no
    <BLANKLINE>
    1. b2 a1
    (
      1. c3 a1
    )
    2. c1 c2
    """
    lines = _header(tree.main_line(), tree.tags)
    # Each item: a node to write at an indent, or a line of text ("(" / ")") to write.
    todo: list[tuple[Variation | str, int]] = []
    if tree.root.children:
        todo.append((tree.root.children[0], 0))
    while todo:
        item, indent = todo.pop()
        if isinstance(item, str):
            lines.append("  " * indent + item)
            continue
        node = item
        assert node.action is not None and node.parent is not None
        lines.append(f"{'  ' * indent}{node.depth}. {action_text(node.action)}")
        # Pushed in reverse: the variations of this entry, then the line going on.
        after: list[tuple[Variation | str, int]] = []
        for sibling in node.parent.children[1:] if node.parent.children[0] is node else []:
            after += [(_OPEN, indent), (sibling, indent + 1), (_CLOSE, indent)]
        if node.children:
            after.append((node.children[0], indent))
        todo.extend(reversed(after))
    return "\n".join(lines) + "\n"


def parse_tree(text: str) -> VariationTree:
    """Read a text record with variations (any text record: one without has one line);
    ValueError naming the line (and entry) and the problem.

    >>> t = parse_tree("Players: 2\\nSize: 5\\n\\n1. e5 a1\\n(\\n 1. c3 c4\\n 2. d4 d5\\n)\\n2. b2 b3\\n")
    >>> len(t), [n.action for n in t.root.children]
    (4, [('e5', 'a1'), ('c3', 'c4')])
    >>> parse_tree("Players: 2\\nSize: 5\\n\\n(\\n")
    Traceback (most recent call last):
    ...
    ValueError: line 4: a variation ('(') must follow the entry it replaces
    """
    raw_tags, entries, empty = _read_header(text)
    tree = VariationTree(empty.players, empty.size, empty.pie_rule)
    # One level per open variation: the node the next entry follows, the game there, and
    # whether the level has an entry yet (a variation replaces the last one).
    levels: list[tuple[Variation, Game, bool]] = [(tree.root, empty, False)]
    last_line = 0
    for line_number, line in entries:
        last_line = line_number
        node, game, has_entry = levels[-1]
        if line == _OPEN:
            if not has_entry:
                raise ValueError(f"line {line_number}: a variation ('(') must follow the entry it replaces")
            assert node.parent is not None
            before = game.copy()
            before.undo()
            levels.append((node.parent, before, False))
            continue
        if line == _CLOSE:
            if len(levels) == 1:
                raise ValueError(f"line {line_number}: ')' closes no variation")
            if not has_entry:
                raise ValueError(f"line {line_number}: a variation needs at least one entry")
            levels.pop()
            continue
        index = node.depth + 1
        game = game.copy()
        _play_entry(game, line, index, f"line {line_number}, entry {index}")
        if len(levels) > 1 and not has_entry and node.child(game.history[-1]) is not None:
            raise ValueError(f"line {line_number}, entry {index}: this variation repeats a line already given")
        levels[-1] = (tree._attach(node, game.history[-1]), game, True)
    if len(levels) > 1:
        raise ValueError(f"line {last_line}: a variation is not closed (a ')' line is missing)")
    tree.tags = _free_tags(raw_tags, tree.main_line())
    return tree

"""The rules of Omega: turns, the pie rule, the end of the game, scores and ranking.

This module is the one readable home of the rules (see ``docs/rules.md``).  The fast
kernel used by search (``omega.kernel``) is held equal to it by differential tests.

>>> g = Game(players=2, size=5)
>>> g.play(["e5", "a1"])
>>> g.to_move, g.scores()[Color.WHITE]
(<Color.BLACK: 1>, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import IntEnum
from math import prod

from omega.board import Board
from omega.i18n import Message
from omega.i18n import translatable as _

__all__ = ["Color", "Game", "IllegalMove", "Turn", "Action", "SWAP", "MIN_PLAYERS", "MAX_PLAYERS", "check_players"]

#: The fewest and the most players (and so colours) in a game.
MIN_PLAYERS = 2
MAX_PLAYERS = 4

_LETTERS = "WBRU"  # Color.letter, in colour order
_LABELS = ("White", "Black", "Red", "Blue")  # Color.label, in colour order (read for every stone of a view)


class Color(IntEnum):
    """The four stone colours, in turn order.

    >>> Color.BLACK, Color(3).label
    (<Color.BLACK: 1>, 'Blue')
    """

    WHITE = 0
    BLACK = 1
    RED = 2
    BLUE = 3

    @property
    def label(self) -> str:
        """The colour's name as players read it: ``White``, ``Black``, ``Red``, ``Blue``."""
        return _LABELS[self]

    @property
    def letter(self) -> str:
        """The colour's one letter, for boards drawn as text (Blue is ``U``, unlike Black).

        >>> "".join(c.letter for c in Color)
        'WBRU'
        """
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Color:
        """The colour called ``text`` (case-insensitive name or its letter W/B/R/U).

        >>> Color.parse("red"), Color.parse("u")
        (<Color.RED: 2>, <Color.BLUE: 3>)
        """
        key = text.strip().upper()
        if len(key) == 1 and key in _LETTERS:
            return cls(_LETTERS.index(key))
        try:
            return cls[key]
        except KeyError:
            raise ValueError(_("{text} is not a colour (White, Black, Red or Blue)", text=repr(text))) from None


_COLORS = tuple(Color)  # Color(v) by indexing


def check_players(players: object) -> int:
    """``players`` if it is a number of players the rules allow; ValueError if not.

    >>> check_players(3)
    3
    >>> check_players(5)
    Traceback (most recent call last):
    ...
    ValueError: players must be 2, 3 or 4, got 5
    """
    if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        allowed = ", ".join(map(str, range(MIN_PLAYERS, MAX_PLAYERS)))
        raise ValueError(f"players must be {allowed} or {MAX_PLAYERS}, got {players!r}")
    return players


class IllegalMove(ValueError):
    """An action the rules do not allow; the game is left exactly as it was.

    >>> g = Game(players=2, size=5)
    >>> try:
    ...     g.play(["e5", "e5"])
    ... except IllegalMove as e:
    ...     print(e)
    cell e5 is given twice in one turn
    """


#: One turn as stored in the history: one cell name per colour in play, in colour order.
Turn = tuple[str, ...]
#: The pie-rule swap as stored in the history.
SWAP = "swap"
#: An entry of :attr:`Game.history`: a :data:`Turn` or :data:`SWAP`.
Action = Turn | str

_EMPTY = -1


#: Every colour, in turn order (a game's colours are the first of them: ``Game.colors``).
_IN_TURN_ORDER = tuple(sorted(Color))


class Game:
    """A game of Omega for 2 to 4 players on a hex-hex board of side 2 to 13.

    Each turn the player to move places one stone of every colour in play; a colour's
    score is the product of the sizes of its groups.

    >>> g = Game(players=3, size=5)
    >>> g.play(["e5", "a1", "i9"])          # White's turn: White, Black, Red stones
    >>> g.play({Color.WHITE: "e4", Color.BLACK: "a2", Color.RED: "i8"})
    >>> g.scores()
    {<Color.WHITE: 0>: 2, <Color.BLACK: 1>: 2, <Color.RED: 2>: 2}
    """

    __slots__ = (
        "players", "size", "pie_rule", "_board", "_stones", "_history",
        "_turn_color", "_swapped", "_over", "_empty", "_groups_cache",
    )

    def __init__(self, players: int = 2, size: int = 5, pie_rule: bool = False) -> None:
        check_players(players)
        if not isinstance(pie_rule, bool):
            raise ValueError(_("pie_rule must be True or False, got {value}", value=repr(pie_rule)))
        if pie_rule and players != 2:
            raise ValueError(_("the pie rule is a 2-player option"))
        self._board = Board.of(size)  # validates size
        self.players = players
        self.size = size
        self.pie_rule = pie_rule
        self._stones: list[int] = [_EMPTY] * len(self._board)
        self._history: list[Action] = []
        self._turn_color = 0
        self._swapped = False
        self._empty = len(self._board)
        self._over = self._empty < players * players
        self._groups_cache: dict[int, list[list[int]]] = {}

    # -- reading the position ---------------------------------------------------------

    def __repr__(self) -> str:
        state = "over" if self._over else f"{self.to_move.label if self.to_move is not None else ''} to move"
        return f"<Game players={self.players} size={self.size} pie_rule={self.pie_rule} turns={len(self._history)} {state}>"

    @property
    def board(self) -> Board:
        """The board geometry (cell names, indices, neighbours)."""
        return self._board

    @property
    def cells(self) -> tuple[str, ...]:
        """Every cell name, canonical lower case, row by row.

        >>> Game(size=2).cells
        ('a1', 'a2', 'b1', 'b2', 'b3', 'c2', 'c3')
        """
        return self._board.cells

    @property
    def colors(self) -> tuple[Color, ...]:
        """The colours in play, in turn order.

        >>> Game(players=3).colors
        (<Color.WHITE: 0>, <Color.BLACK: 1>, <Color.RED: 2>)
        """
        return _IN_TURN_ORDER[: self.players]

    @property
    def to_move(self) -> Color | None:
        """The colour whose turn it is; None once the game is over."""
        return None if self._over else Color(self._turn_color)

    @property
    def current_player(self) -> int | None:
        """Index (0-based) of the player to move; None once the game is over."""
        return None if self._over else self.player_of(Color(self._turn_color))

    @property
    def swapped(self) -> bool:
        """Whether the pie-rule swap was made (players 0 and 1 exchanged colours)."""
        return self._swapped

    def player_of(self, color: Color | int) -> int:
        """Index of the player holding ``color``; after a pie swap White and Black change hands.

        >>> g = Game(pie_rule=True); g.play(["e5", "a1"]); g.swap()
        >>> g.player_of(Color.WHITE), g.current_player
        (1, 0)
        """
        c = self._color(color)
        if self._swapped and c <= Color.BLACK:
            return 1 - int(c)
        return int(c)

    def color_of(self, player: int) -> Color:
        """The colour held by player ``player`` (0-based).

        >>> Game().color_of(1)
        <Color.BLACK: 1>
        """
        if not isinstance(player, int) or not 0 <= player < self.players:
            raise ValueError(_("player must be 0 to {last}, got {value}", last=self.players - 1, value=repr(player)))
        if self._swapped and player <= 1:
            return Color(1 - player)
        return Color(player)

    def stone(self, cell: str) -> Color | None:
        """The colour of the stone on ``cell``, or None if it is empty.

        >>> g = Game(); g.play(["e5", "a1"]); g.stone("E5"), g.stone("b2")
        (<Color.WHITE: 0>, None)
        """
        value = self._stones[self._board.index(cell)]
        return None if value == _EMPTY else Color(value)

    def stones(self) -> dict[str, Color]:
        """Every occupied cell and its colour.

        >>> g = Game(); g.play(["e5", "a1"]); g.stones()
        {'a1': <Color.BLACK: 1>, 'e5': <Color.WHITE: 0>}
        """
        colors, cells = _COLORS, self._board.cells  # indexing, not Color(v): a server builds this per event
        return {cells[i]: colors[v] for i, v in enumerate(self._stones) if v != _EMPTY}

    def empty_cells(self) -> tuple[str, ...]:
        """The empty cells, in board order."""
        return tuple(n for n, v in zip(self._board.cells, self._stones, strict=True) if v == _EMPTY)

    @property
    def empty_count(self) -> int:
        """How many cells are empty."""
        return self._empty

    @property
    def history(self) -> tuple[Action, ...]:
        """Every action so far: a turn is a tuple of cells in colour order, a swap is ``"swap"``."""
        return tuple(self._history)

    @property
    def turns_played(self) -> int:
        """Number of turns played (a swap is not a turn)."""
        return sum(1 for a in self._history if a != SWAP)

    @property
    def round(self) -> int:
        """The round being played, counted from 1 (the last round once the game is over)."""
        return max(1, (self.turns_played + (0 if self._over else 1) + self.players - 1) // self.players)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._over

    @property
    def can_swap(self) -> bool:
        """True only when the pie-rule swap is legal now (right after turn 1, option on)."""
        return (
            self.pie_rule
            and not self._over
            and len(self._history) == 1
        )

    # -- scores -----------------------------------------------------------------------

    def _groups_of(self, color: int) -> list[list[int]]:
        cached = self._groups_cache.get(color)
        if cached is not None:
            return cached
        stones, neighbours = self._stones, self._board.neighbours
        seen = [False] * len(stones)
        groups: list[list[int]] = []
        for start, value in enumerate(stones):
            if value != color or seen[start]:
                continue
            seen[start] = True
            group = [start]
            for cell in group:  # grows while we walk it: a breadth-first flood fill
                for nb in neighbours[cell]:
                    if not seen[nb] and stones[nb] == color:
                        seen[nb] = True
                        group.append(nb)
            groups.append(group)
        self._groups_cache[color] = groups
        return groups

    def groups(self, color: Color | int) -> list[frozenset[str]]:
        """The groups of ``color``, each a frozenset of cell names, ordered by first cell.

        >>> g = Game(); g.play(["e5", "a1"]); g.play(["e4", "a2"])
        >>> [sorted(group) for group in g.groups(Color.BLACK)]
        [['a1', 'a2']]
        """
        c = self._color(color, strict=False)
        if c >= self.players:
            return []
        names = self._board.cells
        return [frozenset(names[i] for i in group) for group in self._groups_of(c)]

    def group_sizes(self, color: Color | int) -> list[int]:
        """Sizes of the groups of ``color``, largest first.

        >>> g = Game(); g.play(["e5", "a1"]); g.play(["c3", "a2"]); g.group_sizes(Color.WHITE)
        [1, 1]
        """
        c = self._color(color, strict=False)
        if c >= self.players:
            return []
        return sorted((len(group) for group in self._groups_of(c)), reverse=True)

    def group_at(self, cell: str) -> frozenset[str]:
        """The group of the stone on ``cell`` (empty frozenset for an empty cell)."""
        index = self._board.index(cell)
        color = self._stones[index]
        if color == _EMPTY:
            return frozenset()
        for group in self._groups_of(color):
            if index in group:
                return frozenset(self._board.cells[i] for i in group)
        raise AssertionError("unreachable: every stone lies in a group")

    def score(self, color: Color | int) -> int:
        """The exact score of ``color``: product of its group sizes, 0 without stones.

        >>> g = Game(); g.play(["e5", "a1"]); g.score(Color.WHITE)
        1
        """
        sizes = self.group_sizes(color)
        return prod(sizes) if sizes else 0

    def scores(self) -> dict[Color, int]:
        """Exact score of every colour in play.

        >>> Game().scores()
        {<Color.WHITE: 0>: 0, <Color.BLACK: 1>: 0}
        """
        return {c: self.score(c) for c in self.colors}

    def ranking(self) -> list[Color]:
        """Colours in play, best first: higher score, then the colour later in turn order.

        >>> g = Game(); g.play(["e5", "a1"]); g.ranking()
        [<Color.BLACK: 1>, <Color.WHITE: 0>]
        """
        scores = self.scores()
        return sorted(scores, key=lambda c: (scores[c], int(c)), reverse=True)

    @property
    def winner(self) -> Color | None:
        """The winning colour once the game is over, else None."""
        return self.ranking()[0] if self._over else None

    # -- acting -----------------------------------------------------------------------

    def play(self, cells: Sequence[str] | Mapping[Color, str]) -> None:
        """Play one turn: one cell per colour in play.

        ``cells`` is a sequence in colour order (White, Black, Red, Blue) or a mapping
        from colour to cell.  Raises :class:`IllegalMove` and changes nothing if the turn
        is not legal.

        >>> g = Game(); g.play(["e5", "a1"]); g.play({Color.WHITE: "b2", Color.BLACK: "c3"})
        >>> g.turns_played
        2
        """
        indices = self._check_turn(cells)
        color = self._turn_color
        for c, index in enumerate(indices):
            self._stones[index] = c
        self._empty -= len(indices)
        self._history.append(tuple(self._board.cells[i] for i in indices))
        self._groups_cache.clear()
        self._turn_color = (color + 1) % self.players
        if self._turn_color == 0 and self._empty < self.players * self.players:
            self._over = True

    def _check_turn(self, cells: Sequence[str] | Mapping[Color, str]) -> list[int]:
        if self._over:
            raise IllegalMove(_("the game is over"))
        n = self.players
        if isinstance(cells, Mapping):
            keys = set()
            for key in cells:
                try:
                    keys.add(self._color(key))
                except ValueError as e:
                    raise IllegalMove(_("bad colour in turn: {reason}", reason=e)) from None
            if keys != set(range(n)):
                missing = sorted(set(self.colors) - keys)
                if not missing:
                    raise IllegalMove(_("a turn needs one cell for each colour in play"))
                raise IllegalMove(_("a turn needs one cell for each colour in play; missing {colors}",
                                    colors=_list(_color_word(c) for c in missing)))
            ordered: list[object] = [cells[Color(c)] if Color(c) in cells else cells[c] for c in range(n)]  # type: ignore[index]
        elif isinstance(cells, (str, bytes)) or not isinstance(cells, Iterable):
            raise IllegalMove(_("a turn is a list of {n} cells in colour order, such as {example}, got {value}",
                                n=n, example=list(self._example()), value=repr(cells)))
        else:
            ordered = list(cells)
        if len(ordered) != n:
            raise IllegalMove(
                _("a turn places {n} stones (one per colour), got {count} cells", n=n, count=len(ordered))
                if len(ordered) != 1 else _("a turn places {n} stones (one per colour), got 1 cell", n=n))
        indices: list[int] = []
        for c, name in enumerate(ordered):
            if not isinstance(name, str):
                raise IllegalMove(_("{color} cell {value} is not a cell name", color=_color_word(c), value=repr(name)))
            try:
                index = self._board.index(name)
            except ValueError as e:
                raise IllegalMove(e.args[0]) from None  # the board's sentence, a Message
            if index in indices:
                raise IllegalMove(_("cell {cell} is given twice in one turn", cell=self._board.cells[index]))
            if self._stones[index] != _EMPTY:
                raise IllegalMove(_("cell {cell} is occupied by {color}", cell=self._board.cells[index],
                                    color=_color_word(self._stones[index])))
            indices.append(index)
        return indices

    def _example(self) -> tuple[str, ...]:
        return tuple(self.empty_cells()[: self.players])

    def swap(self) -> None:
        """Make the pie-rule swap: players 0 and 1 exchange colours; Black is still to move.

        >>> g = Game(pie_rule=True); g.play(["e5", "a1"]); g.swap()
        >>> g.to_move, g.current_player, g.player_of(Color.WHITE)
        (<Color.BLACK: 1>, 0, 1)
        """
        if not self.can_swap:
            if self._over:
                raise IllegalMove(_("the game is over"))
            if not self.pie_rule:
                raise IllegalMove(_("swap is not allowed: the pie rule is off"))
            raise IllegalMove(_("swap is allowed only right after the first turn"))
        self._swapped = True
        self._history.append(SWAP)

    def undo(self) -> None:
        """Take back the last turn or swap.

        >>> g = Game(); g.play(["e5", "a1"]); g.undo(); g.stone("e5") is None
        True
        """
        if not self._history:
            raise IllegalMove(_("nothing to undo"))
        action = self._history.pop()
        if action == SWAP:
            self._swapped = False
            return
        for name in action:
            self._stones[self._board.index(name)] = _EMPTY
        self._empty += len(action)
        self._turn_color = (self._turn_color - 1) % self.players
        self._over = False
        self._groups_cache.clear()

    def apply(self, action: Action | Sequence[str]) -> None:
        """Apply one history entry: ``"swap"`` or a turn (as accepted by :meth:`play`).

        >>> g = Game(pie_rule=True); g.apply(("e5", "a1")); g.apply("swap"); g.swapped
        True
        """
        if isinstance(action, str):
            if action.strip().lower() != SWAP:
                raise IllegalMove(_("{value} is not an action (a turn is a list of cells, or 'swap')", value=repr(action)))
            self.swap()
        else:
            self.play(action)

    @classmethod
    def from_history(
        cls,
        history: Iterable[Action | Sequence[str]],
        players: int = 2,
        size: int = 5,
        pie_rule: bool = False,
    ) -> Game:
        """A new game with these settings after the entries of ``history``, applied in order.

        Each entry is a turn (cells in colour order) or :data:`SWAP`, as :meth:`apply`
        takes it; an illegal one raises :class:`IllegalMove` (a ValueError), like :meth:`play`.

        >>> g = Game.from_history([("e5", "a1"), "swap"], pie_rule=True)
        >>> g.swapped, g.to_move
        (True, <Color.BLACK: 1>)
        """
        game = cls(players=players, size=size, pie_rule=pie_rule)
        for action in history:
            game.apply(action)
        return game

    def position_after(self, entries: int) -> Game:
        """A new game of the same settings holding only the first ``entries`` history entries.

        ValueError unless ``entries`` is a whole number from 0 to ``len(self.history)``.

        >>> g = Game(); g.play(["e5", "a1"]); g.play(["e4", "a2"])
        >>> g.position_after(1).history
        (('e5', 'a1'),)
        >>> g.position_after(3)
        Traceback (most recent call last):
        ...
        ValueError: position_after takes 0 to 2 entries (the length of the history), got 3
        """
        total = len(self._history)
        if not isinstance(entries, int) or isinstance(entries, bool) or not 0 <= entries <= total:
            raise ValueError(f"position_after takes 0 to {total} entries (the length of the history), got {entries!r}")
        return Game.from_history(self._history[:entries], self.players, self.size, self.pie_rule)

    def copy(self) -> Game:
        """An independent copy of the game.

        >>> g = Game(); h = g.copy(); h.play(["e5", "a1"]); g.turns_played
        0
        """
        other = Game.__new__(Game)
        other.players, other.size, other.pie_rule = self.players, self.size, self.pie_rule
        other._board = self._board
        other._stones = list(self._stones)
        other._history = list(self._history)
        other._turn_color = self._turn_color
        other._swapped = self._swapped
        other._over = self._over
        other._empty = self._empty
        other._groups_cache = {}
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            (self.players, self.size, self.pie_rule, self._history)
            == (other.players, other.size, other.pie_rule, other._history)
        )

    __hash__ = None  # type: ignore[assignment]  # a game changes, so it is not hashable

    # -- records ----------------------------------------------------------------------
    # The records are built on the game (omega.record imports this module, never the
    # reverse: the python-chess rule, chess.pgn imports chess). These two methods are the
    # public contract's doors to them, thin forwards that import omega.record when called,
    # never while this module is being imported; tests/test_imports.py lists them as the
    # package's one allowed upward import.

    def record(self, tags: Mapping[str, str] | None = None) -> str:
        """The game as a text record (format: ``docs/records.md``); a forward to
        :func:`omega.record.format_record`.

        >>> g = Game(); g.play(["e5", "a1"]); print(g.record())
        Players: 2
        Size: 5
        Pie: no
        <BLANKLINE>
        1. e5 a1
        <BLANKLINE>
        """
        from omega.record import format_record

        return format_record(self, tags)

    @classmethod
    def from_record(cls, text: str) -> Game:
        """The game a record describes (text form, or the JSON form's text); ValueError
        saying where and why if it is bad. A forward to :func:`omega.record.load`.

        >>> Game.from_record("Players: 2\\nSize: 5\\n\\n1. e5 a1\\n").stone("a1")
        <Color.BLACK: 1>
        """
        from omega.record import load

        return load(text).game

    # -- helpers ----------------------------------------------------------------------

    def _color(self, color: object, strict: bool = True) -> int:
        if isinstance(color, bool) or not isinstance(color, int) or not 0 <= color <= 3:
            raise ValueError(_("{value} is not a Color", value=repr(color)))
        if strict and color >= self.players:
            raise ValueError(_("{color} is not in play in a {players}-player game", color=_color_word(color), players=self.players))
        return int(color)


def _color_word(color: int) -> Message:
    # A colour's name as a sentence's value, put in the reader's language with it (the
    # catalogs hold the four names).
    return Message(Color(color).label)


def _list(words: Iterable[Message]) -> Message:
    # "White, Red" in any language: the names translated, joined by a comma.
    params = {f"w{i}": w for i, w in enumerate(words)}
    return Message(", ".join("{" + key + "}" for key in params), params)

"""A table: seats around one :class:`omega.Game`, rebuilt from its event log.

This module decides what an action does (which events it produces) and what a table looks
like to its players; it does no input/output.  Every rule question goes to ``Game``.

A table's history is a list of events with consecutive versions (1, 2, ...).  Applying the
events in order to a fresh :class:`TableState` gives the table exactly as it was, which is
how the server restarts, catches up with other server processes and replays games.

>>> t = TableState(TableConfig("t1", players=2, size=5, pie_rule=False, created_at="2026-01-01T00:00:00Z",
...                            seats=(SeatConfig("human"), SeatConfig("computer", 2))))
>>> events = t.decide(0, TurnAction(cells=("e5", "a1")))
>>> [e.kind for e in events]
['turn']
>>> t.apply(events[0].with_version(1)); t.game.current_player
1
>>> t.computer_to_move()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from omega.game import SWAP, Color, Game, IllegalMove

__all__ = [
    "ApiError", "SeatConfig", "TableConfig", "Event", "TableState",
    "TurnAction", "SwapAction", "ResignAction", "ActionT", "action_fingerprint",
]

#: Level of the computer that plays on for a resigned seat.
RESIGNED_LEVEL = 1


class ApiError(Exception):
    """A refused request: a stable ``code`` (see ``docs/server-api.md``) and a message.

    >>> ApiError("not_found", "no such table").as_json()
    {'error': {'code': 'not_found', 'message': 'no such table'}}
    """

    STATUS: ClassVar[dict[str, int]] = {
        "bad_request": 400, "auth_required": 401, "forbidden": 403, "not_found": 404,
        "not_your_turn": 409, "stale_version": 409, "game_over": 409, "conflict": 409,
        "too_large": 413, "illegal_move": 422, "rate_limited": 429, "unavailable": 503,
    }

    def __init__(self, code: str, message: str) -> None:
        assert code in self.STATUS, code
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code."""
        return self.STATUS[self.code]

    def as_json(self) -> dict[str, Any]:
        """The error body every refused request gets."""
        return {"error": {"code": self.code, "message": self.message}}


@dataclass(frozen=True)
class SeatConfig:
    """What a seat is when the table is created: ``human`` or ``computer`` with a level."""

    kind: Literal["human", "computer"]
    level: int | None = None


@dataclass(frozen=True)
class TableConfig:
    """The fixed settings of a table."""

    id: str
    players: int
    size: int
    pie_rule: bool
    created_at: str
    seats: tuple[SeatConfig, ...]


@dataclass(frozen=True)
class TurnAction:
    """Place one stone per colour in play; ``cells`` in colour order White, Black, Red, Blue."""

    cells: tuple[str, ...]
    type: Literal["turn"] = "turn"


@dataclass(frozen=True)
class SwapAction:
    """The pie-rule swap."""

    type: Literal["swap"] = "swap"


@dataclass(frozen=True)
class ResignAction:
    """Give up: the seat ranks last and the computer plays on for it."""

    type: Literal["resign"] = "resign"


ActionT = TurnAction | SwapAction | ResignAction


def action_fingerprint(action: ActionT) -> str:
    """A short text that is equal for equal actions (to spot a reused request_id).

    >>> action_fingerprint(TurnAction(cells=("E5", "a1")))
    'turn e5 a1'
    """
    if isinstance(action, TurnAction):
        return "turn " + " ".join(c.strip().lower() for c in action.cells)
    return action.type


@dataclass(frozen=True)
class Event:
    """One change of a table; ``version`` is 0 until the event is stored."""

    kind: str
    data: dict[str, Any]
    version: int = 0
    seat: int | None = None
    request_id: str | None = None
    fingerprint: str | None = None

    def with_version(self, version: int) -> Event:
        """The same event numbered ``version``."""
        return replace(self, version=version)

    def public(self) -> dict[str, Any]:
        """The event as the WebSocket sends it: ``{"kind": ..., details}``."""
        return {"kind": self.kind, **self.data}


#: The events that change the play; the others (join, name, presence) only the seats' look.
PLAY_EVENTS = frozenset({"turn", "swap", "resign", "over"})


@dataclass
class TableState:
    """A table as its events made it: the game, names, resignations, presence."""

    config: TableConfig
    game: Game = field(init=False)
    version: int = 0
    # Version of the last event that changed the play (a turn, swap, resignation or the
    # end): a client that saw it or later saw the position as it is, whatever presence or
    # name events came since.
    play_version: int = 0
    names: list[str] = field(init=False)
    joined: list[bool] = field(init=False)
    connections: list[int] = field(init=False)
    resigned: list[int] = field(default_factory=list)  # seat indices, in resign order
    requests: dict[str, tuple[int, int | None, str | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        c = self.config
        self.game = Game(players=c.players, size=c.size, pie_rule=c.pie_rule)
        self.names = [default_name(i, s) for i, s in enumerate(c.seats)]
        self.joined = [s.kind == "computer" for s in c.seats]
        self.connections = [0] * c.players

    # -- deciding -----------------------------------------------------------------------

    def decide(self, seat: int | None, action: ActionT) -> list[Event]:
        """The events ``action`` by ``seat`` produces, or ApiError; the state is unchanged.

        ``seat`` None means the computer acting for the seat to move (a computer seat or a
        resigned one).
        """
        if self.over:
            raise ApiError("game_over", "the game is over")
        if isinstance(action, ResignAction):
            return self._decide_resign(seat)
        mover = self.game.current_player
        assert mover is not None  # the game is not over, so someone is to move
        if seat is None:
            if not self.computer_to_move():
                raise ApiError("not_your_turn", "no computer seat is to move")
            seat = mover
            by_computer = True
        else:
            if seat in self.resigned:
                raise ApiError("forbidden", "you have resigned; the computer plays this seat")
            if self.config.seats[seat].kind != "human":
                raise ApiError("forbidden", "this seat is played by the computer")
            if seat != mover:
                color = self.game.to_move
                assert color is not None
                raise ApiError("not_your_turn", f"it is {color.label}'s turn (seat {mover})")
            by_computer = False
        trial = self.game.copy()
        color = trial.to_move
        assert color is not None
        try:
            if isinstance(action, SwapAction):
                trial.swap()
                events = [Event("swap", {"seat": seat, "computer": by_computer})]
            else:
                trial.play(list(action.cells))
                played = trial.history[-1]
                assert played != SWAP
                events = [Event("turn", {"seat": seat, "color": color.label, "cells": list(played),
                                         "computer": by_computer})]
        except IllegalMove as e:
            raise ApiError("illegal_move", str(e)) from None
        if trial.is_over:
            events.append(self._over_event(trial, self.resigned, "board_full"))
        return events

    def _decide_resign(self, seat: int | None) -> list[Event]:
        if seat is None or self.config.seats[seat].kind != "human":
            raise ApiError("forbidden", "only a human seat can resign")
        if seat in self.resigned:
            raise ApiError("forbidden", "you have already resigned")
        color = self.game.color_of(seat)
        events = [Event("resign", {"seat": seat, "color": color.label})]
        resigned = [*self.resigned, seat]
        if self.config.players - len(resigned) < 2:
            events.append(self._over_event(self.game, resigned, "resignation"))
        return events

    def _over_event(self, game: Game, resigned: list[int], reason: str) -> Event:
        ranking = final_ranking(game, resigned)
        scores = game.scores()
        return Event("over", {
            "reason": reason,
            "ranking": [c.label for c in ranking],
            "winner": ranking[0].label,
            "scores": {c.label: str(scores[c]) for c in game.colors},
        })

    # -- applying -----------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply a stored event (its version must be the next one)."""
        if event.version != self.version + 1:
            raise ValueError(f"event version {event.version} does not follow {self.version}")
        d = event.data
        kind = event.kind
        if kind == "turn":
            self.game.play(d["cells"])
        elif kind == "swap":
            self.game.swap()
        elif kind == "join":
            self.joined[d["seat"]] = True
        elif kind == "name":
            self.names[d["seat"]] = d["name"]
        elif kind == "resign":
            self.resigned.append(d["seat"])
        elif kind == "over":
            # Only announces (reason, ranking) the end that the event before it, stored in
            # the same commit, already made: ``over`` is derived, see the property.
            pass
        elif kind == "presence":
            self.connections[d["seat"]] = d["connections"]
        else:
            raise ValueError(f"unknown event kind {kind!r}")
        if event.request_id is not None:
            self.requests[event.request_id] = (event.version, event.seat, event.fingerprint)
        if kind in PLAY_EVENTS:
            self.play_version = event.version
        self.version = event.version

    def copy(self) -> TableState:
        """An independent copy (requests, which only grow, are left out)."""
        other = TableState(self.config)
        other.game = self.game.copy()
        other.version, other.play_version = self.version, self.play_version
        other.names, other.joined = list(self.names), list(self.joined)
        other.connections, other.resigned = list(self.connections), list(self.resigned)
        return other

    # -- reading ------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended: the rules ended it, or fewer than two seats are still in.

        Derived, not set by the ``over`` event: the state right after the turn that fills the
        board (or the resignation that leaves one player) already says over, so no client ever
        sees a "playing" table with nobody to move.
        """
        return self.game.is_over or self.config.players - len(self.resigned) < 2

    @property
    def status(self) -> str:
        """``playing`` or ``over``."""
        return "over" if self.over else "playing"

    def to_move_seat(self) -> int | None:
        """The seat to move, None once the table's game is over."""
        return None if self.over else self.game.current_player

    def computer_to_move(self) -> bool:
        """Whether the seat to move is played by the computer (its own or a resigned one)."""
        seat = self.to_move_seat()
        return seat is not None and (self.config.seats[seat].kind == "computer" or seat in self.resigned)

    def computer_level(self) -> int:
        """The level the computer plays the seat to move at."""
        seat = self.to_move_seat()
        assert seat is not None and self.computer_to_move()
        if seat in self.resigned:
            return RESIGNED_LEVEL
        level = self.config.seats[seat].level
        assert level is not None
        return level

    def view(self, you: int | None = None, *, viewer: bool = True) -> dict[str, Any]:
        """The table state of ``docs/server-api.md`` (``you`` is the viewer's seat)."""
        c = self.config
        state: dict[str, Any] = {
            "id": c.id, "version": self.version, "created_at": c.created_at,
            "players": c.players, "size": c.size, "pie_rule": c.pie_rule,
            "status": self.status,
            "seats": [
                {"index": i, "color": self.game.color_of(i).label, "kind": s.kind, "level": s.level,
                 "name": self.names[i], "resigned": i in self.resigned,
                 "connected": self.connections[i] > 0 if s.kind == "human" else True,
                 "joined": self.joined[i]}
                for i, s in enumerate(c.seats)
            ],
            "game": game_view(self.game, self.resigned, self.over),
        }
        if viewer:
            state["you"] = {"seat": you}
        return state

    def record_tags(self) -> dict[str, str]:
        """Record tags: player names per colour, the table, and how a resigned game ended."""
        tags = {"Table": self.config.id, "Date": self.config.created_at[:10]}
        for i in range(self.config.players):
            # A computer seat's name already says it is a computer and its level.
            tags[self.game.color_of(i).label] = self.names[i]
        if self.resigned:
            tags["Resigned"] = ", ".join(self.game.color_of(s).label for s in self.resigned)
        if self.over:
            ranking = final_ranking(self.game, self.resigned)
            tags["Ranking"] = ", ".join(c.label for c in ranking)
            if not self.game.is_over:
                tags["Outcome"] = f"{ranking[0].label} wins by resignation"
        return tags


def default_name(index: int, seat: SeatConfig) -> str:
    """The name a seat shows until its player picks one (computer seats keep it).

    Seat numbers make names distinct (two level-1 computers at one table are not both
    "Computer 1"); the colour is left out because a pie swap changes it.  Derived from the
    table's settings only, so a restart gives the same names.

    >>> default_name(1, SeatConfig("computer", 3)), default_name(2, SeatConfig("computer", 3))
    ('Computer 2, level 3', 'Computer 3, level 3')
    >>> default_name(0, SeatConfig("human"))
    'Player 1'
    """
    if seat.kind == "computer":
        return f"Computer {index + 1}, level {seat.level}"
    return f"Player {index + 1}"


def final_ranking(game: Game, resigned: list[int]) -> list[Color]:
    """Colours best first: players still in by the rules' ranking, then resigners, the
    latest resigner above earlier ones.

    >>> g = Game(players=3); g.play(["e5", "a1", "i9"])
    >>> [c.label for c in final_ranking(g, [0])]
    ['Red', 'Black', 'White']
    """
    out = [game.color_of(s) for s in resigned]
    return [c for c in game.ranking() if c not in out] + out[::-1]


def game_view(game: Game, resigned: list[int] | tuple[int, ...] = (), over: bool | None = None) -> dict[str, Any]:
    """The game view of ``docs/server-api.md`` for ``game`` (over = the table is over).

    >>> g = Game(); g.play(["e5", "a1"]); v = game_view(g)
    >>> v["to_move"], v["stones"], v["last_turn"], v["scores"]
    ('Black', {'a1': 'Black', 'e5': 'White'}, {'index': 0, 'cells': {'White': 'e5', 'Black': 'a1'}}, {'White': '1', 'Black': '1'})
    """
    resigned = list(resigned)
    is_over = game.is_over if over is None else over
    scores = game.scores()
    ranking = final_ranking(game, resigned)
    active = [c for c in ranking if game.player_of(c) not in resigned]
    last_turn = None
    for index in range(len(game.history) - 1, -1, -1):
        action = game.history[index]
        if action != SWAP:
            last_turn = {"index": index, "cells": {Color(i).label: cell for i, cell in enumerate(action)}}
            break
    return {
        "to_move": None if is_over or game.to_move is None else game.to_move.label,
        "current_seat": None if is_over else game.current_player,
        "can_swap": game.can_swap and not is_over,
        "turn_number": game.turns_played + (0 if is_over else 1),
        "over": is_over,
        "stones": {cell: color.label for cell, color in sorted(game.stones().items())},
        "history": [SWAP if a == SWAP else list(a) for a in game.history],
        "last_turn": last_turn,
        "scores": {c.label: str(scores[c]) for c in game.colors},
        "factors": {c.label: game.group_sizes(c) for c in game.colors},
        "ranking": [c.label for c in ranking],
        "winner": ranking[0].label if is_over else None,
        "tiebreak": bool(is_over and len(active) >= 2 and scores[active[0]] == scores[active[1]]),
        "resigned": [game.color_of(s).label for s in resigned],
    }

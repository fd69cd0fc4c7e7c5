"""A table: seats around one :class:`omega.Game`, rebuilt from its event log.

This module decides what an action does (:func:`decide`: which events it produces) and
what a table looks like to its players (:meth:`TableState.view`); it does no input/output
and reads no clock: the time comes in as ``now``.  Every rule question goes to ``Game``.

A table's history is a list of events with consecutive versions (1, 2, ...).  Applying the
events in order to a fresh :class:`TableState` gives the table exactly as it was, which is
how the server restarts, catches up with other server processes and replays games.

>>> from datetime import UTC, datetime
>>> from omega.server.actions import TurnAction
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> t = TableState(TableConfig("t1", players=2, size=5, pie_rule=False, created_at="2026-01-01T00:00:00Z",
...                            seats=(SeatConfig("human"), SeatConfig("computer", 2))))
>>> events = decide(t, 0, TurnAction(cells=("e5", "a1")), now)
>>> [e.kind for e in events], events[0].at == now
(['turn'], True)
>>> t.apply(events[0].with_version(1)); t.game.current_player
1
>>> t.computer_to_move()
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from omega.game import SWAP, Color, Game, IllegalMove
from omega.server.actions import Action, ResignAction, SwapAction
from omega.server.errors import ApiError
from omega.server.events import (
    PLAY_EVENTS,
    Abandoned,
    Cancelled,
    Event,
    GameEnded,
    Joined,
    Payload,
    PresenceChanged,
    Renamed,
    Resigned,
    Swapped,
    TurnPlayed,
)
from omega.texts import abandoned_outcome, resignation_outcome

__all__ = ["COMPUTER_TURN", "DUE_KINDS", "SeatConfig", "TableConfig", "TableState", "decide", "decide_abandon",
           "decide_cancel", "default_name", "final_ranking", "game_view"]

#: Level of the computer that plays on for a resigned seat.
RESIGNED_LEVEL = 1

#: Work due at a table: a computer (a computer seat or a resigned one) is to move.
COMPUTER_TURN = "computer"
#: Every kind of work a table's state can make due (see :meth:`TableState.due_work`).
DUE_KINDS = (COMPUTER_TURN,)


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
    #: Listed in the lobby: its free seats are taken there by accounts, and no move is made
    #: before every seat is taken (see :attr:`TableState.waiting`).
    open: bool = False
    #: The result changes the players' ratings (``omega.server.ratings``).
    rated: bool = False

    @property
    def public(self) -> bool:
        """Anyone may watch it without a key: it was listed in the lobby, or it is rated."""
        return self.open or self.rated


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
    #: When the last event was decided (None before the first).
    updated_at: datetime | None = None
    names: list[str] = field(init=False)
    joined: list[bool] = field(init=False)
    connections: list[int] = field(init=False)
    resigned: list[int] = field(default_factory=list)  # seat indices, in resign order
    #: Closed by the server for want of moves (``decide_abandon``).
    abandoned: bool = False
    #: Called off by its creator while it waited for players (``decide_cancel``).
    cancelled: bool = False
    #: The seat of the table's first ``join``: its creator's (who joins by creating it).
    host: int | None = None
    requests: dict[str, tuple[int, int | None, str | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        c = self.config
        self.game = Game(players=c.players, size=c.size, pie_rule=c.pie_rule)
        self.names = [default_name(i, s) for i, s in enumerate(c.seats)]
        self.joined = [s.kind == "computer" for s in c.seats]
        self.connections = [0] * c.players

    # -- applying -----------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply a stored event (its version must be the next one)."""
        if event.version != self.version + 1:
            raise ValueError(f"event version {event.version} does not follow {self.version}")
        _APPLY[type(event.payload)](self, event.payload)
        if event.request_id is not None:
            self.requests[event.request_id] = (event.version, event.seat, event.fingerprint)
        if event.kind in PLAY_EVENTS:
            self.play_version = event.version
        self.version = event.version
        if event.at is not None:
            self.updated_at = event.at

    def copy(self) -> TableState:
        """An independent copy (requests, which only grow, are left out)."""
        other = TableState(self.config)
        other.game = self.game.copy()
        other.version, other.play_version, other.updated_at = self.version, self.play_version, self.updated_at
        other.names, other.joined = list(self.names), list(self.joined)
        other.connections, other.resigned = list(self.connections), list(self.resigned)
        other.abandoned, other.cancelled, other.host = self.abandoned, self.cancelled, self.host
        return other

    # -- reading ------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended: the rules ended it, resignations did (see
        :func:`ended_by_resignations`), or the server closed the table as abandoned.

        Derived, not set by the ``over`` event: the state right after the turn that fills the
        board (or the resignation that leaves one player) already says over, so no client ever
        sees a "playing" table with nobody to move.
        """
        return self.game.is_over or self.abandoned or ended_by_resignations(self.config, self.resigned)

    @property
    def waiting(self) -> bool:
        """An open table some of whose seats are still free: nobody may move yet."""
        return self.config.open and not self.cancelled and not all(self.joined)

    @property
    def status(self) -> str:
        """``waiting`` (an open table with free seats), ``playing``, ``over``, or
        ``cancelled`` (called off before it started)."""
        if self.cancelled:
            return "cancelled"
        if self.waiting:
            return "waiting"
        return "over" if self.over else "playing"

    def to_move_seat(self) -> int | None:
        """The seat to move, None once the table's game is over (or before it starts)."""
        return None if self.over or self.cancelled or self.waiting else self.game.current_player

    def set_presence(self, totals: dict[int, int]) -> bool:
        """Take the open-socket counts per seat (live state, not from events); True if who is
        connected changed."""
        before = self.connected()
        self.connections = [totals.get(i, 0) for i in range(self.config.players)]
        return self.connected() != before

    def connected(self) -> tuple[bool, ...]:
        """Per seat: is its player here (a computer always is)."""
        return tuple(s.kind == "computer" or self.connections[i] > 0 for i, s in enumerate(self.config.seats))

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

    def due_work(self) -> dict[str, int]:
        """The work this state makes due, by kind, each for the play version it is about:
        ``{"computer": v}`` while a computer is to move.  Stored in the same commit as the
        events that made it due, so a crash can never lose a pending computer turn."""
        return {COMPUTER_TURN: self.play_version} if self.computer_to_move() else {}

    def view(self, you: int | None = None, *, viewer: bool = True) -> dict[str, Any]:
        """The table state of ``docs/server-api.md`` (``you`` is the viewer's seat)."""
        c = self.config
        connected = self.connected()
        state: dict[str, Any] = {
            "id": c.id, "version": self.version, "created_at": c.created_at,
            "players": c.players, "size": c.size, "pie_rule": c.pie_rule,
            "open": c.open, "rated": c.rated,
            "status": self.status,
            "seats": [
                {"index": i, "color": self.game.color_of(i).label, "kind": s.kind, "level": s.level,
                 "name": self.names[i], "resigned": i in self.resigned,
                 "connected": connected[i],
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
            if self.abandoned:
                tags["Outcome"] = abandoned_outcome(ranking[0])
            elif not self.game.is_over:
                tags["Outcome"] = resignation_outcome(ranking[0])
        return tags


# -- how each event changes a table -------------------------------------------------------

def _turn(t: TableState, e: TurnPlayed) -> None:
    t.game.play(list(e.cells))


def _swap(t: TableState, e: Swapped) -> None:
    t.game.swap()


def _join(t: TableState, e: Joined) -> None:
    if t.host is None:
        t.host = e.seat
    t.joined[e.seat] = True


def _rename(t: TableState, e: Renamed) -> None:
    t.names[e.seat] = e.name


def _resign(t: TableState, e: Resigned) -> None:
    t.resigned.append(e.seat)


def _abandon(t: TableState, e: Abandoned) -> None:
    t.abandoned = True


def _cancel(t: TableState, e: Cancelled) -> None:
    t.cancelled = True


def _end(t: TableState, e: GameEnded) -> None:
    # Only announces (reason, ranking) the end that the event before it, stored in the same
    # commit, already made: ``over`` is derived, see TableState.over.
    pass


def _presence(t: TableState, e: PresenceChanged) -> None:
    # Logs written before presence left the log hold these; presence is live state now
    # (TableState.set_presence), so an old count says nothing about who is there today.
    pass


_APPLY: dict[type[Payload], Callable[[TableState, Any], None]] = {
    TurnPlayed: _turn, Swapped: _swap, Joined: _join, Renamed: _rename,
    Resigned: _resign, Abandoned: _abandon, GameEnded: _end, PresenceChanged: _presence, Cancelled: _cancel,
}


# -- deciding ---------------------------------------------------------------------------------

def decide(state: TableState, seat: int | None, action: Action, now: datetime) -> list[Event]:
    """The events ``action`` by ``seat`` produces at time ``now``, or ApiError; ``state`` is
    unchanged.  ``seat`` None means the computer acting for the seat to move (a computer
    seat or a resigned one).
    """
    if state.cancelled:
        raise ApiError("game_over", "this table was cancelled before it started")
    if state.over:
        raise ApiError("game_over", "the game is over")
    if state.waiting:
        free = state.joined.count(False)
        raise ApiError("not_started", f"the game starts when every seat is taken ({free} still free)")
    if isinstance(action, ResignAction):
        return _decide_resign(state, seat, now)
    mover = state.game.current_player
    assert mover is not None  # the game is not over, so someone is to move
    if seat is None:
        if not state.computer_to_move():
            raise ApiError("not_your_turn", "no computer seat is to move")
        seat = mover
        by_computer = True
    else:
        if seat in state.resigned:
            raise ApiError("forbidden", "you have resigned; the computer plays this seat")
        if state.config.seats[seat].kind != "human":
            raise ApiError("forbidden", "this seat is played by the computer")
        if seat != mover:
            color = state.game.to_move
            assert color is not None
            raise ApiError("not_your_turn", f"it is {color.label}'s turn (seat {mover})")
        by_computer = False
    trial = state.game.copy()
    color = trial.to_move
    assert color is not None
    payload: Payload
    try:
        if isinstance(action, SwapAction):
            trial.swap()
            payload = Swapped(seat=seat, computer=by_computer)
        else:
            trial.play(list(action.cells))
            played = trial.history[-1]
            assert played != SWAP
            payload = TurnPlayed(seat=seat, color=color.label, cells=tuple(played), computer=by_computer)
    except IllegalMove as e:
        raise ApiError("illegal_move", str(e)) from None
    events = [Event(payload, at=now)]
    if trial.is_over:
        events.append(_over_event(trial, state.resigned, "board_full", now))
    return events


def _decide_resign(state: TableState, seat: int | None, now: datetime) -> list[Event]:
    if seat is None or state.config.seats[seat].kind != "human":
        raise ApiError("forbidden", "only a human seat can resign")
    if seat in state.resigned:
        raise ApiError("forbidden", "you have already resigned")
    color = state.game.color_of(seat)
    events = [Event(Resigned(seat=seat, color=color.label), at=now)]
    resigned = [*state.resigned, seat]
    if ended_by_resignations(state.config, resigned):
        events.append(_over_event(state.game, resigned, "resignation", now))
    return events


def ended_by_resignations(config: TableConfig, resigned: list[int]) -> bool:
    """Whether resignations end the game: fewer than two seats are still in, or no person
    is (computers do not play on among themselves: that would only spend the site's
    computer time on a game nobody watches for).

    >>> people = TableConfig("t", 3, 5, False, "", (SeatConfig("human"), SeatConfig("computer", 1),
    ...                                             SeatConfig("computer", 1)))
    >>> ended_by_resignations(people, []), ended_by_resignations(people, [0])
    (False, True)
    """
    if config.players - len(resigned) < 2:
        return True
    return not any(s.kind == "human" and i not in resigned for i, s in enumerate(config.seats))


def decide_cancel(state: TableState, now: datetime) -> list[Event]:
    """The creator calls off an open table that still waits for players; ``conflict`` once
    it has started (every seat taken) or was already cancelled.

    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, open=True))
    >>> t.status, [e.kind for e in decide_cancel(t, datetime(2027, 1, 1))]
    ('waiting', ['cancel'])
    """
    if not state.waiting:
        raise ApiError("conflict", "this table is no longer waiting for players; it cannot be cancelled")
    return [Event(Cancelled(), at=now)]


def decide_abandon(state: TableState, now: datetime) -> list[Event]:
    """The server closes an unfinished table nobody has acted on for long: the game ends as
    it stands (ranked by the scores so far, resigners last).  Nothing for a finished table.
    """
    if state.over or state.cancelled:
        return []
    if state.waiting:  # nobody moved: an open table nobody came to is called off, not scored
        return [Event(Cancelled(), at=now)]
    return [Event(Abandoned(), at=now), _over_event(state.game, state.resigned, "abandoned", now)]


def _over_event(game: Game, resigned: list[int], reason: str, now: datetime) -> Event:
    ranking = final_ranking(game, resigned)
    scores = game.scores()
    return Event(GameEnded(
        reason=reason, ranking=tuple(c.label for c in ranking), winner=ranking[0].label,
        scores={c.label: str(scores[c]) for c in game.colors},
    ), at=now)


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

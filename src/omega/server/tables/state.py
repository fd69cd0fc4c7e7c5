"""A table: seats around one :class:`omega.Game`, rebuilt from its event log.

A table's history is a list of events with consecutive versions (1, 2, ...).  Applying the
events in order to a fresh :class:`TableState` gives the table exactly as it was, which is
how the server restarts, catches up with other server processes and replays games.  This
module says what each event does to a table (:meth:`TableState.apply`), what a table is
(over, waiting, whose clock runs, which work it makes due) and how it looks to its players
(:meth:`TableState.view`); what an action does is :mod:`omega.server.tables.decide`.  No
input/output, no clock; every rule question goes to ``Game``.

>>> from omega.server.tables.events import Event, Joined, TurnPlayed
>>> t = TableState(TableConfig("t1", players=2, size=5, pie_rule=False, created_at="2026-01-01T00:00:00Z",
...                            seats=(SeatConfig("human"), SeatConfig("computer", 2))))
>>> t.apply(Event(Joined(0), version=1))
>>> t.apply(Event(TurnPlayed(seat=0, color="White", cells=("e5", "a1"), computer=False), version=2))
>>> t.version, t.game.current_player, t.computer_to_move()
(2, 1, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any, Literal

from omega.ai.levels import STAND_IN_LEVEL, level_rating
from omega.game import Game
from omega.i18n import message_json
from omega.server.tables.events import (
    PLAY_EVENTS,
    Abandoned,
    Cancelled,
    ClockPaused,
    ClockResumed,
    Event,
    GameEnded,
    HintUsed,
    Joined,
    LinksRenewed,
    Payload,
    PresenceChanged,
    Renamed,
    Resigned,
    Swapped,
    TimedOut,
    TurnPlayed,
)
from omega.server.tables.seatnames import default_name
from omega.server.tables.timecontrol import UNTIMED, TimeControl, ms_between, stamp_ms
from omega.server.tables.views import final_ranking, game_view, hints_text, with_viewer
from omega.texts import outcome_text

__all__ = ["COMPUTER_TURN", "TIMEOUT", "FLAG_NEAR", "DUE_KINDS", "RESIGNED_LEVEL", "MIN_RATED_TURNS", "CLAIM_AFTER", "PresenceCount", "SeatConfig",
           "TableConfig", "TableState", "ended_by_resignations"]

#: Level of the computer that plays on for a resigned seat.
RESIGNED_LEVEL = STAND_IN_LEVEL

#: Turns each person at a rated table makes (a turn or the swap, chosen by the player, not
#: the computer) before the game counts: a resignation or a flag before then aborts it,
#: unrated (:meth:`TableState.short_of_minimum`).  Lichess aborts a game before both players
#: have moved; one turn each is not enough here, since farming a rating then costs one click
#: each, so two: the second turn is the first made seeing the other's reply.  A game played
#: out (the board full) always counts.  docs/ratings.md says more.
MIN_RATED_TURNS = 2

#: How long the seat to move at an untimed casual table may keep the others waiting with its
#: player gone (no socket open) before one of them may claim the seat (``ClaimAction``,
#: :meth:`TableState.claim_from`): long enough for a reload, a lost connection or a phone
#: call, short enough that nobody is held for an evening.  A game meant to be played over
#: days takes a turn-based clock instead; a timed or rated table's clock settles it.
CLAIM_AFTER = timedelta(minutes=10)

#: Work due at a table: a computer (a computer seat or a resigned one) is to move.
COMPUTER_TURN = "computer"
#: Work due at a time: the running clock's flag falls (see :meth:`TableState.flag_at`).
TIMEOUT = "timeout"
#: Work due before a time: a turn-based clock that may be paused runs towards its flag, and
#: whoever keeps the flag may pause it first (``TableCore.flag_policy`` says how long before).
FLAG_NEAR = "flag_near"
#: Every kind of work a table's state can make due (see :meth:`TableState.due_work`).
DUE_KINDS = (COMPUTER_TURN, TIMEOUT, FLAG_NEAR)


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
    time_control: TimeControl = UNTIMED
    #: Whether the players may ask the computer for hints (never at a rated table).
    hints: bool = False
    #: Listed in the lobby: its free seats are taken there by accounts, and no move is made
    #: before every seat is taken (see :attr:`TableState.waiting`).
    open: bool = False
    #: The result changes the players' ratings (``omega.server.ratings.service``); rated tables keep
    #: their chat to the players.
    rated: bool = False
    #: Whether a seat's turn-based clock may be paused (``pause`` events: a player's vacation);
    #: a table, or later a tournament, may forbid it.  Real-time clocks never pause.
    pausable: bool = True
    #: Anyone may watch it without a key though it is neither listed nor rated: a
    #: tournament's table, watched from the tournament's page.
    watchable: bool = False

    @property
    def public(self) -> bool:
        """Anyone may watch it without a key: it was listed in the lobby, it is rated, or it
        is watchable (a tournament's)."""
        return self.open or self.rated or self.watchable


@dataclass(frozen=True)
class PresenceCount:
    """A table's open sockets per seat over all server processes (seats with none left
    out), as one read found them.  ``stamp`` orders one process's reads: each is taken with
    the table's row locked (every write to the table holds that lock until its commit), so a
    count with a larger stamp was read later and is never older.  Reads finish in any order
    (several database threads), so the stamp, not the order of arrival, says which is news.
    (A load on SQLite is stamped 0: every count after it is news.)

    >>> PresenceCount(2, {0: 1}).seats
    {0: 1}
    """

    stamp: int
    seats: dict[int, int]


#: A field of :class:`TableState` that is live state, not made by events (the counts of open
#: sockets, which change apart from them): a copy has it, and :meth:`TableState.take` keeps
#: its own.
_LIVE = {"taken": "live"}
#: The request ids, which only grow: a copy starts without them (copying them would cost a
#: turn more the longer the game), and :meth:`TableState.take` adds the copy's to its own.
_GROWS = {"taken": "grows"}


@dataclass
class TableState:
    """A table as its events made it: the game, names, resignations, presence.

    Its fields are the one list that :meth:`copy` and :meth:`take` go by: a new field is
    copied and taken like the others, unless its metadata says it is live state.
    """

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
    connections: list[int] = field(init=False, metadata=_LIVE)
    #: The stamp of the presence count ``connections`` was last taken from.
    presence_stamp: int = field(default=0, metadata=_LIVE)
    # Seat indices out of play, in the order they left: resigned, or timed out (those are
    # also in ``timed_out``); the computer plays them on and they rank last.
    resigned: list[int] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)
    #: Resigned seats that did not resign themselves: a player they kept waiting claimed
    #: them (``decide_claim``), so the page can say the player left rather than gave up.
    claimed: list[int] = field(default_factory=list)
    #: Closed by the server for want of moves (``decide_abandon``).
    abandoned: bool = False
    #: Aborted, not to be rated: a seat's clock ran out before it ever moved, or at a rated
    #: table a seat resigned or ran out of time before the game counted (``decide_timeout``,
    #: :data:`MIN_RATED_TURNS`).
    aborted: bool = False
    #: The seat whose resignation or flag aborted the game.
    aborted_seat: int | None = None
    #: Hints used: (seat, colour, turn number), in the order they were asked for.
    hints: list[tuple[int, str, int]] = field(default_factory=list)
    #: Called off by its creator while it waited for players (``decide_cancel``).
    cancelled: bool = False
    #: The seat of the table's first ``join``: its creator's (who joins by creating it).
    host: int | None = None
    requests: dict[str, tuple[int, int | None, str | None]] = field(default_factory=dict, metadata=_GROWS)
    #: Per seat: its clock's bank in ms (see ``omega.server.tables.timecontrol``).
    banks_ms: list[int] = field(init=False)
    #: Per seat: whether it has made a move (a turn or the swap) itself.
    moved: list[bool] = field(init=False)
    #: Per seat: how many moves (turns or the swap) it has made itself.
    turns_made: list[int] = field(init=False)
    #: When the turn now on began for the clocks: the last turn or swap, or before the first
    #: one the moment every person had joined (None: not yet; a clock does not run).
    turn_since: datetime | None = None
    #: Per seat whose invite was replaced (``links`` events): the version of the last one.
    renewed_at: dict[int, int] = field(default_factory=dict)
    #: Per seat whose clock is paused (``pause`` events): why, and since when.
    paused: dict[int, tuple[str, datetime]] = field(default_factory=dict)
    #: Version of the last event that moved the running clock's flag (a change of the play,
    #: a pause or a resume): the flag's due work is about it.
    clock_version: int = 0

    def __post_init__(self) -> None:
        c = self.config
        self.game = Game(players=c.players, size=c.size, pie_rule=c.pie_rule)
        self.names = [default_name(i, s, c.seats) for i, s in enumerate(c.seats)]
        self.joined = [s.kind == "computer" for s in c.seats]
        self.connections = [0] * c.players
        self.banks_ms = [c.time_control.start_bank_ms] * c.players
        self.moved = [False] * c.players
        self.turns_made = [0] * c.players

    # -- applying -----------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply a stored event (its version must be the next one)."""
        if event.version != self.version + 1:
            raise ValueError(f"event version {event.version} does not follow {self.version}")
        _APPLY[type(event.payload)](self, event.payload)
        self.apply_played(event)

    def apply_played(self, event: Event) -> None:
        """Apply ``event`` whose payload has already changed this table (a turn its game has
        played: :func:`~omega.server.tables.decide.decide` plays it so, once, on the copy it
        returns): the clocks, the request id, the versions, the time.  :meth:`apply` is the
        payload's change, then this."""
        self._clock_step(event)
        if event.request_id is not None:
            self.requests[event.request_id] = (event.version, event.seat, event.fingerprint)
        if event.kind in PLAY_EVENTS:
            self.play_version = event.version
        if event.kind in PLAY_EVENTS or isinstance(event.payload, ClockPaused | ClockResumed):
            self.clock_version = event.version
        self.version = event.version
        if event.at is not None:
            self.updated_at = event.at

    def copy(self) -> TableState:
        """An independent copy (the request ids, which only grow, are left out)."""
        other = object.__new__(TableState)  # no __post_init__: no new Game made to be replaced
        for name, taken in _FIELDS:
            setattr(other, name, {} if taken == "grows" else _copied(getattr(self, name)))
        return other

    def take(self, trial: TableState) -> None:
        """Become ``trial``, a :meth:`copy` of this state with events applied since: a
        decision applies its events once, to copies (see :class:`Decided`), and the cache
        then takes the result instead of applying the events again.  The live counts of
        sockets are kept (they change apart from events); the trial's request ids are added."""
        for name, taken in _FIELDS:
            if taken == "grows":
                getattr(self, name).update(getattr(trial, name))
            elif taken != "live":
                setattr(self, name, getattr(trial, name))

    def _clock_step(self, event: Event) -> None:
        """What an event does to the clocks (they are derived from the log like the rest)."""
        p = event.payload
        if isinstance(p, TurnPlayed | Swapped):
            if not p.computer:
                self.moved[p.seat] = True
                self.turns_made[p.seat] += 1
            if p.used_ms is not None:
                self.banks_ms[p.seat] = self.config.time_control.bank_after(self.banks_ms[p.seat], p.used_ms)
            self.turn_since = event.at
        elif isinstance(p, TimedOut):
            self.banks_ms[p.seat] = 0
        elif isinstance(p, ClockPaused) and event.at is not None:
            self.paused[p.seat] = (p.reason, event.at)
        elif isinstance(p, ClockResumed) and p.seat in self.paused:
            _, since = self.paused.pop(p.seat)
            if p.seat == self.game.current_player and self.turn_since is not None and event.at is not None:
                # The turn goes on with the time it had used when the clock stopped (none if
                # it began while the clock was stopped).
                self.turn_since = event.at - max(timedelta(0), since - self.turn_since)
        elif isinstance(p, Joined) and self.turn_since is None and not self.game.history and all(self.joined):
            # The first turn's clock starts once everyone is there: a table for friends
            # does not eat its first player's time while the invites are still out.
            self.turn_since = event.at

    # -- reading ------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended: the rules ended it, resignations did (see
        :func:`ended_by_resignations`), or the server closed the table as abandoned.

        Derived, not set by the ``over`` event: the state right after the turn that fills the
        board (or the resignation that leaves one player) already says over, so no client ever
        sees a "playing" table with nobody to move.
        """
        return (self.game.is_over or self.abandoned or self.aborted
                or ended_by_resignations(self.config, self.resigned))

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

    def set_presence(self, count: PresenceCount) -> bool:
        """Take the open-socket counts per seat (live state, not from events) unless a newer
        count was taken already; True if who is connected changed.

        >>> t = TableState(TableConfig("t", 2, 5, False, "2026-01-01T00:00:00Z", (SeatConfig("human"),) * 2))
        >>> t.set_presence(PresenceCount(2, {0: 1, 1: 1})), t.set_presence(PresenceCount(1, {0: 1})), t.connected()
        (True, False, (True, True))
        """
        if count.stamp < self.presence_stamp:
            return False
        self.presence_stamp = count.stamp
        before = self.connected()
        self.connections = [count.seats.get(i, 0) for i in range(self.config.players)]
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

    def short_of_minimum(self) -> bool:
        """Whether this is a rated table where some person has made fewer than
        :data:`MIN_RATED_TURNS` turns: a resignation or a flag now aborts the game.

        >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, rated=True))
        >>> t.short_of_minimum(), TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2)).short_of_minimum()
        (True, False)
        """
        return self.config.rated and any(s.kind == "human" and self.turns_made[i] < MIN_RATED_TURNS
                                         for i, s in enumerate(self.config.seats))

    def claim_from(self) -> datetime | None:
        """From when a player kept waiting may claim the seat to move (``ClaimAction``), if
        that seat's player is still gone then: :data:`CLAIM_AFTER` after its turn began (the
        last turn or swap, or the join that seated everyone; before either, the last event).
        None when no claim can be made now: a timed or rated table (its clock settles an
        absence), a game over or not started, a computer to move.

        >>> from datetime import UTC
        >>> from omega.server.tables.events import Joined
        >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2))
        >>> t0 = datetime(2027, 1, 1, tzinfo=UTC)
        >>> for seat in (0, 1): t.apply(Event(Joined(seat), version=t.version + 1, at=t0))
        >>> t.claim_from() == t0 + CLAIM_AFTER
        True
        """
        c = self.config
        if c.time_control.timed or c.rated or self.over or self.cancelled or self.waiting:
            return None
        seat = self.game.current_player
        if seat is None or c.seats[seat].kind != "human" or seat in self.resigned:
            return None
        since = self.turn_since or self.updated_at
        return None if since is None else since + CLAIM_AFTER

    @property
    def end_reason(self) -> str | None:
        """Why the game ended (None while it is on): ``board_full``, ``resignation``,
        ``timeout`` (a clock ran out and too few players were left), ``abandoned`` or
        ``aborted`` (a clock ran out before its seat's first move: not to be rated)."""
        if not self.over:
            return None
        if self.aborted:
            return "aborted"
        if self.abandoned:
            return "abandoned"
        if self.game.is_over:
            return "board_full"
        return "timeout" if self.resigned and self.resigned[-1] in self.timed_out else "resignation"

    # -- clocks ---------------------------------------------------------------------------

    def clock_seat(self) -> int | None:
        """The seat whose clock runs now: a person to move at a timed table whose turn has
        begun (computers, and seats the computer plays on for, have no clock), unless that
        seat's clock is paused."""
        if not self.config.time_control.timed or self.over or self.turn_since is None:
            return None
        seat = self.game.current_player
        if (seat is None or self.config.seats[seat].kind != "human" or seat in self.resigned
                or seat in self.paused):
            return None
        return seat

    @property
    def pausable(self) -> bool:
        """Whether a seat's clock may be paused here: a turn-based table that allows it.

        >>> seats = (SeatConfig("human"),) * 2
        >>> TableState(TableConfig("t", 2, 5, False, "", seats, TimeControl.parse("1d"))).pausable
        True
        >>> TableState(TableConfig("t", 2, 5, False, "", seats, TimeControl.parse("5+5"))).pausable
        False
        """
        return self.config.pausable and self.config.time_control.kind == "turn_based"

    def can_pause(self, seat: int) -> bool:
        """Whether ``seat``'s clock may be paused now: a pausable table in play, a person's
        seat still in the game, not paused already."""
        return (self.pausable and not self.over and not self.cancelled and 0 <= seat < self.config.players
                and self.config.seats[seat].kind == "human" and seat not in self.resigned
                and seat not in self.paused)

    def flag_at(self) -> datetime | None:
        """When the running clock's flag falls unless its seat moves first (None: no clock runs)."""
        seat = self.clock_seat()
        if seat is None or self.turn_since is None:
            return None
        return self.turn_since + timedelta(milliseconds=self.config.time_control.allowance_ms(self.banks_ms[seat]))

    def flag_fallen(self, now: datetime) -> bool:
        """Whether the running clock has run out by ``now`` (a move at the very moment the
        flag falls is too late)."""
        flag = self.flag_at()
        return flag is not None and now >= flag

    def used_ms(self, now: datetime) -> int | None:
        """The time the seat to move has used of its clock by ``now`` (None: no clock runs
        for it; 0 before its clock started)."""
        seat = self.game.current_player
        tc = self.config.time_control
        if not tc.timed or seat is None or self.config.seats[seat].kind != "human" or seat in self.resigned:
            return None
        if self.turn_since is None:
            return 0
        paused = self.paused.get(seat)
        # A paused clock stands at the time it had when it stopped.
        end = now if paused is None else min(now, paused[1])
        return max(0, ms_between(self.turn_since, end))

    def clock_view(self) -> dict[str, Any] | None:
        """The clocks as the table state shows them (``docs/server-api.md``), None untimed."""
        tc = self.config.time_control
        if not tc.timed:
            return None
        flag = self.flag_at()
        return {
            "control": tc.text, "kind": tc.kind, "label": tc.describe(),
            "per_move_ms": tc.per_move_ms, "increment_ms": tc.increment_ms, "low_ms": tc.low_ms(),
            "left_ms": [None if s.kind != "human" or i in self.resigned else self._left_ms(i)
                        for i, s in enumerate(self.config.seats)],
            "running": self.clock_seat(),
            "since": None if flag is None or self.turn_since is None else stamp_ms(self.turn_since),
            "flag_at": None if flag is None else stamp_ms(flag),
            "pausable": self.pausable,
        }

    def _left_ms(self, seat: int) -> int:
        """A seat's time for its turn as the view shows it: the whole allowance, less what a
        paused turn had used when it stopped (a running clock is counted down by the page)."""
        allowance = self.config.time_control.allowance_ms(self.banks_ms[seat])
        paused = self.paused.get(seat)
        if paused is None or seat != self.game.current_player or self.turn_since is None:
            return allowance
        return max(0, allowance - max(0, ms_between(self.turn_since, paused[1])))

    def due_work(self) -> dict[str, int]:
        """The work this state makes due, by kind, each for the play version it is about:
        ``{"computer": v}`` while a computer is to move, ``{"timeout": v}`` while a clock
        runs (due at :meth:`due_at`), and ``{"flag_near": v}`` too where it may be paused.  Stored in the same commit as the events that made it
        due, so a crash can never lose a pending computer turn or a flag."""
        due = {COMPUTER_TURN: self.play_version} if self.computer_to_move() else {}
        if self.clock_seat() is not None:
            due[TIMEOUT] = self.clock_version
            if self.pausable:
                due[FLAG_NEAR] = self.clock_version
        return due

    def due_at(self, kind: str) -> datetime | None:
        """When work of ``kind`` is due (None: at once); the flag's time for ``flag_near``,
        which the action path moves earlier by its policy's lead."""
        return self.flag_at() if kind in (TIMEOUT, FLAG_NEAR) else None

    def view(self, you: int | None = None, *, viewer: bool = True) -> dict[str, Any]:
        """The table state of ``docs/server-api.md`` (``you`` is the viewer's seat)."""
        c = self.config
        connected = self.connected()
        state: dict[str, Any] = {
            "id": c.id, "version": self.version, "created_at": c.created_at,
            "players": c.players, "size": c.size, "pie_rule": c.pie_rule, "hints": c.hints,
            "open": c.open, "rated": c.rated,
            "status": self.status,
            "seats": [
                {"index": i, "color": self.game.color_of(i).label, "kind": s.kind, "level": s.level,
                 "rating": level_rating(s.level) if s.kind == "computer" else None,
                 "name": self.names[i], "name_text": message_json(self.names[i]), "resigned": i in self.resigned and i not in self.timed_out,
                 "timed_out": i in self.timed_out, "claimed": i in self.claimed,
                 "connected": connected[i], "paused": self.paused[i][0] if i in self.paused else None,
                 "joined": self.joined[i], "hints_used": sum(1 for h in self.hints if h[0] == i)}
                for i, s in enumerate(c.seats)
            ],
            "game": game_view(self.game, self.resigned, self.over, timed_out=self.timed_out),
            "clock": self.clock_view(),
            "end_reason": self.end_reason,
        }
        claim = self.claim_from()
        # Untimed casual tables only: when the seat to move may be claimed if its player is gone.
        state["claim_from"] = None if claim is None else stamp_ms(claim)
        if self.aborted:
            # Not played out: nobody won, and no tie was broken.
            state["game"].update(winner=None, tiebreak=False)
        return with_viewer(state, you) if viewer else state

    def record_tags(self) -> dict[str, str]:
        """Record tags: player names per colour, the table, and how a resigned game ended."""
        tags = {"Table": self.config.id, "Date": self.config.created_at[:10]}
        for i in range(self.config.players):
            # A computer seat's name already says it is a computer and its level.
            tags[self.game.color_of(i).label] = self.names[i]
        if self.config.time_control.timed:
            tags["TimeControl"] = self.config.time_control.text
        resigners = [s for s in self.resigned if s not in self.timed_out]
        if resigners:
            tags["Resigned"] = ", ".join(self.game.color_of(s).label for s in resigners)
        if self.timed_out:
            tags["TimedOut"] = ", ".join(self.game.color_of(s).label for s in self.timed_out)
        if self.hints:
            tags["Hints"] = hints_text(self.hints)
        if self.over:
            ranking = final_ranking(self.game, self.resigned)
            tags["Ranking"] = ", ".join(c.label for c in ranking)
            reason = self.end_reason
            if reason is not None:
                # An aborted game is about the seat whose resignation or flag aborted it.
                seat = self.aborted_seat if self.aborted_seat is not None else self.game.current_player
                about = self.game.color_of(seat if seat is not None else 0) if reason == "aborted" else ranking[0]
                outcome = outcome_text(self._abort_kind() if reason == "aborted" else reason, about)
                if outcome is not None:
                    tags["Outcome"] = outcome
        return tags


    def _abort_kind(self) -> str:
        """How an aborted game was aborted, as ``omega.texts.OUTCOMES`` names it: a flag
        before the seat's first move, a flag later (a rated table), or a resignation."""
        seat = self.aborted_seat
        if seat is not None and seat in self.resigned:
            return "aborted_resigned"
        return "aborted" if seat is None or not self.moved[seat] else "aborted_on_time"


#: Each field of :class:`TableState` with how it is taken: ``live``, ``grows`` (see
#: :data:`_LIVE` and :data:`_GROWS`), or "" (as the events made it).
_FIELDS = tuple((f.name, str(f.metadata.get("taken", ""))) for f in fields(TableState))


def _copied(value: Any) -> Any:
    """A field's value for a copy: the game, lists and dicts copied; the rest (numbers, times,
    the frozen configuration, tuples) is never changed in place, so it is shared."""
    if isinstance(value, Game):
        return value.copy()
    if isinstance(value, list | dict | set):
        return type(value)(value)
    return value


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
    if e.claimed_by is not None:
        t.claimed.append(e.seat)
    if e.aborted:
        t.aborted = True
        t.aborted_seat = e.seat


def _abandon(t: TableState, e: Abandoned) -> None:
    t.abandoned = True


def _timeout(t: TableState, e: TimedOut) -> None:
    if e.aborted:
        t.aborted = True
        t.aborted_seat = e.seat
    else:
        # As after a resignation: ranked last, the computer plays on for the seat.
        t.resigned.append(e.seat)
        t.timed_out.append(e.seat)
def _cancel(t: TableState, e: Cancelled) -> None:
    t.cancelled = True


def _end(t: TableState, e: GameEnded) -> None:
    # Only announces (reason, ranking) the end that the event before it, stored in the same
    # commit, already made: ``over`` is derived, see TableState.over.
    pass


def _hint(t: TableState, e: HintUsed) -> None:
    t.hints.append((e.seat, e.color, e.turn))


def _links(t: TableState, e: LinksRenewed) -> None:
    # Applied just before ``version`` moves on to this event's.
    for seat in e.seats:
        t.renewed_at[seat] = t.version + 1


def _presence(t: TableState, e: PresenceChanged) -> None:
    # Logs written before presence left the log hold these; presence is live state now
    # (TableState.set_presence), so an old count says nothing about who is there today.
    pass


def _clock_only(t: TableState, e: ClockPaused | ClockResumed) -> None:
    # All a pause or a resume does is to the clocks: TableState._clock_step.
    pass


_APPLY: dict[type[Payload], Callable[[TableState, Any], None]] = {
    TurnPlayed: _turn, Swapped: _swap, Joined: _join, Renamed: _rename,
    Resigned: _resign, Abandoned: _abandon, GameEnded: _end, PresenceChanged: _presence, TimedOut: _timeout,
    HintUsed: _hint, Cancelled: _cancel, LinksRenewed: _links,
    ClockPaused: _clock_only, ClockResumed: _clock_only,
}


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

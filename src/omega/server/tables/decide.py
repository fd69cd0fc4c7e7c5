"""What an action does to a table: the deciders, pure functions of a table and ``now``.

Each returns a :class:`Decided`: the events the action produces, numbered as the versions
they are stored at, and the table as each of them left it, or raises
:class:`~omega.server.errors.ApiError` and changes nothing.  Each event is applied once, to
its own copy of the table: the action path stores the events and takes the copies, and
plays nothing again.  No input/output, no clock: the time comes in as ``now``.

>>> from datetime import UTC, datetime
>>> from omega.server.tables.actions import TurnAction
>>> from omega.server.tables.state import SeatConfig, TableConfig
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> t = TableState(TableConfig("t1", 2, 5, False, "", (SeatConfig("human"), SeatConfig("computer", 2))))
>>> decided = decide(t, 0, TurnAction(cells=("e5", "a1")), now)
>>> [(e.kind, e.version) for e in decided.events], decided.events[0].at == now
([('turn', 1)], True)
>>> decided.after.game.current_player, t.game.current_player
(1, 0)
>>> replayed = TableState(t.config); replayed.apply(decided.events[0])
>>> t.take(decided.after); t.game.current_player, t.view() == replayed.view()
(1, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from omega.game import SWAP, Game, IllegalMove
from omega.i18n import Message, message_of
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.tables.actions import Action, ClaimAction, ResignAction, SwapAction, action_fingerprint
from omega.server.tables.events import (
    Abandoned,
    Cancelled,
    ClockPaused,
    ClockResumed,
    Event,
    GameEnded,
    HintUsed,
    Joined,
    Payload,
    Resigned,
    Swapped,
    TimedOut,
    TurnPlayed,
)
from omega.server.tables.state import TableState, ended_by_resignations
from omega.server.tables.timecontrol import ms_between
from omega.server.tables.views import final_ranking

__all__ = ["Decided", "decide", "decide_claim", "decide_join", "decide_hint", "decide_cancel", "decide_abandon", "decide_timeout",
           "decide_pause", "decide_resume"]


@dataclass(frozen=True)
class Decided:
    """What a decision made of the table ``before``: its events, numbered as the versions
    they are stored at, and ``states``, the table as each of them left it (copies: ``before``
    is unchanged).  Each event was applied once, to its own copy, so the states before the
    last are there for the deliveries of a write of several events (a seat's first turn also
    joins it; the last turn also ends the game) and no event is ever applied twice.

    A state holds the request id of its own event only (a copy starts without them): whoever
    takes a decision takes its states in turn.  Nothing decided: no events, ``after`` is
    ``before``.

    >>> from omega.server.tables.events import Renamed
    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2))
    >>> d = Decided(t).then(Event(Joined(0)), Event(Renamed(0, "Ann")))
    >>> [(e.kind, e.version) for e in d.events], d.states[0].names[0], d.after.names[0], t.joined[0]
    ([('join', 1), ('name', 2)], 'Player 1', 'Ann', False)
    """

    before: TableState
    events: tuple[Event, ...] = ()
    states: tuple[TableState, ...] = ()

    @property
    def after(self) -> TableState:
        """The table after every event (``before`` when nothing was decided)."""
        return self.states[-1] if self.states else self.before

    def then(self, *events: Event) -> Decided:
        """These events and then ``events``, numbered on and each applied to a copy of the
        table the one before it left."""
        decided = self
        for event in events:
            state = decided.after.copy()
            numbered = event.with_version(state.version + 1)
            state.apply(numbered)
            decided = Decided(self.before, (*decided.events, numbered), (*decided.states, state))
        return decided

    def followed_by(self, later: Decided) -> Decided:
        """These events and then ``later``'s, decided on the table these left."""
        assert later.before is self.after, "decided on another table than the one these events left"
        return Decided(self.before, self.events + later.events, self.states + later.states)


# -- deciding ---------------------------------------------------------------------------------

def decide(state: TableState, seat: int | None, action: Action, now: datetime, *,
           request_id: str | None = None) -> Decided:
    """The events ``action`` by ``seat`` produces at time ``now``, with the table after them
    (its turn played once, on the copy that becomes that table), or ApiError; ``state`` is
    unchanged.  ``seat`` None means the computer acting for the seat to move (a computer
    seat or a resigned one).  The action's event carries ``seat`` and, when given, the
    ``request_id`` it answers (with the action's fingerprint, to know a retry by).
    """
    if state.cancelled:
        raise ApiError("game_over", _("this table was cancelled before it started"))
    if state.over:
        raise ApiError("game_over", _("the game is over"))
    if state.waiting:
        free = state.joined.count(False)
        raise ApiError("not_started", _("the game starts when every seat is taken ({free} still free)", free=free))
    flag = state.flag_at()
    if flag is not None and now >= flag:
        # The flag fell before this arrived: the action path stores the timeout instead
        # (decide_timeout), so a late move is never both refused and played.
        out = state.clock_seat()
        late = f"{ms_between(flag, now) / 1000:.1f}"
        if out == seat:
            raise ApiError("too_late", _("too late: your time ran out {late} s before this arrived", late=late))
        flagged = Message(state.game.color_of(out if out is not None else 0).label)
        raise ApiError("too_late", _("too late: {color}'s time ran out {late} s before this arrived", color=flagged, late=late))
    if isinstance(action, ResignAction):
        return _decide_resign(state, seat, now, request_id)
    if isinstance(action, ClaimAction):
        return decide_claim(state, seat, now, request_id=request_id)
    actor = seat
    mover = state.game.current_player
    assert mover is not None  # the game is not over, so someone is to move
    if seat is None:
        if not state.computer_to_move():
            raise ApiError("not_your_turn", _("no computer seat is to move"))
        seat = mover
        by_computer = True
    else:
        if seat in state.timed_out:
            raise ApiError("forbidden", _("your time ran out; the computer plays this seat"))
        if seat in state.resigned:
            raise ApiError("forbidden", _("you have resigned; the computer plays this seat"))
        if state.config.seats[seat].kind != "human":
            raise ApiError("forbidden", _("this seat is played by the computer"))
        if seat != mover:
            color = state.game.to_move
            assert color is not None
            raise ApiError("not_your_turn", _("it is {color}'s turn (seat {mover})", color=Message(color.label), mover=mover))
        by_computer = False
    # Played on the copy that becomes the table after the turn: what is stored is what was
    # played (the cells as the game names them), and nothing plays it a second time.
    after = state.copy()
    trial = after.game
    color = trial.to_move
    assert color is not None
    payload: Payload
    # The time this move took off the mover's clock (the swapper's, for the swap).
    used = state.used_ms(now)
    try:
        if isinstance(action, SwapAction):
            trial.swap()
            payload = Swapped(seat=seat, computer=by_computer, used_ms=used)
        else:
            trial.play(list(action.cells))
            played = trial.history[-1]
            assert played != SWAP
            payload = TurnPlayed(seat=seat, color=Message(color.label), cells=tuple(played), computer=by_computer, used_ms=used)
    except IllegalMove as e:
        raise ApiError("illegal_move", message_of(e)) from None
    turn = _acted(payload, state, actor, action, request_id, now)
    after.apply_played(turn)  # its game has played it: the clocks, the request id, the version
    decided = Decided(state, (turn,), (after,))
    if trial.is_over:
        decided = decided.then(_over_event(trial, state.resigned, "board_full", now))
    return decided


def _acted(payload: Payload, state: TableState, seat: int | None, action: Action, request_id: str | None,
           now: datetime) -> Event:
    """The event of ``seat``'s ``action``, numbered after ``state``, answering ``request_id``."""
    return Event(payload, version=state.version + 1, at=now, seat=seat, request_id=request_id,
                 fingerprint=action_fingerprint(action) if request_id is not None else None)


def decide_join(state: TableState, seat: int, now: datetime) -> Decided:
    """A person's first visit or action joins their seat: its ``join`` event, or nothing once
    it has joined.  The one place that asks whether a seat has joined.

    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2))
    >>> joining = decide_join(t, 1, datetime(2027, 1, 1))
    >>> [e.kind for e in joining.events], joining.after.joined, t.joined
    (['join'], [False, True], [False, False])
    """
    if state.joined[seat]:
        return Decided(state)
    return Decided(state).then(Event(Joined(seat), at=now))


def decide_hint(state: TableState, seat: int, now: datetime) -> Decided:
    """The ``hint`` event of ``seat`` asking for a hint now, or ApiError: only at a table
    whose creator allowed hints, for a person whose turn it is."""
    if state.over:
        raise ApiError("game_over", _("the game is over"))
    if not state.config.hints or state.config.rated:
        # Never at a rated table, whatever its settings say: a rating measures the players.
        raise ApiError("forbidden", _("hints are not allowed at this table"))
    if state.config.seats[seat].kind != "human" or seat in state.resigned:
        raise ApiError("forbidden", _("only a person still playing can ask for a hint"))
    mover = state.game.current_player
    color = state.game.to_move
    assert mover is not None and color is not None
    if seat != mover:
        raise ApiError("not_your_turn", _("it is {color}'s turn (seat {mover}): a hint is for your own turn", color=Message(color.label), mover=mover))
    return Decided(state).then(Event(HintUsed(seat=seat, color=Message(color.label), turn=state.game.turns_played + 1), at=now))


def _decide_resign(state: TableState, seat: int | None, now: datetime, request_id: str | None) -> Decided:
    if seat is None or state.config.seats[seat].kind != "human":
        raise ApiError("forbidden", _("only a human seat can resign"))
    if seat in state.timed_out:
        raise ApiError("forbidden", _("your time ran out; the computer plays this seat"))
    if seat in state.resigned:
        raise ApiError("forbidden", _("you have already resigned"))
    color = state.game.color_of(seat)
    resigned = [*state.resigned, seat]
    if state.short_of_minimum():
        # At a rated table before the game counts (MIN_RATED_TURNS): aborted, not a loss,
        # whoever else is still in, so a resignation on move one rates nobody.
        events = [_acted(Resigned(seat=seat, color=Message(color.label), aborted=True), state, seat, ResignAction(),
                         request_id, now), _over_event(state.game, resigned, "aborted", now)]
        return Decided(state).then(*events)
    events = [_acted(Resigned(seat=seat, color=Message(color.label)), state, seat, ResignAction(), request_id, now)]
    if ended_by_resignations(state.config, resigned):
        events.append(_over_event(state.game, resigned, "resignation", now))
    return Decided(state).then(*events)


def decide_claim(state: TableState, seat: int | None, now: datetime, *, request_id: str | None = None) -> Decided:
    """``seat``'s player, kept waiting at an untimed casual table, claims the seat to move,
    whose player is gone (no socket open: ``state.connected()``) and has not moved since
    ``state.claim_from()``: that seat is resigned on its behalf (its ``resign`` event names
    the claimant in ``claimed_by``; the claimant's own seat and request id are the event's).
    As after any resignation it ranks last and the computer plays on for it (``RESIGNED_LEVEL``), and
    the game ends if fewer than two players are left.  Refused: ``forbidden`` at a timed or
    rated table (its clock settles an absence) or for a seat out of play; ``conflict`` when
    nobody keeps the claimant waiting (their own turn, or a computer's); ``opponent_present``
    while the absent seat's player has the table open; ``too_early`` before ``claim_from``.
    The common refusals (over, not started) come first, from :func:`decide`.

    >>> from datetime import UTC, timedelta
    >>> from omega.server.tables.events import Joined
    >>> from omega.server.tables.state import CLAIM_AFTER, SeatConfig, TableConfig
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2))
    >>> t0 = datetime(2027, 1, 1, tzinfo=UTC)
    >>> for s in (0, 1): t.apply(Event(Joined(s), version=t.version + 1, at=t0))
    >>> decide_claim(t, 1, t0 + timedelta(minutes=9)).events
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: too early: White's player may still come back; you may claim in 60 s
    >>> claimed = decide_claim(t, 1, t0 + CLAIM_AFTER)
    >>> [(e.kind, e.seat) for e in claimed.events], claimed.after.end_reason, claimed.events[0].payload.claimed_by
    ([('resign', 1), ('over', None)], 'resignation', 1)
    """
    c = state.config
    if c.time_control.timed or c.rated:
        raise ApiError("forbidden", _("no claims at a timed or rated table: the clock settles an absent player's game"))
    if seat is None or c.seats[seat].kind != "human" or seat in state.resigned:
        raise ApiError("forbidden", _("only a person still playing can claim an absent player's seat"))
    absent = state.game.current_player
    assert absent is not None  # decide() refused a game over
    if absent == seat:
        raise ApiError("conflict", _("it is your own turn: nobody is keeping you waiting"))
    when = state.claim_from()
    if when is None:
        raise ApiError("conflict", _("the computer is to move: nobody is keeping you waiting"))
    color = state.game.color_of(absent)
    if state.connected()[absent]:
        raise ApiError("opponent_present", _("{color}'s player has the table open: they are thinking, not gone", color=Message(color.label)))
    if now < when:
        wait = (when - now).total_seconds()
        raise ApiError("too_early", _("too early: {color}'s player may still come back; you may claim in {wait} s", color=Message(color.label), wait=f"{wait:.0f}"))
    events = [_acted(Resigned(seat=absent, color=Message(color.label), claimed_by=seat), state, seat, ClaimAction(),
                     request_id, now)]
    resigned = [*state.resigned, absent]
    if ended_by_resignations(c, resigned):
        events.append(_over_event(state.game, resigned, "resignation", now))
    return Decided(state).then(*events)


def decide_cancel(state: TableState, now: datetime) -> Decided:
    """The creator calls off an open table that still waits for players; ``conflict`` once
    it has started (every seat taken) or was already cancelled.

    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, open=True))
    >>> t.status, [e.kind for e in decide_cancel(t, datetime(2027, 1, 1)).events]
    ('waiting', ['cancel'])
    >>> decide_cancel(t, datetime(2027, 1, 1)).after.status, t.status
    ('cancelled', 'waiting')
    """
    if not state.waiting:
        raise ApiError("conflict", _("this table is no longer waiting for players; it cannot be cancelled"))
    return Decided(state).then(Event(Cancelled(), at=now))


def decide_abandon(state: TableState, now: datetime) -> Decided:
    """The server closes an unfinished table nobody has acted on for long: the game ends as
    it stands (ranked by the scores so far, resigners last).  Nothing for a finished table.
    """
    if state.over or state.cancelled:
        return Decided(state)
    if state.waiting:  # nobody moved: an open table nobody came to is called off, not scored
        return Decided(state).then(Event(Cancelled(), at=now))
    return Decided(state).then(Event(Abandoned(), at=now), _over_event(state.game, state.resigned, "abandoned", now))


def decide_timeout(state: TableState, now: datetime) -> Decided:
    """The events of the running clock's flag having fallen by ``now`` ([] if it has not,
    or no clock runs).  A seat that never moved aborts the game, and so does any seat at a
    rated table before the game counts (``MIN_RATED_TURNS``); otherwise it ranks last
    and the computer plays on for it, and the game ends if too few players are left
    (with 2 players: the other one wins on time).

    >>> from datetime import UTC, datetime, timedelta
    >>> from omega.server.tables.timecontrol import TimeControl
    >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> c = TableConfig("t", 2, 5, False, "", (SeatConfig("human"), SeatConfig("human")), TimeControl.parse("1+0"))
    >>> t = TableState(c)
    >>> for e in [Event(Joined(0), at=t0), Event(Joined(1), at=t0)]: t.apply(e.with_version(t.version + 1))
    >>> t.flag_at() == t0 + timedelta(minutes=1), decide_timeout(t, t0 + timedelta(seconds=59.999)).events
    (True, ())
    >>> [(e.kind, getattr(e.payload, "reason", None)) for e in decide_timeout(t, t0 + timedelta(minutes=1)).events]
    [('timeout', None), ('over', 'aborted')]
    """
    seat = state.clock_seat()
    if seat is None or not state.flag_fallen(now):
        return Decided(state)
    aborted = not state.moved[seat] or state.short_of_minimum()
    events = [Event(TimedOut(seat=seat, color=state.game.color_of(seat).label, aborted=aborted), at=now)]
    if aborted:
        events.append(_over_event(state.game, state.resigned, "aborted", now))
        return Decided(state).then(*events)
    out = [*state.resigned, seat]
    if ended_by_resignations(state.config, out):
        events.append(_over_event(state.game, out, "timeout", now))
    return Decided(state).then(*events)


def decide_pause(state: TableState, seat: int, reason: str, now: datetime) -> Decided:
    """Stop the clock of ``seat`` for ``reason`` ([] where it cannot be paused: see
    :meth:`TableState.can_pause`; real-time clocks never are).  A pause is not refused: a
    feature pausing a player's clocks everywhere passes over the tables that do not allow it.

    >>> from datetime import UTC, timedelta
    >>> from omega.server.tables.timecontrol import TimeControl
    >>> from omega.server.tables.state import SeatConfig, TableConfig
    >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
    >>> t = TableState(TableConfig("t", 2, 5, False, "", (SeatConfig("human"),) * 2, TimeControl.parse("12h")))
    >>> for e in [Event(Joined(0), at=t0), Event(Joined(1), at=t0)]: t.apply(e.with_version(t.version + 1))
    >>> t.take(decide_pause(t, 0, "vacation", t0 + timedelta(hours=2)).after)
    >>> t.flag_at(), t.view()["seats"][0]["paused"]
    (None, 'vacation')
    >>> t.take(decide_resume(t, 0, t0 + timedelta(days=3)).after)
    >>> t.flag_at() == t0 + timedelta(days=3, hours=10)   # the 10 hours it had left
    True
    """
    if not state.can_pause(seat):
        return Decided(state)
    return Decided(state).then(Event(ClockPaused(seat=seat, reason=reason), at=now))


def decide_resume(state: TableState, seat: int, now: datetime) -> Decided:
    """Start the paused clock of ``seat`` again with the time it had ([] if it is not paused)."""
    if seat not in state.paused:
        return Decided(state)
    return Decided(state).then(Event(ClockResumed(seat=seat), at=now))


def _over_event(game: Game, resigned: list[int], reason: str, now: datetime) -> Event:
    ranking = final_ranking(game, resigned)
    scores = game.scores()
    return Event(GameEnded(
        reason=reason, ranking=tuple(c.label for c in ranking), winner=ranking[0].label,
        scores={c.label: str(scores[c]) for c in game.colors},
    ), at=now)

"""What happens when a table's clock runs out, or is about to: the decisions of the ``timeout``
and ``flag_near`` due work and of a feature's pause, and the :class:`FlagPolicy` through which
a feature (vacation) may pause a turn-based clock instead of letting its flag fall.

``TableCore`` runs these decisions through its one write path; this module only decides,
from a table's state, the writer's transaction and the time.

>>> due_work(None, {"timeout": 3, "flag_near": 3})
{'timeout': 3}
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from omega.server.tables.decide import Decided, decide_pause, decide_resume, decide_timeout
from omega.server.tables.events import Event, TimedOut
from omega.server.tables.state import FLAG_NEAR, TableState
from omega.server.tables.store import Writer
from omega.server.tables.timecontrol import ms_between

__all__ = ["FlagPolicy", "Flagged", "due_work", "due_at", "timeout_decision", "near_decision", "pause_decision",
           "log_timeout"]

log = logging.getLogger("omega.server")

#: A decision of the write path: the table's state, the writer's transaction, the time.
Decision = Callable[[TableState, Writer, datetime], Decided]


@dataclass(frozen=True)
class FlagPolicy:
    """Asked, inside the write that would store a turn-based flag, whether the seat's clock
    pauses instead: from ``lead`` before the flag falls (the ``flag_near`` due work) and
    again when it falls.  ``ask(writer, table, seat, now)`` answers the pause's reason, or
    None to let the flag fall; it may write rows of its own in the same transaction.  Only
    tables whose clock may be paused (``TableState.pausable``) ask.  The vacation feature
    sets it (``omega.server.vacation``): the core knows no feature.

    >>> FlagPolicy(timedelta(hours=3), lambda w, table, seat, now: None).lead
    datetime.timedelta(seconds=10800)
    """

    lead: timedelta
    ask: Callable[[Writer, TableState, int, datetime], str | None]


@dataclass(frozen=True)
class Flagged(Decided):
    """The timeout decided at a flag's due time, and when the flag falls (None: no clock runs)."""

    flag: datetime | None = None


def due_work(policy: FlagPolicy | None, due: dict[str, int]) -> dict[str, int]:
    """A table's due work (``TableState.due_work``) as a process keeps it: no ``flag_near``
    without a policy to ask."""
    if policy is None:
        due.pop(FLAG_NEAR, None)
    return due


def due_at(policy: FlagPolicy | None, state: TableState, kind: str) -> datetime | None:
    """When ``kind`` work is due at the table: ``flag_near`` the policy's lead before the flag."""
    at = state.due_at(kind)
    if kind == FLAG_NEAR and at is not None and policy is not None:
        return at - policy.lead
    return at


def _pause_instead(policy: FlagPolicy | None, state: TableState, w: Writer, now: datetime) -> Decided | None:
    """The pause the policy makes instead of the running clock's flag, if it is near enough
    and the policy grants one."""
    seat, flag = state.clock_seat(), state.flag_at()
    if policy is None or seat is None or flag is None or not state.pausable or now < flag - policy.lead:
        return None
    reason = policy.ask(w, state, seat, now)
    paused = decide_pause(state, seat, reason, now) if reason is not None else None
    return paused if paused is not None and paused.events else None


def timeout_decision(policy: FlagPolicy | None) -> Callable[[TableState, Writer, datetime], Flagged]:
    """The ``timeout`` work's decision: the running clock's timeout if its flag has fallen
    (decided in the write, like any action, so a move that got in first wins), unless the
    policy pauses the clock instead; ``flag`` says when the flag falls."""
    def decision(state: TableState, w: Writer, now: datetime) -> Flagged:
        paused = _pause_instead(policy, state, w, now)
        if paused is not None:
            return Flagged(state, paused.events, paused.states)
        timeout = decide_timeout(state, now)
        return Flagged(state, timeout.events, timeout.states, flag=state.flag_at())

    return decision


def near_decision(policy: FlagPolicy | None) -> Callable[[TableState, Writer, datetime], Flagged]:
    """The ``flag_near`` work's decision: the policy may pause the clock now (else the flag's
    own ``timeout`` work goes on); ``flag`` says when to look again if it is not near yet."""
    def decision(state: TableState, w: Writer, now: datetime) -> Flagged:
        paused = _pause_instead(policy, state, w, now)
        if paused is not None:
            return Flagged(state, paused.events, paused.states)
        near = due_at(policy, state, FLAG_NEAR) if FLAG_NEAR in due_work(policy, state.due_work()) else None
        return Flagged(state, flag=near if near is not None and now < near else None)

    return decision


def pause_decision(seat: int, reason: str, wanted: Callable[[Writer], bool]) -> Decision:
    """Bring the clock of ``seat`` to what ``wanted`` answers inside the write (True: paused
    for ``reason``; False: not paused for it); a clock paused for another reason is left alone."""
    def decision(state: TableState, w: Writer, now: datetime) -> Decided:
        if wanted(w):
            return decide_pause(state, seat, reason, now)
        if seat in state.paused and state.paused[seat][0] == reason:
            return decide_resume(state, seat, now)
        return Decided(state)

    return decision


def log_timeout(table_id: str, flag: datetime | None, stored: Sequence[Event]) -> None:
    """Log a stored timeout and how long after the flag fell the server stored it."""
    out = next((e for e in stored if isinstance(e.payload, TimedOut)), None)
    if out is None or flag is None or out.at is None:
        return
    assert isinstance(out.payload, TimedOut)
    log.info("clock of seat %d ran out at table %s%s; stored %d ms after the flag fell", out.payload.seat, table_id,
             " (game aborted)" if out.payload.aborted else "", ms_between(flag, out.at))

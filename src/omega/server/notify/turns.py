"""What the tables tell players away: "your turn" in a turn-based game, and "a game ended on
time".  The table core knows nothing of this: :func:`install` adds a hook to
``TableCore.on_stored``, which runs inside the transaction of every write that stored events.

**Your turn.** When a turn of a turn-based table passes to a seat held by an account, the
write keeps a ``your_turn`` due row for the table (its version: the play version, so a new
turn replaces an unclaimed row), due :data:`YOUR_TURN_DELAY` later.  The handler decides then,
at send time: nothing if the turn has moved on or the player has the table open (an open
socket at their seat, over every process).  Why not decide in the write: the opponent's move
reaches a player who is looking at the board at once, and a player who answers within the
delay needs no mail; a socket counted at the moment of the write says nothing of a minute later.
The notice key is ``your_turn:<table>:<play version>:<account>``: at most one per game per turn.

**Ended on time.** A turn-based game that ends by a flag tells every seat held by an account,
queued in the transaction of the end (turn-based players are away by nature; a real-time
player who lost on time was at the board).

>>> t = your_turn_notice(7, "t1", 12)
>>> t.key, t.path, t.subject, t.subject.in_language("de")
('your_turn:t1:12:7', '/t/t1', 'Your turn at table t1', 'Du bist am Zug an Tisch t1')
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import select

from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.due import Due
from omega.server.infra.scheduler import Scheduler
from omega.server.notify.notices import Notice
from omega.server.notify.service import Notifier
from omega.server.tables.core import TableCore
from omega.server.tables.events import Event, GameEnded
from omega.server.tables.models import SeatRow
from omega.server.tables.state import TableState
from omega.server.tables.store import Writer

__all__ = ["YOUR_TURN", "YOUR_TURN_DELAY", "install", "TableNotices", "your_turn_notice", "ended_notice"]

log = logging.getLogger("omega.server")

#: The kind of due work that decides whether to tell a player it is their turn.
YOUR_TURN = "your_turn"
#: How long after a turn passes to a player the "your turn" notice is decided.
YOUR_TURN_DELAY = timedelta(minutes=2)


def your_turn_notice(user_id: int, table_id: str, version: int) -> Notice:
    """The notice that it is ``user_id``'s turn at ``table_id`` (play version ``version``)."""
    return Notice(user_id, "your_turn", f"your_turn:{table_id}:{version}:{user_id}",
                  _("Your turn at table {table}", table=table_id),
                  _("Your opponent has moved: it is your turn at table {table}.", table=table_id), f"/t/{table_id}")


def ended_notice(user_id: int, table_id: str, flagged: str) -> Notice:
    """The notice that the game at ``table_id`` ended when ``flagged``'s time ran out."""
    return Notice(user_id, "ended_on_time", f"ended_on_time:{table_id}:{user_id}",
                  _("Game over on time at table {table}", table=table_id),
                  _("The game at table {table} ended on time: {player}'s clock ran out.", table=table_id,
                    player=flagged), f"/t/{table_id}")


def _seat_users(w: Writer) -> dict[int, int]:
    rows = w.conn.execute(select(SeatRow.idx, SeatRow.user_id).where(SeatRow.table_id == w.table_id,
                                                                      SeatRow.user_id.is_not(None))).all()
    return {int(idx): int(user) for idx, user in rows if user is not None}


class TableNotices:
    """The hook and the ``your_turn`` handler of one process."""

    def __init__(self, core: TableCore, notifier: Notifier) -> None:
        self.core = core
        self.notifier = notifier

    def stored(self, w: Writer, before: TableState, after: TableState, events: list[Event]) -> None:
        """``TableCore.on_stored``: inside the write's transaction."""
        if after.config.time_control.kind != "turn_based":
            return
        now = events[-1].at or self.core.clock.now() if events else self.core.clock.now()
        if after.over and not before.over:
            ended = any(isinstance(e.payload, GameEnded) for e in events)
            # ``aborted`` too: a flag that fell before its seat's first move ended it.
            if ended and after.end_reason in ("timeout", "aborted") and after.timed_out:
                flagged = after.names[after.timed_out[-1]]
                for user in _seat_users(w).values():
                    self.notifier.queue(w.conn, ended_notice(user, w.table_id, flagged), now)
            return
        seat = after.to_move_seat()
        if seat is None or after.config.seats[seat].kind != "human" or seat in after.resigned:
            return
        # The first turn begins when its clock starts (the join that completed the table),
        # not when the table is made: a table for friends has its first player to move from
        # its creation, with no change of seat or version when the last invite is taken.
        first_turn = before.turn_since is None and after.turn_since is not None
        if not first_turn and (before.to_move_seat(), before.play_version) == (seat, after.play_version):
            return  # no new turn (a rename, a hint): the row already there stands
        if seat not in _seat_users(w):
            return  # a guest's seat: nobody to tell
        w.keep_due(YOUR_TURN, after.play_version, now + YOUR_TURN_DELAY)

    async def your_turn(self, due: Due) -> datetime | None:
        """The ``your_turn`` handler: tell the seat to move unless the turn moved on or the
        player has the table open."""
        cached = await self.core.fresh(due.table_id)
        state = cached.state
        seat = state.to_move_seat()
        if state.play_version != due.version or seat is None:
            return None
        # From the database, not the cached keys: a seat bound to an account after the table
        # was cached (its link opened while logged in) is not in them, nor in another
        # process's cache.
        users = await self.core.db(self.core.repo.seat_users, due.table_id)
        user = users[seat] if seat < len(users) else None
        if user is None:
            return None
        present = await self.core.db(self.core.repo.presence_count, due.table_id)
        if present.seats.get(seat, 0) > 0:
            return None  # the player is looking at the board: no mail for this turn
        await self.notifier.notify(your_turn_notice(user, due.table_id, due.version))
        return None

    async def still_your_turn(self, notice: Notice) -> bool:
        """Whether the turn of a "your turn" notice still waits for its player (the digest
        asks before it mails)."""
        _, table_id, version, _ = notice.key.split(":")
        try:
            state = (await self.core.fresh(table_id)).state
        except ApiError:
            return False  # the table is gone
        return state.play_version == int(version) and not state.over


def install(core: TableCore, notifier: Notifier, scheduler: Scheduler | None) -> TableNotices:
    """Hook the notices into ``core``; with ``scheduler``, decide "your turn" here too."""
    notices = TableNotices(core, notifier)
    core.on_stored.append(notices.stored)
    notifier.checks["your_turn"] = notices.still_your_turn
    if scheduler is not None:
        scheduler.handle(YOUR_TURN, notices.your_turn, lease=60.0, capacity=16)
    return notices

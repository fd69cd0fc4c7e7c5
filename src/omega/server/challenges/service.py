"""What challenges do: sent to a named player (or open to whoever opens the link first),
seen live by the challenged player (the lobby socket) and told by the notify feature (mail,
push, as the player chose); accepted (the table is made with both seated, in the same
commit), declined, cancelled by their sender, or expired by their ``challenge`` due work.

Every limit and refusal's words of the feature are here (one home): an account has at most
:data:`MAX_PENDING` challenges waiting for an answer; a challenge waits
:data:`WAITS_REALTIME` (untimed or real time: the sender is at the screen) or
:data:`WAITS_TURN_BASED` (a turn-based game, answered when the player next looks).

One straight path for every answer: lock the challenge's row, check it still waits and who
asks, write (the table with it), commit, then tell both players' pages.  Two players opening
an open challenge's link at once make one table: the second finds it answered.

>>> waits_for("5+5"), waits_for("1d")
(datetime.timedelta(seconds=1800), datetime.timedelta(days=7))
>>> describe(2, 6, True, False, "5+5", None), describe(3, 5, False, False, None, 2)
('2 players · side 6 · 5+5 · casual · pie rule', '3 players · side 5 · untimed · casual · computer level 2')
>>> describe(2, 6, False, True, "1d", None).in_language("fr")
'2 joueurs · côté 6 · 1d · classée'
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import insert
from sqlalchemy.engine import Connection

from omega.i18n import Message
from omega.i18n import translatable as _
from omega.server.accounts.store import User
from omega.server.challenges import store
from omega.server.challenges.models import ChallengeRow
from omega.server.challenges.schemas import NewChallenge
from omega.server.clock import stamp
from omega.server.errors import ApiError
from omega.server.infra.db import utc
from omega.server.infra.due import Due, drop_due_row, keep_due_row
from omega.server.notify.notices import Notice
from omega.server.relations.service import Relations, blocked_pair, not_yourself
from omega.server.tables.core import TableCore
from omega.server.tables.seated import new_table_id, seat_accounts
from omega.server.tables.state import SeatConfig, TableConfig
from omega.server.tables.timecontrol import TimeControl

__all__ = ["Challenges", "MAX_PENDING", "WAITS_REALTIME", "WAITS_TURN_BASED", "LISTED", "SHOWN_AFTER",
           "waits_for", "describe", "Tell", "Told", "STATUSES"]

log = logging.getLogger("omega.server")
T = TypeVar("T")

#: Challenges one account may have waiting for an answer at once.
MAX_PENDING = 10
#: How long a challenge waits for its answer: at a real-time (or untimed) game the sender
#: waits at the screen; a turn-based one is answered when the player next looks.
WAITS_REALTIME = timedelta(minutes=30)
WAITS_TURN_BASED = timedelta(days=7)
#: How long an answered challenge stays in the lists (the sender finds the accepted game).
SHOWN_AFTER = timedelta(minutes=10)
#: Challenges a list shows at most.
LISTED = 50
#: A challenge's states: waiting, then one answer.
STATUSES = ("pending", "accepted", "declined", "cancelled", "expired")
#: Queues a notice inside the caller's transaction (the notify feature's).
Tell = Callable[[Connection, Notice], None]
#: Told after a commit: per account, the message for its page sockets (the lobby feed's).
Told = Callable[[dict[int, dict[str, Any]]], None]


def waits_for(time_control: str | None) -> timedelta:
    """How long a challenge of ``time_control`` (None: untimed) waits for an answer."""
    kind = TimeControl.parse(time_control).kind
    return WAITS_TURN_BASED if kind == "turn_based" else WAITS_REALTIME


def describe(players: int, size: int, pie: bool, rated: bool, time_control: str | None, level: int | None) -> Message:
    """A challenge's table in a few words (a message: English, or ``.in_language(lang)``)."""
    parts: list[str] = [_("{n} players", n=players), _("side {n}", n=size), time_control or _("untimed"),
                        _("rated") if rated else _("casual")]
    if pie:
        parts.append(_("pie rule"))
    if players > 2:
        parts.append(_("computer level {level}", level=level))
    # The words one by one, each put in the reader's language: " · " itself says nothing.
    return Message(" · ".join(f"{{p{i}}}" for i in range(len(parts))), {f"p{i}": p for i, p in enumerate(parts)})


def _over(status: str) -> ApiError:
    return ApiError("challenge_over", _("this challenge was {status} already", status=status) if status != "pending"
                    else _("this challenge expired"))


def _not_found() -> ApiError:
    return ApiError("not_found", _("no such challenge (or not one of yours)"))


class Challenges:
    """The challenges of the site, for one server process (``app.state.challenges``)."""

    def __init__(self, core: TableCore, relations: Relations, tell: Tell | None = None) -> None:
        self.core = core
        self.relations = relations
        self.tell = tell
        #: Told after each commit that changed a challenge (set at wiring: the lobby feed).
        self.on_change: Told = lambda messages: None

    # -- players' requests ---------------------------------------------------------------

    async def create(self, user: User, new: NewChallenge) -> dict[str, Any]:
        """Send a challenge (``to`` None: open by its link)."""
        now = self.core.clock.now()

        def run(conn: Connection) -> str:
            to = None
            if new.to is not None:
                to = self.relations.account(conn, new.to)
                if to.id == user.id:
                    raise not_yourself("challenge")
                if self.relations.blocked_between(conn, user.id, to.id):
                    raise blocked_pair(to.username, "challenge")
            if new.rated:  # a player barred from rated play (moderation) cannot ask for it
                self.core.refuse_rated(conn, [user.id], now)
            if store.count_pending(conn, user.id, now) >= MAX_PENDING:
                raise ApiError("too_many_challenges", _("you have {max_pending} challenges waiting for an answer, the most one account may: cancel one, or wait for answers", max_pending=MAX_PENDING))
            challenge_id = secrets.token_urlsafe(9)
            expires = now + waits_for(new.time_control)
            conn.execute(insert(ChallengeRow).values(
                id=challenge_id, from_id=user.id, to_id=None if to is None else to.id, players=new.players,
                size=new.size, pie_rule=new.pie, rated=new.rated, time_control=new.time_control, level=new.level,
                status="pending", created_at=now, expires_at=expires))
            keep_due_row(conn, store.KIND, challenge_id, 0, expires)
            if to is not None and self.tell is not None:
                what = describe(new.players, new.size, new.pie, new.rated, new.time_control, new.level)
                self.tell(conn, Notice(to.id, "challenge", f"challenge:{challenge_id}",
                                       _("{player} challenges you", player=user.username),
                                       _("{player} challenges you to a game ({table}). Accept or decline it on "
                                         "the site.", player=user.username, table=what),
                                       f"/challenges/{challenge_id}"))
            store.notify(conn, self.core.server_id, challenge_id)
            return challenge_id

        challenge_id = await self.core.db(self.core.repo.write, run)
        log.info("challenge %s sent by user %d", challenge_id, user.id)
        self.core.on_due()  # its expiry, and its notice's deliveries
        await self.announce(challenge_id)
        return await self.view(user, challenge_id)

    async def accept(self, user: User, challenge_id: str) -> dict[str, Any]:
        """Take the challenge: the table is made with both players seated (a challenge open
        by link: whoever comes first)."""
        def run(conn: Connection) -> None:
            now = self.core.clock.now()
            c = self._waiting(conn, challenge_id, user, now)
            if c.from_id == user.id:
                raise ApiError("forbidden", _("you cannot accept your own challenge"))
            if c.to_id is not None and c.to_id != user.id:
                raise ApiError("forbidden", _("this challenge is for another player"))
            if self.relations.blocked_between(conn, c.from_id, user.id):
                raise blocked_pair(store.names_of(conn, [c.from_id]).get(c.from_id, "?"), "accept a challenge of")
            if c.rated:  # either barred from rated play since: no rated table
                self.core.refuse_rated(conn, [int(c.from_id), user.id], now)
            people = [int(c.from_id), user.id]
            secrets.SystemRandom().shuffle(people)  # who moves first is luck, not who asked
            names = store.names_of(conn, people)
            seats = (SeatConfig("human"), SeatConfig("human"),
                     *(SeatConfig("computer", c.level) for _ in range(c.players - 2)))
            config = TableConfig(new_table_id(), c.players, c.size, bool(c.pie_rule) and c.players == 2, stamp(now),
                                 seats, TimeControl.parse(c.time_control), rated=bool(c.rated), watchable=True)
            seat_accounts(conn, config, people, [names[u] for u in people], f"user:{c.from_id}", now,
                          postgres=conn.dialect.name == "postgresql")
            store.set_status(conn, challenge_id, "accepted", now, table_id=config.id, accepted_by=user.id)
            drop_due_row(conn, store.KIND, challenge_id)
            store.notify(conn, self.core.server_id, challenge_id)
            log.info("challenge %s accepted: table %s", challenge_id, config.id)

        await self.core.db(self.core.repo.write, run)
        self.core.on_due()  # the new table's first clock (or computer) is due work
        await self.announce(challenge_id)
        return await self.view(user, challenge_id)

    async def decline(self, user: User, challenge_id: str) -> dict[str, Any]:
        """Say no to a challenge made to ``user``."""
        def check(c: Any) -> None:
            if c.to_id != user.id:
                raise ApiError("forbidden", _("only the challenged player declines a challenge")
                               if c.to_id is not None else _("a challenge open by link is not declined: leave it, "
                                                             "or its sender cancels it"))

        return await self._answer(user, challenge_id, "declined", check)

    async def cancel(self, user: User, challenge_id: str) -> dict[str, Any]:
        """Take back a challenge ``user`` sent."""
        def check(c: Any) -> None:
            if c.from_id != user.id:
                raise ApiError("forbidden", _("only its sender cancels a challenge"))

        return await self._answer(user, challenge_id, "cancelled", check)

    # -- reading --------------------------------------------------------------------------

    async def view(self, viewer: User | None, challenge_id: str) -> dict[str, Any]:
        """One challenge as ``viewer`` sees it: its two players see theirs; one open by link
        anyone with the link sees (``not_found`` for anyone else)."""
        now = self.core.clock.now()

        def read(conn: Connection) -> dict[str, Any]:
            c = store.read(conn, challenge_id)
            viewer_id = None if viewer is None else viewer.id
            if c is None or (c.to_id is not None and viewer_id not in (c.from_id, c.to_id)):
                raise _not_found()
            return self._view(c, store.names_of(conn, [c.from_id, c.to_id, c.accepted_by]), viewer_id, now)

        return await self.core.db(self.core.repo.read, read)

    async def listing(self, user: User) -> dict[str, Any]:
        """``user``'s challenges waiting, and those answered lately: ``sent`` and ``received``."""
        now = self.core.clock.now()

        def read(conn: Connection) -> dict[str, Any]:
            rows = store.mine(conn, user.id, now - SHOWN_AFTER, LISTED)
            names = store.names_of(conn, [u for c in rows for u in (c.from_id, c.to_id, c.accepted_by)])
            views = [self._view(c, names, user.id, now) for c in rows]
            return {"sent": [v for v in views if v["mine"]], "received": [v for v in views if not v["mine"]]}

        return await self.core.db(self.core.repo.read, read)

    # -- due work, and telling the pages --------------------------------------------------

    async def run(self, due: Due) -> datetime | None:
        """The ``challenge`` due work: the challenge expires if still unanswered."""
        challenge_id = due.table_id

        def run(conn: Connection) -> datetime | None:
            now = self.core.clock.now()
            c = store.lock(conn, challenge_id)
            if c is None or c.status != "pending":
                return None
            if now < utc(c.expires_at):
                return utc(c.expires_at)
            store.set_status(conn, challenge_id, "expired", now)
            store.notify(conn, self.core.server_id, challenge_id)
            return None

        again: datetime | None = await self.core.db(self.core.repo.write, run)
        if again is None:
            await self.announce(challenge_id)
        return again

    def remote(self, challenge_id: str) -> None:
        """Another process changed a challenge (PostgreSQL NOTIFY): tell this process's pages."""
        asyncio.get_running_loop().create_task(self.announce(challenge_id))

    async def announce(self, challenge_id: str) -> None:
        """Tell the pages of the challenge's players where it stands (``on_change``)."""
        now = self.core.clock.now()

        def read(conn: Connection) -> dict[int, dict[str, Any]]:
            c = store.read(conn, challenge_id)
            if c is None:
                return {}
            names = store.names_of(conn, [c.from_id, c.to_id, c.accepted_by])
            users = {int(u) for u in (c.from_id, c.to_id, c.accepted_by) if u is not None}
            return {u: {"type": "challenge", "challenge": self._view(c, names, u, now)} for u in users}

        try:
            self.on_change(await self.core.db(self.core.repo.read, read))
        except Exception:
            log.exception("could not tell the players of challenge %s", challenge_id)

    # -- inside ---------------------------------------------------------------------------

    @staticmethod
    def _view(c: Any, names: dict[int, str], viewer_id: int | None, now: datetime) -> dict[str, Any]:
        status = "expired" if c.status == "pending" and now >= utc(c.expires_at) else str(c.status)
        players = viewer_id is not None and viewer_id in (c.from_id, c.to_id, c.accepted_by)
        return {
            "id": c.id, "from": names.get(c.from_id, "?"),
            "to": names.get(c.to_id) if c.to_id is not None else None,
            "accepted_by": names.get(c.accepted_by) if c.accepted_by is not None else None,
            "players": c.players, "size": c.size, "pie": bool(c.pie_rule), "rated": bool(c.rated),
            "time_control": c.time_control, "level": c.level, "status": status,
            "describe": describe(c.players, c.size, bool(c.pie_rule), bool(c.rated), c.time_control, c.level),
            "created_at": stamp(utc(c.created_at)), "expires_at": stamp(utc(c.expires_at)),
            "path": f"/challenges/{c.id}", "mine": viewer_id == c.from_id,
            # The table is its players' to open (a challenge open by link is seen by anyone).
            "table_id": c.table_id if players else None,
        }

    def _waiting(self, conn: Connection, challenge_id: str, user: User, now: datetime) -> Any:
        """The challenge's row locked, if ``user`` may see it and it still waits."""
        c = store.lock(conn, challenge_id)
        if c is None or (c.to_id is not None and user.id not in (c.from_id, c.to_id)):
            raise _not_found()
        if c.status != "pending" or now >= utc(c.expires_at):
            raise _over(str(c.status))
        return c

    async def _answer(self, user: User, challenge_id: str, status: str, check: Callable[[Any], None]) -> dict[str, Any]:
        def run(conn: Connection) -> None:
            now = self.core.clock.now()
            c = self._waiting(conn, challenge_id, user, now)
            check(c)
            store.set_status(conn, challenge_id, status, now)
            drop_due_row(conn, store.KIND, challenge_id)
            store.notify(conn, self.core.server_id, challenge_id)

        await self.core.db(self.core.repo.write, run)
        await self.announce(challenge_id)
        return await self.view(user, challenge_id)

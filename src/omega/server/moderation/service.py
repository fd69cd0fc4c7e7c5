"""The moderation service: players report each other, moderators read the queue and a
player's history and act; the sanctions in force are asked by the chat (a mute) and by the
tables and the lobby (a rated ban) through the hooks :func:`install` sets.

- A **report** names an account, a reason (``schemas.REASONS``), the reporter's words and
  where: a chat message, a table, or neither (from a profile).  Its evidence is copied into
  it when it is made (the reported messages' text and sender, the game's record), so it
  stands after the messages are removed, the table is gone or either account is deleted.
  A reporter may report what happened at a table they play at, or at a lobby or rated table
  (which anyone may watch); never themselves; at most ``Limits.reports_open_per_reporter``
  reports open at once.
- An **action** (``schemas.ACTIONS``) is logged (who, whom, what, why, when, until), told to
  the player (a ``moderation`` notice) and listed in their standing.  Moderators act on
  players; only an admin acts on a moderator or admin, or changes roles.  Nobody acts on
  their own account.  An action may close a report; a report may also be dismissed.

>>> describe_until(None), describe_until(datetime(2027, 1, 2, 3, 4, tzinfo=UTC))
('until a moderator lifts it', 'until 2027-01-02 03:04 UTC')
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Connection

from omega.i18n import Message
from omega.i18n import translatable as _
from omega.names import username_key
from omega.server.accounts.roles import ROLES, grant, may_moderate, revoke, roles_of
from omega.server.accounts.service import Accounts, User
from omega.server.errors import ApiError
from omega.server.infra.db import iso
from omega.server.infra.limits import Limits
from omega.server.moderation import store
from omega.server.moderation.schemas import ACTIONS, SANCTIONS, NewAction, NewReport
from omega.server.notify.notices import Notice
from omega.server.ratings.service import RatingStore, revert_gains
from omega.server.social.chat import Chat, ChatRef
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Spectator
from omega.server.tables.records import Records

__all__ = ["Moderation", "Tell", "Closer", "describe_until", "install", "EVIDENCE_MESSAGES", "QUEUE_OPEN", "QUEUE_CLOSED",
           "HISTORY", "STANDING"]

log = logging.getLogger("omega.server")

#: Where notices go: queued in the caller's transaction (the app wires the notify service).
Tell = Callable[[Connection, Notice], None]
#: Closes account ``user_id`` at ``now`` for ``by`` inside the caller's transaction; when its
#: owner's grace period to reopen it ends.
Closer = Callable[[Connection, int, datetime, str], datetime]
#: The reported account's messages at the table a report copies (the latest).
EVIDENCE_MESSAGES = 30
#: Reports the queue lists: every open one up to this many, and the latest closed ones.
QUEUE_OPEN = 200
QUEUE_CLOSED = 50
#: Rows of each list of a player's history.
HISTORY = 50
#: Actions a player's standing lists.
STANDING = 50


def describe_until(until: datetime | None) -> Message:
    """How a sanction's end is told to people (a message: English, or ``.in_language(lang)``)."""
    if until is None:
        return _("until a moderator lifts it")
    return _("until {time} UTC", time=until.astimezone(UTC).strftime('%Y-%m-%d %H:%M'))


def _log_notice(conn: Connection, notice: Notice) -> None:
    log.info("moderation notice for user %d: %s", notice.user_id, notice.subject)


@dataclass(frozen=True)
class _Target:
    user: User
    roles: frozenset[str]


class Moderation:
    """Reports, the console's reads, and moderators' actions, on ``core``'s database."""

    def __init__(self, core: TableCore, accounts: Accounts, chat: Chat, ratings: RatingStore, limits: Limits,
                 tell: Tell | None = None) -> None:
        self.core = core
        self.accounts = accounts
        self.chat = chat
        self.ratings = ratings
        self.records = Records(core)
        self.limits = limits
        self.tell = tell or _log_notice
        #: Closes an account inside the caller's transaction, for the ``close_account``
        #: action: the leaving feature's, set at wiring (this feature sits below it); its
        #: answer is when the owner's grace period to reopen it ends.
        self.closer: Closer | None = None
        #: Called after an action's commit that made work due (a closed account's removal).
        self.wake: Callable[[], None] = lambda: None

    # -- the database ---------------------------------------------------------------------------

    async def read(self, fn: Callable[[Connection], Any]) -> Any:
        """``fn(conn)`` in a read of its own."""
        return await self.core.db(self.core.repo.read, fn)

    async def write(self, fn: Callable[[Connection], Any]) -> Any:
        """``fn(conn)`` in a write transaction of its own."""
        return await self.core.db(self.core.repo.write, fn)

    # -- who may -------------------------------------------------------------------------------

    async def roles(self, user: User) -> frozenset[str]:
        """The roles ``user`` holds."""
        held: frozenset[str] = await self.read(lambda conn: roles_of(conn, user.id))
        return held

    async def require_moderator(self, user: User) -> frozenset[str]:
        """``forbidden`` unless ``user`` is a moderator or admin; their roles."""
        held = await self.roles(user)
        if not may_moderate(held):
            raise ApiError("forbidden", _("only moderators may do this"))
        return held

    async def require_admin(self, user: User) -> None:
        """``forbidden`` unless ``user`` is an admin."""
        if "admin" not in await self.roles(user):
            raise ApiError("forbidden", _("only admins may change roles"))

    async def _target(self, username: str) -> _Target:
        found = await self.accounts.find(username)
        if found is None:
            raise ApiError("not_found", _("there is no such player"))
        user = found[0]
        return _Target(user, await self.roles(user))

    # -- the hooks -------------------------------------------------------------------------------

    def barred_from_rated(self, conn: Connection, users: Any, now: datetime) -> frozenset[int]:
        """``TableCore.rated_gate``: the accounts under a rated ban at ``now``."""
        return store.barred(conn, "rated_ban", users, now)

    async def check_chat(self, user_id: int) -> None:
        """``Chat.gate``: ``muted`` (with until when) for an account under a mute."""
        now = self.core.clock.now()
        mutes = [r for r in await self.read(lambda conn: store.in_force(conn, user_id, now)) if r.action == "mute"]
        if mutes:
            until = mutes[-1].until
            raise ApiError("muted", _("you are muted {until} (a moderator's decision: your account page says why)", until=describe_until(until)), until=iso(until))

    # -- reports ----------------------------------------------------------------------------------

    async def report(self, reporter: User, req: NewReport) -> dict[str, Any]:
        """Store ``reporter``'s report with a copy of its evidence; ``{"id", "status"}``."""
        target = (await self._target(req.username)).user
        if target.id == reporter.id:
            raise ApiError("bad_request", _("bad request: you cannot report yourself"))
        table_id, reported = req.table_id, None
        if req.message_id is not None:
            reported = await self.chat.message(req.message_id)
            if reported is None:
                raise ApiError("not_found", _("there is no such chat message"))
            if reported.line.user is None or username_key(reported.line.user) != username_key(target.username):
                raise ApiError("bad_request", _("bad request: message {message_id} was not written by {username}", message_id=req.message_id, username=target.username))
            if table_id is not None and table_id != reported.table_id:
                raise ApiError("bad_request", _("bad request: message {message_id} is not of table {table_id}", message_id=req.message_id, table_id=table_id))
            table_id = reported.table_id
        evidence = await self._evidence(reporter, target, table_id, reported) if table_id is not None else {}
        now = self.core.clock.now()
        most = self.limits.reports_open_per_reporter

        def write(conn: Connection) -> int:
            if store.open_reports_by(conn, reporter.id) >= most:
                raise ApiError("too_many_reports", _("you have {most} reports waiting for a moderator; wait until they are looked at", most=most))
            if store.open_duplicate(conn, reporter.id, target.id, table_id, req.message_id) is not None:
                raise ApiError("conflict", _("you already reported this; a moderator will look at it"))
            return store.add_report(
                conn, reporter_id=reporter.id, reporter_name=reporter.username, user_id=target.id,
                username=target.username, reason=req.reason, text=(req.text or "").strip() or None, table_id=table_id,
                message_id=req.message_id, evidence=evidence, created_at=now)

        report_id: int = await self.write(write)
        log.info("report %d: user %d reported user %d (%s)", report_id, reporter.id, target.id, req.reason)
        return {"id": report_id, "status": "open"}

    async def _evidence(self, reporter: User, target: User, table_id: str, reported: ChatRef | None) -> dict[str, Any]:
        """A copy of what a report about ``target`` at ``table_id`` points to."""
        cached = await self.core.get(table_id)  # not_found for no such table
        seated = cached.keys.seat_users
        if reporter.id not in seated and not cached.state.config.public:
            raise ApiError("forbidden", _("you can report what happened at a table you play at, or at a lobby or rated table"))
        if target.id not in seated:
            raise ApiError("bad_request", _("bad request: {username} does not play at table {table_id}", username=target.username, table_id=table_id))
        record, _version = await self.records.record(table_id, Spectator())
        lines = await self.chat.written_by(target.username, EVIDENCE_MESSAGES, table_id)
        if reported is not None and all(r.line.id != reported.line.id for r in lines):
            lines.append(reported)  # older than the latest ones: kept all the same
        state = cached.state
        return {
            "table": {"id": table_id, "players": state.config.players, "size": state.config.size,
                      "rated": state.config.rated, "status": state.status, "names": list(state.names)},
            "record": record,
            "messages": [r.json() for r in sorted(lines, key=lambda r: r.line.id)],
            "message": reported.json() if reported is not None else None,
        }

    async def queue(self) -> list[dict[str, Any]]:
        """The report queue: open reports oldest first, then the latest closed ones."""
        found: list[dict[str, Any]] = await self.read(lambda conn: store.reports(conn, QUEUE_OPEN, QUEUE_CLOSED))
        return found

    async def dismiss(self, moderator: User, report_id: int, reason: str) -> dict[str, Any]:
        """Close an open report with nothing done."""
        now = self.core.clock.now()

        def write(conn: Connection) -> dict[str, Any]:
            row = self._open_report(conn, report_id)
            store.close_report(conn, report_id, "dismissed", moderator.username, reason, now, None)
            return store.report_json(store.report_row(conn, row.id))

        done: dict[str, Any] = await self.write(write)
        return done

    @staticmethod
    def _open_report(conn: Connection, report_id: int) -> Any:
        row = store.report_row(conn, report_id, lock=True)
        if row is None:
            raise ApiError("not_found", _("there is no such report"))
        if row.status != "open":
            raise ApiError("conflict", _("this report was closed already ({status})", status=row.status))
        return row

    # -- actions ----------------------------------------------------------------------------------

    async def act(self, moderator: User, req: NewAction) -> dict[str, Any]:
        """Do ``req`` to its account, log it, close its report, tell the player; the action."""
        held = await self.require_moderator(moderator)
        target = await self._target(req.username)
        user = target.user
        if user.id == moderator.id:
            raise ApiError("bad_request", _("bad request: you cannot act on your own account"))
        if target.roles and "admin" not in held:
            raise ApiError("forbidden", _("only an admin acts on a moderator's or admin's account"))
        now = self.core.clock.now()
        until = now + timedelta(minutes=req.minutes) if req.minutes is not None else None
        removed: list[ChatRef] = []

        def write(conn: Connection) -> dict[str, Any]:
            report = self._open_report(conn, req.report_id) if req.report_id is not None else None
            if report is not None and report.user_id != user.id:
                raise ApiError("bad_request", _("bad request: report {report_id} is not about {username}", report_id=req.report_id, username=user.username))
            action_id = store.add_action(
                conn, moderator_id=moderator.id, moderator_name=moderator.username, user_id=user.id,
                username=user.username, action=req.action, reason=req.reason, created_at=now,
                until=until if req.action in SANCTIONS else None, message_id=req.message_id, report_id=req.report_id)
            detail = self._do(conn, req, user, action_id, now, removed, moderator.username)
            if detail:
                store.set_detail(conn, action_id, detail)
            if report is not None:
                store.close_report(conn, report.id, "actioned", moderator.username, req.reason, now, action_id)
            row = store.actions_on(conn, user.id, 1)[0]
            self.tell(conn, _notice(row.id, user.id, req.action, req.reason, until, detail))
            return store.action_json(row)

        done: dict[str, Any] = await self.write(write)
        for ref in removed:
            await self.chat.removed(ref.table_id, ref.line.id)
        if req.action == "close_account":
            self.wake()
        log.info("moderation: %s by user %d on user %d (action %d)", req.action, moderator.id, user.id, done["id"])
        return done

    def _do(self, conn: Connection, req: NewAction, user: User, action_id: int, now: datetime,
            removed: list[ChatRef], moderator: str) -> dict[str, Any]:
        """What the action does beside its log row, inside its transaction; its detail."""
        if req.action == "remove_message":
            assert req.message_id is not None
            ref = Chat.hide(conn, req.message_id, now)
            if ref is None:
                raise ApiError("not_found", _("there is no such chat message"))
            if ref.line.user is None or username_key(ref.line.user) != username_key(user.username):
                raise ApiError("bad_request", _("bad request: message {message_id} was not written by {username}", message_id=req.message_id, username=user.username))
            if ref.hidden:
                raise ApiError("conflict", _("this message was removed already"))
            removed.append(ref)
            return {"message": ref.json()}
        if req.action == "revert_ratings":
            games = revert_gains(conn, user.id, req.table_ids, now, action_id)
            if not games:
                raise ApiError("conflict", _("no rated game of these gained this account rating that was not reverted already"))
            return {"games": games}
        if req.action == "close_account":
            if self.closer is None:  # a site wired without the leaving feature
                raise ApiError("bad_request", _("bad request: accounts cannot be closed on this site"))
            return {"reopen_until": iso(self.closer(conn, user.id, now, f"moderator:{moderator}"))}
        if req.action == "lift":
            lifted = store.lift(conn, user.id, now)
            if not lifted:
                raise ApiError("conflict", _("{username} has no mute or rated ban in force", username=user.username))
            return {"lifted": lifted}
        return {}

    async def set_role(self, admin: User, username: str, role: str, granted: bool) -> dict[str, Any]:
        """Grant (``granted``) or revoke the moderator role on the site, logged as an action."""
        await self.require_admin(admin)
        if role != "moderator":
            raise ApiError("bad_request", _("bad request: the site grants and revokes the moderator role only (roles: {values}; admins are made with omega admin)", values=', '.join(ROLES)))
        user = (await self._target(username)).user
        now = self.core.clock.now()
        action = "grant_role" if granted else "revoke_role"

        def write(conn: Connection) -> dict[str, Any]:
            changed = grant(conn, user.username, role, now) if granted else revoke(conn, user.username, role)
            if not changed:
                raise ApiError("conflict", _("{username} is {role} already", username=user.username, role=role) if granted
                               else _("{username} is not {role}", username=user.username, role=role))
            store.add_action(conn, moderator_id=admin.id, moderator_name=admin.username, user_id=user.id,
                             username=user.username, action=action, reason=f"{action.replace('_', ' ')}: {role}",
                             detail={"role": role}, created_at=now)
            row = store.actions_on(conn, user.id, 1)[0]
            self.tell(conn, _notice(row.id, user.id, action, row.reason, None, {"role": role}))
            return {"username": user.username, "roles": sorted(roles_of(conn, user.id)), "action": store.action_json(row)}

        done: dict[str, Any] = await self.write(write)
        return done

    # -- reading -------------------------------------------------------------------------------

    async def player(self, username: str) -> dict[str, Any]:
        """A player's history for moderators: games, chat, reports on and by them, rating
        changes and reverts, shared-origin flags, actions and what is in force now."""
        found = await self.accounts.find(username)
        if found is None:
            raise ApiError("not_found", _("there is no such player"))
        user, created = found
        now = self.core.clock.now()

        def read(conn: Connection) -> dict[str, Any]:
            return {
                "roles": [r for r in ROLES if r in roles_of(conn, user.id)],
                "reports_on": store.reports_on(conn, user.id, HISTORY),
                "reports_by": store.reports_by(conn, user.id, HISTORY),
                "actions": [store.action_json(r) for r in store.actions_on(conn, user.id, HISTORY)],
                "in_force": [store.action_json(r) for r in store.in_force(conn, user.id, now)],
            }

        mine = await self.read(read)
        db = self.core.db
        return {
            "username": user.username, "created_at": iso(created), **mine,
            "games": await db(self.ratings.recent_games, user.id, HISTORY),
            "rating_changes": await db(self.ratings.history, user.id, HISTORY),
            "reverts": await db(self.ratings.reverts_of, user.id, HISTORY),
            "flags": await db(self.ratings.flags_of, user.id, HISTORY),
            "chat": [r.json() for r in await self.chat.written_by(user.username, HISTORY)],
        }

    async def flags(self, before: int | None) -> list[dict[str, Any]]:
        """The newest fair-play flags (shared origins at rated tables)."""
        found: list[dict[str, Any]] = await self.core.db(self.ratings.flags, HISTORY, before)
        return found

    async def log(self) -> list[dict[str, Any]]:
        """The site's latest actions."""
        found: list[dict[str, Any]] = await self.read(lambda conn: store.recent_actions(conn, HISTORY))
        return found

    async def standing(self, user: User) -> dict[str, Any]:
        """What the player is told of their standing: the mute and rated ban in force, and
        every action on their account (without the moderators' names)."""
        now = self.core.clock.now()

        def read(conn: Connection) -> dict[str, Any]:
            force = store.in_force(conn, user.id, now)
            mutes = [r for r in force if r.action == "mute"]
            bans = [r for r in force if r.action == "rated_ban"]
            return {
                "muted_until": iso(mutes[-1].until) if mutes else None,
                "rated_ban": {"until": iso(bans[-1].until)} if bans else None,
                "in_force": [store.action_json(r, moderator=False) for r in force],
                "actions": [store.action_json(r, moderator=False) for r in store.actions_on(conn, user.id, STANDING)],
            }

        return {"username": user.username, **await self.read(read)}


def _notice(action_id: int, user_id: int, action: str, reason: str, until: datetime | None,
            detail: dict[str, Any]) -> Notice:
    """What the player is told of an action on their account."""
    when = describe_until(until)
    subjects = {
        "warn": (_("A warning from the moderators"), _("A moderator warned you: {reason}", reason=reason)),
        "mute": (_("You are muted"), _("You cannot write in the chat {until}: {reason}", until=when, reason=reason)),
        "rated_ban": (_("You may not play rated games"),
                      _("You may not play rated games {until} (casual tables are open): {reason}", until=when,
                        reason=reason)),
        "remove_message": (_("A message of yours was removed"),
                           _("A moderator removed a chat message of yours: {reason}", reason=reason)),
        "revert_ratings": (_("Rating changes taken back"),
                           _("A moderator took back what {n} rated game(s) gained your rating: {reason}",
                             n=len(detail.get("games", [])), reason=reason)),
        "lift": (_("Your restrictions were lifted"),
                 _("A moderator ended your mute or rated ban: {reason}", reason=reason)),
        "close_account": (_("Your account was closed"),
                          _("A moderator closed your account: {reason}. You may reopen it by logging in until "
                            "{reopen_until}; after that its personal data is removed.", reason=reason,
                            reopen_until=detail.get("reopen_until"))),
        "grant_role": (_("You are a moderator now"), _("An admin made you a moderator: the console is at /mod.")),
        "revoke_role": (_("You are no longer a moderator"), _("An admin took the moderator role from you.")),
    }
    subject, text = subjects[action]
    assert action in ACTIONS or action in ("grant_role", "revoke_role")
    return Notice(user_id, "moderation", f"moderation:{action_id}", subject, text, "/")


def install(core: TableCore, chat: Chat, moderation: Moderation) -> None:
    """Set the hooks: the chat asks for a mute, the tables and the lobby for a rated ban."""
    chat.gate = moderation.check_chat
    core.rated_gate = moderation.barred_from_rated

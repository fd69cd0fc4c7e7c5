"""The moderation's queries, each inside the caller's transaction (a ``Connection``):
reports written, counted, listed and closed; actions logged, the sanctions in force read.
Their times are written as the API writes them (:func:`omega.server.infra.db.iso`):

>>> from datetime import UTC, datetime
>>> iso(datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)), iso(None)
('2027-01-02T03:04:05Z', None)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from omega.server.infra.db import iso
from omega.server.moderation.models import ActionRow, ReportRow

__all__ = [
    "add_report", "open_reports_by", "open_duplicate", "report_json", "reports", "report_row", "close_report",
    "add_action", "set_detail", "action_json", "actions_on", "recent_actions", "in_force", "barred", "lift", "reports_on", "reports_by",
]


# -- reports ----------------------------------------------------------------------------------------


def add_report(conn: Connection, **values: Any) -> int:
    """Store a report (``evidence`` as a dict); its id."""
    values["evidence"] = json.dumps(values["evidence"], separators=(",", ":"))
    return int(conn.execute(insert(ReportRow).values(status="open", **values).returning(ReportRow.id)).scalar_one())


def open_reports_by(conn: Connection, reporter_id: int) -> int:
    """How many reports ``reporter_id`` has open."""
    return int(conn.execute(select(func.count()).select_from(ReportRow).where(
        ReportRow.reporter_id == reporter_id, ReportRow.status == "open")).scalar_one())


def open_duplicate(conn: Connection, reporter_id: int, user_id: int, table_id: str | None,
                   message_id: int | None) -> int | None:
    """The id of the reporter's open report of the same account about the same table and
    message, if there is one."""
    return conn.execute(select(ReportRow.id).where(
        ReportRow.reporter_id == reporter_id, ReportRow.user_id == user_id, ReportRow.status == "open",
        ReportRow.table_id.is_(None) if table_id is None else ReportRow.table_id == table_id,
        ReportRow.message_id.is_(None) if message_id is None else ReportRow.message_id == message_id,
    ).limit(1)).scalar_one_or_none()


def report_json(r: Any) -> dict[str, Any]:
    """A report as the console shows it, its evidence included."""
    return {"id": r.id, "reporter": r.reporter_name, "username": r.username, "reason": r.reason, "text": r.text,
            "table_id": r.table_id, "message_id": r.message_id, "evidence": json.loads(r.evidence),
            "status": r.status, "created_at": iso(r.created_at), "closed_at": iso(r.closed_at),
            "closed_by": r.closed_by, "resolution": r.resolution, "action_id": r.action_id}


def reports(conn: Connection, open_limit: int, closed_limit: int) -> list[dict[str, Any]]:
    """The queue: open reports oldest first, then the latest closed ones newest first."""
    opened = conn.execute(select(ReportRow).where(ReportRow.status == "open").order_by(ReportRow.id)
                          .limit(open_limit)).all()
    closed = conn.execute(select(ReportRow).where(ReportRow.status != "open").order_by(ReportRow.id.desc())
                          .limit(closed_limit)).all()
    return [report_json(r) for r in [*opened, *closed]]


def report_row(conn: Connection, report_id: int, *, lock: bool = False) -> Any:
    """Report ``report_id`` (None: no such report), locked for a change on PostgreSQL."""
    query = select(ReportRow).where(ReportRow.id == report_id)
    if lock and conn.dialect.name == "postgresql":
        query = query.with_for_update()
    return conn.execute(query).one_or_none()


def close_report(conn: Connection, report_id: int, status: str, by: str, resolution: str, now: datetime,
                 action_id: int | None) -> None:
    """Close an open report (``actioned`` with its action, or ``dismissed``)."""
    conn.execute(update(ReportRow).where(ReportRow.id == report_id, ReportRow.status == "open").values(
        status=status, closed_by=by, resolution=resolution, closed_at=now, action_id=action_id))


def reports_on(conn: Connection, user_id: int, limit: int) -> list[dict[str, Any]]:
    """The latest reports of ``user_id``, newest first."""
    return [report_json(r) for r in conn.execute(select(ReportRow).where(ReportRow.user_id == user_id)
                                                 .order_by(ReportRow.id.desc()).limit(limit))]


def reports_by(conn: Connection, user_id: int, limit: int) -> list[dict[str, Any]]:
    """The latest reports ``user_id`` made, newest first."""
    return [report_json(r) for r in conn.execute(select(ReportRow).where(ReportRow.reporter_id == user_id)
                                                 .order_by(ReportRow.id.desc()).limit(limit))]


# -- actions ----------------------------------------------------------------------------------------


def add_action(conn: Connection, **values: Any) -> int:
    """Log an action (``detail`` as a dict); its id."""
    values["detail"] = json.dumps(values.get("detail", {}), separators=(",", ":"))
    return int(conn.execute(insert(ActionRow).values(**values).returning(ActionRow.id)).scalar_one())


def set_detail(conn: Connection, action_id: int, detail: dict[str, Any]) -> None:
    """Record what action ``action_id`` did (known once it is logged: a revert names it)."""
    conn.execute(update(ActionRow).where(ActionRow.id == action_id).values(
        detail=json.dumps(detail, separators=(",", ":"))))


def action_json(r: Any, *, moderator: bool = True) -> dict[str, Any]:
    """An action as the log shows it (``moderator``: with who made it, which the player is not told)."""
    out = {"id": r.id, "username": r.username, "action": r.action, "reason": r.reason, "detail": json.loads(r.detail),
           "at": iso(r.created_at), "until": iso(r.until), "lifted_at": iso(r.lifted_at), "message_id": r.message_id,
           "report_id": r.report_id}
    if moderator:
        out["moderator"] = r.moderator_name
    return out


def actions_on(conn: Connection, user_id: int, limit: int) -> list[Any]:
    """The latest actions on ``user_id``, newest first (rows)."""
    return list(conn.execute(select(ActionRow).where(ActionRow.user_id == user_id)
                             .order_by(ActionRow.id.desc()).limit(limit)))


def recent_actions(conn: Connection, limit: int) -> list[dict[str, Any]]:
    """The site's latest actions, newest first."""
    return [action_json(r) for r in conn.execute(select(ActionRow).order_by(ActionRow.id.desc()).limit(limit))]


def _in_force(now: datetime) -> Any:
    return and_(ActionRow.lifted_at.is_(None), or_(ActionRow.until.is_(None), ActionRow.until > now))


def in_force(conn: Connection, user_id: int, now: datetime) -> list[Any]:
    """The account's mutes and rated bans in force at ``now``, the latest ending last."""
    ends_last = case((ActionRow.until.is_(None), 1), else_=0)
    return list(conn.execute(select(ActionRow).where(
        ActionRow.user_id == user_id, ActionRow.action.in_(("mute", "rated_ban")), _in_force(now))
        .order_by(ends_last, ActionRow.until, ActionRow.id)))


def barred(conn: Connection, action: str, users: Sequence[int], now: datetime) -> frozenset[int]:
    """Which of ``users`` are under a sanction ``action`` (``mute``, ``rated_ban``) at ``now``."""
    return frozenset(int(u) for u in conn.execute(select(ActionRow.user_id).where(
        ActionRow.user_id.in_(list(users)), ActionRow.action == action, _in_force(now))).scalars() if u is not None)


def lift(conn: Connection, user_id: int, now: datetime) -> list[int]:
    """End the account's sanctions in force now; the ids of those lifted."""
    ids = [int(r.id) for r in in_force(conn, user_id, now)]
    if ids:
        conn.execute(update(ActionRow).where(ActionRow.id.in_(ids)).values(lifted_at=now))
    return ids

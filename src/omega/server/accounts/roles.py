"""The roles an account may hold beyond playing, and ``omega admin``, which grants them.

``moderator`` may make public tournaments (and, with the community's tools, act on reports);
``admin`` may do all a moderator does.  Roles are granted on the command line by whoever runs
the site: ``omega admin grant ann moderator``, ``omega admin revoke ann moderator``,
``omega admin list``.

>>> ROLES
('admin', 'moderator')
>>> may_moderate(frozenset({"admin"})), may_moderate(frozenset())
(True, False)
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from omega.names import username_key
from omega.server.accounts.models import RoleRow, UserRow
from omega.server.infra.db import default_url, make_engine
from omega.server.tables.store import Repository

__all__ = ["ROLES", "roles_of", "may_moderate", "grant", "revoke", "admin_main"]

#: Every role, highest first.
ROLES = ("admin", "moderator")


def may_moderate(roles: frozenset[str]) -> bool:
    """Whether an account holding ``roles`` may do what moderators do."""
    return bool(roles & {"admin", "moderator"})


def roles_of(conn: Connection, user_id: int) -> frozenset[str]:
    """The roles ``user_id`` holds."""
    return frozenset(conn.execute(select(RoleRow.role).where(RoleRow.user_id == user_id)).scalars())


def _user_id(conn: Connection, username: str) -> int:
    found = conn.execute(select(UserRow.id).where(UserRow.username_key == username_key(username))).scalar_one_or_none()
    if found is None:
        raise ValueError(f"there is no account named {username!r}")
    return int(found)


def _role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
    return role


def grant(conn: Connection, username: str, role: str, now: datetime) -> bool:
    """Give ``username`` the ``role`` (True if they did not hold it); ValueError for an
    unknown account or role."""
    user_id, role = _user_id(conn, username), _role(role)
    if role in roles_of(conn, user_id):
        return False
    # Two grants at once: the second one's insert does nothing.
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    conn.execute(dialect_insert(RoleRow).values(user_id=user_id, role=role, granted_at=now)
                 .on_conflict_do_nothing(index_elements=["user_id", "role"]))
    return True


def revoke(conn: Connection, username: str, role: str) -> bool:
    """Take ``role`` from ``username`` (True if they held it)."""
    user_id, role = _user_id(conn, username), _role(role)
    return bool(conn.execute(delete(RoleRow).where(RoleRow.user_id == user_id, RoleRow.role == role)).rowcount)


def admin_main(action: str, username: str | None, role: str | None, url: str | None) -> int:
    """``omega admin grant|revoke USER ROLE`` and ``omega admin list``: change or show the
    roles on the database at ``url`` (default: the server's), migrated first.  A bad account
    or role: the reason on standard error, exit status 2."""
    repo = Repository(make_engine(url or default_url()))
    try:
        repo.migrate()
        with repo.writing() as conn:
            if action == "list":
                rows = conn.execute(select(UserRow.username, RoleRow.role).join(RoleRow, RoleRow.user_id == UserRow.id)
                                    .order_by(UserRow.username, RoleRow.role)).all()
                for name, held in rows:
                    print(f"{name}\t{held}")
                if not rows:
                    print("nobody holds a role")
                return 0
            assert username is not None and role is not None
            if action == "grant":
                changed = grant(conn, username, role, datetime.now(UTC))
                print(f"{username} is {role} now" if changed else f"{username} was already {role}")
            else:
                changed = revoke(conn, username, role)
                print(f"{username} is no longer {role}" if changed else f"{username} was not {role}")
            return 0
    except ValueError as e:
        print(f"omega admin: {e}", file=sys.stderr)
        return 2
    finally:
        repo.engine.dispose()

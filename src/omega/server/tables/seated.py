"""A table whose seats the site gave to accounts (a quick-play match, a tournament's game):
stored with its players already joined, so its first clock runs from the commit.

Nobody is given the seats' tokens: the accounts hold the seats, and each player opens the
table from their own page.  A player who never opens it loses on time (aborted: no move).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.engine import Connection

from omega.server.tables.events import Event, Joined, Renamed
from omega.server.tables.identity import TableKeys, hash_token, new_token
from omega.server.tables.state import TableConfig, TableState
from omega.server.tables.store import Writer, insert_table

__all__ = ["seat_accounts", "new_table_id"]


def new_table_id() -> str:
    """A new table's random id (every table's: eight URL-safe characters).

    >>> len(new_table_id())
    8
    """
    return secrets.token_urlsafe(6)


def seat_accounts(conn: Connection, config: TableConfig, users: Sequence[int], names: Sequence[str], owner: str,
                  now: datetime, *, postgres: bool) -> TableState:
    """Store ``config``'s table with the accounts ``users`` (their usernames ``names``) in
    its human seats, in that order, every one joined (inside the caller's transaction; its
    computer seats, if any, play at their level), and its first due work (a flag, or the
    computer's turn); returns the table as stored.  Raises ``IntegrityError`` if the id is
    taken (the caller draws another).

    >>> from datetime import UTC
    >>> from omega.server.infra.db import make_engine
    >>> from omega.server.models import Base
    >>> from omega.server.tables.state import SeatConfig
    >>> engine = make_engine("sqlite://"); Base.metadata.create_all(engine)
    >>> now = datetime(2026, 1, 1, tzinfo=UTC)
    >>> config = TableConfig("t1", 2, 5, True, "2026-01-01T00:00:00Z", (SeatConfig("human"),) * 2)
    >>> users = Base.metadata.tables["users"]  # the seats refer to accounts
    >>> with engine.begin() as conn:
    ...     _ = conn.execute(users.insert(), [{"id": i, "username": n, "username_key": n,
    ...                      "password_hash": "-", "created_at": now} for i, n in [(1, "ann"), (2, "bob")]])
    ...     table = seat_accounts(conn, config, [2, 1], ["bob", "ann"], "site", now, postgres=False)
    >>> table.names, table.joined, table.status
    (['bob', 'ann'], [True, True], 'playing')
    """
    humans = [i for i, seat in enumerate(config.seats) if seat.kind == "human"]
    if len(users) != len(humans) or len(set(users)) != len(users) or len(names) != len(users):
        raise ValueError(f"a table of {len(humans)} people needs as many different accounts, got {list(users)}")
    held = dict(zip(humans, users, strict=True))
    keys = TableKeys(tuple(hash_token(new_token()) if i in held else None for i in range(config.players)),
                     hash_token(new_token()), tuple(held.get(i) for i in range(config.players)))
    insert_table(conn, config, keys, owner=owner)
    writer = Writer(conn, config.id, 0, postgres)
    stored = writer.append([Event(Renamed(i, name), at=now) for i, name in zip(humans, names, strict=True)]
                           + [Event(Joined(i), at=now) for i in humans],
                           status="playing", to_move_seat=0)
    state = TableState(config)
    for e in stored:
        state.apply(e)
    for kind, version in state.due_work().items():  # the first flag, in the same commit
        writer.keep_due(kind, version, state.due_at(kind) or now)
    return state

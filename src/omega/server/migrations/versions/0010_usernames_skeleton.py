"""The confusable skeleton of each username (``omega.names.username_skeleton``), unique, so
that no account can be made that reads like another.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03

Accounts made before it are filled in, oldest first.  Where two of them already look alike
(``farmer`` and a Cyrillic ``fаrmer`` both registered), the older keeps the skeleton and the
later ones keep NULL: no account is renamed or closed behind its owner's back (its name,
links and log-in go on working), and the older one's skeleton still refuses every new
look-alike of both, since they share it.  A NULL is never equal to another in a unique index
(SQLite and PostgreSQL alike), so any number of them may stay.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from omega.names import username_skeleton

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_USERS = sa.table("users", sa.column("id", sa.Integer), sa.column("username", sa.String),
                  sa.column("username_skeleton", sa.String))


def upgrade() -> None:
    # A plain ADD COLUMN and a separate unique index: a batch copy of ``users`` on SQLite
    # would cascade-delete the sessions (and seats' links) that refer to it.
    op.add_column("users", sa.Column("username_skeleton", sa.String(255), nullable=True))
    conn = op.get_bind()
    taken: set[str] = set()
    for user_id, username in conn.execute(sa.select(_USERS.c.id, _USERS.c.username).order_by(_USERS.c.id)).all():
        skeleton = username_skeleton(username)
        if skeleton in taken:
            continue  # a later look-alike of an older account: NULL (see above)
        taken.add(skeleton)
        conn.execute(sa.update(_USERS).where(_USERS.c.id == user_id).values(username_skeleton=skeleton))
    op.create_index("uq_users_username_skeleton", "users", ["username_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_users_username_skeleton", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("username_skeleton")

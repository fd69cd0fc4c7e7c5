"""Alembic environment: the server runs migrations itself at start-up (storage.Repository.migrate)."""

from __future__ import annotations

from alembic import context

from omega.server.tables.store import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when someone runs the alembic CLI by hand
    from sqlalchemy import create_engine

    from omega.server.tables.store import default_url

    connection = create_engine(config.get_main_option("sqlalchemy.url") or default_url()).connect()

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()

"""Alembic environment: the server runs migrations itself at start-up (``Database.migrate``);
the metadata of every feature's tables comes from ``omega.server.models``."""

from __future__ import annotations

from alembic import context

from omega.server.models import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when someone runs the alembic CLI by hand
    from sqlalchemy import create_engine

    from omega.server.infra.db import default_url

    connection = create_engine(config.get_main_option("sqlalchemy.url") or default_url()).connect()

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()

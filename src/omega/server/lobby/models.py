"""The lobby's own rows: from which client address each open table was opened.

The table itself (its seats, its status) is the table core's; the lobby keeps beside it what
only the lobby needs, the address its per-address cap counts (``Limits.lobby_open_per_address``:
one person's several accounts behind one address share it).
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from omega.server.infra.db import Base

__all__ = ["OpeningRow"]


class OpeningRow(Base):
    """An open table and the address (``infra.limits.client_address``) that opened it."""

    __tablename__ = "lobby_openings"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str] = mapped_column(String(64))
    __table_args__ = (Index("ix_lobby_openings_address", "address"),)

"""The vacation's request bodies.

>>> parse_start(b'{"until": "2026-12-24T00:00:00+01:00"}').until_time.isoformat()
'2026-12-23T23:00:00+00:00'
>>> parse_start(b'{}').until is None, parse_automatic(b'{"automatic": false}').automatic
(True, False)
>>> parse_start(b'{"until": "soon"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: until: a time with its offset, such as 2026-12-24T00:00:00Z
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import StringConstraints, TypeAdapter, field_validator

from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse

__all__ = ["StartVacation", "AutomaticVacation", "parse_start", "parse_automatic"]


class StartVacation(Strict):
    """``POST /api/account/vacation``: when it ends (absent or null: until I come back)."""

    until: Annotated[str, StringConstraints(max_length=40)] | None = None

    @field_validator("until")
    @classmethod
    def _offset_required(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            # Checked here so the message names the field: a time without its offset is
            # ambiguous (the server's zone is not the player's).
            raise ApiError("bad_request", "bad request: until: a time with its offset, such as 2026-12-24T00:00:00Z")
        return moment.astimezone(UTC).isoformat()

    @property
    def until_time(self) -> datetime | None:
        """``until`` as a UTC time."""
        return None if self.until is None else datetime.fromisoformat(self.until)


class AutomaticVacation(Strict):
    """``POST /api/account/vacation/settings``: whether a vacation may start by itself."""

    automatic: bool


_start = TypeAdapter(StartVacation)
_automatic = TypeAdapter(AutomaticVacation)


def parse_start(raw: bytes) -> StartVacation:
    """A vacation to start (``bad_request`` for anything else)."""
    return parse(_start, raw)


def parse_automatic(raw: bytes) -> AutomaticVacation:
    """The automatic-vacation setting."""
    return parse(_automatic, raw)

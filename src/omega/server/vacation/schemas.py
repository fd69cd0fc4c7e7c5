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

from datetime import datetime
from typing import Annotated

from pydantic import StringConstraints, TypeAdapter, field_validator

from omega.server.infra.bodies import Strict, parse, utc_time

__all__ = ["StartVacation", "AutomaticVacation", "parse_start", "parse_automatic"]


class StartVacation(Strict):
    """``POST /api/account/vacation``: when it ends (absent or null: until I come back)."""

    until: Annotated[str, StringConstraints(max_length=40)] | None = None

    @field_validator("until")
    @classmethod
    def _offset_required(cls, value: str | None) -> str | None:
        return None if value is None else utc_time(value, "until")

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

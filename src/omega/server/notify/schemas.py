"""The notify feature's request bodies.

>>> parse_preferences(b'{"on": {"your_turn": ["mail"]}, "digest": true}').digest
True
>>> parse_preferences(b'{"digest": "yes"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: digest: Input should be a valid boolean
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, TypeAdapter

from omega.server.infra.bodies import Strict, parse

__all__ = ["PreferencesBody", "parse_preferences"]

_Name = Annotated[str, StringConstraints(max_length=32)]


class PreferencesBody(Strict):
    """``POST /api/account/notifications``: for each kind given, the channels it goes by
    (the others off; kinds not given stay as they are), and the digest choice (None: as it is)."""

    on: Annotated[dict[_Name, Annotated[list[_Name], Field(max_length=8)]], Field(max_length=16, default_factory=dict)]
    digest: bool | None = None


_PREFERENCES = TypeAdapter(PreferencesBody)


def parse_preferences(raw: bytes) -> PreferencesBody:
    """The body, or ``bad_request``."""
    return parse(_PREFERENCES, raw)

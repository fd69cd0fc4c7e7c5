"""What every strict request body shares: its base model (unknown fields and loose types
refused), the one ``bad_request`` message a validation error becomes, and the ids a path may name.

>>> from pydantic import TypeAdapter
>>> class Body(Strict):
...     n: int
>>> parse(TypeAdapter(Body), b'{"n": "1"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: n: Input should be a valid integer
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from omega.i18n import translatable as _
from omega.server.errors import ApiError

__all__ = ["Strict", "bad_body", "bad_request", "parse", "utc_time", "plausible_id"]

T = TypeVar("T")


class Strict(BaseModel):
    """A request body: no field it does not declare, no type coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


def bad_body(message: str) -> ApiError:
    """The ``bad_request`` error of a body, in the words every body's refusal has.

    >>> bad_body("rounds: at most 20").message
    'bad request: rounds: at most 20'
    """
    return ApiError("bad_request", _("bad request: {message}", message=message))


def bad_request(e: ValidationError) -> ApiError:
    """The ``bad_request`` error of a body that failed validation (its first problem)."""
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return bad_body(f"{where}: {first['msg']}" if where else str(first["msg"]))


def parse(adapter: TypeAdapter[T], raw: bytes | str) -> T:
    """``raw`` JSON validated by ``adapter``; ``bad_request`` otherwise."""
    try:
        return adapter.validate_json(raw)
    except ValidationError as e:
        raise bad_request(e) from None




def plausible_id(text: str) -> bool:
    """Whether a path's ``text`` could be an id the site made with ``secrets.token_urlsafe``
    (a tournament's, a challenge's): 1 to 16 letters, digits, ``-`` or ``_``.  Anything else
    is answered not found without asking the database.

    >>> plausible_id("Xb3_-k9q"), plausible_id(""), plausible_id("a/b"), plausible_id("é")
    (True, False, False, False)
    """
    return 0 < len(text) <= 16 and text.isascii() and all(c.isalnum() or c in "-_" for c in text)


def utc_time(value: str, field: str) -> str:
    """A body's time ``value`` (ISO 8601 with its offset) as UTC ISO text; a time without
    its offset is refused, naming ``field``: it is ambiguous (the server's zone is not the
    player's).

    >>> utc_time("2026-12-24T00:00:00+01:00", "until")
    '2026-12-23T23:00:00+00:00'
    >>> utc_time("2026-12-24", "until")
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: bad request: until: a time with its offset, such as 2026-12-24T00:00:00Z
    """
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ApiError("bad_request", _("bad request: {field}: a time with its offset, such as 2026-12-24T00:00:00Z", field=field))
    return moment.astimezone(UTC).isoformat()

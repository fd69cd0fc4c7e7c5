"""What every strict request body shares: its base model (unknown fields and loose types
refused) and the one ``bad_request`` message a validation error becomes.

>>> from pydantic import TypeAdapter
>>> class Body(Strict):
...     n: int
>>> parse(TypeAdapter(Body), b'{"n": "1"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: n: Input should be a valid integer
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from omega.server.errors import ApiError

__all__ = ["Strict", "bad_request", "parse"]

T = TypeVar("T")


class Strict(BaseModel):
    """A request body: no field it does not declare, no type coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)


def bad_request(e: ValidationError) -> ApiError:
    """The ``bad_request`` error of a body that failed validation (its first problem)."""
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return ApiError("bad_request", f"bad request: {where}: {first['msg']}" if where
                    else f"bad request: {first['msg']}")


def parse(adapter: TypeAdapter[T], raw: bytes | str) -> T:
    """``raw`` JSON validated by ``adapter``; ``bad_request`` otherwise."""
    try:
        return adapter.validate_json(raw)
    except ValidationError as e:
        raise bad_request(e) from None



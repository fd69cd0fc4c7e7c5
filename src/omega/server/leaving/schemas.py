"""The leaving feature's request bodies.

>>> parse_close(b'{"password": "correct horse"}').password
'correct horse'
>>> parse_reopen(b'{"username": "Ann", "password": "correct horse"}').username
'Ann'
>>> parse_close(b'{}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: password: Field required
"""

from __future__ import annotations

from pydantic import TypeAdapter

from omega.server.accounts.schemas import Password, Username
from omega.server.infra.bodies import Strict, parse

__all__ = ["CloseAccount", "ReopenAccount", "parse_close", "parse_reopen"]



class CloseAccount(Strict):
    """``POST /api/account/close``: the account's password, asked again."""

    password: Password


class ReopenAccount(Strict):
    """``POST /api/account/reopen``: the closed account's username and password."""

    username: Username
    password: Password


_close = TypeAdapter(CloseAccount)
_reopen = TypeAdapter(ReopenAccount)


def parse_close(raw: bytes) -> CloseAccount:
    """A closing's body (``bad_request`` for anything else)."""
    return parse(_close, raw)


def parse_reopen(raw: bytes) -> ReopenAccount:
    """A reopening's body."""
    return parse(_reopen, raw)

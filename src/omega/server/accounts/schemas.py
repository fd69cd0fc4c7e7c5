"""The accounts' request bodies: log-in and registration, a password change, and the seat
links a browser binds to its account.

>>> parse_login(b'{"username": "Ann", "password": "correct horse"}').username
'Ann'
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, TypeAdapter, ValidationError

from omega.server.accounts.passwords import PASSWORD_MAX
from omega.server.infra.bodies import Strict, bad_request

__all__ = ["LoginBody", "PasswordChange", "SeatLink", "Claim", "parse_login", "parse_password_change", "parse_claim"]

# Usernames and passwords are checked by their rules in ``accounts`` (one message
# each); here only their size is bounded, so that no guess costs more than the longest password.
Username = Annotated[str, StringConstraints(max_length=64)]
Password = Annotated[str, StringConstraints(max_length=PASSWORD_MAX)]


class LoginBody(Strict):
    """``POST /api/account/register`` and ``/login``."""

    username: Username
    password: Password


class PasswordChange(Strict):
    """``POST /api/account/password``."""

    current_password: Password
    new_password: str


class SeatLink(Strict):
    """A seat link remembered by a browser: the table and the seat token."""

    table_id: Annotated[str, StringConstraints(min_length=1, max_length=32)]
    token: Annotated[str, StringConstraints(min_length=1, max_length=128)]


class Claim(Strict):
    """``POST /api/account/claim``."""

    seats: Annotated[list[SeatLink], Field(max_length=50)]


_login = TypeAdapter(LoginBody)
_password_change = TypeAdapter(PasswordChange)
_claim = TypeAdapter(Claim)


def parse_login(body: bytes) -> LoginBody:
    """A username and password (registering or logging in).

    >>> parse_login(b'{"username": "Ann", "password": "correct horse"}').username
    'Ann'
    """
    try:
        return _login.validate_json(body)
    except ValidationError as e:
        raise bad_request(e) from None


def parse_password_change(body: bytes) -> PasswordChange:
    """The current password and the new one."""
    try:
        return _password_change.validate_json(body)
    except ValidationError as e:
        raise bad_request(e) from None


def parse_claim(body: bytes) -> Claim:
    """The seat links a browser remembers, to bind to the account."""
    try:
        return _claim.validate_json(body)
    except ValidationError as e:
        raise bad_request(e) from None

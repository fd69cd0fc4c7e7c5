"""The accounts' request bodies: log-in and registration, a password change, the seat
links a browser binds to its account, and the email address and password reset ones.

>>> parse_login(b'{"username": "Ann", "password": "correct horse"}').username
'Ann'
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, TypeAdapter

from omega.server.accounts.models import EMAIL_MAX
from omega.server.accounts.passwords import PASSWORD_MAX
from omega.server.infra.bodies import Strict, parse

__all__ = ["LoginBody", "PasswordChange", "SeatLink", "Claim", "EmailChange", "PasswordOnly", "TokenBody", "Forgot",
           "Reset", "LanguageBody", "parse_login", "parse_password_change", "parse_claim", "parse_email_change", "parse_password_only",
           "parse_token", "parse_forgot", "parse_reset", "parse_language"]

# Usernames and passwords are checked by their rules in ``accounts`` (one message
# each); here only their size is bounded, so that no guess costs more than the longest password.
Username = Annotated[str, StringConstraints(max_length=64)]
Password = Annotated[str, StringConstraints(max_length=PASSWORD_MAX)]
# An address is checked by ``accounts.addresses`` (one message); spaces around it are allowed
# there, hence a little room.
Address = Annotated[str, StringConstraints(max_length=EMAIL_MAX + 8)]
#: A mailed token (a verification link's or a reset's): checked by its own rule.
Token = Annotated[str, StringConstraints(max_length=128)]


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


class EmailChange(Strict):
    """``POST /api/account/email``: the address wanted, and the account's password."""

    email: Address
    password: Password


class PasswordOnly(Strict):
    """``POST /api/account/email/remove``: the account's password."""

    password: Password


class TokenBody(Strict):
    """``POST /api/account/email/verify``: the token of the mailed link."""

    token: Token


class Forgot(Strict):
    """``POST /api/account/password/forgot``: a username or an address."""

    who: Address


class Reset(Strict):
    """``POST /api/account/password/reset``: the mailed token and the new password."""

    token: Token
    password: str


class LanguageBody(Strict):
    """``PUT /api/account/language``: a language code (``omega.i18n.LANGUAGES``, which the
    accounts check: one message)."""

    language: Annotated[str, StringConstraints(max_length=16)]


_login = TypeAdapter(LoginBody)
_password_change = TypeAdapter(PasswordChange)
_claim = TypeAdapter(Claim)


def parse_login(body: bytes) -> LoginBody:
    """A username and password (registering or logging in).

    >>> parse_login(b'{"username": "Ann", "password": "correct horse"}').username
    'Ann'
    """
    return parse(_login, body)


def parse_password_change(body: bytes) -> PasswordChange:
    """The current password and the new one."""
    return parse(_password_change, body)


def parse_claim(body: bytes) -> Claim:
    """The seat links a browser remembers, to bind to the account."""
    return parse(_claim, body)


_email_change = TypeAdapter(EmailChange)
_password_only = TypeAdapter(PasswordOnly)
_token = TypeAdapter(TokenBody)
_forgot = TypeAdapter(Forgot)
_reset = TypeAdapter(Reset)


def parse_email_change(body: bytes) -> EmailChange:
    """The address wanted and the password.

    >>> parse_email_change(b'{"email": "ann@example.com", "password": "correct horse"}').email
    'ann@example.com'
    """
    return parse(_email_change, body)


def parse_password_only(body: bytes) -> PasswordOnly:
    """The account's password."""
    return parse(_password_only, body)


def parse_token(body: bytes) -> TokenBody:
    """A mailed link's token."""
    return parse(_token, body)


def parse_forgot(body: bytes) -> Forgot:
    """A username or an address.

    >>> parse_forgot(b'{"who": 7}')
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: bad request: who: Input should be a valid string
    """
    return parse(_forgot, body)


def parse_reset(body: bytes) -> Reset:
    """A reset's token and the new password."""
    return parse(_reset, body)


_language = TypeAdapter(LanguageBody)


def parse_language(body: bytes) -> LanguageBody:
    """The language wanted.

    >>> parse_language(b'{"language": "fr"}').language
    'fr'
    """
    return parse(_language, body)

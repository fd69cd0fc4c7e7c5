"""Email addresses of accounts and the tokens mailed to them, pure (no I/O, no clock read):
how an address is written and compared, the signed link that verifies one, and the password
reset's token.

An address is kept as :func:`normalize_email` writes it (the domain in lower case and in
Unicode, the local part as its owner wrote it) and is unique by :func:`email_key`, its
case-folded form: a person who types ``Ann@Example.com`` once and ``ann@example.com`` the
next time means one mailbox.

>>> normalize_email("  Ann@Example.COM ")
'Ann@example.com'
>>> email_key("Ann@example.com")
'ann@example.com'

A verification link carries :func:`verify_token`: the account, the expiry and an HMAC over
(account, address, expiry) with the site's key, so it names no address (the address is
the one the account asked for, kept by the server) and cannot be forged or moved to another
account or address:

>>> key = b"k" * 32
>>> token = verify_token(key, 7, "ann@example.com", 1_800_000_000)
>>> read_verify_token(key, token, "ann@example.com")
(7, 1800000000)
>>> read_verify_token(key, token, "bob@example.com") is None
True
"""

from __future__ import annotations

import re
import secrets

from email_validator import EmailNotValidError, validate_email

from omega.server.accounts.models import EMAIL_MAX
from omega.server.infra.keys import sign, verify

__all__ = ["normalize_email", "email_key", "looks_like_email", "verify_token", "parse_verify_token",
           "read_verify_token", "new_reset_token", "VERIFY_PURPOSE", "RESET_TOKEN"]

#: The purpose a verification link is signed under (``infra.keys.sign``).
VERIFY_PURPOSE = "email-verify"
#: What a reset token looks like: 32 random bytes, URL-safe (as :func:`new_reset_token` makes).
RESET_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
_VERIFY_TOKEN = re.compile(r"([1-9][0-9]{0,17})\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})")


def normalize_email(text: str) -> str:
    """``text`` as an address the server keeps, or ValueError saying what is wrong with it.
    Only its form is checked (no look-up of the domain: the mailed link proves the rest).

    >>> normalize_email("ann@bücher.example")
    'ann@bücher.example'
    >>> normalize_email("ann@localhost")
    Traceback (most recent call last):
    ...
    ValueError: not an email address: The part after the @-sign is not valid. It should have a period.
    """
    text = text.strip()
    if len(text) > EMAIL_MAX:
        raise ValueError(f"an email address is at most {EMAIL_MAX} characters")
    try:
        address = validate_email(text, check_deliverability=False).normalized
    except EmailNotValidError as e:
        raise ValueError(f"not an email address: {e}") from None
    if len(address) > EMAIL_MAX:  # a Unicode domain written out may differ in length
        raise ValueError(f"an email address is at most {EMAIL_MAX} characters")
    return address


def email_key(address: str) -> str:
    """What makes an address (as :func:`normalize_email` wrote it) unique: case-folded.

    >>> email_key("ÄNN@bücher.example") == email_key("änn@bücher.example")
    True
    """
    return address.casefold()


def looks_like_email(text: str) -> bool:
    """Whether a "username or address" typed at "forgot password" is meant as an address:
    usernames never hold an ``@`` (``omega.names``).

    >>> looks_like_email("ann@example.com"), looks_like_email("ann")
    (True, False)
    """
    return "@" in text


def verify_token(key: bytes, user_id: int, address: str, expires: int) -> str:
    """The token of a link that verifies ``address`` for the account ``user_id`` until
    ``expires`` (seconds since the epoch)."""
    return f"{user_id}.{expires}.{sign(key, VERIFY_PURPOSE, str(user_id), address, str(expires))}"


def parse_verify_token(token: str) -> tuple[int, int] | None:
    """The account and expiry a verification token claims (not yet checked), or None for
    text that is no such token.

    >>> parse_verify_token("7.1800000000.xxx") is None, parse_verify_token("7.18." + "a" * 43)
    (True, (7, 18))
    """
    match = _VERIFY_TOKEN.fullmatch(token)
    return None if match is None else (int(match[1]), int(match[2]))


def read_verify_token(key: bytes, token: str, address: str) -> tuple[int, int] | None:
    """The account and expiry of a verification token signed for ``address``, or None if
    the token was not made by :func:`verify_token` for it (the signature compared in
    constant time).  Whether it has expired is the caller's to say."""
    claimed = parse_verify_token(token)
    if claimed is None:
        return None
    user_id, expires = claimed
    mac = token.rpartition(".")[2]
    return claimed if verify(key, mac, VERIFY_PURPOSE, str(user_id), address, str(expires)) else None


def new_reset_token() -> str:
    """A new password reset token: 32 random bytes, URL-safe (43 characters); the server
    keeps only its SHA-256.

    >>> RESET_TOKEN.fullmatch(new_reset_token()) is not None
    True
    """
    return secrets.token_urlsafe(32)

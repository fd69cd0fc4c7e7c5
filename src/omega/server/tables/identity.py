"""Who is asking: the caller's credentials resolved, once per request or socket, into an
:class:`Identity`.  The action path receives the identity, never a raw secret.

A caller proves a seat with its secret seat token, or watching rights with the spectator
key; the server itself acts for computer seats.  A logged-in caller who shows no token
proves the seat their account holds (:class:`AccountAuthenticator`, the server's: the
session's account comes in :attr:`Credentials.user_id`, the seats' accounts in
:attr:`TableKeys.seat_users`).  Nothing after this module knows how an identity was proved.

>>> keys = TableKeys(seat_hashes=(hash_token("s0"), None), spectator_hash=hash_token("w"))
>>> auth = TokenAuthenticator()
>>> auth.identify(Credentials("s0"), keys), auth.identify(Credentials("w"), keys)
(SeatHolder(seat=0), Spectator())
>>> auth.identify(Credentials("nope"), keys)
Traceback (most recent call last):
...
omega.server.errors.ApiError: this token belongs to no seat of this table
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from omega.i18n import translatable as _
from omega.server.errors import ApiError

__all__ = [
    "SeatHolder", "Spectator", "ComputerPlayer", "COMPUTER", "Identity", "Credentials", "TableKeys",
    "Authenticator", "TokenAuthenticator", "AccountAuthenticator", "hash_token", "new_token",
]


@dataclass(frozen=True)
class SeatHolder:
    """The player of one seat."""

    seat: int


@dataclass(frozen=True)
class Spectator:
    """Someone who may watch the table but not act."""


@dataclass(frozen=True)
class ComputerPlayer:
    """The server itself, acting for the seat to move when a computer plays it."""


#: The one computer identity.
COMPUTER = ComputerPlayer()

Identity = SeatHolder | Spectator | ComputerPlayer


@dataclass(frozen=True)
class Credentials:
    """What a caller showed: a seat token or spectator key (None when it showed nothing).

    The ``repr`` never shows the secret, so a credential in a log line or traceback is safe.
    """

    token: str | None
    #: The account of the caller's session (None: not logged in, or a token was shown and
    #: the session was not needed).
    user_id: int | None = None

    def __repr__(self) -> str:
        user = "" if self.user_id is None else f", user_id={self.user_id}"
        return ("Credentials(***" if self.token else "Credentials(None") + user + ")"

    @cached_property
    def digest(self) -> str | None:
        """The token's SHA-256 (None without a token), computed once however many budgets
        and tables look at it.

        >>> Credentials("abc").digest == hash_token("abc"), Credentials(None).digest
        (True, None)
        """
        return hash_token(self.token) if self.token else None


@dataclass(frozen=True)
class TableKeys:
    """What a table stores to check credentials: digests only, never the secrets."""

    seat_hashes: tuple[str | None, ...]
    spectator_hash: str
    #: The account holding each seat (None: a guest's seat); empty for a table that knows none.
    seat_users: tuple[int | None, ...] = ()

    def seat_of_user(self, user_id: int) -> int | None:
        """The seat ``user_id``'s account holds here, if any.

        >>> TableKeys((None, None), "w", (None, 7)).seat_of_user(7)
        1
        """
        for i, u in enumerate(self.seat_users):
            if u is not None and u == user_id:
                return i
        return None


class Authenticator(Protocol):
    """Turns a caller's credentials into an identity at one table, or raises ApiError
    (``auth_required`` when nothing was shown, ``forbidden`` when it proves nothing here)."""

    def identify(self, credentials: Credentials, keys: TableKeys) -> Identity:
        """The identity ``credentials`` prove at the table whose keys are ``keys``."""
        ...


class TokenAuthenticator:
    """Seat tokens and spectator keys, compared by their SHA-256 digests in constant time."""

    def identify(self, credentials: Credentials, keys: TableKeys) -> Identity:
        """A seat for a seat token, a spectator for the spectator key."""
        digest = credentials.digest
        if digest is None:
            raise ApiError("auth_required", _("this needs a seat token or the spectator key"))
        for i, h in enumerate(keys.seat_hashes):
            if h is not None and secrets.compare_digest(h, digest):
                return SeatHolder(i)
        if secrets.compare_digest(keys.spectator_hash, digest):
            return Spectator()
        raise ApiError("forbidden", _("this token belongs to no seat of this table"))


class AccountAuthenticator:
    """Seat tokens and spectator keys as :class:`TokenAuthenticator` checks them, and
    besides them the caller's account: a logged-in caller who shows no token is the player
    of the seat their account holds.

    A token, when shown, decides alone (the spectator link of a table opens it as a
    spectator even for the account that holds a seat there).

    >>> keys = TableKeys((hash_token("s0"), hash_token("s1")), hash_token("w"), (None, 42))
    >>> auth = AccountAuthenticator()
    >>> auth.identify(Credentials(None, user_id=42), keys), auth.identify(Credentials("s0", user_id=42), keys)
    (SeatHolder(seat=1), SeatHolder(seat=0))
    >>> auth.identify(Credentials(None, user_id=5), keys)
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: your account holds no seat of this table; open it with its link
    """

    def __init__(self, tokens: Authenticator | None = None) -> None:
        self.tokens = tokens or TokenAuthenticator()

    def identify(self, credentials: Credentials, keys: TableKeys) -> Identity:
        """The seat of the token if one was shown, else the seat the account holds."""
        if credentials.token is None and credentials.user_id is not None:
            seat = keys.seat_of_user(credentials.user_id)
            if seat is None:
                raise ApiError("forbidden", _("your account holds no seat of this table; open it with its link"))
            return SeatHolder(seat)
        return self.tokens.identify(credentials, keys)


def hash_token(token: str) -> str:
    """Tokens are stored only as SHA-256 digests.

    >>> len(hash_token("abc"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A new secret: 24 random bytes, URL-safe (32 characters).

    >>> len(new_token())
    32
    """
    return secrets.token_urlsafe(24)

"""Passwords: the rule (:func:`check_password`) and their hashes (:class:`Passwords`,
argon2id from ``argon2-cffi``).

Hashing is slow on purpose (about 0.1 s and 64 MiB with the default parameters), so it runs
in threads of its own, never on the event loop nor in the database threads; the threads
also bound how much memory hashing can take at once.

>>> check_password("correct horse")
'correct horse'
>>> check_password("short")
Traceback (most recent call last):
...
ValueError: a password is 8 to 256 characters
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from omega.i18n import translatable as _
from omega.server.errors import ApiError

T = TypeVar("T")

__all__ = ["PASSWORD_MIN", "PASSWORD_MAX", "PASSWORD_RULE", "check_password", "Passwords", "Checked"]

#: The shortest password, in characters.
PASSWORD_MIN = 8
#: The longest: argon2 reads the whole password, so a bound keeps one guess's cost bounded.
PASSWORD_MAX = 256
#: What :func:`check_password` says about a password it refuses.
PASSWORD_RULE = _("a password is {least} to {most} characters", least=PASSWORD_MIN, most=PASSWORD_MAX)


def check_password(text: str) -> str:
    """``text`` if it is an acceptable password (kept exactly, spaces included); ValueError if not."""
    if not isinstance(text, str) or not PASSWORD_MIN <= len(text) <= PASSWORD_MAX:
        raise ValueError(PASSWORD_RULE)
    return text


class Checked:
    """The outcome of :meth:`Passwords.verify`: whether the password matched, and the new
    hash to store when the stored one was made with other parameters (None otherwise)."""

    __slots__ = ("ok", "rehashed")

    def __init__(self, ok: bool, rehashed: str | None = None) -> None:
        self.ok = ok
        self.rehashed = rehashed

    def __repr__(self) -> str:
        return f"Checked(ok={self.ok}, rehashed={self.rehashed is not None})"


class Passwords:
    """argon2id hashes made and checked off the event loop.

    ``hasher`` is argon2-cffi's ``PasswordHasher`` (its defaults, RFC 9106's low-memory
    profile, in production; tests may pass a cheaper one).  A hash made with other
    parameters still verifies, and :meth:`verify` then gives a new hash to store.

    >>> import asyncio
    >>> from argon2 import PasswordHasher, profiles
    >>> pw = Passwords(PasswordHasher.from_parameters(profiles.CHEAPEST))
    >>> h = asyncio.run(pw.hash("correct horse"))
    >>> h.startswith("$argon2id$")
    True
    >>> asyncio.run(pw.verify(h, "correct horse")), asyncio.run(pw.verify(h, "wrong horse"))
    (Checked(ok=True, rehashed=False), Checked(ok=False, rehashed=False))
    >>> asyncio.run(pw.verify(None, "anything"))  # no such user: the same work, the same answer
    Checked(ok=False, rehashed=False)
    >>> pw.close()

    At most ``max_queued`` passwords wait or are being hashed at once; past that the answer
    is ``busy`` at once (log-ins from many addresses together must not queue without end):

    >>> full = Passwords(PasswordHasher.from_parameters(profiles.CHEAPEST), max_queued=0)
    >>> asyncio.run(full.verify(None, "anything"))
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: too many log-ins at this moment; try again in a minute
    >>> full.close()
    """

    def __init__(self, hasher: PasswordHasher | None = None, threads: int = 2, max_queued: int = 64) -> None:
        self.hasher = hasher or PasswordHasher()
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="omega-hash")
        self.max_queued = max_queued
        self._queued = 0
        # Checked against when the username is unknown, so that answer takes as long as a
        # wrong password does; its password is random and thrown away.  Made at the first
        # unknown name, in a hashing thread: a hash costs about 0.1 s of CPU, which every
        # server start (and every test's server) would otherwise pay on the starting thread.
        self._dummy: str | None = None

    def close(self) -> None:
        """Stop the hashing threads."""
        self._executor.shutdown(wait=True)

    async def _run(self, fn: Callable[..., T], *args: object) -> T:
        if self._queued >= self.max_queued:
            raise ApiError("busy", _("too many log-ins at this moment; try again in a minute"))
        self._queued += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self._queued -= 1

    async def hash(self, password: str) -> str:
        """A new hash of ``password`` (random salt)."""
        return await self._run(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> Checked:
        """Whether ``password`` matches the ``stored`` hash (None: an unknown user, checked
        against a dummy hash so that it costs the same and fails)."""
        return await self._run(self._verify, stored, password)

    def _dummy_hash(self) -> str:
        if self._dummy is None:  # two threads here at once each make one: either serves
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        return self._dummy

    def _verify(self, stored: str | None, password: str) -> Checked:
        try:
            self.hasher.verify(stored if stored is not None else self._dummy_hash(), password)
        except (VerificationError, InvalidHashError):
            return Checked(False)
        if stored is None:  # cannot happen with a random dummy password, but never a log-in
            return Checked(False)
        if self.hasher.check_needs_rehash(stored):
            return Checked(True, self.hasher.hash(password))
        return Checked(True)

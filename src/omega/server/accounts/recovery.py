"""Email on accounts and the password reset it makes possible.  The rules live here; the
routes are :mod:`omega.server.accounts.routes`, the queries
:class:`~omega.server.accounts.store.AccountStore`'s, the mails' words
:mod:`omega.server.accounts.mails`.  Mail leaves through the outbox the site wires in
(:class:`Mailing`): a mail is queued in the transaction of what it tells, so none is lost.

- **An address** is optional, one per account, written and compared as
  :mod:`~omega.server.accounts.addresses` says.  Adding or changing it takes the account's
  password (a stolen session must not be enough to take the account over through a reset)
  and mails a link to the new address, signed over (account, address, expiry) with the
  site's key (``infra.keys``); the old verified address stays in use until the link is
  followed, once.  An address another account has verified gets no link: the mail sent to
  it says so, and the answer is the same as for any address, so nobody learns from it
  whose address is whose.  Following a link made before a newer request fails
  (``invalid_token``): only the last address asked for can be verified.
- **A reset** is asked for with a username or a verified address.  The answer is always
  the same, and comes before the account is even looked up (the looking, the token and the
  mail happen after it is sent), so neither its words nor its time tell whether there is
  such an account.  The mail carries a random token whose SHA-256 alone is stored; it
  works once, for ``Settings.password_reset_lifetime``, sets a new password under the
  registration's rule, ends every session of the account and logs the browser in anew.
- **Language.** A verification mail speaks the asking page's language (the account's own
  request); a reset mail the account's language, else the asking page's (anyone may ask).
- **Limits** (``infra.limits.Limits``): verification mails per account and per address
  mailed to; reset requests per client address (answered ``rate_limited``) and reset mails
  per account (past it no mail, and the same answer).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.engine import Connection

from omega.i18n import DEFAULT
from omega.i18n import translatable as _
from omega.names import username_key
from omega.server.accounts.addresses import (
    RESET_TOKEN,
    email_key,
    looks_like_email,
    new_reset_token,
    normalize_email,
    parse_verify_token,
    read_verify_token,
    verify_token,
)
from omega.server.accounts.mails import RESET, TAKEN, VERIFY
from omega.server.accounts.passwords import check_password
from omega.server.accounts.service import Accounts, Session, User
from omega.server.errors import ApiError
from omega.server.infra.keys import site_key
from omega.server.infra.limits import Buckets, Limits
from omega.server.tables.identity import hash_token

__all__ = ["MailQueue", "Mailing", "Recovery", "FORGOT_ANSWER", "RATE_LIMITED", "verify_link", "reset_link"]

log = logging.getLogger("omega.server")

#: The one answer to "forgot password", whatever the account (or none) it names.
FORGOT_ANSWER = _("if an account has this username or verified address, a mail with a link to "
                  "choose a new password is on its way to its address")
#: What a refused mail-sending request says.
RATE_LIMITED = _("too many mails asked for; wait a while and try again")


class MailQueue(Protocol):
    """Queues one mail inside the caller's transaction (``notify.outbox.queue_mail``)."""

    def __call__(self, conn: Connection, *, to: str, subject: str, text: str, now: datetime,
                 html: str | None = None, headers: Mapping[str, str] | None = None,
                 key: str | None = None) -> int: ...


@dataclass(frozen=True)
class Mailing:
    """How accounts send mail, wired by the app: the outbox's ``queue`` (in the caller's
    transaction), ``wake`` (send soon, after the commit) and the site's public address,
    which every link starts with (never the request's ``Host``: a forged one would send
    the victim a link to someone else's site)."""

    queue: MailQueue
    wake: Callable[[], None]
    site_url: str


def verify_link(site_url: str, token: str) -> str:
    """The page's link that verifies an address: the token in the fragment, which browsers
    never send to a server (no log or ``Referer`` holds it), and the page posts it.

    >>> verify_link("https://omega.example", "7.1.x")
    'https://omega.example/#verify-email=7.1.x'
    """
    return f"{site_url.rstrip('/')}/#verify-email={token}"


def reset_link(site_url: str, token: str) -> str:
    """The page's link that resets a password (the token in the fragment, as :func:`verify_link`).

    >>> reset_link("https://omega.example/", "abc")
    'https://omega.example/#reset-password=abc'
    """
    return f"{site_url.rstrip('/')}/#reset-password={token}"


class Recovery:
    """Addresses and password resets of the site's accounts."""

    def __init__(self, accounts: Accounts, mailing: Mailing, limits: Limits) -> None:
        self.accounts = accounts
        self.core = accounts.core
        self.store = accounts.store
        self.clock = accounts.clock
        self.settings = accounts.settings
        self.mailing = mailing
        self.verify_mails_by_account = Buckets(limits.email_mail_rate, limits.email_mail_burst)
        self.verify_mails_by_address = Buckets(limits.email_mail_rate, limits.email_mail_burst)
        self.forgot_by_address = Buckets(limits.forgot_rate, limits.forgot_burst)
        self.reset_mails_by_account = Buckets(limits.reset_mail_rate, limits.reset_mail_burst)
        self._key: bytes | None = None

    async def key(self) -> bytes:
        """The site's signing key (made at its first use, kept in the database)."""
        if self._key is None:
            self._key = await self.core.db(site_key, self.core.repo)
        return self._key

    async def _check_password(self, user: User, password: str, address: str) -> None:
        # The log-in's budgets: a stolen session must not be a way to guess the password.
        now = self.clock.monotonic()
        if not (self.accounts.login_by_address.take(address, now)
                and self.accounts.login_by_name.take(username_key(user.username), now)):
            raise ApiError("rate_limited", _("too many attempts; wait a minute and try again"))
        stored = await self.core.db(self.store.password_hash, user.id)
        if stored is None or not (await self.accounts.passwords.verify(stored, password)).ok:
            raise ApiError("forbidden", _("the password is not right"))

    # -- the account's address ----------------------------------------------------------------

    async def addresses(self, user: User) -> dict[str, Any]:
        """The account's verified address and the one waiting for its link (None: none)."""
        email, pending = await self.core.db(self.store.email_of, user.id)
        return {"email": email, "pending": pending}

    async def ask(self, user: User, text: str, password: str, address: str, lang: str = DEFAULT) -> dict[str, Any]:
        """The account asks for ``text`` as its address: a link to verify it is mailed there,
        in ``lang`` (see the module's note for an address another account has)."""
        try:
            wanted = normalize_email(text)
        except ValueError as e:
            raise ApiError("bad_request", _("bad request: email: {e}", e=e)) from None
        await self._check_password(user, password, address)
        key = email_key(wanted)
        email, _pending = await self.core.db(self.store.email_of, user.id)
        if email is not None and email_key(email) == key:  # the address it has: nothing to verify
            await self.core.db(self._store_pending, user.id, None)
            return await self.addresses(user)
        now = self.clock.monotonic()
        if not (self.verify_mails_by_account.take(f"user:{user.id}", now)
                and self.verify_mails_by_address.take(key, now)):
            raise ApiError("rate_limited", RATE_LIMITED)
        holder = await self.core.db(self.store.email_holder, key)
        if holder is not None and holder != user.id:  # no link: the mail says why nothing changes
            rendered = TAKEN.render(None, lang=lang, address=wanted)
        else:
            expires = int((self.clock.now() + timedelta(seconds=self.settings.email_verify_lifetime)).timestamp())
            link = verify_link(self.mailing.site_url, verify_token(await self.key(), user.id, wanted, expires))
            rendered = VERIFY.render(link, lang=lang, username=user.username, address=wanted,
                                     hours=round(self.settings.email_verify_lifetime / 3600))

        def store(conn: Connection) -> None:
            self.store.ask_email(conn, user.id, wanted)
            self.mailing.queue(conn, to=wanted, subject=rendered.subject, text=rendered.text, html=rendered.html,
                               now=self.clock.now())

        await self.core.db(self._in_transaction, store)
        self.mailing.wake()
        return await self.addresses(user)

    def _in_transaction(self, work: Callable[[Connection], None]) -> None:
        with self.core.repo.writing() as conn:
            work(conn)

    def _store_pending(self, user_id: int, address: str | None) -> None:
        with self.core.repo.writing() as conn:
            self.store.ask_email(conn, user_id, address)

    async def verify(self, token: str) -> dict[str, Any]:
        """Follow a verification link: its account's address becomes the one it asked for.
        ``invalid_token`` (not made by this site, or for an address no longer asked for),
        ``token_expired``, ``email_taken`` (another account verified it first)."""
        claimed = parse_verify_token(token)
        invalid = ApiError("invalid_token", _("this link is not valid (it may have been used, or replaced by a newer one); ask for a new one on your account page"))
        if claimed is None:
            raise invalid
        _email, pending = await self.core.db(self.store.email_of, claimed[0])
        checked = read_verify_token(await self.key(), token, pending) if pending is not None else None
        if checked is None:
            raise invalid
        user_id, expires = checked
        if expires <= self.clock.now().timestamp():
            raise ApiError("token_expired", _("this link has expired; ask for a new one on your account page"))
        assert pending is not None
        done = await self.core.db(self.store.verify_email, user_id, pending, email_key(pending))
        if done == "stale":  # another request came between the reading and the writing
            raise invalid
        if done == "taken":
            raise ApiError("email_taken", _("another account has verified this address in the meantime"))
        return {"email": pending}

    async def remove(self, user: User, password: str, address: str) -> dict[str, Any]:
        """The account has no address any more (the verified one and the one asked for)."""
        await self._check_password(user, password, address)
        await self.core.db(self.store.remove_email, user.id)
        return {"email": None, "pending": None}

    # -- the password reset -------------------------------------------------------------------

    def charge_forgot(self, address: str) -> None:
        """One "forgot password" request of the client address's budget (``rate_limited``)."""
        if not self.forgot_by_address.take(address, self.clock.monotonic()):
            raise ApiError("rate_limited", RATE_LIMITED)

    async def forgot(self, who: str, lang: str = DEFAULT) -> None:
        """Mail a reset link to the account ``who`` names (its username, or its verified
        address), if there is one: run after the answer is sent, so that it never shows.
        The mail speaks the account's language, else ``lang`` (the asking page's)."""
        target = None
        if looks_like_email(who):
            try:
                key = email_key(normalize_email(who))
            except ValueError:
                return
            target = await self.core.db(lambda: self.store.reset_target(email=key))
        elif who:
            target = await self.core.db(lambda: self.store.reset_target(username=username_key(who)))
        if target is None:
            return
        user, address = target
        if not self.reset_mails_by_account.take(f"user:{user.id}", self.clock.monotonic()):
            return  # the answer was the same: past the budget the account just gets no more mail
        token = new_reset_token()
        now = self.clock.now()
        rendered = RESET.render(reset_link(self.mailing.site_url, token), lang=user.language or lang,
                                username=user.username,
                                minutes=round(self.settings.password_reset_lifetime / 60))

        def store(conn: Connection) -> None:
            self.store.add_reset(conn, user.id, hash_token(token), now,
                                 now + timedelta(seconds=self.settings.password_reset_lifetime))
            self.mailing.queue(conn, to=address, subject=rendered.subject, text=rendered.text, html=rendered.html,
                               now=now)

        await self.core.db(self._in_transaction, store)
        self.mailing.wake()

    async def reset(self, token: str, password: str, address: str, replaces: str | None) -> Session:
        """Use a reset link once: the new password (the registration's rule), every session
        of the account ended, and a new one for this browser.  ``invalid_token`` (unknown or
        used), ``token_expired``."""
        try:
            check_password(password)
        except ValueError as e:
            raise ApiError("bad_request", _("bad request: password: {e}", e=e)) from None
        if not self.accounts.login_by_address.take(address, self.clock.monotonic()):
            raise ApiError("rate_limited", _("too many attempts; wait a minute and try again"))
        invalid = ApiError("invalid_token", _('this link is not valid (it works once); ask for a new one with "Forgot password?"'))
        if RESET_TOKEN.fullmatch(token) is None:
            raise invalid
        digest = hash_token(token)
        found = await self.core.db(self.store.reset_user, digest, self.clock.now())
        if found is None:
            raise invalid
        if found == "expired":
            raise ApiError("token_expired", _('this link has expired; ask for a new one with "Forgot password?"'))
        new_hash = await self.accounts.passwords.hash(password)
        user = await self.core.db(self.store.use_reset, digest, self.clock.now(), new_hash)
        if user is None:  # used (or expired) between the look and the use
            raise invalid
        return await self.accounts.start_session(user, replaces, address)

"""The FastAPI dependencies of every route about a table, defined once: who is calling (one
request charged to a rate limit first), the reader and the actor of a table, a body read
within the size limit, and the table parts of the app.

They find what they need in ``app.state``: the table core (``core``), the limits
(``limits``) and the callers' budgets (``callers``, a :class:`Callers` made by
:func:`omega.server.tables.routes.setup`).  A browser's session cookie is not the tables'
business: :class:`Sessions` is how the accounts feature, when the app has it, says which
account a cookie belongs to (:data:`NO_SESSIONS` otherwise).

>>> from starlette.requests import Request
>>> credentials_of(Request({"type": "http", "query_string": b"token=abc", "headers": []})).token
'abc'
"""

# No ``from __future__ import annotations``: FastAPI reads the dependencies' annotations.
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Protocol, TypeVar

from fastapi import Depends, Request, WebSocket
from starlette.requests import HTTPConnection

from omega.i18n import translatable as _
from omega.server.clock import Clock
from omega.server.errors import ApiError
from omega.server.infra.limits import Buckets, Limits, client_address, read_body
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Credentials, Identity, hash_token

__all__ = ["Sessions", "NO_SESSIONS", "Callers", "credentials_of", "table_core", "caller", "reader", "actor", "body",
           "socket_user", "socket_user_now", "Reader", "Actor", "CALLER_CHARGED"]

T = TypeVar("T")


class Sessions(Protocol):
    """How a request's session cookie names an account (the accounts feature's answer)."""

    def session_id(self, conn: HTTPConnection) -> str | None:
        """The session id the browser sent, if it looks like one."""
        ...

    def refuse_cross_site(self, conn: HTTPConnection) -> None:
        """``cross_site`` unless the request shows that the site's own page sent it."""
        ...

    async def user_id(self, conn: HTTPConnection) -> int | None:
        """The account of the session (None: no session, or one that ended)."""
        ...

    async def live_user_id(self, conn: HTTPConnection) -> int | None:
        """The same, asked again now (``user_id`` is looked up once per request or socket:
        a socket's session may end while it stays open)."""
        ...


class _NoSessions:
    """An app without accounts: no cookie names anyone."""

    def session_id(self, conn: HTTPConnection) -> str | None:
        return None

    def refuse_cross_site(self, conn: HTTPConnection) -> None:
        return None

    async def user_id(self, conn: HTTPConnection) -> int | None:
        return None

    async def live_user_id(self, conn: HTTPConnection) -> int | None:
        return None


#: The :class:`Sessions` of an app without accounts.
NO_SESSIONS: Sessions = _NoSessions()


@dataclass
class Callers:
    """The request budgets of the table routes.  Only a token that proved itself once gets
    a bucket of its own; everything else (no token, an unknown or junk one) is charged to
    the client's address, which an attacker cannot mint for free the way it can mint tokens."""

    clock: Clock
    by_token: Buckets
    by_address: Buckets
    sessions: Sessions = NO_SESSIONS

    @classmethod
    def of(cls, limits: Limits, clock: Clock, sessions: Sessions = NO_SESSIONS) -> "Callers":
        """The budgets ``limits`` allow."""
        return cls(clock, Buckets(limits.http_rate, limits.http_burst), Buckets(limits.http_rate, limits.http_burst),
                   sessions)

    def proved(self, credentials: Credentials) -> None:
        """A token identified someone: from now on it is charged to a bucket of its own."""
        if credentials.digest is not None:
            self.by_token.open(credentials.digest, self.clock.monotonic())


def credentials_of(request: Request) -> Credentials:
    """The token a request shows: ``Authorization: Bearer``, or ``?token=`` for downloads
    (record links cannot set headers)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return Credentials(value.strip())
    return Credentials(request.query_params.get("token") or None)


def table_core(conn: HTTPConnection) -> TableCore:
    """The app's table core."""
    core: TableCore = conn.app.state.core
    return core


def _callers(conn: HTTPConnection) -> Callers:
    callers: Callers = conn.app.state.callers
    return callers


async def caller(request: Request) -> Credentials:
    """The request's credentials, after charging one request: to the token's (or session's)
    own bucket if it has proved itself before, otherwise to the client's address.  Without
    a token, the session cookie's account; a write authenticated so must come from the site
    itself (``cross_site``)."""
    callers = _callers(request)
    credentials = credentials_of(request)
    session_id = callers.sessions.session_id(request) if credentials.token is None else None
    now = callers.clock.monotonic()
    key = credentials.digest or (f"session:{hash_token(session_id)}" if session_id is not None else None)
    if key is not None and key in callers.by_token:
        allowed = callers.by_token.take(key, now)
    else:
        allowed = callers.by_address.take(client_address(request), now)
    if not allowed:
        raise ApiError("rate_limited", _("too many requests; slow down"))
    if session_id is None:
        return credentials
    if request.method not in ("GET", "HEAD"):
        callers.sessions.refuse_cross_site(request)
    user_id = await callers.sessions.user_id(request)
    if user_id is None:
        return credentials
    assert key is not None
    callers.by_token.open(key, now)
    return Credentials(None, user_id=user_id)


async def reader(request: Request, table_id: str, credentials: Annotated[Credentials, Depends(caller)]) -> Identity:
    """Whoever reads a table: identified against its latest state; a seat's first visit
    joins it."""
    core = table_core(request)
    who = await core.identify(table_id, credentials)
    _callers(request).proved(credentials)
    await core.visit(table_id, who)
    return who


async def actor(request: Request, table_id: str, credentials: Annotated[Credentials, Depends(caller)]) -> Identity:
    """Whoever acts: the write catches up inside its transaction, and a first action joins
    in the same commit."""
    who = await table_core(request).identify(table_id, credentials, fresh=False)
    _callers(request).proved(credentials)
    return who


def body(parse: Callable[[bytes], T]) -> Callable[[Request], Awaitable[T]]:
    """A dependency that reads the body (at most ``Limits.max_message`` bytes, refused
    before it is all read) and parses it with ``parse`` (a strict model of ``schemas``)."""
    async def read(request: Request) -> T:
        limits: Limits = request.app.state.limits
        return parse(await read_body(request, limits.max_message))
    return read


async def socket_user_now(websocket: WebSocket) -> int | None:
    """The account of the session cookie a socket opened with, as it stands now (None once
    that session has ended)."""
    sessions = _callers(websocket).sessions
    return None if sessions.session_id(websocket) is None else await sessions.live_user_id(websocket)


async def socket_user(websocket: WebSocket) -> int | None:
    """The account of a socket opened without a token, by its session cookie; a page of
    another site may not use the cookie (``cross_site``)."""
    sessions = _callers(websocket).sessions
    if sessions.session_id(websocket) is None:
        return None
    sessions.refuse_cross_site(websocket)
    return await sessions.user_id(websocket)


#: A route's table reader and actor.
Reader = Annotated[Identity, Depends(reader)]
Actor = Annotated[Identity, Depends(actor)]
#: A table route's first dependencies: the caller's request is charged (to its token's or
#: session's budget, else its address's) before its body is parsed.
CALLER_CHARGED = [Depends(caller)]

"""The accounts' HTTP side: the session cookie, the CSRF check of writes, the FastAPI
dependencies other routes use to know who is logged in, and the ``/api/account`` routes
(``docs/server-api.md``, Accounts).

The dependencies find the :class:`~omega.server.accounts.service.Accounts` of the app in
``app.state.accounts``, so any router can use them:

- :func:`current_user`: the logged-in user or None (for reads);
- :func:`cookie_writer`: the same for a write, refused with ``cross_site`` when the request
  carries a session cookie but does not come from the site itself;
- :func:`logged_in_writer`: a write that needs a logged-in user (``auth_required`` otherwise).

**CSRF.** A write the browser authenticates by itself (the cookie) must show that the site's
own page sent it: its ``Origin`` header names this host (``https`` when the request came over
HTTPS), or, without an ``Origin``, its ``Sec-Fetch-Site`` is ``same-origin``.  Anything else is
refused with ``cross_site`` (403) and changes nothing.  Log-in and registration are checked the
same way, so another site cannot log a browser into an account of its choosing.  Requests
authenticated by a seat token in the ``Authorization`` header are not affected: a browser
never adds that header by itself.

>>> from starlette.requests import Request
>>> def req(**headers):
...     return Request({"type": "http", "method": "POST", "scheme": "http", "path": "/", "server": ("x", 80),
...                     "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]})
>>> same_site(req(host="omega.example", origin="http://omega.example"))
True
>>> same_site(req(host="omega.example", origin="https://evil.example")), same_site(req(host="omega.example"))
(False, False)
>>> same_site(req(host="omega.example", sec_fetch_site="same-origin"))
True
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import contextlib
import logging
import re
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, BackgroundTasks, Depends, FastAPI, Request, Response, WebSocket
from starlette.requests import HTTPConnection

from omega.i18n import translatable as _
from omega.server.accounts.passwords import Passwords
from omega.server.accounts.recovery import FORGOT_ANSWER, Mailing, Recovery
from omega.server.accounts.schemas import (
    parse_claim,
    parse_email_change,
    parse_forgot,
    parse_language,
    parse_login,
    parse_password_change,
    parse_password_only,
    parse_reset,
    parse_token,
)
from omega.server.accounts.service import (
    HISTORY_PAGE,
    HISTORY_PAGE_MAX,
    Accounts,
    Session,
    User,
    parse_cursor,
)
from omega.server.errors import ApiError
from omega.server.infra.language import connection_language, remember_account_language
from omega.server.infra.limits import Buckets, Limits, client_address, owner_key, read_body
from omega.server.infra.scheduler import Scheduler
from omega.server.tables.core import TableCore
from omega.server.tables.timecontrol import stamp_ms

__all__ = [
    "SESSION_COOKIE", "session_id_of", "same_site", "is_https", "current_user", "cookie_writer",
    "logged_in_writer", "logged_in_reader", "site_only", "refuse_cross_site", "session_user", "user_json", "charged",
    "body", "Body", "LoggedIn", "USER_CHARGED", "CookieSessions", "router", "setup", "setup_recovery",
    "admit_page_socket", "refuse_socket",
]

log = logging.getLogger("omega.server")


#: The cookie that carries the session id.
SESSION_COOKIE = "omega_session"
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{20,128}")
_USER = "omega_user"  # where a request keeps its looked-up user (request.state)


def _accounts(conn: HTTPConnection) -> Accounts:
    accounts: Accounts = conn.app.state.accounts
    return accounts


def _recovery(conn: HTTPConnection) -> Recovery:
    recovery: Recovery | None = getattr(conn.app.state, "recovery", None)
    if recovery is None:  # an app wired without mail (no outbox): nothing can be mailed
        raise ApiError("unavailable", _("this server sends no mail"))
    return recovery


def session_id_of(conn: HTTPConnection) -> str | None:
    """The session id the browser sent (None: no cookie, or not one the server could have made)."""
    value = conn.cookies.get(SESSION_COOKIE)
    return value if value is not None and _SESSION_ID.fullmatch(value) else None


def is_https(conn: HTTPConnection) -> bool:
    """Whether the request came over HTTPS (behind a trusted proxy, as the proxy says)."""
    return conn.url.scheme in ("https", "wss")


def same_site(conn: HTTPConnection) -> bool:
    """Whether the request shows that this site's own page sent it (see the module's CSRF note)."""
    origin = conn.headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        host = conn.headers.get("host", "")
        scheme_ok = parts.scheme == "https" if is_https(conn) else parts.scheme in ("http", "https")
        return scheme_ok and bool(host) and parts.netloc.lower() == host.lower()
    return conn.headers.get("sec-fetch-site") == "same-origin"


def refuse_cross_site(conn: HTTPConnection) -> None:
    """``cross_site`` unless :func:`same_site`."""
    if not same_site(conn):
        raise ApiError("cross_site", _("this request must come from the site's own page (its Origin header does not name this site)"))


async def session_user(conn: HTTPConnection) -> User | None:
    """The account of the session cookie, looked up once per request or socket."""
    if hasattr(conn.state, _USER):
        user: User | None = getattr(conn.state, _USER)
        return user
    session_id = session_id_of(conn)
    user = await _accounts(conn).user_of(session_id) if session_id is not None else None
    setattr(conn.state, _USER, user)
    if user is not None:  # its language answers the request when no cookie chooses one
        remember_account_language(conn, user.language)
    return user


async def current_user(request: Request) -> User | None:
    """Dependency: the logged-in user, or None."""
    return await session_user(request)


async def cookie_writer(request: Request) -> User | None:
    """Dependency of a write: the logged-in user or None; a request that carries a session
    cookie must come from the site itself (``cross_site``)."""
    if session_id_of(request) is not None:
        refuse_cross_site(request)
    return await session_user(request)


async def logged_in_writer(request: Request) -> User:
    """Dependency of a write that needs a logged-in user (``auth_required`` otherwise)."""
    user = await cookie_writer(request)
    if user is None:
        raise ApiError("auth_required", _("log in first"))
    return user


async def logged_in_reader(request: Request) -> User:
    """Dependency of a read that needs a logged-in user (``auth_required`` otherwise)."""
    user = await session_user(request)
    if user is None:
        raise ApiError("auth_required", _("log in first"))
    return user


def site_only(request: Request) -> None:
    """Dependency: the request must come from the site itself, logged in or not (log-in,
    registration: so that no other site can log a browser into an account)."""
    refuse_cross_site(request)


async def refuse_socket(websocket: WebSocket, error: ApiError) -> None:
    """Send a socket the refusal ``error`` and close it with ``4000 + status``."""
    with contextlib.suppress(Exception):
        await websocket.send_json({"type": "error", "request_id": None, "error": error.as_json(connection_language(websocket))["error"]})
        await websocket.close(code=4000 + error.status)


async def admit_page_socket(websocket: WebSocket, connects: Buckets, full: ApiError | None) -> bool:
    """Accept a socket of a site page (the lobby's, a tournament's; ``omega.v1`` when asked
    for) and admit it, or refuse it and say False: the address's budget of new sockets, the
    cross-site check of a cookie-authenticated socket, and ``full`` (the feature's refusal
    when it is at capacity, else None)."""
    await websocket.accept(subprotocol="omega.v1" if "omega.v1" in websocket.scope.get("subprotocols", []) else None)
    address = websocket.client.host if websocket.client else "?"
    refusal = full
    if not connects.take(address, websocket.app.state.callers.clock.monotonic()):
        refusal = ApiError("rate_limited", _("too many new sockets; wait a moment"))
    elif session_id_of(websocket) is not None and not same_site(websocket):
        refusal = ApiError("cross_site", _("this socket must come from the site's own page"))
    if refusal is not None:
        await refuse_socket(websocket, refusal)
        return False
    return True


def user_json(user: User | None) -> dict[str, Any] | None:
    """A user as the API shows one.

    >>> user_json(User(3, "Ann"))
    {'id': 3, 'username': 'Ann'}
    """
    return None if user is None else {"id": user.id, "username": user.username}


def _set_session(response: Response, request: Request, session: Session) -> None:
    accounts = _accounts(request)
    response.set_cookie(SESSION_COOKIE, session.session_id, max_age=int(accounts.settings.session_lifetime),
                        path="/", httponly=True, samesite="lax", secure=is_https(request))


def _signed_in(request: Request, response: Response, session: Session) -> dict[str, Any]:
    """The answer of a registration or a login: the session's cookie set, and its user."""
    _set_session(response, request, session)
    return {"user": user_json(session.user)}


def _clear_session(response: Response, request: Request) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=is_https(request))


#: The ``/api/account`` and ``/api/users`` routes.
router = APIRouter()


class CookieSessions:
    """The session cookie as the tables' dependencies see it (``tables.deps.Sessions``)."""

    def session_id(self, conn: HTTPConnection) -> str | None:
        """The session id the browser sent (:func:`session_id_of`)."""
        return session_id_of(conn)

    def refuse_cross_site(self, conn: HTTPConnection) -> None:
        """:func:`refuse_cross_site`."""
        refuse_cross_site(conn)

    async def user_id(self, conn: HTTPConnection) -> int | None:
        """The session's account (:func:`session_user`)."""
        user = await session_user(conn)
        return user.id if user is not None else None

    async def live_user_id(self, conn: HTTPConnection) -> int | None:
        """The session's account asked of the database now (not the request's look-up)."""
        session_id = session_id_of(conn)
        user = await _accounts(conn).user_of(session_id) if session_id is not None else None
        return user.id if user is not None else None


def setup(app: FastAPI, core: TableCore, passwords: Passwords, limits: Limits, scheduler: Scheduler) -> Accounts:
    """The accounts of the app (``app.state.accounts``); expired sessions are purged as
    recurring work."""
    accounts = Accounts(core, passwords, limits, core.settings)
    app.state.accounts = accounts
    scheduler.every("sessions", core.settings.session_purge_every, accounts.purge)
    return accounts


def setup_recovery(app: FastAPI, accounts: Accounts, mailing: Mailing, limits: Limits) -> Recovery:
    """Email addresses and password resets (``app.state.recovery``), mailing through
    ``mailing`` (expired resets go with the sessions' purge, :meth:`Accounts.purge`)."""
    recovery = Recovery(accounts, mailing, limits)
    app.state.recovery = recovery
    return recovery


async def body(request: Request) -> bytes:
    """Dependency: the request's body (at most ``Limits.max_message`` bytes)."""
    return await read_body(request, request.app.state.limits.max_message)


#: A route's body, a logged-in writer (``auth_required`` otherwise) and a logged-in reader.
Body = Annotated[bytes, Depends(body)]
LoggedIn = Annotated[User, Depends(logged_in_writer)]
Reader = Annotated[User, Depends(logged_in_reader)]


async def charged(request: Request) -> None:
    """Dependency: one request of the per-user budget of the account, lobby and ratings
    routes (per user when logged in, else per address)."""
    accounts = _accounts(request)
    user = await session_user(request)
    key = owner_key(request, user.id if user is not None else None)
    if not accounts.requests.take(key, accounts.clock.monotonic()):
        raise ApiError("rate_limited", _("too many requests; slow down"))


#: The route dependency that charges :func:`charged`.
USER_CHARGED = Depends(charged)


@router.get("/api/account", dependencies=[USER_CHARGED])
async def whoami(request: Request, response: Response) -> dict[str, Any]:
    user = await session_user(request)
    if user is None:
        if request.cookies.get(SESSION_COOKIE) is not None:
            _clear_session(response, request)  # expired or ended elsewhere: forget it
        return {"user": None}
    # The roles beside the user: the page shows a moderator the way to the console.
    return {"user": user_json(user), "roles": await _accounts(request).roles(user), "language": user.language}


@router.post("/api/account/register", status_code=201, dependencies=[Depends(site_only)])
async def register(request: Request, response: Response, raw: Body) -> dict[str, Any]:
    req = parse_login(raw)
    return _signed_in(request, response, await _accounts(request).register(
        req.username, req.password, client_address(request), session_id_of(request), connection_language(request)))


@router.post("/api/account/login", dependencies=[Depends(site_only)])
async def login(request: Request, response: Response, raw: Body) -> dict[str, Any]:
    req = parse_login(raw)
    return _signed_in(request, response, await _accounts(request).login(
        req.username, req.password, client_address(request), session_id_of(request), connection_language(request)))


@router.post("/api/account/logout", dependencies=[Depends(site_only), USER_CHARGED])
async def logout(request: Request, response: Response) -> dict[str, Any]:
    session_id = session_id_of(request)
    if session_id is not None:
        await _accounts(request).logout(session_id)
    _clear_session(response, request)
    return {"user": None}


@router.post("/api/account/logout-everywhere", dependencies=[USER_CHARGED])
async def logout_everywhere(request: Request, response: Response, user: LoggedIn) -> dict[str, Any]:
    ended = await _accounts(request).logout_everywhere(user)
    _clear_session(response, request)
    return {"user": None, "sessions_ended": ended}


@router.put("/api/account/language", dependencies=[USER_CHARGED])
async def set_language(request: Request, user: LoggedIn, raw: Body) -> dict[str, Any]:
    # The page's Language setting: the account's notices and mails speak it from now on.
    return {"language": await _accounts(request).set_language(user, parse_language(raw).language)}


@router.post("/api/account/password", dependencies=[USER_CHARGED])
async def change_password(request: Request, user: LoggedIn, raw: Body) -> dict[str, Any]:
    req = parse_password_change(raw)
    session_id = session_id_of(request)
    assert session_id is not None  # a logged-in writer came with its cookie
    await _accounts(request).change_password(user, req.current_password, req.new_password,
                                             client_address(request), session_id)
    return {"user": user_json(user)}


@router.post("/api/account/claim", dependencies=[USER_CHARGED])
async def claim(request: Request, user: LoggedIn, raw: Body) -> dict[str, Any]:
    req = parse_claim(raw)
    # Each link loads a table: every one past the first costs a request of the budget.
    accounts = _accounts(request)
    for _seat in req.seats[1:]:
        if not accounts.requests.take(f"user:{user.id}", accounts.clock.monotonic()):
            raise ApiError("rate_limited", _("too many requests; slow down"))
    seats = await _accounts(request).claim(user, [(s.table_id, s.token) for s in req.seats])
    return {"seats": seats}


@router.get("/api/account/tables", dependencies=[USER_CHARGED])
async def my_tables(request: Request, user: Reader) -> dict[str, Any]:
    # The server's time, for the page to count the clocks down by (not its own).
    return {"tables": await _accounts(request).my_tables(user), "server_time": stamp_ms(_accounts(request).clock.now())}


def page(request: Request) -> tuple[Any, int]:
    before_text = request.query_params.get("before")
    limit_text = request.query_params.get("limit", str(HISTORY_PAGE))
    if not (limit_text.isascii() and limit_text.isdigit()) or not 1 <= int(limit_text) <= HISTORY_PAGE_MAX:
        raise ApiError("bad_request", _("bad request: limit must be a whole number from 1 to {history_page_max}", history_page_max=HISTORY_PAGE_MAX))
    return (parse_cursor(before_text) if before_text else None), int(limit_text)


@router.get("/api/account/history", dependencies=[USER_CHARGED])
async def history(request: Request, user: Reader,
                  paging: Annotated[tuple[Any, int], Depends(page)]) -> dict[str, Any]:
    return await _accounts(request).history(user, *paging)


@router.get("/api/users/{username}", dependencies=[USER_CHARGED])
async def profile(request: Request, username: str) -> dict[str, Any]:
    return await _accounts(request).profile(username)


@router.get("/api/account/email", dependencies=[USER_CHARGED])
async def my_email(request: Request, user: Reader) -> dict[str, Any]:
    return await _recovery(request).addresses(user)


@router.post("/api/account/email", status_code=202, dependencies=[USER_CHARGED])
async def ask_email(request: Request, user: LoggedIn, raw: Body) -> dict[str, Any]:
    req = parse_email_change(raw)
    return await _recovery(request).ask(user, req.email, req.password, client_address(request),
                                        connection_language(request))


@router.post("/api/account/email/remove", dependencies=[USER_CHARGED])
async def remove_email(request: Request, user: LoggedIn, raw: Body) -> dict[str, Any]:
    req = parse_password_only(raw)
    return await _recovery(request).remove(user, req.password, client_address(request))


@router.post("/api/account/email/verify", dependencies=[Depends(site_only), USER_CHARGED])
async def verify_email(request: Request, raw: Body) -> dict[str, Any]:
    return await _recovery(request).verify(parse_token(raw).token)


@router.post("/api/account/password/forgot", status_code=202, dependencies=[Depends(site_only)])
async def forgot_password(request: Request, raw: Body, later: BackgroundTasks) -> dict[str, Any]:
    req = parse_forgot(raw)
    recovery = _recovery(request)
    recovery.charge_forgot(client_address(request))
    lang = connection_language(request)

    async def look_up_and_mail() -> None:
        try:
            await recovery.forgot(req.who.strip(), lang)
        except Exception as e:  # the answer is sent: only the log can say
            # The error's kind only: a database error's text quotes its statement's values,
            # here the mail with its reset link, and neither that nor whom it was for belongs
            # in a log.
            log.warning("a password reset asked for could not be mailed (%s)", type(e).__name__)

    # After the answer is sent: its time cannot depend on whether the account exists.
    later.add_task(look_up_and_mail)
    return {"message": FORGOT_ANSWER.in_language(lang)}


@router.post("/api/account/password/reset", dependencies=[Depends(site_only)])
async def reset_password(request: Request, response: Response, raw: Body) -> dict[str, Any]:
    req = parse_reset(raw)
    session = await _recovery(request).reset(req.token, req.password, client_address(request),
                                             session_id_of(request))
    return _signed_in(request, response, session)

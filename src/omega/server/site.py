"""What the site serves besides its features: the page (``/``, ``/t/{id}``, its static
files, and the page for a path no route knows), its service worker and manifest at the
root (``/sw.js``, ``/manifest.webmanifest``), ``/api/health``, ``/healthz``,
``/metrics``, ``/api/config`` (the limits the page offers) and ``/api/status``; and the
error handlers that give every failure the API's error shape.

>>> site_config()["sizes"][0]
{'size': 5, 'cells': 61}
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import logging
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from omega.ai.levels import LEVELS
from omega.board import cell_count
from omega.i18n import DEFAULT, gettext
from omega.i18n import translatable as _
from omega.names import NAME_MAX, USERNAME_MAX, USERNAME_MIN, USERNAME_RULE
from omega.server.accounts.passwords import PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE
from omega.server.accounts.routes import session_id_of, session_user
from omega.server.config import DEFAULT_LEVEL, DEFAULT_SIZE, TABLE_PLAYERS, TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.language import LANG_COOKIE, connection_language
from omega.server.infra.metrics import MetricsAccess
from omega.server.languages import PAGE_VARY, localized
from omega.server.moderation.schemas import limits_config as moderation_limits
from omega.server.social.chat_text import CHAT_MAX
from omega.server.tables.deps import table_core
from omega.server.tables.state import COMPUTER_TURN
from omega.server.tables.timecontrol import time_control_config
from omega.server.tournaments.schemas import limits_config as tournament_limits

__all__ = ["router", "setup", "web_dir", "index", "site_config", "page_kind", "preloads_for", "PROGRAM_PATHS",
           "ROOT_FILES"]

log = logging.getLogger("omega.server")

_MISSING_CLIENT = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Omega</title></head>
<body><h1>Omega server</h1><p>The web client is missing: <code>omega/web/index.html</code> is not
installed. The API is at <code>/api</code>.</p></body></html>"""

#: Paths of programs, not of people's browsers: a path there that no route knows keeps the
#: JSON error (a browser elsewhere gets the page, which says "not found" in its own words).
PROGRAM_PATHS = ("/api/", "/ws/", "/static/", "/healthz")


def web_dir() -> Path:
    """Where the page's files are (``src/omega/web``)."""
    return Path(str(files("omega") / "web"))


def site_config(lang: str = DEFAULT) -> dict[str, Any]:
    """The table limits as the page reads them (``GET /api/config``, docs/server-api.md), their
    words (levels, rules) in ``lang``."""
    return {
        "players": {"min": TABLE_PLAYERS.start, "max": TABLE_PLAYERS.stop - 1},
        "sizes": [{"size": n, "cells": cell_count(n)} for n in TABLE_SIZES],
        "default_size": DEFAULT_SIZE,
        "levels": [{"level": lv.number, "name": gettext(lv.name, lang), "description": gettext(lv.description, lang),
                    "rating": lv.rating, "rating_low": lv.rating_low, "rating_high": lv.rating_high}
                   for lv in LEVELS],
        "default_level": DEFAULT_LEVEL,
        "name_max": NAME_MAX,
        "username": {"min": USERNAME_MIN, "max": USERNAME_MAX, "rule": USERNAME_RULE.in_language(lang)},
        "password": {"min": PASSWORD_MIN, "max": PASSWORD_MAX, "rule": PASSWORD_RULE.in_language(lang)},
        "time_controls": time_control_config(lang),
        "chat_max": CHAT_MAX,
        "tournaments": tournament_limits(),
        "moderation": moderation_limits(),
    }


#: A preload that only one kind of page wants: index.html marks it ``data-page="table"``
#: or ``data-page="lobby"``.
_PAGE_PRELOAD = re.compile(r'^<link rel="modulepreload" href="[^"]+" data-page="([a-z]+)">\n', re.M)


def page_kind(path: str) -> str | None:
    """Which page a path opens, for the modules its first load fetches at once: ``"table"``
    (``/t/{id}``), ``"lobby"`` (``/``), or None for the others, whose modules load when
    opened (web/js/main.js).

    >>> page_kind("/t/abc"), page_kind("/"), page_kind("/u/ann")
    ('table', 'lobby', None)
    """
    if path == "/":
        return "lobby"
    return "table" if re.fullmatch(r"/t/[A-Za-z0-9_-]+/?", path) else None


def preloads_for(html: str, kind: str | None) -> str:
    """``html`` keeping, of the preloads marked for one kind of page, only ``kind``'s: a
    table's first load does not fetch the lobby's modules, nor the lobby's the table's.

    >>> page = '<link rel="modulepreload" href="/a.js" data-page="table">\\n<p>\\n'
    >>> preloads_for(page, "table") == page, preloads_for(page, "lobby")
    (True, '<p>\\n')
    """
    return _PAGE_PRELOAD.sub(lambda m: m.group(0) if m.group(1) == kind else "", html)


async def index(request: Request) -> Response:
    """The page (the one page of the site; it reads its path itself), in the reader's
    language (``languages.localized``): a logged-in reader with no Language cookie (a new
    device) gets the account's, so the session is looked up for it."""
    if (LANG_COOKIE not in request.cookies and session_id_of(request) is not None
            and getattr(request.app.state, "accounts", None) is not None):
        await session_user(request)
    page = web_dir() / "index.html"
    if page.is_file():
        html = preloads_for(page.read_text(encoding="utf-8"), page_kind(request.url.path))
        html = localized(html, connection_language(request))
        return HTMLResponse(html, headers={"vary": PAGE_VARY})
    return HTMLResponse(_MISSING_CLIENT)


#: The page's files served at the root, with their types: a service worker controls only
#: the paths under its own, so the site's is ``/sw.js`` (``Service-Worker-Allowed: /`` says
#: so too), and the manifest sits beside it.
ROOT_FILES = {"/sw.js": ("sw.js", "text/javascript; charset=utf-8"),
              "/manifest.webmanifest": ("manifest.webmanifest", "application/manifest+json")}


def root_file(request: Request) -> Response:
    """One of :data:`ROOT_FILES`; ``no-cache``: the browser asks each time whether it
    changed, so a new worker reaches every device at its next visit."""
    name, content_type = ROOT_FILES[request.url.path]
    path = web_dir() / name
    if not path.is_file():
        raise ApiError("not_found", _("{name} is not installed", name=name))
    headers = {"cache-control": "no-cache", "service-worker-allowed": "/"} if name == "sw.js" \
        else {"cache-control": "no-cache"}
    return Response(path.read_bytes(), media_type=content_type, headers=headers)


router = APIRouter()
router.add_api_route("/", index, methods=["GET", "HEAD"], include_in_schema=False)
for _path in ROOT_FILES:
    router.add_api_route(_path, root_file, methods=["GET", "HEAD"], include_in_schema=False)
router.add_api_route("/t/{table_id}", index, methods=["GET", "HEAD"], include_in_schema=False)
for _path in ("/leaderboard", "/leaderboard/{players}", "/u/{username}", "/tournaments", "/tournaments/{tournament_id}",
              "/challenges/{challenge_id}", "/mod", "/watch", "/puzzles", "/puzzles/{puzzle_id}"):
    router.add_api_route(_path, index, methods=["GET", "HEAD"], include_in_schema=False)


@router.get("/api/health")
async def health() -> dict[str, Any]:
    return {"ok": True}


async def healthz(request: Request) -> dict[str, Any]:
    """For load balancers and monitors: the process answers and its database does too
    (a database that does not answer gives 503 ``unavailable``)."""
    core = table_core(request)
    await core.db(core.repo.ping)
    return {"ok": True, "database": "ok"}


router.add_api_route("/healthz", healthz, methods=["GET", "HEAD"], include_in_schema=False)


async def prometheus(request: Request) -> Response:
    """This process's metrics, for monitoring addresses only (never through the proxy)."""
    access: MetricsAccess = request.app.state.metrics_access
    if not access.allows(request.client.host if request.client else None,
                         forwarded="x-forwarded-for" in request.headers):
        raise ApiError("forbidden", _("metrics are served to monitoring addresses only (omega serve --metrics-from)"))
    metrics = table_core(request).metrics
    await metrics.refresh()
    body, content_type = metrics.render(request.headers.get("accept", ""))
    return Response(body, headers={"content-type": content_type})


router.add_api_route("/metrics", prometheus, methods=["GET"], include_in_schema=False)


@router.get("/api/config")
async def config(request: Request) -> dict[str, Any]:
    return site_config(connection_language(request))


@router.get("/api/status")
async def status(request: Request) -> dict[str, Any]:
    """What the server is doing: sockets, cached tables, computer turns."""
    core = table_core(request)
    computers = request.app.state.computers
    return {
        "sockets": core.hub.socket_count(), "tables_cached": core.cached_tables,
        "computer_turns_due": await core.db(core.repo.due_count, COMPUTER_TURN),
        "computers": computers.status() if computers is not None else None,
    }


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.as_json(connection_language(request)), status_code=exc.status)


async def _database_error(request: Request, exc: Exception) -> JSONResponse:
    # The database is down or restarting: nothing was acknowledged, the client may retry
    # (with the same request_id, so a retry never plays twice).
    log.error("database error on %s: %s", request.url.path, exc)
    error = ApiError("unavailable", _("the database is not available; try again"))
    return JSONResponse(error.as_json(connection_language(request)), status_code=error.status)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    error = ApiError(code, str(exc.detail))
    # A 405 keeps the router's Allow header.
    return JSONResponse(error.as_json(connection_language(request)), status_code=error.status, headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    # A bug: the traceback goes to the log (uvicorn logs it after this answer), the client
    # gets the usual error shape, never a plain-text page.
    error = ApiError("internal", _("internal server error"))
    return JSONResponse(error.as_json(connection_language(request)), status_code=error.status)


def setup(app: FastAPI, metrics_from: str) -> None:
    """The error handlers, the static files, the page for unknown paths, and who may read
    ``/metrics`` (``metrics_from``: addresses or networks, comma-separated)."""
    app.state.metrics_access = MetricsAccess(metrics_from)
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(DBAPIError, _database_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)
    app.mount("/static", StaticFiles(directory=web_dir(), check_dir=False), name="static")
    no_route = app.router.default

    async def not_found(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and not path.startswith(PROGRAM_PATHS):
            response = await index(Request(scope))
            response.status_code = 404
            await response(scope, receive, send)
            return
        await no_route(scope, receive, send)

    app.router.default = not_found


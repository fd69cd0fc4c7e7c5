"""The leaving feature's routes (``docs/server-api.md``, Leaving): the account's data as a
download, closing the account and reopening it; and ``setup``, which wires the service, makes
it the accounts' :class:`~omega.server.accounts.service.Closures` and registers the removal's
due work.

>>> sorted(r.path for r in router.routes)
['/api/account/close', '/api/account/export', '/api/account/reopen']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response

from omega.server.accounts.routes import SESSION_COOKIE, USER_CHARGED, Body, LoggedIn, is_https, site_only
from omega.server.accounts.service import Accounts
from omega.server.infra.limits import client_address
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.leaving.schemas import parse_close, parse_reopen
from omega.server.leaving.service import KIND, Leaving
from omega.server.ratings.service import RatingStore
from omega.server.tables.core import TableCore

__all__ = ["router", "setup"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, accounts: Accounts, ratings: RatingStore) -> Leaving:
    """Leaving for the app (``app.state.leaving``): the accounts refuse closed accounts
    through it, and the ``leaving`` due work removes their data after the grace period."""
    leaving = Leaving(core, accounts, ratings)
    leaving.wake = scheduler.wake
    accounts.closures = leaving
    scheduler.handle(KIND, leaving.run, lease=600.0, capacity=4)
    app.state.leaving = leaving
    return leaving


Service = Annotated[Leaving, from_app("leaving")]


# A GET, yet a logged-in writer's dependency: a request with the session cookie must come
# from the site's own page (``cross_site`` otherwise), so no other site starts the download.
@router.get("/api/account/export", dependencies=[USER_CHARGED])
async def export(user: LoggedIn, leaving: Service) -> Response:
    data = await leaving.export(user)
    day = data["exported_at"][:10]
    return Response(json.dumps(data, ensure_ascii=False, indent=1), media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="omega-account-{day}.json"',
                             "cache-control": "no-store"})


@router.post("/api/account/close", dependencies=[USER_CHARGED])
async def close(request: Request, response: Response, user: LoggedIn, raw: Body, leaving: Service) -> dict[str, Any]:
    req = parse_close(raw)
    closed = await leaving.close(user, req.password, client_address(request))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=is_https(request))
    return {"user": None, **closed}


@router.post("/api/account/reopen", dependencies=[Depends(site_only)])
async def reopen(request: Request, raw: Body, leaving: Service) -> dict[str, Any]:
    req = parse_reopen(raw)
    return await leaving.reopen(req.username, req.password, client_address(request))

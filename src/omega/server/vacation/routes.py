"""The vacation's routes (``docs/server-api.md``, Vacation): an account's vacation read,
started, ended and its automatic setting; and ``setup``, which wires the service.

>>> sorted(r.path for r in router.routes)
['/api/account/vacation', '/api/account/vacation', '/api/account/vacation/end', '/api/account/vacation/settings']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI

from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.tables.core import TableCore
from omega.server.vacation.schemas import parse_automatic, parse_start
from omega.server.vacation.service import VACATION, Tell, Vacations, install

__all__ = ["router", "setup"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, tell: Tell | None = None) -> Vacations:
    """The vacations of the app (``app.state.vacations``): the core's flag policy (automatic
    vacation), and the ``vacation`` due work that brings an account's tables to its vacation.
    ``tell``: where notices go (None: the log)."""
    vacations = install(core, tell)
    scheduler.handle(VACATION, vacations.run)
    app.state.vacations = vacations
    return vacations


Service = Annotated[Vacations, from_app("vacations")]


@router.get("/api/account/vacation", dependencies=[USER_CHARGED])
async def vacation(user: Reader, vacations: Service) -> dict[str, Any]:
    return await vacations.status(user.id)


@router.post("/api/account/vacation", dependencies=[USER_CHARGED])
async def start_vacation(user: LoggedIn, raw: Body, vacations: Service) -> dict[str, Any]:
    return await vacations.start(user.id, parse_start(raw).until_time)


@router.post("/api/account/vacation/end", dependencies=[USER_CHARGED])
async def end_vacation(user: LoggedIn, vacations: Service) -> dict[str, Any]:
    return await vacations.end(user.id)


@router.post("/api/account/vacation/settings", dependencies=[USER_CHARGED])
async def vacation_settings(user: LoggedIn, raw: Body, vacations: Service) -> dict[str, Any]:
    return await vacations.set_automatic(user.id, parse_automatic(raw).automatic)

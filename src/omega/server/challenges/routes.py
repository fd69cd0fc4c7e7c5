"""The challenges' routes (``docs/server-api.md``, Challenges): send one, list mine, read
one, accept, decline, cancel; and ``setup``, which wires the service (its expiry as due
work, its notices through the notify feature, its live news to the pages' sockets).

>>> sorted({r.path for r in router.routes})  # doctest: +NORMALIZE_WHITESPACE
['/api/challenges', '/api/challenges/{challenge_id}', '/api/challenges/{challenge_id}/accept',
 '/api/challenges/{challenge_id}/cancel', '/api/challenges/{challenge_id}/decline']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request

from omega.i18n import translatable as _
from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader, session_user
from omega.server.challenges.schemas import parse_new
from omega.server.challenges.service import Challenges, Tell, Told
from omega.server.challenges.store import KIND, TOPIC
from omega.server.errors import ApiError
from omega.server.infra.bodies import plausible_id
from omega.server.infra.limits import Buckets, owner_key
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.relations.service import Relations
from omega.server.tables.core import TableCore
from omega.server.tables.routes import computers_allowed
from omega.server.tables.state import SeatConfig
from omega.server.tables.timecontrol import TimeControl
from omega.server.tables.values import NewTable

__all__ = ["router", "setup", "ChallengeParts", "CREATE_RATE", "CREATE_BURST"]

router = APIRouter()

#: New challenges per account: a burst (a few friends asked at once), then one a minute.
CREATE_RATE = 1 / 60
CREATE_BURST = 10


@dataclass
class ChallengeParts:
    """What the app keeps of the challenges: the service and each account's sending budget."""

    challenges: Challenges
    creations: Buckets

    @property
    def topics(self) -> dict[str, Any]:
        """Notification topics -> handlers (``PgListener(topics=...)``)."""
        return {TOPIC: self.challenges.remote}


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, relations: Relations, tell: Tell | None = None,
          told: Told | None = None) -> ChallengeParts:
    """The challenges of the app (``app.state.challenges``): the ``challenge`` due work that
    expires them, ``tell`` (notices, queued in the challenge's commit), ``told`` (the pages'
    sockets, after it)."""
    challenges = Challenges(core, relations, tell)
    if told is not None:
        challenges.on_change = told
    scheduler.handle(KIND, challenges.run, capacity=16)
    parts = ChallengeParts(challenges, Buckets(CREATE_RATE, CREATE_BURST))
    app.state.challenges = parts
    return parts


Service = Annotated[ChallengeParts, from_app("challenges")]


def _checked_id(challenge_id: str) -> str:
    if not plausible_id(challenge_id):
        raise ApiError("not_found", _("no such challenge (or not one of yours)"))
    return challenge_id


@router.post("/api/challenges", status_code=201, dependencies=[USER_CHARGED])
async def create_challenge(request: Request, user: LoggedIn, raw: Body, parts: Service) -> dict[str, Any]:
    new = parse_new(raw)
    parts = parts
    if not parts.creations.take(f"user:{user.id}", request.app.state.callers.clock.monotonic()):
        raise ApiError("rate_limited", _("you are sending challenges too fast; wait a minute"))
    if new.players > 2:
        seats = (SeatConfig("human"),) * 2 + (SeatConfig("computer", new.level),) * (new.players - 2)
        table = NewTable(new.players, new.size, False, seats, 0, time_control=TimeControl.parse(new.time_control))
        await computers_allowed(parts.challenges.core, request.app.state.limits, owner_key(request, user.id), table)
    return await parts.challenges.create(user, new)


@router.get("/api/challenges", dependencies=[USER_CHARGED])
async def my_challenges(user: Reader, parts: Service) -> dict[str, Any]:
    return await parts.challenges.listing(user)


@router.get("/api/challenges/{challenge_id}", dependencies=[USER_CHARGED])
async def get_challenge(request: Request, challenge_id: str, parts: Service) -> dict[str, Any]:
    return await parts.challenges.view(await session_user(request), _checked_id(challenge_id))


@router.post("/api/challenges/{challenge_id}/accept", dependencies=[USER_CHARGED])
async def accept_challenge(challenge_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.challenges.accept(user, _checked_id(challenge_id))


@router.post("/api/challenges/{challenge_id}/decline", dependencies=[USER_CHARGED])
async def decline_challenge(challenge_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.challenges.decline(user, _checked_id(challenge_id))


@router.post("/api/challenges/{challenge_id}/cancel", dependencies=[USER_CHARGED])
async def cancel_challenge(challenge_id: str, user: LoggedIn, parts: Service) -> dict[str, Any]:
    return await parts.challenges.cancel(user, _checked_id(challenge_id))

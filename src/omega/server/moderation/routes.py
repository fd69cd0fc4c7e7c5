"""The moderation's routes (``docs/server-api.md``, Moderation): a player's report and
standing; the moderators' console (the report queue, the fair-play flags, a player's
history, the log) and actions; an admin's role changes; and ``setup``, which wires the
service and its hooks.  Every ``/api/moderation`` route refuses an account that is not a
moderator with ``forbidden`` (the role changes: not an admin) before it reads anything.

>>> sorted({r.path for r in router.routes})[:3]
['/api/account/standing', '/api/moderation/actions', '/api/moderation/flags']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request

from omega.i18n import translatable as _
from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader
from omega.server.accounts.service import Accounts, User
from omega.server.errors import ApiError
from omega.server.infra.limits import Limits
from omega.server.infra.state import from_app
from omega.server.moderation.schemas import parse_action, parse_dismissal, parse_report
from omega.server.moderation.service import Moderation, Tell, install
from omega.server.ratings.service import RatingStore
from omega.server.social.hooks import Social
from omega.server.tables.core import TableCore

__all__ = ["router", "setup", "ModReader", "ModWriter"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, accounts: Accounts, social: Social, ratings: RatingStore, limits: Limits,
          tell: Tell | None = None) -> Moderation:
    """The moderation of the app (``app.state.moderation``): the chat's mute and the
    tables' rated ban are asked of it.  ``tell``: where notices go (None: the log)."""
    moderation = Moderation(core, accounts, social.chat, ratings, limits, tell)
    install(core, social.chat, moderation)
    app.state.moderation = moderation
    return moderation


Service = Annotated[Moderation, from_app("moderation")]


async def moderator_reading(user: Reader, moderation: Service) -> User:
    """Dependency of a console read: a logged-in moderator (``forbidden`` otherwise)."""
    await moderation.require_moderator(user)
    return user


async def moderator_writing(user: LoggedIn, moderation: Service) -> User:
    """Dependency of a console write: a logged-in moderator, from the site's own page."""
    await moderation.require_moderator(user)
    return user


#: A moderator reading the console, and one acting (the cookie's CSRF check made).
ModReader = Annotated[User, Depends(moderator_reading)]
ModWriter = Annotated[User, Depends(moderator_writing)]


def _id(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) < 16):
        raise ApiError("not_found", _("there is no such {what}", what=what))
    return int(text)


# -- players --------------------------------------------------------------------------------------


@router.post("/api/reports", status_code=201, dependencies=[USER_CHARGED])
async def post_report(user: LoggedIn, raw: Body, moderation: Service) -> dict[str, Any]:
    return await moderation.report(user, parse_report(raw))


@router.get("/api/account/standing", dependencies=[USER_CHARGED])
async def standing(user: Reader, moderation: Service) -> dict[str, Any]:
    return await moderation.standing(user)


# -- the console ------------------------------------------------------------------------------------


@router.get("/api/moderation/reports", dependencies=[USER_CHARGED])
async def report_queue(user: ModReader, moderation: Service) -> dict[str, Any]:
    return {"reports": await moderation.queue()}


@router.post("/api/moderation/reports/{report_id}/dismiss", dependencies=[USER_CHARGED])
async def dismiss(report_id: str, user: ModWriter, raw: Body, moderation: Service) -> dict[str, Any]:
    reason = parse_dismissal(raw).reason
    return await moderation.dismiss(user, _id(report_id, "report"), reason)


@router.get("/api/moderation/flags", dependencies=[USER_CHARGED])
async def flags(request: Request, user: ModReader, moderation: Service) -> dict[str, Any]:
    before = request.query_params.get("before")
    return {"flags": await moderation.flags(_id(before, "flag") if before is not None else None)}


@router.get("/api/moderation/players/{username}", dependencies=[USER_CHARGED])
async def player(username: str, user: ModReader, moderation: Service) -> dict[str, Any]:
    return await moderation.player(username)


@router.get("/api/moderation/actions", dependencies=[USER_CHARGED])
async def action_log(user: ModReader, moderation: Service) -> dict[str, Any]:
    return {"actions": await moderation.log()}


@router.post("/api/moderation/actions", status_code=201, dependencies=[USER_CHARGED])
async def act(user: ModWriter, raw: Body, moderation: Service) -> dict[str, Any]:
    return await moderation.act(user, parse_action(raw))


# -- roles (admins) -----------------------------------------------------------------------------------


@router.post("/api/moderation/roles/{username}/{role}", dependencies=[USER_CHARGED])
async def grant_role(username: str, role: str, user: LoggedIn, moderation: Service) -> dict[str, Any]:
    return await moderation.set_role(user, username, role, True)


@router.delete("/api/moderation/roles/{username}/{role}", dependencies=[USER_CHARGED])
async def revoke_role(username: str, role: str, user: LoggedIn, moderation: Service) -> dict[str, Any]:
    return await moderation.set_role(user, username, role, False)

"""The Web Push routes (``docs/server-api.md``, Web Push): the site's public VAPID key, and a
logged-in account's devices, subscribed and unsubscribed by the account page.  Writes are
cookie writes, refused ``cross_site`` unless the site's own page sent them.

>>> sorted(r.path for r in router.routes)
['/api/push/key', '/api/push/subscriptions', '/api/push/subscriptions', '/api/push/unsubscribe']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI

from omega.i18n import translatable as _
from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader
from omega.server.errors import ApiError
from omega.server.infra.state import from_app
from omega.server.push.channel import PushChannel, PushOptions
from omega.server.push.schemas import parse_subscription, parse_unsubscribe
from omega.server.push.store import Device, PushStore
from omega.server.tables.core import TableCore
from omega.server.tables.timecontrol import stamp_ms

__all__ = ["router", "setup"]

router = APIRouter()


def setup(app: FastAPI, core: TableCore, options: PushOptions | None = None) -> PushChannel:
    """The Web Push channel of the app (``app.state.push``), for the routes and for the
    notify service's channels.  ``options``: by default :meth:`PushOptions.from_env`."""
    channel = PushChannel(core, PushStore(core.repo), options or PushOptions.from_env())
    app.state.push = channel
    return channel


Service = Annotated[PushChannel, from_app("push")]


def _devices(channel: PushChannel, devices: list[Device]) -> dict[str, Any]:
    return {"devices": [{"id": d.id, "service": d.service, "created_at": stamp_ms(d.created_at)} for d in devices],
            "max": channel.options.devices_per_account}


@router.get("/api/push/key", dependencies=[USER_CHARGED])
async def public_key(channel: Service) -> dict[str, Any]:
    return {"public_key": (await channel.keys()).public_key}


@router.get("/api/push/subscriptions", dependencies=[USER_CHARGED])
async def devices(user: Reader, channel: Service) -> dict[str, Any]:
    channel = channel
    return _devices(channel, await channel.core.db(channel.store.devices, user.id))


@router.post("/api/push/subscriptions", dependencies=[USER_CHARGED])
async def subscribe(user: LoggedIn, raw: Body, channel: Service) -> dict[str, Any]:
    channel = channel
    sub = parse_subscription(raw, loopback=channel.options.loopback)
    cap = channel.options.devices_per_account
    if await channel.core.db(channel.store.subscribe, user.id, sub, channel.clock.now(), cap) is None:
        raise ApiError("too_many_devices", _("an account may have pushes sent to {cap} devices at most; turn them off on a device you no longer use", cap=cap))
    return _devices(channel, await channel.core.db(channel.store.devices, user.id))


@router.post("/api/push/unsubscribe", dependencies=[USER_CHARGED])
async def unsubscribe(user: LoggedIn, raw: Body, channel: Service) -> dict[str, Any]:
    channel = channel
    removed = await channel.core.db(channel.store.unsubscribe, user.id, parse_unsubscribe(raw))
    return {"removed": removed, **_devices(channel, await channel.core.db(channel.store.devices, user.id))}

"""The notify feature's routes (``docs/server-api.md``, Notifications) and its ``setup``.

- ``GET /api/account/notifications``: the account's preferences, per kind and channel;
- ``POST /api/account/notifications``: change them (a cookie write: CSRF-checked);
- ``GET /mail/unsubscribe?t=TOKEN``: a page that asks to confirm (a GET changes nothing:
  mail scanners open links);
- ``POST /mail/unsubscribe?t=TOKEN``: RFC 8058's one-click unsubscribe, and the confirm
  page's button: no login, the signed token is the proof.

>>> sorted({r.path for r in router.routes})
['/api/account/notifications', '/mail/unsubscribe']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import html
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse

from omega.i18n import DEFAULT, Message, gettext
from omega.i18n import translatable as _
from omega.server.accounts.routes import USER_CHARGED, Body, LoggedIn, Reader
from omega.server.errors import ApiError
from omega.server.infra.language import connection_language
from omega.server.infra.limits import read_body
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.notify.mailer import MailSettings
from omega.server.notify.notices import KINDS
from omega.server.notify.parts import NotifyParts, build
from omega.server.notify.schemas import parse_preferences
from omega.server.notify.service import Notifier
from omega.server.notify.store import Preferences
from omega.server.tables.core import TableCore

__all__ = ["router", "setup", "preferences_json", "UNSUBSCRIBE_BODY_MAX"]

router = APIRouter()
#: The most of an unsubscribe POST's body read (RFC 8058's is ``List-Unsubscribe=One-Click``).
UNSUBSCRIBE_BODY_MAX = 256


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, settings: MailSettings) -> NotifyParts:
    """The notify parts of the app: ``app.state.notify`` (the :class:`Notifier`) and
    ``app.state.outbox`` (what other features queue mail with)."""
    parts = build(core, scheduler, settings)
    app.state.notify = parts.notifier
    app.state.outbox = parts.outbox
    return parts


Service = Annotated[Notifier, from_app("notify")]


def preferences_json(prefs: Preferences, channels: list[str], lang: str = DEFAULT) -> dict[str, Any]:
    """The preferences as the API shows them, each kind said in ``lang``.

    >>> shown = preferences_json(Preferences(frozenset({"challenge:mail"}), True), ["mail"], "es")
    >>> shown["on"]["challenge"], shown["kinds"]["challenge"]
    ([], 'Un jugador te desafía')
    """
    return {"kinds": {kind: gettext(label, lang) for kind, label in KINDS.items()}, "channels": channels,
            "digest": prefs.digest,
            "on": {kind: [c for c in channels if prefs.allows(kind, c)] for kind in KINDS}}


@router.get("/api/account/notifications", dependencies=[USER_CHARGED])
async def get_preferences(request: Request, user: Reader, notifier: Service) -> dict[str, Any]:
    notifier = notifier
    return preferences_json(await notifier.preferences(user.id), list(notifier.channels), connection_language(request))


@router.post("/api/account/notifications", dependencies=[USER_CHARGED])
async def set_preferences(request: Request, user: LoggedIn, raw: Body, notifier: Service) -> dict[str, Any]:
    notifier = notifier
    channels = list(notifier.channels)
    body = parse_preferences(raw)
    for kind, on in body.on.items():
        if kind not in KINDS:
            raise ApiError("bad_request", _("bad request: on: unknown kind {kind}", kind=f"{kind!r}"))
        unknown = sorted(set(on) - set(channels))
        if unknown:
            raise ApiError("bad_request", _("bad request: on.{kind}: unknown channel {unknown}", kind=kind, unknown=f"{unknown[0]!r}"))
    prefs = await notifier.preferences(user.id)
    off = set(prefs.off)
    for kind, on in body.on.items():
        off -= {f"{kind}:{c}" for c in channels}
        off |= {f"{kind}:{c}" for c in channels if c not in on}
    changed = Preferences(frozenset(off), prefs.digest if body.digest is None else body.digest)
    return preferences_json(await notifier.set_preferences(user.id, changed), channels, connection_language(request))


def _page(request: Request, title: Message, paragraphs: list[Message], form: str = "",
          status: int = 200) -> HTMLResponse:
    """A small page in the reader's language: ``title``, ``paragraphs`` (escaped), then ``form``."""
    lang = connection_language(request)
    body = "".join(f"<p>{html.escape(p.in_language(lang))}</p>" for p in paragraphs) + form
    head = html.escape(title.in_language(lang))
    return HTMLResponse(f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
                        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                        f"<title>{head} · Omega</title></head><body><h1>{head}</h1>"
                        f'{body}<p><a href="/">Omega</a></p></body></html>', status_code=status)


def _bad_link(request: Request) -> HTMLResponse:
    return _page(request, _("Unsubscribe"), [_("This unsubscribe link is not valid (invalid_token): it may have been "
                                               "cut short by the mail program. Your account page has every "
                                               "notification setting.")], status=400)


@router.get("/mail/unsubscribe", dependencies=[USER_CHARGED], response_class=HTMLResponse)
async def unsubscribe_page(request: Request, notifier: Service) -> HTMLResponse:
    token = request.query_params.get("t", "")
    read = await notifier.check_unsubscribe(token)
    if read is None:
        return _bad_link(request)
    action = html.escape(f"/mail/unsubscribe?t={token}")
    button = html.escape(_("Unsubscribe").in_language(connection_language(request)))
    return _page(request, _("Unsubscribe"), [_("Stop the mails about: {kind}?", kind=Message(KINDS[read[1]]))],
                 f'<form method="post" action="{action}"><button type="submit">{button}</button></form>')


@router.post("/mail/unsubscribe", dependencies=[USER_CHARGED], response_class=HTMLResponse)
async def unsubscribe(request: Request, notifier: Service) -> HTMLResponse:
    # The body (RFC 8058's "List-Unsubscribe=One-Click", or the confirm form's nothing) says
    # nothing the token does not: it is read, bounded, and not needed.
    await read_body(request, UNSUBSCRIBE_BODY_MAX)
    read = await notifier.unsubscribe(request.query_params.get("t", ""))
    if read is None:
        return _bad_link(request)
    return _page(request, _("Unsubscribed"), [
        _("You will get no more mails about: {kind}.", kind=Message(KINDS[read[1]])),
        _("Your account page has every notification setting.")])

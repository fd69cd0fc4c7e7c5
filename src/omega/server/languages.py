"""The site's languages for the page: its catalog as JSON (``GET /api/i18n/{lang}``), the
languages offered (``GET /api/i18n``), and the page itself put in the reader's language
(``<html lang dir>``, and the catalog inlined, so that the first drawing is already in it).

>>> html = localized('<html lang="en">\\n<head>\\n</head><noscript>Omega needs JavaScript to play.</noscript>', "ar")
>>> html.splitlines()[0]
'<html lang="ar" dir="rtl">'
>>> "omega-i18n" in html
True
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
import hashlib
import json
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from omega.i18n import COMPLETE, DEFAULT, LANGUAGES, N_, catalog, direction, gettext, language_name
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.language import LANG_COOKIE, connection_language

__all__ = ["router", "languages", "catalog_json", "localized", "PAGE_VARY"]

#: The page differs by the reader's language: caches must key it on what chooses it.
PAGE_VARY = "Accept-Language, Cookie"
# The page's one sentence written in index.html (for a browser without JavaScript).
_NOSCRIPT = N_("Omega needs JavaScript to play.")


def languages() -> list[dict[str, Any]]:
    """The languages the site speaks, for the page's Language setting: code, name in
    itself, direction, and whether every sentence is translated.

    >>> languages()[1]
    {'code': 'fr', 'name': 'Français', 'dir': 'ltr', 'complete': True}
    """
    return [{"code": code, "name": language_name(code), "dir": direction(code), "complete": code in COMPLETE}
            for code in LANGUAGES]


def catalog_json(lang: str) -> dict[str, Any]:
    """What the page needs to speak ``lang``: its code, direction and translations.

    >>> catalog_json("de")["messages"]["Settings"]
    'Einstellungen'
    """
    return {"lang": lang, "dir": direction(lang), "cookie": LANG_COOKIE, "languages": languages(),
            "messages": catalog(lang)}


@lru_cache(maxsize=16)
def localized(html: str, lang: str) -> str:
    """The page's HTML in ``lang``: ``<html lang dir>`` and the catalog inlined as a JSON data
    block (not a script: the Content-Security-Policy runs none inline; ``<`` is escaped so
    that no text in it can close the element). Kept per page and language: every visit asks."""
    data = json.dumps(catalog_json(lang), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    block = f'<script type="application/json" id="omega-i18n">{data}</script>\n'
    html = html.replace('<html lang="en">', f'<html lang="{lang}" dir="{direction(lang)}">', 1)
    html = html.replace(_NOSCRIPT, gettext(_NOSCRIPT, lang), 1)
    return html.replace("</head>", block + "</head>", 1)


router = APIRouter()


@router.get("/api/i18n")
async def offered(request: Request) -> dict[str, Any]:
    """The languages offered, and the one this request is answered in."""
    return {"lang": connection_language(request), "default": DEFAULT, "languages": languages()}


@router.get("/api/i18n/{lang}")
async def messages(lang: str, request: Request) -> Response:
    """A language's catalog as JSON; cached a day, and revalidated by its ETag."""
    if lang not in LANGUAGES:
        raise ApiError("not_found", _("the site does not speak {lang} (it speaks {languages})",
                                      lang=repr(lang[:16]), languages=", ".join(LANGUAGES)))
    body = json.dumps(catalog_json(lang), ensure_ascii=False, separators=(",", ":")).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"cache-control": "public, max-age=86400", "etag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)

"""The language a request is answered in: the reader's setting (the ``omega_lang`` cookie,
set by the page's Language setting), else the first of ``Accept-Language`` the site speaks,
else English (``omega.i18n.negotiate``). Error messages, the page's words and its
``<html lang dir>`` follow it.

>>> from starlette.requests import Request
>>> def asking(*headers: tuple[bytes, bytes]) -> Request:
...     return Request({"type": "http", "headers": list(headers)})
>>> connection_language(asking((b"accept-language", b"fr-FR,fr;q=0.9")))
'fr'
>>> connection_language(asking((b"accept-language", b"fr-FR"), (b"cookie", b"omega_lang=de")))
'de'
>>> connection_language(asking())
'en'
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from omega.i18n import negotiate

__all__ = ["LANG_COOKIE", "connection_language"]

#: The cookie that holds the reader's chosen language (the page sets it; a year long).
LANG_COOKIE = "omega_lang"


def connection_language(conn: HTTPConnection) -> str:
    """The language to answer a request or a socket in (see the module's docstring)."""
    return negotiate(conn.headers.get("accept-language"), conn.cookies.get(LANG_COOKIE))

"""The language a request is answered in: the reader's setting (the ``omega_lang`` cookie,
set by the page's Language setting), else the logged-in account's language (when the
request's session was looked up: :func:`remember_account_language`), else the first of
``Accept-Language`` the site speaks, else English (``omega.i18n.negotiate``). Error
messages, the page's words and its ``<html lang dir>`` follow it.

>>> from starlette.requests import Request
>>> def asking(*headers: tuple[bytes, bytes]) -> Request:
...     return Request({"type": "http", "headers": list(headers)})
>>> connection_language(asking((b"accept-language", b"fr-FR,fr;q=0.9")))
'fr'
>>> connection_language(asking((b"accept-language", b"fr-FR"), (b"cookie", b"omega_lang=de")))
'de'
>>> connection_language(asking())
'en'
>>> logged_in = asking((b"accept-language", b"fr-FR"))
>>> remember_account_language(logged_in, "es"); connection_language(logged_in)
'es'
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from omega.i18n import LANGUAGES, negotiate

__all__ = ["LANG_COOKIE", "connection_language", "remember_account_language"]

#: The cookie that holds the reader's chosen language (the page sets it; a year long).
LANG_COOKIE = "omega_lang"
#: Where a connection keeps its account's language once its session is looked up.
_ACCOUNT_LANGUAGE = "omega_account_language"


def remember_account_language(conn: HTTPConnection, language: str | None) -> None:
    """The connection's session belongs to an account of ``language`` (None: none chosen):
    it comes between the cookie and ``Accept-Language`` (the session's look-up says it, so
    this module needs no account)."""
    setattr(conn.state, _ACCOUNT_LANGUAGE, language)


def connection_language(conn: HTTPConnection) -> str:
    """The language to answer a request or a socket in (see the module's docstring)."""
    cookie = conn.cookies.get(LANG_COOKIE)
    setting = cookie if cookie in LANGUAGES else getattr(conn.state, _ACCOUNT_LANGUAGE, None)
    return negotiate(conn.headers.get("accept-language"), setting)

"""The watch feature's inputs: the live list's filters (a query string) and the setting's body.

>>> parse_filters({"players": "3", "rated": "true", "size": "7", "username": "Ann"})
Filters(username='Ann', size=7, rated=True, players=3)
>>> parse_filters({})
Filters(username=None, size=None, rated=None, players=None)
>>> parse_filters({"players": "9"})
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: players must be one of 2, 3, 4
>>> parse_setting(b'{"listed": false}').listed
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import TypeAdapter

from omega.i18n import translatable as _
from omega.names import USERNAME_MAX
from omega.server.config import TABLE_PLAYERS, TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse

__all__ = ["Filters", "WatchSetting", "parse_filters", "parse_setting", "FILTERS"]

#: The query parameters the live list takes.
FILTERS = ("username", "size", "rated", "players")


@dataclass(frozen=True)
class Filters:
    """Which live games to list: one a player sits at (by username), of a board side, rated
    or not, of a player count (None: any)."""

    username: str | None = None
    size: int | None = None
    rated: bool | None = None
    players: int | None = None


def _number(query: Mapping[str, str], name: str, allowed: range) -> int | None:
    text = query.get(name, "")
    if text == "":
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 3 and int(text) in allowed):
        raise ApiError("bad_request", _("bad request: {name} must be one of {values}", name=name, values=', '.join(map(str, allowed))))
    return int(text)


def parse_filters(query: Mapping[str, str]) -> Filters:
    """The filters of ``GET /api/games/live`` (empty or absent: any); ``bad_request`` for an
    unknown parameter or a value out of range."""
    unknown = sorted(set(query) - set(FILTERS))
    if unknown:
        raise ApiError("bad_request", _("bad request: unknown filter {unknown} (filters: {values})", unknown=f"{unknown[0]!r}", values=', '.join(FILTERS)))
    rated_text = query.get("rated", "")
    if rated_text not in ("", "true", "false"):
        raise ApiError("bad_request", _("bad request: rated must be true or false"))
    username = query.get("username", "").strip()
    if len(username) > USERNAME_MAX:
        raise ApiError("bad_request", _("bad request: username is at most {username_max} characters", username_max=USERNAME_MAX))
    return Filters(username or None, _number(query, "size", TABLE_SIZES), None if not rated_text else rated_text == "true",
                   _number(query, "players", TABLE_PLAYERS))


class WatchSetting(Strict):
    """``POST /api/account/watch``: whether the account's games are listed."""

    listed: bool


_setting = TypeAdapter(WatchSetting)


def parse_setting(raw: bytes) -> WatchSetting:
    """The setting's body (``bad_request`` for anything else)."""
    return parse(_setting, raw)

"""The moderation's request bodies, and every limit and word list they are checked against
(one home: the page reads them from ``GET /api/config``, ``moderation``).

>>> r = parse_report(b'{"username": "bob", "reason": "chat_abuse", "message_id": 7}')
>>> r.reason, r.message_id, r.table_id
('chat_abuse', 7, None)
>>> parse_report(b'{"username": "bob", "reason": "rude"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: reason: Input should be 'chat_abuse', 'cheating', 'stalling', 'rating_farming' or 'other'
>>> parse_action(b'{"username": "bob", "action": "mute", "reason": "insults"}')
Traceback (most recent call last):
...
omega.server.errors.ApiError: bad request: minutes: a mute lasts 1 to 43200 minutes; say how long
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, TypeAdapter

from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse

__all__ = [
    "REASONS", "ACTIONS", "SANCTIONS", "ROLE_ACTIONS", "TEXT_MAX", "MUTE_MINUTES", "BAN_MINUTES", "REVERT_TABLES",
    "NewReport", "NewAction", "Dismissal", "parse_report", "parse_action", "parse_dismissal", "limits_config",
]

#: Why a player may report another, and how the page names each reason.
REASONS: dict[str, str] = {
    "chat_abuse": "Abuse in chat",
    "cheating": "Cheating",
    "stalling": "Stalling",
    "rating_farming": "Rating farming",
    "other": "Something else",
}
#: What a moderator may do to an account (``POST /api/moderation/actions``), and what each is.
ACTIONS: dict[str, str] = {
    "warn": "a warning, told to the player",
    "mute": "no chat messages until the mute ends",
    "rated_ban": "no rated tables, rated lobby openings, rated quick play or rated tournaments until it ends",
    "remove_message": "a chat message hidden for everyone (kept in the evidence)",
    "revert_ratings": "the rating gained from farmed games taken back",
    "lift": "the account's mutes and rated bans ended now",
    "close_account": "the account closed: its owner may reopen it during the grace period, then its personal "
                     "data is removed",
}
#: The actions that last (until their end, or until lifted).
SANCTIONS = ("mute", "rated_ban")
#: The role changes an admin makes on the site, logged with the actions.
ROLE_ACTIONS = ("grant_role", "revoke_role")
#: The longest report text and action reason (characters).
TEXT_MAX = 500
#: How long a mute may last, and a rated ban that has an end (minutes: 30 days, a year).
MUTE_MINUTES = (1, 30 * 24 * 60)
BAN_MINUTES = (1, 365 * 24 * 60)
#: The most games one revert names.
REVERT_TABLES = 100

_Name = Annotated[str, StringConstraints(min_length=1, max_length=32)]
_Text = Annotated[str, StringConstraints(min_length=1, max_length=TEXT_MAX)]
_TableId = Annotated[str, StringConstraints(min_length=1, max_length=32)]


class NewReport(Strict):
    """``POST /api/reports``: whom, why, the reporter's words, and where (a table, a chat
    message of it, both, or neither: then the words must say what happened)."""

    username: _Name
    reason: Literal["chat_abuse", "cheating", "stalling", "rating_farming", "other"]
    text: Annotated[str, StringConstraints(max_length=TEXT_MAX)] | None = None
    table_id: _TableId | None = None
    message_id: Annotated[int, Field(ge=1, le=2**53)] | None = None


class NewAction(Strict):
    """``POST /api/moderation/actions``: whom, what (:data:`ACTIONS`), why, how long (a mute:
    required; a rated ban: none for no end), the message (``remove_message``), the report it
    closes, and the games a revert takes back (none: every game the account was flagged at)."""

    username: _Name
    action: Literal["warn", "mute", "rated_ban", "remove_message", "revert_ratings", "lift", "close_account"]
    reason: _Text
    minutes: Annotated[int, Field(ge=1, le=BAN_MINUTES[1])] | None = None
    message_id: Annotated[int, Field(ge=1, le=2**53)] | None = None
    report_id: Annotated[int, Field(ge=1, le=2**53)] | None = None
    table_ids: Annotated[list[_TableId], Field(min_length=1, max_length=REVERT_TABLES)] | None = None


class Dismissal(Strict):
    """``POST /api/moderation/reports/{id}/dismiss``: why nothing is done."""

    reason: _Text


_report = TypeAdapter(NewReport)
_action = TypeAdapter(NewAction)
_dismissal = TypeAdapter(Dismissal)


def parse_report(raw: bytes) -> NewReport:
    """A report (``bad_request`` for anything else; one with neither a table nor a message
    needs its text)."""
    report = parse(_report, raw)
    if report.table_id is None and report.message_id is None and not (report.text or "").strip():
        raise ApiError("bad_request", _("bad request: text: say what happened (a report from a profile names no table or message)"))
    return report


def parse_action(raw: bytes) -> NewAction:
    """An action, its fields checked against what its kind takes."""
    a = parse(_action, raw)
    if a.action == "mute" and (a.minutes is None or a.minutes > MUTE_MINUTES[1]):
        raise ApiError("bad_request", _("bad request: minutes: a mute lasts {mute_minutes} to {mute_minutes2} minutes; say how long", mute_minutes=MUTE_MINUTES[0], mute_minutes2=MUTE_MINUTES[1]))
    if a.action not in SANCTIONS and a.minutes is not None:
        raise ApiError("bad_request", _("bad request: minutes: only a mute or a rated ban lasts, not {action}", action=a.action))
    if (a.action == "remove_message") != (a.message_id is not None):
        raise ApiError("bad_request", _("bad request: message_id: remove_message names the message, and only it does"))
    if a.action != "revert_ratings" and a.table_ids is not None:
        raise ApiError("bad_request", _("bad request: table_ids: only revert_ratings names games"))
    return a


def parse_dismissal(raw: bytes) -> Dismissal:
    """A report's dismissal."""
    return parse(_dismissal, raw)


def limits_config() -> dict[str, object]:
    """The reasons, actions and limits as ``GET /api/config`` serves them.

    >>> limits_config()["mute_minutes"]
    [1, 43200]
    """
    return {"reasons": dict(REASONS), "actions": dict(ACTIONS), "text_max": TEXT_MAX,
            "mute_minutes": list(MUTE_MINUTES), "ban_minutes": list(BAN_MINUTES)}

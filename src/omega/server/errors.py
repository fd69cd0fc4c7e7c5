"""The refusals the server answers with: a stable code (``docs/server-api.md``) and a message.

>>> ApiError("not_found", "no such table").as_json()
{'error': {'code': 'not_found', 'message': 'no such table'}}
>>> ApiError("game_over", "the game is over").status
409
>>> ApiError("account_closed", "closed", reopen_until=None).as_json()["error"]["reopen_until"] is None
True
"""

from __future__ import annotations

from typing import Any, ClassVar

from omega.i18n import DEFAULT, Message
from omega.i18n import translatable as _

__all__ = ["ApiError", "SESSION_ENDED"]

#: What a table's socket opened by a session cookie answers (``auth_required``) once that
#: session has ended (a log-out here or elsewhere): the seat was the account's, not the socket's.
SESSION_ENDED = _("your session ended: log in again, or open the table by its link")


class ApiError(Exception):
    """A refused request: a stable ``code`` and a message for people.

    Codes are part of the API: clients branch on them, so a code is never renamed.
    """

    STATUS: ClassVar[dict[str, int]] = {
        "bad_request": 400, "auth_required": 401, "forbidden": 403, "not_found": 404,
        "not_your_turn": 409, "stale_version": 409, "game_over": 409, "conflict": 409, "too_late": 409,
        "method_not_allowed": 405, "too_large": 413, "illegal_move": 422, "rate_limited": 429, "too_many_computer_games": 429,
        "busy": 503, "unavailable": 503, "internal": 500,
        # Accounts (docs/server-api.md, Accounts): a failed log-in says no more than that;
        # a username someone already has; a cookie-authenticated write from another site.
        "login_failed": 401, "name_taken": 409, "cross_site": 403,
        # The lobby: a move at an open table that still waits for players; an account or
        # address that has as many open tables waiting as it may (Limits.lobby_open_per_*).
        "not_started": 409, "too_many_open_tables": 429,
        # Clocks: a rated table asked for without a time control; a claim on an absent
        # player's seat made before the wait is over, or while that player is at the table.
        "clock_required": 400, "too_early": 409, "opponent_present": 409,
        # Email on accounts: a mailed link's token that this site did not make, or that was
        # used or replaced; one whose time is over; an address another account verified first.
        "invalid_token": 400, "token_expired": 410, "email_taken": 409,
        # Web Push: a subscription no push service could have made; an account with as many
        # devices subscribed as it may have (push.PushOptions.devices_per_account).
        "bad_subscription": 400, "too_many_devices": 409,
        # Vacation: started twice, ended while not on one, none left this year, or planned
        # past what is left.
        "on_vacation": 409, "not_on_vacation": 409, "no_vacation_left": 409, "vacation_too_long": 400,
        # Tournaments: an account with as many unfinished tournaments made as it may have.
        "too_many_tournaments": 429,
        # Follows and blocks: a username no account has; following or blocking oneself; an
        # account that follows or blocks as many as it may (relations.service.MAX_FOLLOWS,
        # MAX_BLOCKS); a follow or a challenge between two accounts where one blocked the other.
        "unknown_player": 404, "not_yourself": 400, "too_many_follows": 409, "too_many_blocks": 409,
        "blocked": 403,
        # Challenges: one answered, cancelled or expired already; an account with as many
        # challenges waiting for an answer as it may send (challenges.service.MAX_PENDING).
        "challenge_over": 409, "too_many_challenges": 429,
        # Moderation: a muted account's chat message (the message says until when); an
        # account barred from rated play asking for a rated table; a reporter with as many
        # open reports as they may have (``Limits.reports_open_per_reporter``).
        "muted": 403, "rated_banned": 403, "too_many_reports": 429,
        # Leaving: a log-in of an account its owner (or a moderator) closed (the error says
        # until when it may be reopened, ``reopen_until``; null once its data is removed);
        # a reopening of an account that is not closed, or whose data is already removed.
        "account_closed": 403, "not_closed": 409, "account_removed": 410,
        # Analysis boards: an evaluation a newer one of the same board replaced while it
        # waited for a worker; an owner with as many boards as it may keep
        # (analysis.service.BOARDS_PER_OWNER).
        "superseded": 409, "too_many_boards": 429,
    }

    def __init__(self, code: str, message: str, **details: Any) -> None:
        assert code in self.STATUS, code
        super().__init__(message)
        self.code = code
        self.message = message
        #: What a client needs besides the code and the message (``muted``: ``until``;
        #: ``account_closed``: ``reopen_until``), in the error's JSON beside them.
        self.details = details

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code."""
        return self.STATUS[self.code]

    def as_json(self, lang: str = DEFAULT) -> dict[str, Any]:
        """The error body every refused request gets (with its details, if it has any), its
        message in ``lang`` where it was marked for translation (``omega.i18n._``).

        >>> ApiError("muted", "you are muted", until="2027-01-01T10:00:00Z").as_json()["error"]["until"]
        '2027-01-01T10:00:00Z'
        >>> ApiError("game_over", _("the game is over")).as_json("fr")["error"]["message"]
        'la partie est terminée'
        """
        message = self.message.in_language(lang) if isinstance(self.message, Message) else self.message
        return {"error": {**self.details, "code": self.code, "message": message}}

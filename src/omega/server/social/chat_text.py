"""What a chat message may say: the one home of its length limit (served to the page by
``GET /api/config`` as ``chat_max``) and of the check every message passes before it is stored.

A message is plain text on one line: surrounding spaces are dropped, and it must then hold
1 to :data:`CHAT_MAX` characters (code points, as the page counts them), none of them a control
character (a line break, a tab, an escape) or an invisible direction override that would turn
the text around others see.

>>> check_chat_text("  good game  ")
'good game'
>>> check_chat_text("x" * (CHAT_MAX + 1))
Traceback (most recent call last):
...
omega.server.errors.ApiError: a chat message has at most 300 characters (this one has 301)
"""

from __future__ import annotations

import unicodedata

from omega.i18n import translatable as _
from omega.server.errors import ApiError

__all__ = ["CHAT_MAX", "check_chat_text"]

#: The most characters one chat message may have.
CHAT_MAX = 300

# Bidirectional overrides and isolates: they reorder the text that follows them on the page.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_chat_text(text: str) -> str:
    """The message as it is stored (trimmed), or ``bad_request`` saying what is wrong.

    >>> check_chat_text("a\\nb")
    Traceback (most recent call last):
    ...
    omega.server.errors.ApiError: a chat message is one line of text, without control characters
    """
    text = text.strip()
    if not text:
        raise ApiError("bad_request", _("a chat message cannot be empty"))
    if len(text) > CHAT_MAX:
        raise ApiError("bad_request", _("a chat message has at most {chat_max} characters (this one has {count})", chat_max=CHAT_MAX, count=len(text)))
    if any(unicodedata.category(c) in ("Cc", "Cs") or c in _BIDI_CONTROLS for c in text):
        raise ApiError("bad_request", _("a chat message is one line of text, without control characters"))
    return text

"""A notice: one thing worth telling one player away from the site, in the words every
channel (mail, Web Push) sends it in, and the interface a channel implements.

A feature that has news for a player (a table: your turn, a game ended on time; the community:
a challenge; tournaments: a round about to start) makes a :class:`Notice`; the notify service
decides who wants it, by which channel, and queues one delivery per channel.  A channel only
carries it: it never decides.

A notice's ``subject`` and ``text`` are written with ``_()`` (:class:`omega.i18n.Message`),
so that the notify service can put them in the recipient's language, the account's
(``users.language``), before it stores them: every channel then sends them as they are.

>>> from omega.i18n import translatable as _
>>> n = Notice(user_id=7, kind="your_turn", key="your_turn:t1:12", subject=_("Your turn"),
...            text="ann moved at table t1.", path="/#table=t1")
>>> n.kind in KINDS, n.in_language("fr").subject, n.in_language("fr").text
(True, 'À vous de jouer', 'ann moved at table t1.')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from omega.i18n import N_, Message

#: Every kind of notice, each with its own preference on the account page, and what the
#: preference says (English: ``omega.i18n.gettext(KINDS[kind], lang)`` in the reader's).  One
#: home: the account page, the unsubscribe page and the senders read it.
KINDS: dict[str, str] = {
    "your_turn": N_("It is your turn in a turn-based game"),
    "ended_on_time": N_("A game of yours ended on time"),
    "challenge": N_("A player challenges you"),
    "tournament_start": N_("A tournament you joined is about to start"),
    "vacation_started": N_("Your vacation started by itself to save a game from its clock"),
    "moderation": N_("A moderator acted on your account (a warning, a mute, a ban, a removed message)"),
}


@dataclass(frozen=True)
class Notice:
    """What to tell ``user_id``: ``kind`` (a key of :data:`KINDS`), ``key`` (the same key is
    delivered at most once per channel: e.g. ``your_turn:<table>:<version>``), a one-line
    ``subject``, a plain ``text`` and the site ``path`` it links to."""

    user_id: int
    kind: str
    key: str
    subject: str
    text: str
    path: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown notice kind {self.kind!r}")

    def in_language(self, lang: str) -> Notice:
        """The notice with its subject and text in ``lang`` where they are messages (a
        plain ``str`` stays as it is)."""
        return replace(self, subject=_in(self.subject, lang), text=_in(self.text, lang))


def _in(words: str, lang: str) -> str:
    return words.in_language(lang) if isinstance(words, Message) else words


class DeliveryFailed(Exception):
    """A channel could not deliver now (server down, timeout): the delivery is retried later,
    with back-off.  A delivery that can never succeed (no such address any more) is dropped by
    the channel itself, not raised."""


class Channel(Protocol):
    """How a notice reaches a player: ``name`` is the channel's preference key (``mail``,
    ``push``); ``deliver`` sends one notice, raising :class:`DeliveryFailed` to be retried."""

    name: str

    async def deliver(self, notice: Notice) -> None: ...

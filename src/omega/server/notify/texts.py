"""What notice mails say: one template per kind (``string.Template`` paragraphs) that makes
both the plain text and the HTML of a mail, the HTML with every value escaped and every
link an anchor.  The digest's template gathers several notices in one mail.

>>> m = render("your_turn", "Your turn at table t1", "bob <b> moved.", "https://o.example/t/t1",
...            "https://o.example/mail/unsubscribe?t=x", "https://o.example/#account")
>>> m.text.splitlines()[0], "bob &lt;b&gt; moved." in m.html, '<a href="https://o.example/t/t1">' in m.html
('bob <b> moved.', True, True)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from string import Template

from omega.server.notify.notices import KINDS

__all__ = ["Rendered", "render", "render_digest", "DigestItem"]

#: Each kind's body, a paragraph a line; ``$text`` is the notice's own text.
_BODIES: dict[str, tuple[str, ...]] = {
    "your_turn": ("$text", "Play your turn: $link"),
    "ended_on_time": ("$text", "See the game: $link"),
    "challenge": ("$text", "Answer it: $link"),
    "tournament_start": ("$text", "Go to the tournament: $link"),
    "vacation_started": ("$text", "Your games: $link"),
    "moderation": ("$text", "Your account's standing: $link"),
}
#: Under every notice mail: why it came and the one-click way to stop it.
_FOOTER = (
    'You get this mail because "$label" is on for mail in your notification settings.',
    "Stop these mails: $unsubscribe",
    "All your settings: $settings",
)
_DIGEST_HEAD = ("It is your turn in $games:",)
#: The values that are links (an anchor in the HTML).
_LINKS = frozenset({"link", "unsubscribe", "settings"})


@dataclass(frozen=True)
class Rendered:
    """A mail's subject and its two bodies."""

    subject: str
    text: str
    html: str


@dataclass(frozen=True)
class DigestItem:
    """One notice in a digest: its subject and its link."""

    subject: str
    link: str


def _both(paragraphs: Sequence[str], values: Mapping[str, str]) -> tuple[list[str], list[str]]:
    escaped = {k: (f'<a href="{html.escape(v)}">{html.escape(v)}</a>' if k in _LINKS else html.escape(v))
               for k, v in values.items()}
    return ([Template(p).substitute(values) for p in paragraphs],
            [f"<p>{Template(p).substitute(escaped)}</p>" for p in paragraphs])


def _page(subject: str, text: list[str], body: list[str]) -> Rendered:
    return Rendered(subject, "\n\n".join(text) + "\n",
                    f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(subject)}</title></head>'
                    f"<body>{''.join(body)}</body></html>\n")


def render(kind: str, subject: str, text: str, link: str, unsubscribe: str, settings: str) -> Rendered:
    """The mail of one notice of ``kind`` (every kind of ``notices.KINDS`` has its body).

    >>> sorted(_BODIES) == sorted(KINDS)
    True
    >>> render("vacation_started", "Your vacation started", "No clock runs.", "L", "U", "S").text.splitlines()[0:3:2]
    ['No clock runs.', 'Your games: L']
    """
    values = {"text": text, "link": link, "unsubscribe": unsubscribe, "settings": settings, "label": KINDS[kind]}
    plain, body = _both((*_BODIES[kind], *_FOOTER), values)
    return _page(subject, plain, body)


def render_digest(items: Sequence[DigestItem], unsubscribe: str, settings: str) -> Rendered:
    """One mail for several "your turn" notices.

    >>> d = render_digest([DigestItem("Your turn at table t1", "https://o.example/t/t1")] * 2, "u", "s")
    >>> d.subject, d.text.splitlines()[2]
    ('Your turn in 2 games', 'Your turn at table t1: https://o.example/t/t1')
    """
    footer = {"unsubscribe": unsubscribe, "settings": settings, "label": KINDS["your_turn"]}
    games = "1 game" if len(items) == 1 else f"{len(items)} games"
    head, head_html = _both(_DIGEST_HEAD, {"games": games})
    lines, lines_html = [], []
    for item in items:
        plain, body = _both(("$subject: $link",), {"subject": item.subject, "link": item.link})
        lines += plain
        lines_html += body
    tail, tail_html = _both(_FOOTER, footer)
    return _page(f"Your turn in {games}", [*head, "\n".join(lines), *tail],
                 [*head_html, *lines_html, *tail_html])

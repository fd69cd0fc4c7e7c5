"""What notice mails say: one template per kind (paragraphs with ``{name}`` values, each a
sentence of the catalogs) that makes both the plain text and the HTML of a mail, in the
recipient's language, the HTML with every value escaped and every link an anchor.  The
digest's template gathers several notices in one mail.

>>> m = render("your_turn", "Your turn at table t1", "bob <b> moved.", "https://o.example/t/t1",
...            "https://o.example/mail/unsubscribe?t=x", "https://o.example/#account")
>>> m.text.splitlines()[0], "bob &lt;b&gt; moved." in m.html, '<a href="https://o.example/t/t1">' in m.html
('bob <b> moved.', True, True)
>>> render("your_turn", "À vous", "Bob a joué.", "L", "U", "S", "fr").text.splitlines()[2]
'Jouez votre tour : L'
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from omega.i18n import DEFAULT, N_, fill_in, gettext
from omega.i18n import translatable as _
from omega.server.notify.notices import KINDS

__all__ = ["Rendered", "render", "render_digest", "DigestItem"]

#: A paragraph that is the notice's own text (already in the recipient's language).
_TEXT = "{text}"
#: Each kind's body, a paragraph a line.
_BODIES: dict[str, tuple[str, ...]] = {
    "your_turn": (_TEXT, N_("Play your turn: {link}")),
    "ended_on_time": (_TEXT, N_("See the game: {link}")),
    "challenge": (_TEXT, N_("Answer it: {link}")),
    "tournament_start": (_TEXT, N_("Go to the tournament: {link}")),
    "vacation_started": (_TEXT, N_("Your games: {link}")),
    "moderation": (_TEXT, N_("Your account's standing: {link}")),
}
#: Under every notice mail: why it came and the one-click way to stop it.
_FOOTER = (
    N_('You get this mail because "{label}" is on for mail in your notification settings.'),
    N_("Stop these mails: {unsubscribe}"),
    N_("All your settings: {settings}"),
)
_DIGEST_HEAD = (N_("It is your turn in {games}:"),)
#: One notice of a digest: its subject and link (no words to translate).
_DIGEST_LINE = "{subject}: {link}"
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


def _both(paragraphs: Sequence[str], values: Mapping[str, str], lang: str) -> tuple[list[str], list[str]]:
    escaped = {k: (f'<a href="{html.escape(v)}">{html.escape(v)}</a>' if k in _LINKS else html.escape(v))
               for k, v in values.items()}
    # The paragraph is translated before its values go in: a value is never read as words.
    words = [gettext(p, lang) for p in paragraphs]
    return [fill_in(w, values) for w in words], [f"<p>{fill_in(html.escape(w, quote=False), escaped)}</p>" for w in words]


def _page(subject: str, text: list[str], body: list[str], lang: str) -> Rendered:
    return Rendered(subject, "\n\n".join(text) + "\n",
                    f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(subject)}</title>'
                    f"</head><body>{''.join(body)}</body></html>\n")


def render(kind: str, subject: str, text: str, link: str, unsubscribe: str, settings: str,
           lang: str = DEFAULT) -> Rendered:
    """The mail of one notice of ``kind`` (every kind of ``notices.KINDS`` has its body) in
    ``lang`` (``subject`` and ``text`` are the notice's, already in it).

    >>> sorted(_BODIES) == sorted(KINDS)
    True
    >>> render("vacation_started", "Your vacation started", "No clock runs.", "L", "U", "S").text.splitlines()[0:3:2]
    ['No clock runs.', 'Your games: L']
    """
    values = {"text": text, "link": link, "unsubscribe": unsubscribe, "settings": settings,
              "label": gettext(KINDS[kind], lang)}
    plain, body = _both((*_BODIES[kind], *_FOOTER), values, lang)
    return _page(subject, plain, body, lang)


def render_digest(items: Sequence[DigestItem], unsubscribe: str, settings: str, lang: str = DEFAULT) -> Rendered:
    """One mail for several "your turn" notices, in ``lang``.

    >>> d = render_digest([DigestItem("Your turn at table t1", "https://o.example/t/t1")] * 2, "u", "s")
    >>> d.subject, d.text.splitlines()[2]
    ('Your turn in 2 games', 'Your turn at table t1: https://o.example/t/t1')
    >>> render_digest([DigestItem("Du bist am Zug an Tisch t1", "L")], "u", "s", "de").subject
    'Du bist am Zug in 1 Partie'
    """
    footer = {"unsubscribe": unsubscribe, "settings": settings, "label": gettext(KINDS["your_turn"], lang)}
    games = (_("1 game") if len(items) == 1 else _("{n} games", n=len(items))).in_language(lang)
    head, head_html = _both(_DIGEST_HEAD, {"games": games}, lang)
    lines, lines_html = [], []
    for item in items:
        plain, body = _both((_DIGEST_LINE,), {"subject": item.subject, "link": item.link}, lang)
        lines += plain
        lines_html += body
    tail, tail_html = _both(_FOOTER, footer, lang)
    return _page(_("Your turn in {games}", games=games).in_language(lang), [*head, "\n".join(lines), *tail],
                 [*head_html, *lines_html, *tail_html], lang)

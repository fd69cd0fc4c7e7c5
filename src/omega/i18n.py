"""Sentences in the reader's language: the message catalogs (``omega/locale``) and their use.

The English text is the message id, so English needs no catalog and the code reads as it
will be shown; ``{name}`` marks a value put in (the page's ``t()`` in ``web/js/i18n.js``
reads the same catalogs, as JSON). A sentence is marked with :func:`_`, which gives a
:class:`Message`: a ``str`` that reads in English wherever it is used as one, and that the
edge that knows the reader (an HTTP answer, the CLI) puts in their language with
:meth:`Message.in_language`. ``python -m omega.catalogs`` collects the marked sentences into
the catalogs (docs/web.md, Languages).

>>> m = _("{color} wins", color=_("White"))
>>> m, m.in_language("fr"), m.in_language("de")
('White wins', 'Blanc gagne', 'Weiß gewinnt')
>>> negotiate("de-CH,de;q=0.9,en;q=0.5"), negotiate("pt-BR"), negotiate("fr", setting="es")
('de', 'en', 'es')
>>> format_number(1234567, "fr"), format_number(1234567, "en")
('1\\u202f234\\u202f567', '1,234,567')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from babel import Locale, negotiate_locale
from babel.core import UnknownLocaleError
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

__all__ = [
    "DEFAULT", "LANGUAGES", "COMPLETE", "RTL", "LOCALE_DIR", "Message", "translatable", "N_", "gettext", "catalog",
    "fill_in", "message_of", "message_json", "negotiate", "parse_accept_language", "direction", "language_name", "format_number",
]

#: The language of the message ids, and of anyone whose language the site does not speak.
DEFAULT = "en"
#: The languages the site speaks, in the order the setting offers them.
LANGUAGES = ("en", "fr", "es", "de", "ar")
#: Those translated whole (a test holds every message translated in each); the others are
#: offered partial (Arabic, which proves the right-to-left layout).
COMPLETE = ("en", "fr", "es", "de")
#: The languages written right to left.
RTL = frozenset({"ar"})
#: Where ``<lang>/LC_MESSAGES/omega.po`` and the template ``omega.pot`` are.
LOCALE_DIR = Path(__file__).parent / "locale"

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill_in(text: str, params: Mapping[str, object]) -> str:
    """``text`` with each ``{name}`` replaced by ``params[name]``; an unknown name stays.

    >>> fill_in("{n} stones by {who}", {"n": 3})
    '3 stones by {who}'
    """
    return _PLACEHOLDER.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


@cache
def catalog(lang: str) -> dict[str, str]:
    """A language's translations (English text -> the language's text), read once from its
    ``.po`` file; fuzzy and empty entries are left out (English shows instead).

    >>> catalog("fr")["Settings"], catalog("en")
    ('Réglages', {})
    """
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "omega.po"
    if lang == DEFAULT or lang not in LANGUAGES or not path.is_file():
        return {}
    with path.open("rb") as f:
        po = read_po(f, locale=lang)
    return {str(m.id): str(m.string) for m in po if m.id and m.string and not m.fuzzy and isinstance(m.id, str)}


def gettext(msgid: str, lang: str) -> str:
    """``msgid`` (English) in ``lang``, or as it is where it has no translation.

    >>> gettext("Black", "es"), gettext("no such sentence", "es")
    ('Negro', 'no such sentence')
    """
    return catalog(lang).get(msgid, msgid) if lang != DEFAULT else msgid


class Message(str):
    """A marked sentence: reads as English (``str``), and knows its message id and values
    so that it can be put in another language later, where the reader is known.

    >>> m = Message("at most {n} stones", {"n": 3}); (m, m.msgid, m.params)
    ('at most 3 stones', 'at most {n} stones', {'n': 3})
    """

    msgid: str
    params: dict[str, object]

    def __new__(cls, msgid: str, params: Mapping[str, object] | None = None) -> Message:
        values = dict(params or {})
        self = super().__new__(cls, fill_in(msgid, values))
        self.msgid = msgid
        self.params = values
        return self

    def in_language(self, lang: str) -> str:
        """The sentence in ``lang``; values that are messages themselves are translated too.

        >>> Message("{color} wins", {"color": Message("Red")}).in_language("es")
        'Rojo gana'
        """
        values = {k: _value_in(v, lang) for k, v in self.params.items()}
        return fill_in(gettext(self.msgid, lang), values)


def _value_in(value: object, lang: str) -> object:
    # A value that is a message, or an exception raised with one (ValueError(USERNAME_RULE)),
    # is put in the language too.
    if isinstance(value, BaseException) and len(value.args) == 1 and isinstance(value.args[0], Message):
        value = value.args[0]
    return value.in_language(lang) if isinstance(value, Message) else value


def message_of(error: BaseException) -> str:
    """What ``error`` says: the :class:`Message` it was raised with (so that the edge puts it
    in the reader's language), else its text.

    >>> message_of(ValueError(_("nothing to undo"))).in_language("es"), message_of(ValueError("plain"))
    ('nada que deshacer', 'plain')
    """
    if len(error.args) == 1 and isinstance(error.args[0], Message):
        return error.args[0]
    return str(error)


def message_json(text: object) -> dict[str, object] | None:
    """A :class:`Message` as JSON the page puts in its reader's language (``tm()`` in
    ``web/js/i18n.js``): its id and values, a value that is a message nested the same way;
    None for anything that is not a message (a name a player wrote, no name).  For texts made once
    for every reader, such as a seat's default name in a table's state.

    >>> message_json(_("Computer ({level})", level=Message("Easy")))
    {'id': 'Computer ({level})', 'params': {'level': {'id': 'Easy', 'params': {}}}}
    >>> message_json("ada") is None
    True
    """
    if not isinstance(text, Message):
        return None
    return {"id": text.msgid, "params": {k: message_json(v) if isinstance(v, Message) else v
                                         for k, v in text.params.items()}}


def translatable(msgid: str, /, **params: object) -> Message:
    """Mark a sentence for the catalogs (``msgid`` a literal, the English text) and put in
    its values.  Modules import it under gettext's usual name,
    ``from omega.i18n import translatable as _``, and the extraction
    (``python -m omega.catalogs``) finds every ``_("...")``.

    >>> _("{n} messages a second", n=4)
    '4 messages a second'
    """
    return Message(msgid, params)


_ = translatable


def N_(msgid: str, /) -> str:
    """Mark a sentence for the catalogs without translating it here (a table of texts that
    are translated where they are shown, with :func:`gettext`).

    >>> N_("Blue")
    'Blue'
    """
    return msgid


def parse_accept_language(header: str) -> list[str]:
    """An ``Accept-Language`` header's languages, most wanted first (``q=0`` left out).

    >>> parse_accept_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")
    ['fr-CH', 'fr', 'en', 'de', '*']
    """
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        name, _sep, rest = part.strip().partition(";")
        quality = 1.0
        for param in rest.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if name and quality > 0:
            wanted.append((-quality, i, name.strip()))
    return [name for _q, _i, name in sorted(wanted)]


def negotiate(accept_language: str | None, setting: str | None = None) -> str:
    """The language to speak: the reader's ``setting`` when the site speaks it, else the
    first of ``Accept-Language`` it speaks (``fr-CA`` is ``fr``), else English.

    >>> negotiate("es-MX,es;q=0.8"), negotiate(None), negotiate("de", setting="xx")
    ('es', 'en', 'de')
    """
    if setting in LANGUAGES:
        return str(setting)
    wanted = parse_accept_language(accept_language or "")
    found = negotiate_locale([w.replace("_", "-") for w in wanted], list(LANGUAGES), sep="-")
    if found is None:
        found = negotiate_locale([w.split("-")[0] for w in wanted], list(LANGUAGES), sep="-")
    return found if found in LANGUAGES else DEFAULT


def direction(lang: str) -> str:
    """``rtl`` for a language written right to left, else ``ltr`` (``<html dir>``).

    >>> direction("ar"), direction("fr")
    ('rtl', 'ltr')
    """
    return "rtl" if lang in RTL else "ltr"


def language_name(lang: str) -> str:
    """A language's name in itself, for the setting's list.

    >>> language_name("de"), language_name("fr")
    ('Deutsch', 'Français')
    """
    try:
        name = Locale.parse(lang).get_display_name(lang) or lang
    except (UnknownLocaleError, ValueError):
        return lang
    return name[:1].upper() + name[1:]


def format_number(n: int | float, lang: str) -> str:
    """A number (a big product) written as ``lang`` writes it.

    >>> format_number(7560, "de"), format_number(7560, "ar")
    ('7.560', '7,560')
    """
    return format_decimal(n, locale=lang if lang in LANGUAGES else DEFAULT)

"""Finds the sentences a person would read in the page's modules that do not go through
``t()`` (``tests/test_i18n.py``): string literals that read as prose (a capital letter and
a word, several words, an ellipsis) in a place where a reader sees them, anything but a
class name, a selector, an event, an attribute's name, a key, a value compared, a URL.

>>> [s.text for s in loose('h("p", { class: "muted note" }, "Your turn"); t("Ok then")')]
['"Your turn"']
>>> [s.text for s in loose('el.title = `Seat ${n} of ${m}`; if (x === "Not shown") y()')]
['`Seat ${n} of ${m}`']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

WEB_JS = Path(__file__).resolve().parent.parent / "src" / "omega" / "web" / "js"

#: Words that are the same in every language (the site's name), and values that are shown
#: translated where they are drawn (the colours, which the server names: ``colorName()``).
SAME_EVERYWHERE = frozenset({"Omega", "White", "Black", "Red", "Blue"})

_TOKEN = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.|\$\{(?:[^{}]|\{[^{}]*\})*\})*`""", re.S)
# What comes just before a literal that no reader sees.
_HIDDEN_BEFORE = re.compile(
    r"""(?:\bclass\s*:|className\s*[+]?=|classList\.\w+\((?:[^()]*,)?|querySelector(?:All)?\(|closest\(|matches\("""
    r"""|getElementById\(|addEventListener\(|removeEventListener\(|dispatchEvent\(|new (?:Custom)?Event\(|dataset\.\w+\s*===?|"""
    r"""\b(?:type|kind|href|src|rel|role|name|value|autocomplete|inputmode|id|for|method|lang|dir|pattern|style|action|"""
    r"""enterkeyhint|autocapitalize|spellcheck|target|mode|cache|credentials|state|status|code|reason|phase|op|path)\s*:|"""
    r""""(?:aria-(?:live|hidden|current|pressed|expanded|controls|describedby|haspopup|modal|selected|checked|invalid|busy|atomic|relevant|orientation|sort)|data-[\w-]+|viewBox|fill|stroke|stroke-width|transform|points|width|height|x|y|r|cx|cy|d|x1|x2|y1|y2|font-size|text-anchor|dominant-baseline|opacity|fill-opacity)"\s*:|"""
    r"""[=!]==?|\bcase|\bt\(|\bimport\b|\bfrom|fetch\(|\bapi\w*\(|\bget\w*\(|\bpost\w*\(|\bput\w*\(|\bdel\w*\(|localStorage\.\w+\(|sessionStorage\.\w+\(|"""
    r"""console\.\w+\(|setAttribute\(|getAttribute\(|hasAttribute\(|removeAttribute\(|createElement(?:NS)?\(|\bh\(|\bsvg\(|\bel\(|"""
    r"""new URL\(|new URLSearchParams\(|searchParams\.\w+\(|params\.\w+\(|\bsend\w*\(|\.style\.\w+\s*=|setProperty\(|"""
    r"""new Intl\.\w+\(|toLocale\w*\(|\.includes\(|\.startsWith\(|\.endsWith\(|\.split\(|\.join\(|\.replace\w*\(|\.test\(|\.has\(|\.get\(|\.delete\(|\.indexOf\(|\.at\()\s*$""")
_SET_ATTR_VISIBLE = re.compile(r"""setAttribute\(\s*"(?:aria-label|title|placeholder|alt)"\s*,\s*$""")
_PROSE = re.compile(r"(?:[A-Z][a-z]+|\w+\s+\w{2,}|\w…|[a-z]{2,}[.?!:]$)")


@dataclass(frozen=True)
class Loose:
    """A sentence not passed through t(): where it is, and the literal as written."""

    path: str
    line: int
    text: str
    start: int = 0
    end: int = 0


def _prose(text: str) -> bool:
    plain = re.sub(r"\$\{(?:[^{}]|\{[^{}]*\})*\}", " ", text)
    if plain.strip() in SAME_EVERYWHERE or plain.lstrip().startswith(("/", "#", "http", "mailto:", "data:", "@", "Bearer ", "<", "%3C")):
        return False
    if plain == text and re.fullmatch(r"[\w.-]+", plain.strip()) and not re.match(r"[A-Z][a-z]", plain.strip()):
        return False  # one lowercase word or identifier: a value, a key, a name of something
    if not re.match(r"\s*[A-Z][a-z]", plain) and (
            (re.fullmatch(r"[\w:.-]+(?:\s+[\w:.-]+)*", plain.strip()) and "-" in plain) or re.search(r"[.#\[][\w-]+[\]=]", plain)):
        return False  # a class list or a selector
    if _PROSE.search(plain):
        return True
    # A template with values put in: a word of three letters or more beside a space reads.
    return plain != text and bool(re.search(r"(?:^|\s)[a-z]{3,}(?:\s|$)", plain))


def loose(source: str, path: str = "") -> list[Loose]:
    """The prose literals of ``source`` that are not the first argument of ``t()``."""
    found = []
    for m in _TOKEN.finditer(source):
        token = m[0]
        if token.startswith("/"):
            continue
        before = source[max(0, m.start() - 120):m.start()]
        after = source[m.end():m.end() + 4]
        if re.match(r"\s*:(?!:)", after) and not re.search(r"\?\s*$", before):
            continue  # an object's key
        if re.match(r"\s+in\b", after):
            continue  # a name looked up ("PushManager" in window)
        if _HIDDEN_BEFORE.search(before) and not _SET_ATTR_VISIBLE.search(before):
            continue
        if _prose(token[1:-1]):
            found.append(Loose(path, source.count("\n", 0, m.start()) + 1, token, m.start(), m.end()))
    return found


def loose_in_page() -> list[Loose]:
    """Every loose sentence of the page's modules."""
    out = []
    for p in sorted(WEB_JS.rglob("*.js")):
        out.extend(loose(p.read_text(encoding="utf-8"), p.relative_to(WEB_JS).as_posix()))
    return out

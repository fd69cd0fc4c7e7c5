"""The one rule for display names (a player's name at a table, in a record's colour tag),
and the one rule for account usernames (:func:`check_username`, :func:`username_key`).

A name is 1 to :data:`NAME_MAX` characters once surrounding white space is stripped, and it
holds no character that would break the one line it is written on:

- control characters (``Cc``: C0, DEL, C1), which include every line break that
  ``str.splitlines()`` knows but two (``\\x0b \\x0c \\x1c-\\x1e \\x85`` are all ``Cc``);
- the line and paragraph separators U+2028 and U+2029 (``Zl``, ``Zp``), the other two;
- lone surrogates (``Cs``), which no UTF-8 file or JSON reader can carry;
- the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
  They are invisible and reorder the text *after* them, so a name holding one could make
  the rest of a record line, or a list of players, read differently from what it says.
  Other format characters stay allowed: the zero-width joiner and non-joiner are needed
  by emoji sequences and by scripts such as Persian, and the plain marks (U+200E, U+200F)
  act only where they stand.

So every accepted name can be written as a record tag value and read back unchanged.

>>> check_name("  Ann  ")
'Ann'
>>> check_name("Ann\\u2028Bo")
Traceback (most recent call last):
...
ValueError: a name is 1 to 40 printable characters
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "NAME_MAX", "NAME_RULE", "check_name", "USERNAME_MIN", "USERNAME_MAX", "USERNAME_RULE", "check_username",
    "username_key",
]

#: The longest name, in characters (code points), after stripping.
NAME_MAX = 40
#: What :func:`check_name` says about a name it refuses.
NAME_RULE = f"a name is 1 to {NAME_MAX} printable characters"

_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_name(text: str) -> str:
    """``text`` without surrounding white space, if it is a valid name; ValueError if not.

    >>> check_name("Player #2"), check_name("Zoë 🙂")
    ('Player #2', 'Zoë 🙂')
    >>> check_name("x" * 41)
    Traceback (most recent call last):
    ...
    ValueError: a name is 1 to 40 printable characters
    """
    if not isinstance(text, str):
        raise ValueError(NAME_RULE)
    name = text.strip()
    if not 1 <= len(name) <= NAME_MAX or any(_refused(ch) for ch in name):
        raise ValueError(NAME_RULE)
    return name


def _refused(ch: str) -> bool:
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) in _REFUSED_CATEGORIES


#: The shortest and longest username, in characters (code points) after NFKC normalisation.
USERNAME_MIN = 3
USERNAME_MAX = 20
#: What :func:`check_username` says about a username it refuses.
USERNAME_RULE = (f"a username is {USERNAME_MIN} to {USERNAME_MAX} characters: letters, digits, "
                 "'_' and '-'")


def check_username(text: str) -> str:
    """``text`` as it is stored and shown (NFKC-normalised), if it is a valid username;
    ValueError if not.

    Letters of any script and decimal digits are allowed, besides ``_`` and ``-``; nothing
    else (no spaces, no punctuation, no marks that stand alone).  NFKC first, so a
    full-width ``Ａｎｎ`` is the name ``Ann``.

    >>> check_username("Ann_1"), check_username("Ｚｏë-9")
    ('Ann_1', 'Zoë-9')
    >>> check_username("an n")
    Traceback (most recent call last):
    ...
    ValueError: a username is 3 to 20 characters: letters, digits, '_' and '-'
    """
    if not isinstance(text, str):
        raise ValueError(USERNAME_RULE)
    name = unicodedata.normalize("NFKC", text)
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX or not all(_username_char(ch) for ch in name):
        raise ValueError(USERNAME_RULE)
    return name


def username_key(name: str) -> str:
    """What makes two usernames the same: NFKC, then case folding (then NFKC again, which
    folding can undo).  Unique per site.

    >>> username_key("Straße") == username_key("STRASSE") == username_key("ｓｔｒａｓｓｅ")
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _username_char(ch: str) -> bool:
    return ch in "_-" or ch.isdecimal() or unicodedata.category(ch).startswith("L")

"""The one rule for display names (a player's name at a table, in a record's colour tag),
and the one rule for account usernames (:func:`check_username`, :func:`username_key`,
:func:`username_skeleton`).

A name is 1 to :data:`NAME_MAX` characters once surrounding white space is stripped, and it
holds no character that would break the one line it is written on:

- control characters (``Cc``: C0, DEL, C1), which include every line break that
  ``str.splitlines()`` knows but two (``\\x0b \\x0c \\x1c-\\x1e \\x85`` are all ``Cc``);
- the line and paragraph separators U+2028 and U+2029 (``Zl``, ``Zp``), the other two;
- lone surrogates (``Cs``), which no UTF-8 file or JSON reader can carry;
- the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
  They are invisible and reorder the text *after* them, so a name holding one could make
  the rest of a record line, or a list of players, read differently from what it says.

Nor does it hold a character that draws nothing, so that what a name shows is all it is
(``a\\u200bb`` would read ``ab`` and still be another name, or hide a word from a filter, or
a name of fillers would look empty).  These are Unicode's *default ignorable* code points
(``Default_Ignorable_Code_Point``, read from ICU, never a list of our own: U+00AD SOFT
HYPHEN, U+034F, U+061C, U+115F/U+1160/U+3164/U+FFA0 the Hangul fillers, U+180E, U+200B-U+200F,
U+2060-U+206F, U+FEFF, the variation selectors, the tag characters, ...) and the blank
U+2800 BRAILLE PATTERN BLANK, which is a symbol but draws nothing.  Some of them are part of
what people write, so they are kept where they do that job and nowhere else:

- the zero-width non-joiner and joiner (U+200C, U+200D: Persian words, emoji sequences
  such as 👨‍👩‍👧) and the plain direction marks (U+200E, U+200F: a right-to-left name
  followed by digits), only *between* two visible characters: never first, last, doubled
  or beside another invisible one, where they could only pad a name;
- a variation selector only straight after a base that takes one: U+FE0E/U+FE0F after an
  emoji (❤️, the keycap 1️⃣), U+E0100-U+E01EF and U+FE00-U+FE0D after an ideograph (the
  latter also after a mathematical symbol, ≩︀), the Mongolian ones after a Mongolian letter;
  never twice, never after a space, a letter of another script or an invisible character,
  where it would draw nothing (Unicode's list of the exact pairs, StandardizedVariants.txt,
  is not in ICU: a selector after a base of the right kind is kept even where that pair is
  not listed, which can change a glyph's form but never add an invisible character);
- tag characters only in an emoji tag sequence: U+1F3F4 🏴, lower-case letters and digits
  as tags, then U+E007F CANCEL TAG (the flags of England, Scotland and Wales).

So every accepted name can be written as a record tag value and read back unchanged, and
shows every character it holds.

>>> check_name("  Ann  ")
'Ann'
>>> check_name("Ann\\u2028Bo")
Traceback (most recent call last):
...
ValueError: a name is 1 to 40 printable characters
>>> check_name("a\\u200bb")
Traceback (most recent call last):
...
ValueError: a name is 1 to 40 printable characters

Usernames are stricter, because they are unique and stand for a person on the whole site
(profiles, leaderboards, ``/u/<name>``): see :func:`check_username` for what they may hold
and :func:`username_skeleton` for how a look-alike of a taken one is told.

The Unicode data comes from ICU (the ``icu`` module of the server extra), loaded on the
first check, so that importing this module loads nothing third-party.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from omega.i18n import translatable as _

__all__ = [
    "NAME_MAX", "NAME_RULE", "check_name", "USERNAME_MIN", "USERNAME_MAX", "USERNAME_RULE",
    "USERNAME_SCRIPT_RULE", "check_username", "username_key", "username_skeleton",
]

#: The longest name, in characters (code points), after stripping.
NAME_MAX = 40
#: What :func:`check_name` says about a name it refuses.
NAME_RULE = _("a name is 1 to {most} printable characters", most=NAME_MAX)

_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Not default ignorable, yet drawn as nothing at all (a favourite "empty" name).
_BLANKS = frozenset("\u2800")
#: Invisible characters kept between two visible ones: the non-joiner and joiner, the marks.
_BETWEEN = frozenset("\u200c\u200d\u200e\u200f")
_EMOJI_VS = frozenset("\ufe0e\ufe0f")
_MONGOLIAN_VS = frozenset("\u180b\u180c\u180d\u180f")
_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_TAG_SPECS = frozenset(chr(0xE0000 + ord(c)) for c in "abcdefghijklmnopqrstuvwxyz0123456789")


@functools.cache
def _icu() -> Any:
    """ICU (PyICU), imported on first use: only the server, which has it, checks names."""
    import icu

    return icu


def _has(ch: str, prop: str) -> bool:
    icu = _icu()
    return bool(icu.Char.hasBinaryProperty(ch, getattr(icu.UProperty, prop)))


def _invisible(ch: str) -> bool:
    return ch in _BLANKS or _has(ch, "DEFAULT_IGNORABLE_CODE_POINT")


def check_name(text: str) -> str:
    """``text`` without surrounding white space, if it is a valid name; ValueError if not.

    >>> check_name("Player #2"), check_name("Zoë 🙂"), check_name("❤️ 👨‍👩‍👧")
    ('Player #2', 'Zoë 🙂', '❤️ 👨\u200d👩\u200d👧')
    >>> check_name("x" * 41)
    Traceback (most recent call last):
    ...
    ValueError: a name is 1 to 40 printable characters
    >>> check_name("Ann\\u200d")  # a joiner that joins nothing only pads the name
    Traceback (most recent call last):
    ...
    ValueError: a name is 1 to 40 printable characters
    """
    if not isinstance(text, str):
        raise ValueError(NAME_RULE)
    name = text.strip()
    if not 1 <= len(name) <= NAME_MAX or any(_refused(ch) for ch in name) or not _shows_all(name):
        raise ValueError(NAME_RULE)
    return name


def _refused(ch: str) -> bool:
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) in _REFUSED_CATEGORIES


def _shows_all(name: str) -> bool:
    """Whether every invisible character of ``name`` does one of the jobs the module's
    docstring keeps it for."""
    seen = [_invisible(ch) for ch in name]
    i = 0
    while i < len(name):
        ch = name[i]
        if not seen[i]:
            i += 1
            continue
        before = name[i - 1] if i > 0 else ""
        if ch in _BETWEEN:
            # A selector finishes its base, so a joiner may follow it (🏳️‍🌈).
            visible_before = i > 0 and (not seen[i - 1] or _is_selector(name[i - 1]))
            if not (visible_before and i + 1 < len(name) and not seen[i + 1]):
                return False
        elif _is_selector(ch):
            if i == 0 or seen[i - 1] or not _takes_selector(before, ch):
                return False
        elif before == _BLACK_FLAG and ch in _TAG_SPECS:
            end = i
            while end < len(name) and name[end] in _TAG_SPECS:
                end += 1
            if end == len(name) or name[end] != _CANCEL_TAG:
                return False
            i = end + 1
            continue
        else:
            return False
        i += 1
    return True


def _is_selector(ch: str) -> bool:
    return _has(ch, "VARIATION_SELECTOR")


def _takes_selector(base: str, selector: str) -> bool:
    if selector in _EMOJI_VS:
        return _has(base, "EMOJI")
    if ord(selector) >= 0xE0100:  # the ideographic variation selectors
        return _has(base, "IDEOGRAPHIC")
    if selector in _MONGOLIAN_VS:
        return bool(_icu().Script.getScript(base).getShortName() == "Mong")
    return _has(base, "IDEOGRAPHIC") or unicodedata.category(base) == "Sm"


#: The shortest and longest username, in characters (code points) after NFKC normalisation.
USERNAME_MIN = 3
USERNAME_MAX = 20
#: What :func:`check_username` says about a username it refuses.
USERNAME_RULE = _("a username is {least} to {most} characters: letters, digits, '_' and '-'",
                  least=USERNAME_MIN, most=USERNAME_MAX)
#: What it says about one whose letters are all allowed but mix scripts or kinds of digits,
#: or are out of common use.
USERNAME_SCRIPT_RULE = _("a username's letters are of one script, or of Latin and one other but not "
                         "Cyrillic or Greek, in common use, and its digits of one kind")


@functools.cache
def _spoof_checker(*, strict: bool) -> Any:
    """ICU's spoof checker (UTS #39): the default one makes skeletons; ``strict`` checks the
    restriction level.  Its checks and skeletons may run in several threads at once."""
    icu = _icu()
    checker = icu.SpoofChecker()
    if strict:
        checker.setRestrictionLevel(icu.URestrictionLevel.MODERATELY_RESTRICTIVE)
        checker.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL | icu.USpoofChecks.MIXED_NUMBERS)
    return checker


def check_username(text: str) -> str:
    """``text`` as it is stored and shown (NFKC-normalised), if it is a valid username;
    ValueError if not.

    Letters of any script and decimal digits are allowed, besides ``_`` and ``-``; nothing
    else (no spaces, no punctuation, no marks that stand alone).  NFKC first, so a
    full-width ``Ａｎｎ`` is the name ``Ann``.  Then, as UTS #39 (Unicode's security
    mechanisms) advises for identifiers, through ICU's data:

    - no default-ignorable character (the Hangul fillers are letters that draw nothing);
    - only characters whose ``Identifier_Status`` is ``Allowed``: not those of scripts in
      limited use (Cherokee's letters copy Latin ones), nor obsolete or technical letters
      such as U+01C0 ǀ LATIN LETTER DENTAL CLICK, which reads as ``l`` or ``|``;
    - at most the "moderately restrictive" mix of scripts: one script (Japanese counts its
      Han and kana as one, Korean its Han and Hangul), or Latin with one other, but never
      Latin with Cyrillic or Greek, whose look-alike letters are the classic spoof
      (``fаrmer`` with a Cyrillic ``а``); and digits of one numbering system (``1`` and
      ``١`` look alike).

    >>> check_username("Ann_1"), check_username("Ｚｏë-9"), check_username("Иван_2")
    ('Ann_1', 'Zoë-9', 'Иван_2')
    >>> check_username("an n")
    Traceback (most recent call last):
    ...
    ValueError: a username is 3 to 20 characters: letters, digits, '_' and '-'
    >>> check_username("f\\u0430rmer")
    Traceback (most recent call last):
    ...
    ValueError: a username's letters are of one script, or of Latin and one other but not Cyrillic or Greek, in common use, and its digits of one kind
    """
    if not isinstance(text, str):
        raise ValueError(USERNAME_RULE)
    name = unicodedata.normalize("NFKC", text)
    if (not USERNAME_MIN <= len(name) <= USERNAME_MAX or not all(_username_char(ch) for ch in name)
            or any(_invisible(ch) for ch in name)):
        raise ValueError(USERNAME_RULE)
    icu = _icu()
    allowed = icu.UIdentifierStatus.ALLOWED
    if (any(icu.Char.getIntPropertyValue(ch, icu.UProperty.IDENTIFIER_STATUS) != allowed for ch in name)
            or _spoof_checker(strict=True).check(name) != 0):
        raise ValueError(USERNAME_SCRIPT_RULE)
    return name


def username_key(name: str) -> str:
    """What makes two usernames the same: NFKC, then case folding (then NFKC again, which
    folding can undo).  Unique per site.

    >>> username_key("Straße") == username_key("STRASSE") == username_key("ｓｔｒａｓｓｅ")
    True
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


#: A skeleton settles within four rounds for any one character (checked over every code
#: point with ICU 77); the bound only guards against a future table that loops.
_SKELETON_ROUNDS = 8


def username_skeleton(name: str) -> str:
    """What makes two usernames look the same: the UTS #39 *skeleton* (ICU's, from
    Unicode's ``confusables.txt``) of the name as it is shown, then without case or width
    (:func:`username_key`).  Unique per site like the key, and never shown: it is a key,
    not a name.

    The skeleton maps each character to the prototype it can be mistaken for (Cyrillic
    ``а`` and ``г`` to ``a`` and ``r``, ``m`` to ``rn``, ``0`` to ``o``, ``1`` and ``I`` to
    ``l``), so two names that a reader could take for each other have one skeleton.  It
    starts from the name as written, not from its key, because readers see the letters'
    case: ``farmerI`` reads as ``farmerl``, though folding would have made its ``I`` an
    ``i`` first.  Case folding and the skeleton are then repeated until nothing changes
    (a prototype may be a capital letter, or a character that itself folds), so the result
    is its own skeleton.  Two names of one key are one account already (the key is unique
    too), so the skeleton need not be a function of the key.

    >>> username_skeleton("farmer")
    'farrner'
    >>> {username_skeleton(n) for n in ["farmer", "f\\u0430rmer", "f\\u0430rm\\u0435r", "farme\\u0433", "FARMER"]}
    {'farrner'}
    >>> {username_skeleton(n) for n in ["farmer\\u01c0", "farmerl", "farmerI", "FARMER1"]}
    {'farrnerl'}
    """
    checker = _spoof_checker(strict=False)
    skeleton = unicodedata.normalize("NFKC", name)
    for _round in range(_SKELETON_ROUNDS):
        again = username_key(str(checker.getSkeleton(0, skeleton)))
        if again == skeleton:
            break
        skeleton = again
    return skeleton


def _username_char(ch: str) -> bool:
    return ch in "_-" or ch.isdecimal() or unicodedata.category(ch).startswith("L")

"""Display names: every name the rule accepts can be written in a record and read back, and
shows every character it holds.  Usernames: what they may hold, and the skeleton that tells
a look-alike of another."""

from __future__ import annotations

import json
import re
import unicodedata

import icu
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omega import Game
from omega.names import (
    NAME_MAX,
    NAME_RULE,
    USERNAME_RULE,
    USERNAME_SCRIPT_RULE,
    check_name,
    check_username,
    username_key,
    username_skeleton,
)
from omega.record import format_record, load, to_json

# Characters that break lines, hide or reorder text, or sit at the edges of what is allowed.
TRICKY = (
    "\n\r\t\x00\x0b\x0c\x1c\x1d\x1e\x1f\x7f\x85\x9f\u2028\u2029"  # controls and line breaks
    "\u202a\u202e\u2066\u2069"  # bidi embeddings, overrides and isolates
    "\u200c\u200d\u200e\u200f\ufeff\u00ad"  # other format characters
    "\xa0\u3000 #:"  # spaces, and the characters a tag line is built of
    "\ud800\udfff"  # lone surrogates
)
NAMES = st.text(st.one_of(st.characters(exclude_categories=[]), st.sampled_from(TRICKY)), max_size=NAME_MAX + 5)


def read_back(name: str) -> tuple[str | None, str | None]:
    """The name as the text record and the JSON record each give it back, after UTF-8."""
    game = Game()
    text = format_record(game, {"White": name}).encode("utf-8").decode("utf-8")
    data = json.dumps(to_json(game, {"White": name})).encode("utf-8").decode("utf-8")
    return load(text).tags.get("White"), load(data).tags.get("White")


@settings(max_examples=400, deadline=None)
@given(NAMES)
def test_an_accepted_name_round_trips_through_both_record_forms(text: str) -> None:
    try:
        name = check_name(text)
    except ValueError as e:
        assert str(e) == NAME_RULE
        return
    assert name == text.strip() and 1 <= len(name) <= NAME_MAX
    assert read_back(name) == (name, name)


@settings(max_examples=400, deadline=None)
@given(NAMES)
def test_a_name_a_record_cannot_carry_is_refused(text: str) -> None:
    name = text.strip()
    try:
        carried = read_back(name) == (name, name)
    except (ValueError, UnicodeError):
        carried = False
    if not carried or not 1 <= len(name) <= NAME_MAX:
        with pytest.raises(ValueError, match=f"^{NAME_RULE}$"):
            check_name(text)


@pytest.mark.parametrize("name", [
    "Ann", "Player #2", "a: b", "Zoë", "名前\u3000太郎", "x" * NAME_MAX, "👨\u200d👩\u200d👧",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian with a zero-width non-joiner
    "\u05e9\u05dc\u05d5\u05dd\u200e 2",  # a right-to-left name with a plain direction mark
])
def test_ordinary_names_are_accepted(name: str) -> None:
    assert check_name(f"  {name}\t") == name


@pytest.mark.parametrize("text", [
    "", "   ", "x" * (NAME_MAX + 1), "Ann\u2028Bo", "Ann\u2029Bo", "Ann\nBo", "Ann\x85Bo", "Ann\x0bBo",
    "Ann\x1eBo", "Ann\x00Bo", "Ann\x7fBo", "Ann\x9bBo", "Ann\ud800", "Ann\u202eoB", "Ann\u2066Bo",
])
def test_names_that_break_a_line_or_hide_text_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=f"^a name is 1 to {NAME_MAX} printable characters$"):
        check_name(text)


# -- characters that draw nothing -----------------------------------------------------------------

#: Unicode's default ignorable code points, from ICU (the module's source too, so this is the
#: same set; the tests below check what the rule does with them, not where they come from).
IGNORABLE = [ch for ch in icu.UnicodeSet("[:Default_Ignorable_Code_Point:]") if ch not in "\ud800\udfff"]
#: The invisible characters a name may hold, where they do their job.
KEPT = frozenset("\u200c\u200d\u200e\u200f") | {ch for ch in IGNORABLE if unicodedata.name(ch, "").startswith(
    "VARIATION SELECTOR")} | {chr(c) for c in range(0xE0020, 0xE0080)}
NEVER_KEPT = [ch for ch in IGNORABLE if ch not in KEPT] + ["\u2800"]


@pytest.mark.parametrize("text", [
    "a\u200bb", "a\u2060b", "\ufeffAnn", "Ann\u00ad", "An\u00adn", "a\u180eb", "a\u034fb", "Ann\u3164",
    "\u3164", "\u115f\u1160", "\uffa0", "\u2800", "\u2800\u2800Ann",  # spaces, joiners, fillers, blanks
    "Ann\u200d", "\u200dAnn", "A\u200d\u200dB", "A\u200c\u200bB", "Ann\u200e", "\u200f",  # joiners that pad
    "Ann\ufe0f", "\ufe0fAnn", "\u2764\ufe0f\ufe0f", "A \ufe0f", "\u845b\ufe0f\U000e0100", "a\U000e0100",
    "Ann\ufe00", "\U0001f642\ufe00", "a\u180bb",
    "Ann\U000e0041", "\U0001f3f4\U000e0067\U000e0062", "\U0001f3f4\U000e007f", "A\U000e0067\U000e007f",
])
def test_names_with_characters_that_draw_nothing_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=f"^{NAME_RULE}$"):
        check_name(text)


@pytest.mark.parametrize("name", [
    "\u2764\ufe0f Ann", "\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f441\ufe0f\u200d\U0001f5e8\ufe0f",
    "1\ufe0f\u20e3 Bo", "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Iain",
    "\u845b\U000e0100\u98fe", "\u1828\u180b\u1822",  # ideographic and Mongolian variation sequences
    "x \u2269\ufe00 y",  # a mathematical symbol's standardized variant
])
def test_emoji_and_variation_sequences_keep_their_invisible_parts(name: str) -> None:
    assert check_name(name) == name


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_an_accepted_name_neither_starts_nor_ends_invisible_and_hides_nothing_else(text: str) -> None:
    try:
        name = check_name(text)
    except ValueError:
        return
    assert name[0] not in IGNORABLE and name[-1] not in IGNORABLE
    assert all(ch in KEPT for ch in name if ch in IGNORABLE or ch == "\u2800")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["Ann", "Zoë 🙂 Bo", "\U0001f468\u200d\U0001f469\u200d\U0001f467 Ann", "\u2764\ufe0f"]),
       st.sampled_from(NEVER_KEPT + sorted(KEPT)), st.integers(0, 40))
def test_padding_or_splicing_an_invisible_character_into_a_name_is_refused(name: str, hidden: str, at: int) -> None:
    # Each name ends with a plain letter or a selector, after which nothing invisible has a job.
    at = min(at, len(name))
    if hidden in KEPT and 0 < at < len(name):
        return  # a joiner or selector inside may be doing its job: the examples above say where
    with pytest.raises(ValueError, match=f"^{NAME_RULE}$"):
        check_name(name[:at] + hidden + name[at:])


# -- usernames: what they may hold, and their look-alikes ------------------------------------------

@pytest.mark.parametrize("name", ["Ann_1", "Zoë-9", "Иван_2", "Ωμέγα", "山田taro", "たなか_1", "김철수", "abc١٢٣"])
def test_usernames_of_one_script_in_common_use_are_accepted(name: str) -> None:
    assert check_username(name) == name


@pytest.mark.parametrize("text,rule", [
    ("Ann\u3164", USERNAME_RULE), ("\u3164\u3164\u3164", USERNAME_RULE),  # Hangul fillers are letters
    ("an\u200bn", USERNAME_RULE), ("ann\u00ad", USERNAME_RULE),
    ("f\u0430rmer", USERNAME_SCRIPT_RULE), ("farme\u0433", USERNAME_SCRIPT_RULE),  # Latin with Cyrillic
    ("\u03a9mega", USERNAME_SCRIPT_RULE),  # Latin with Greek
    ("farmer\u01c0", USERNAME_SCRIPT_RULE),  # a click letter, read as l or |: not in common use
    ("\u13aann", USERNAME_SCRIPT_RULE),  # Cherokee: a script in limited use, its letters copy Latin ones
    ("abc1\u0661", USERNAME_SCRIPT_RULE),  # two numbering systems
])
def test_usernames_that_hide_or_mix_characters_are_refused(text: str, rule: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(rule)}$"):
        check_username(text)


def test_the_look_alikes_of_the_issue_have_the_skeleton_of_what_they_imitate() -> None:
    farmer = username_skeleton("farmer")
    assert username_skeleton("f\u0430rmer") == username_skeleton("f\u0430rm\u0435r") == farmer  # Cyrillic а, е
    assert username_skeleton("farme\u0433") == farmer  # Cyrillic г
    assert username_skeleton("Farmer") == username_skeleton("FARMER") == username_skeleton("ｆａｒｍｅｒ") == farmer
    # U+01C0 is a vertical stroke: confusables.txt makes it an l, so farmerǀ reads as farmerl
    # (and check_username refuses it outright, above), not as farmer.
    assert username_skeleton("farmer\u01c0") == username_skeleton("farmerl") == username_skeleton("farmerI")
    assert username_skeleton("farmer\u01c0") != farmer
    assert username_skeleton("\u0441\u043e\u0441\u043e\u0430") == username_skeleton("cocoa")  # all Cyrillic


#: Cyrillic letters drawn like Latin ones (test data: the rule reads Unicode's own tables).
CYRILLIC_TWINS = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445",
                  "y": "\u0443", "i": "\u0456", "j": "\u0458", "s": "\u0455", "h": "\u04bb"}
USERNAMES = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_-"), min_size=3, max_size=20)


@settings(max_examples=300, deadline=None)
@given(USERNAMES, st.data())
def test_a_name_with_latin_letters_swapped_for_cyrillic_twins_has_its_skeleton(name: str, data: st.DataObject) -> None:
    swap = data.draw(st.sets(st.sampled_from(sorted(CYRILLIC_TWINS))))
    twin = "".join(CYRILLIC_TWINS[ch] if ch in swap else ch for ch in name)
    assert username_skeleton(twin) == username_skeleton(name)


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=25))
def test_a_skeleton_is_its_own_skeleton(text: str) -> None:
    skeleton = username_skeleton(text)
    assert username_skeleton(skeleton) == skeleton == username_key(skeleton)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(categories=["L", "Nd"]), min_size=3, max_size=20))
def test_an_accepted_username_shows_every_character_and_fits_its_column(text: str) -> None:
    try:
        name = check_username(text)
    except ValueError:
        return
    assert not any(ch in IGNORABLE for ch in name)
    assert len(username_skeleton(name)) <= 6 * len(name) <= 255  # users.username_skeleton is String(255)


def test_no_username_character_makes_more_than_six_of_skeleton() -> None:
    # The bound that sizes users.username_skeleton, over every letter and digit there is.
    letters = (chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    worst = max(len(username_skeleton(ch)) / len(unicodedata.normalize("NFKC", ch)) for ch in letters
                if unicodedata.category(ch)[0] == "L" or ch.isdecimal())
    assert worst <= 6

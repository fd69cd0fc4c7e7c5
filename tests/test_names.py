"""Display names: every name the rule accepts can be written in a record and read back."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omega import Game
from omega.names import NAME_MAX, NAME_RULE, check_name
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

"""The computer player's levels: one list, in order, the same as the docs, cheap to import."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from omega.ai import LEVELS, MAX_LEVEL, MIN_LEVEL, level
from omega.ai.levels import Level

AI_DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"


def test_levels_are_numbered_without_gaps_and_grow_in_budget() -> None:
    assert [lv.number for lv in LEVELS] == list(range(MIN_LEVEL, MAX_LEVEL + 1))
    for weaker, stronger in itertools.pairwise(LEVELS):
        assert weaker.iterations < stronger.iterations
        assert weaker.seconds <= stronger.seconds
    assert len({lv.name for lv in LEVELS}) == len(LEVELS)
    assert all(lv.name and lv.description for lv in LEVELS)


def test_level_looks_a_level_up_or_says_what_is_wrong() -> None:
    assert level(MAX_LEVEL) is LEVELS[-1]
    assert isinstance(level(MIN_LEVEL), Level)
    for bad in (0, 6, "3", None):
        with pytest.raises(ValueError, match=f"level must be from 1 to 5, got {re.escape(repr(bad))}"):
            level(bad)  # type: ignore[arg-type]


def test_the_docs_table_is_the_list() -> None:
    rows = re.findall(r"^\| (\d) \| ([^|]+) \| ([\d ]+) \| ([\d.]+) \|", AI_DOC.read_text(encoding="utf-8"), re.M)
    table = [(int(n), name.strip(), int(iterations.replace(" ", "")), float(seconds))
             for n, name, iterations, seconds in rows]
    assert table == [(lv.number, lv.name, lv.iterations, lv.seconds) for lv in LEVELS]


def test_levels_load_without_numpy_or_numba() -> None:
    # The server imports the levels in processes that never search.
    code = "import sys, omega.ai.levels; print(sorted({'numpy', 'numba'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"

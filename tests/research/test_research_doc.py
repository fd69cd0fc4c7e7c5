"""The examples of docs/research.md really run, with the output shown there."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_page_has_a_session_for_each_adapter() -> None:
    assert len(BLOCKS) == 2 and "omega.env" in BLOCKS[0] and "omega.spiel" in BLOCKS[1]


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_example_session(number: int) -> None:
    test = doctest.DocTestParser().get_doctest(BLOCKS[number], {}, f"research.md block {number + 1}", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 5 and result.failed == 0

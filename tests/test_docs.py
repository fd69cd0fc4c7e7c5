"""The documentation's examples really run: README's Python and shell blocks, the rules' table."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from omega import Game
from omega.board import Board, cell_count

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
RULES_DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def test_readme_python_examples() -> None:
    python_blocks = blocks(README, "python")
    assert len(python_blocks) >= 2
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    namespace: dict[str, object] = {}
    for number, block in enumerate(python_blocks, start=1):
        # One namespace for all blocks: later examples build on earlier imports.
        test = parser.get_doctest(block, namespace, f"README python block {number}", "README.md", 0)
        runner.run(test, clear_globs=False)
        namespace = test.globs
    result = runner.summarize(verbose=False)
    assert result.attempted > 10 and result.failed == 0


def console_commands() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ command`` line in README's console blocks."""
    found = []
    for block in blocks(README, "console"):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("$ "):
                output = []
                for after in lines[i + 1:]:
                    if after.startswith("$ "):
                        break
                    output.append(after)
                found.append((line[2:], "\n".join(output).strip("\n")))
    return found


def test_readme_shows_commands() -> None:
    commands = [c for c, _ in console_commands()]
    assert any(c.startswith("omega show") for c in commands)
    assert any("omega play" in c for c in commands)
    assert "make run" in README and "http://127.0.0.1:8000" in README and "make test" in README
    for section in ("## Playing in the browser", "## Computer players and analysis", "## Architecture"):
        assert section in README


def test_readme_console_examples_run(tmp_path: Path) -> None:
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    for command, expected in console_commands():
        result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        is_error = bool(re.match(r"omega \w+: ", expected))
        assert result.returncode == (2 if is_error else 0), (command, result.stderr)
        if expected:
            shown = result.stderr if is_error else result.stdout
            assert shown.rstrip("\n") == expected, command


def test_rules_doc_end_of_game_table() -> None:
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (.+?) \| (.+?) \| (.+?) \|$", RULES_DOC, flags=re.MULTILINE)
    assert [int(r[0]) for r in rows] == [5, 6, 7, 8, 9, 10]
    for side, cells, *per_players in rows:
        assert int(cells) == cell_count(int(side))
        for players, text in zip((2, 3, 4), per_players, strict=True):
            rounds, turns, left = (int(x) for x in text.split(" / "))
            n2 = players * players
            assert (rounds, turns, left) == (int(cells) // n2, int(cells) // n2 * players, int(cells) % n2)


@pytest.mark.parametrize("side", [5, 8])
def test_rules_doc_table_matches_played_games(side: int) -> None:
    for players in (2, 3, 4):
        game = Game(players=players, size=side)
        while not game.is_over:
            game.play(list(game.empty_cells()[:players]))
        row = re.search(rf"^\| {side} \| .*$", RULES_DOC, flags=re.MULTILINE)
        assert row is not None
        text = row.group(0).split(" | ")[players].strip(" |")
        assert text == f"{game.round} / {game.turns_played} / {game.empty_count}"


def test_rules_doc_picture_is_the_board() -> None:
    picture = blocks(RULES_DOC, "")[0]
    names = picture.split()
    assert names == list(Board.of(3).cells)
    assert "neighbours of `c3` are `c2`, `c4`, `b2`, `b3`" in RULES_DOC

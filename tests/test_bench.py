"""``omega bench``: the figures it reports and the C yardstick it compiles."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from omega.bench import measure, measure_c
from omega.cli import main


def test_bench_json_has_the_documented_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--size", "3", "--players", "3", "--seconds", "0.05", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["size"] == 3 and result["players"] == 3
    assert result["playouts_per_s"] > 0
    assert result["mcts_iterations_per_s"] > 0 and result["mcts_v1_iterations_per_s"] > 0
    assert result["mcts_ratio_to_v1"] == pytest.approx(
        result["mcts_iterations_per_s"] / result["mcts_v1_iterations_per_s"], abs=0.001)
    assert result["mast_ratio"] == pytest.approx(
        result["mcts_iterations_per_s"] / result["mcts_uniform_iterations_per_s"], abs=0.001)


def test_bench_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--size", "2", "--seconds", "0.05"]) == 0
    assert "random playouts" in capsys.readouterr().out


def test_measure_without_reference_has_no_c_figures() -> None:
    result = measure(size=4, players=4, seconds=0.05, reference=False)
    assert "c_playouts_per_s" not in result and "ratio_to_c" not in result


def test_c_yardstick_is_compiled_and_its_figure_read(tmp_path: Path) -> None:
    # A stand-in source that prints the line the real yardstick prints.
    source = tmp_path / "playout.c"
    source.write_text(
        '#include <stdio.h>\n#include <stdlib.h>\n'
        'int main(int argc, char **argv) { printf("cells 61\\nplayouts_per_s %d\\n", 1000 * atoi(argv[1])'
        ' + atoi(argv[2])); return 0; }\n'
    )
    rate = measure_c(5, 2, 0.1, source)
    if shutil.which("cc") is None:
        assert rate is None
    else:
        assert rate == 5002.0

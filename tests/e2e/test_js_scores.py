"""The page's own group count (web/js/score.js) and geometry (web/js/geometry.js) equal the
engine's on shared positions: random games of every player count on sides 2 to 13."""

from __future__ import annotations

import random
from typing import Any

import pytest
from omega_page import Contexts, Server

from omega import Board, Game

SCRIPT = """async (cases) => {
  const { Geometry } = await import('/static/js/geometry.js');
  const { scores, groupSizes, groupAt, factorsText } = await import('/static/js/score.js');
  return cases.map((c) => {
    const geo = Geometry.of(c.size);
    return {
      scores: scores(geo, c.stones, c.colors),
      sizes: c.colors.map((color) => groupSizes(geo, c.stones, color)),
      group: c.probe ? groupAt(geo, c.stones, c.probe).sort() : [],
    };
  });
}"""


def random_position(rng: random.Random) -> Game:
    game = Game(players=rng.choice([2, 3, 4]), size=rng.choice([2, 3, 5, 5, 6, 7, 8, 10, 13]))
    turns = rng.randint(0, len(game.cells) // game.players)
    for _ in range(turns):
        if game.is_over:
            break
        game.play(rng.sample(game.empty_cells(), game.players))
    return game


@pytest.mark.slow
def test_js_group_count_equals_engine_scores(server: Server, contexts: Contexts) -> None:
    rng = random.Random(2024)
    games = [random_position(rng) for _ in range(150)]
    cases: list[dict[str, Any]] = []
    for g in games:
        stones = {cell: c.label for cell, c in g.stones().items()}
        cases.append({"size": g.size, "colors": [c.label for c in g.colors], "stones": stones,
                      "probe": rng.choice(sorted(stones)) if stones else None})
    page = contexts.page()
    page.goto(server.base + "/")
    results = page.evaluate(SCRIPT, cases)
    big = 0
    for g, case, got in zip(games, cases, results, strict=True):
        assert got["scores"] == {c.label: str(v) for c, v in g.scores().items()}
        assert got["sizes"] == [g.group_sizes(c) for c in g.colors]
        if case["probe"]:
            assert got["group"] == sorted(g.group_at(case["probe"]))
        big += any(v > 2**53 for v in g.scores().values())
    assert big > 0, "some positions should have scores beyond JavaScript's exact numbers"


def test_js_geometry_equals_board(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    probes = ["e5", "E5", " e5 ", "e0", "a9", "5e", "e5e", "", "a1", "i9", "i1", "m13", "z1", "e05", "a10", "j10"]
    got = page.evaluate("""async (probes) => {
      const { Geometry } = await import('/static/js/geometry.js');
      const out = {};
      for (let n = 2; n <= 13; n++) {
        const geo = new Geometry(n);
        out[n] = { cells: geo.cells, neighbours: geo.cells.map((c) => [...geo.neighbours.get(c)].sort()),
                   parsed: probes.map((p) => geo.parse(p)) };
      }
      return out;
    }""", probes)
    for n in range(2, 14):
        board = Board.of(n)
        assert got[str(n)]["cells"] == list(board.cells)
        assert got[str(n)]["neighbours"] == [sorted(board.cells[j] for j in nbs) for nbs in board.neighbours]
        expected = []
        for p in probes:
            try:
                expected.append(board.cells[board.index(p.strip())])
            except ValueError:
                expected.append(None)
        assert got[str(n)]["parsed"] == expected, n


def test_score_formatting(server: Server, contexts: Contexts) -> None:
    page = contexts.page()
    page.goto(server.base + "/")
    got = page.evaluate("""async () => {
      const s = await import('/static/js/score.js');
      return [s.formatScore("0"), s.formatScore("4050"), s.formatScore("123456789012"),
              s.formatScore("348678440100000000000"), s.factorsText([5, 4, 3]), s.factorsText([]),
              s.factorsText([4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 1])];
    }""")
    assert got == ["0", "4\u202f050", "123\u202f456\u202f789\u202f012", "3.486 × 10²⁰", "5 × 4 × 3 = 60",
                   "no stones = 0", "4 × 3⁹ × 2 × 1 = 157\u202f464"]

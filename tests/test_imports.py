"""How the package's modules import each other: no circle, no private names taken across
modules, and the import floors that ``docs/architecture.md`` writes down.

The modules are read with :mod:`ast`, never imported, so a broken import cannot hide itself.
Each ``import`` of a module of the package is an edge of one of three kinds:

- ``module``: runs when the importing module is imported (top level, class bodies, ``try``);
- ``typing``: under ``if TYPE_CHECKING:``, read by the type checker only;
- ``function``: inside a function, run when the function is first called.

The rules, each a test below:

1. The ``module`` edges form no circle (Python would run one module half-initialised).
2. A ``function`` edge is allowed only when :data:`FORWARDS` lists it with its reason, and
   every edge but those forwards together forms no circle either: a late import is never the
   way to hide a circle.
3. No module imports another module's private (``_underscore``) name: ``from x import _y``,
   or ``x._y`` where ``x`` names an imported module. A package's ``__init__`` is a module like
   any other (its private names are its own; its submodules' are theirs). The one exception is
   a private *module* (``pkg/_part.py``): its package's own modules may import it.
   Dunder names (``__version__``) are not private.
4. The floors: every fenced ``floors`` block of ``docs/architecture.md`` (see its section
   "Import floors") is checked against every kind of edge except :data:`FORWARDS`.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# The function-level imports that are allowed, as (importing module, imported module): each
# one needs its reason. Everything else imports at the top of its module.
FORWARDS: dict[tuple[str, str], str] = {
    # Game.record() / Game.from_record() are the public contract's doors to the records,
    # which are built on the game (the python-chess rule: chess.pgn imports chess, never the
    # reverse). They import omega.record when called, never when omega.game is imported.
    ("omega.game", "omega.record"): "Game.record() / Game.from_record() forward to omega.record",
    # Start-up: each subcommand loads only what it runs, so `omega play` or `omega show`
    # never import FastAPI, SQLAlchemy, NumPy or Numba.
    ("omega.cli", "omega.server.run"): "start-up: `omega serve` / `omega worker` only",
    ("omega.cli", "omega.server.ratings.service"): "start-up: `omega ratings` only",
    ("omega.cli", "omega.server.accounts.roles"): "start-up: `omega admin` only",
    ("omega.cli", "omega.terminal"): "start-up: `omega play` / `omega show` only",
    ("omega.cli", "omega.bench"): "start-up: `omega bench` only",
    ("omega.cli", "omega.arena"): "start-up: `omega match` only",
    ("omega.cli", "omega.tournament"): "start-up: `omega tournament` only",
    ("omega.cli", "omega.analysis"): "start-up: `omega analyze` only",
    ("omega.cli", "omega.engine"): "start-up: `omega engine` only",
    ("omega.cli", "omega.puzzles.command"): "start-up: `omega puzzles` only",
    ("omega.cli", "omega.ai.selfplay"): "start-up: `omega train selfplay` only",
    ("omega.cli", "omega.ai.fit"): "start-up: `omega train fit` only",
    # The server: a worker process loads the review search only when it runs a review or a
    # hint; the web process reads the review defaults without loading the search.
    ("omega.server.work.thinking", "omega.ai.review"): "a worker loads the review search when it runs one",
    ("omega.server.work.reviews", "omega.ai.review"): "the web process reads the review defaults only",
    # `omega serve` builds the app, its metrics and its worker only after the arguments are
    # checked, and the slow-reader transport only when uvicorn is started.
    ("omega.server.run", "omega.ai"): "start-up: `omega serve` checks its arguments first",
    ("omega.server.run", "omega.server.app"): "start-up: `omega serve` checks its arguments first",
    ("omega.server.run", "omega.server.infra.metrics"): "start-up: `omega serve` checks its arguments first",
    ("omega.server.run", "omega.server.work.worker"): "start-up: `omega serve` checks its arguments first",
    ("omega.server.run", "omega.server.analysis.routes"): "start-up: `omega worker` checks its arguments first",
    ("omega.server.run", "omega.server.infra.limits"): "start-up: `omega serve` checks its arguments first",
    ("omega.server.run", "omega.server.infra.transport"): "start-up: uvicorn is loaded only when it runs",
    ("omega.server.ratings.service", "omega.server.infra.db"): "start-up: `omega ratings` opens the database itself",
}

# Alembic loads these by path (they are the schema's history, not modules anyone imports):
# they are read for circles and private names, but placed on no floor.
UNPLACED = ("omega.server.migrations",)


@dataclass(frozen=True)
class Edge:
    """One import of a module of the package by another."""

    source: str
    target: str
    kind: str  # "module", "typing" or "function"
    line: int


@dataclass(frozen=True)
class Graph:
    """The modules of a package (dotted names, packages by their ``__init__``), and their
    imports of each other."""

    modules: frozenset[str]
    packages: frozenset[str]
    edges: tuple[Edge, ...]
    private: tuple[str, ...]  # "module:line: takes _name from other" for each private import


def module_name(path: Path, source: Path) -> str:
    parts = list(path.relative_to(source).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_private(name: str) -> bool:
    # ``_`` alone is gettext's marker of a sentence to translate (omega.i18n), public by custom.
    return name != "_" and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def parent(name: str) -> str:
    return name.rpartition(".")[0]


class _Reader(ast.NodeVisitor):
    """Collects one module's edges and private imports."""

    def __init__(self, name: str, is_package: bool, modules: frozenset[str], top: str) -> None:
        self.name, self.modules, self.top = name, modules, top
        self.package = name if is_package else parent(name)
        self.kind = "module"
        self.edges: list[Edge] = []
        self.private: list[str] = []
        self.bound: dict[str, str] = {}  # local name -> the module of the package it names

    def in_package(self, target: str) -> bool:
        return target == self.top or target.startswith(self.top + ".")

    def known(self, dotted: str) -> str:
        """The longest dotted prefix of ``dotted`` that is a module of the package."""
        parts = dotted.split(".")
        while parts and ".".join(parts) not in self.modules:
            parts.pop()
        return ".".join(parts)

    def add(self, target: str, line: int) -> None:
        edge = Edge(self.name, target, self.kind, line)
        if target and target != self.name and edge not in self.edges:
            self.edges.append(edge)

    def check_private_module(self, target: str, line: int) -> None:
        # A private module is private to its package.
        parts = target.split(".")
        for i, part in enumerate(parts):
            owner = ".".join(parts[:i])
            if is_private(part) and not (self.package + ".").startswith(owner + "."):
                self.private.append(f"{self.name}:{line}: imports {target}, private to {owner}")
                return

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self.in_package(alias.name):
                continue
            target = self.known(alias.name)
            self.add(target, node.lineno)
            self.check_private_module(alias.name, node.lineno)
            if alias.asname:
                self.bound[alias.asname] = target
            else:
                self.bound[alias.name.split(".")[0]] = self.top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        if not self.in_package(base):
            return
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in self.modules:  # `from package import module`
                self.add(submodule, node.lineno)
                self.check_private_module(submodule, node.lineno)
                self.bound[alias.asname or alias.name] = submodule
                continue
            owner = self.known(base)
            self.add(owner, node.lineno)
            self.check_private_module(base, node.lineno)
            if is_private(alias.name) and owner != self.name:
                self.private.append(f"{self.name}:{node.lineno}: takes {alias.name} from {owner}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain: list[str] = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in self.bound and isinstance(node.ctx, ast.Load):
            dotted = self.bound[value.id]
            for attr in reversed(chain):
                if f"{dotted}.{attr}" in self.modules:
                    dotted = f"{dotted}.{attr}"
                    continue
                if is_private(attr) and dotted != self.name:
                    self.private.append(f"{self.name}:{node.lineno}: reads {attr} of {dotted}")
                break
            return  # the whole chain is read: do not visit its inner attributes again
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        typing_only = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        if not typing_only or self.kind == "function":
            self.generic_visit(node)
            return
        self.kind = "typing"
        for statement in node.body:
            self.visit(statement)
        self.kind = "module"
        for statement in node.orelse:
            self.visit(statement)

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        kind, self.kind = self.kind, "function"
        self.generic_visit(node)
        self.kind = kind

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_function


def read_package(directory: Path) -> Graph:
    """Every module under ``directory`` (a package) and their imports of each other."""
    source = directory.parent
    paths = sorted(directory.rglob("*.py"))
    names = {path: module_name(path, source) for path in paths}
    modules = frozenset(names.values())
    packages = frozenset(names[p] for p in paths if p.name == "__init__.py")
    edges: list[Edge] = []
    private: list[str] = []
    for path in paths:
        reader = _Reader(names[path], path.name == "__init__.py", modules, directory.name)
        reader.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        edges += reader.edges
        private += reader.private
    return Graph(modules, packages, tuple(edges), tuple(private))


def cycles(edges: Iterable[Edge]) -> list[list[str]]:
    """The circles among ``edges``: each strongly connected group of two or more modules."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def floor_blocks(markdown: str) -> list[list[list[str]]]:
    """Each ``floors`` block of ``markdown``: its lines (lowest first), each a list of names.

    Names are separated by spaces or commas; ``#`` starts a comment.
    """
    blocks = []
    for body in re.findall(r"^```floors[ \t]*\n(.*?)^```", markdown, flags=re.DOTALL | re.MULTILINE):
        lines = [line.split("#")[0].replace(",", " ").split() for line in body.splitlines()]
        blocks.append([line for line in lines if line])
    return blocks


def common_prefix(names: Iterable[str]) -> str:
    split = [name.split(".") for name in names]
    prefix: list[str] = []
    for parts in zip(*split, strict=False):
        if len(set(parts)) != 1:
            break
        prefix.append(parts[0])
    return ".".join(prefix)


def floor_problems(graph: Graph, block: list[list[str]], allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """What breaks one floors block: misplaced or unknown names, unplaced modules, and imports
    of a module on the same floor or above.

    The block covers its *root*, the longest dotted prefix its names share, and everything
    under it. Each name is a unit: that module, or that package with everything in it (the
    root itself, if listed, stands only for its own ``__init__``). Every covered module must
    belong to a unit, except the root's ``__init__`` when it imports nothing of the block.
    A module may import its own unit, or units on lower lines.
    """
    problems: list[str] = []
    floor_of: dict[str, int] = {}
    for number, line in enumerate(block):
        for name in line:
            if name in floor_of:
                problems.append(f"{name} is on two floors")
            floor_of[name] = number
            if name not in graph.modules:
                problems.append(f"{name} names no module or package")
    root = common_prefix(floor_of)

    def covered(module: str) -> bool:
        return (module == root or module.startswith(root + ".")) and not any(
            module == u or module.startswith(u + ".") for u in UNPLACED
        )

    def unit(module: str) -> str | None:
        if module == root:
            return root if root in floor_of else None
        owners = [n for n in floor_of if n != root and (module == n or module.startswith(n + "."))]
        return max(owners, key=len) if owners else None

    allowed = set(allowed)
    for module in sorted(filter(covered, graph.modules)):
        if unit(module) is None and not (
            module == root and not any(e.source == module and covered(e.target) for e in graph.edges)
        ):
            problems.append(f"{module} is on no floor of the block over {root}: place it")
    for edge in graph.edges:
        if (edge.source, edge.target) in allowed or not (covered(edge.source) and covered(edge.target)):
            continue
        here, there = unit(edge.source), unit(edge.target)
        if here is None or there is None or here == there:
            continue
        if floor_of[there] >= floor_of[here]:
            level = "the same floor" if floor_of[there] == floor_of[here] else "a higher floor"
            problems.append(
                f"{edge.source}:{edge.line} imports {edge.target} ({edge.kind}), on {level} "
                f"({there} over {here})"
            )
    return problems


def late_imports(graph: Graph, allowed: Mapping[tuple[str, str], str]) -> list[str]:
    """The function-level imports that ``allowed`` does not list."""
    return [
        f"{e.source}:{e.line} imports {e.target} inside a function"
        for e in graph.edges
        if e.kind == "function" and (e.source, e.target) not in allowed
    ]


def outside(graph: Graph, allowed: Mapping[tuple[str, str], str]) -> Iterator[Edge]:
    return (e for e in graph.edges if (e.source, e.target) not in allowed)


# -- the package ------------------------------------------------------------------------

GRAPH = read_package(SOURCE / "omega")
BLOCKS = floor_blocks(ARCHITECTURE.read_text(encoding="utf-8"))


def test_no_circle_among_module_level_imports() -> None:
    assert cycles(e for e in GRAPH.edges if e.kind == "module") == []


def test_no_circle_even_through_late_or_typing_imports() -> None:
    assert cycles(outside(GRAPH, FORWARDS)) == []


def test_late_imports_are_only_the_documented_forwards() -> None:
    assert late_imports(GRAPH, FORWARDS) == []
    found = {(e.source, e.target) for e in GRAPH.edges if e.kind == "function"}
    assert sorted(set(FORWARDS) - found) == [], "a forward listed here is gone: remove it from FORWARDS"


def test_no_module_takes_another_modules_private_names() -> None:
    assert list(GRAPH.private) == []


def test_the_architecture_page_writes_the_floors() -> None:
    assert BLOCKS, "docs/architecture.md has no ```floors block"
    roots = [common_prefix(n for line in block for n in line) for block in BLOCKS]
    assert "omega" in roots
    covered = {m for m in GRAPH.modules for r in roots if m == r or m.startswith(r + ".")}
    assert sorted(GRAPH.modules - covered) == []


def test_every_floor_holds() -> None:
    problems = [p for block in BLOCKS for p in floor_problems(GRAPH, block, FORWARDS)]
    assert problems == []


def test_the_forwards_keep_start_up_light() -> None:
    # What the start-up forwards are for: the command, a terminal game and the engine
    # protocol start without the search's or the site's libraries.
    code = (
        "import sys, omega.cli, omega.terminal, omega.engine; "
        "print(sorted(m for m in ('numpy', 'numba', 'fastapi', 'sqlalchemy') if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


# -- the checker itself can fail ----------------------------------------------------------


def toy(tmp_path: Path, files: Mapping[str, str]) -> Graph:
    for name, text in files.items():
        path = tmp_path / "toy" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return read_package(tmp_path / "toy")


def test_checker_sees_a_circle_and_each_kind_of_import(tmp_path: Path) -> None:
    graph = toy(tmp_path, {
        "__init__.py": "",
        "a.py": "from toy.b import thing\n",
        "b.py": (
            "from typing import TYPE_CHECKING\n"
            "from . import c\n"
            "if TYPE_CHECKING:\n    from .d import D\n"
            "def later():\n    import toy.a\n"
        ),
        "c.py": "",
        "d.py": "",
    })
    kinds = {(e.source, e.target): e.kind for e in graph.edges}
    assert kinds == {
        ("toy.a", "toy.b"): "module", ("toy.b", "toy.c"): "module",
        ("toy.b", "toy.d"): "typing", ("toy.b", "toy.a"): "function",
    }
    assert cycles(e for e in graph.edges if e.kind == "module") == []
    assert cycles(graph.edges) == [["toy.a", "toy.b"]]
    assert late_imports(graph, {}) == ["toy.b:6 imports toy.a inside a function"]
    assert late_imports(graph, {("toy.b", "toy.a"): "a forward"}) == []


def test_checker_sees_private_names(tmp_path: Path) -> None:
    graph = toy(tmp_path, {
        "__init__.py": "from toy.a import _hidden, __version__\n",
        "a.py": "_hidden = 1\n__version__ = '1'\n",
        "b.py": "import toy.a as alias\nfrom toy import a\nx = alias._hidden + a._hidden + a.__version__\n",
        "sub/__init__.py": "from . import _part\n",
        "sub/_part.py": "",
        "sub/peer.py": "from toy.sub._part import name\n",
        "c.py": "from toy.sub import _part\n",
    })
    assert sorted(graph.private) == [
        "toy.b:3: reads _hidden of toy.a",
        "toy.b:3: reads _hidden of toy.a",
        "toy.c:1: imports toy.sub._part, private to toy.sub",
        "toy:1: takes _hidden from toy.a",
    ]


def test_checker_sees_floors_broken(tmp_path: Path) -> None:
    graph = toy(tmp_path, {
        "__init__.py": "from toy.low import x\n",
        "low.py": "from toy.high import y\n",  # downward is fine, this is upward
        "mid.py": "from toy.peer import z\n",  # peers may not import each other
        "peer.py": "",
        "high/__init__.py": "from toy.high.inner import w\n",  # inside its own unit
        "high/inner.py": "from toy import low\n",
        "new.py": "",
    })
    block = floor_blocks("```floors\ntoy.low\ntoy.mid, toy.peer  # peers\ntoy.high toy.gone\ntoy\n```\n")[0]
    assert block == [["toy.low"], ["toy.mid", "toy.peer"], ["toy.high", "toy.gone"], ["toy"]]
    assert floor_problems(graph, block) == [
        "toy.gone names no module or package",
        "toy.new is on no floor of the block over toy: place it",
        "toy.low:1 imports toy.high (module), on a higher floor (toy.high over toy.low)",
        "toy.mid:1 imports toy.peer (module), on the same floor (toy.peer over toy.mid)",
    ]
    assert floor_problems(graph, block, {("toy.low", "toy.high")})[-1].startswith("toy.mid:1")

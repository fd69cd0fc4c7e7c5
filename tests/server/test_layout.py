"""The server's shape holds: its import floors (``docs/architecture.md``, "Import floors")
are true of the code, no module imports another's private names, and the package root
stays small (the features live in their packages)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "src" / "omega" / "server"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def floors() -> list[list[str]]:
    """The dotted names of each floor of the ``floors`` block, lowest first."""
    found = re.findall(r"```floors\n(.*?)```", ARCHITECTURE.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(found) == 1, "docs/architecture.md has one floors block"
    return [line.split() for line in found[0].splitlines() if line.strip()]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT / "src").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def server_modules() -> dict[str, Path]:
    return {module_name(p): p for p in SERVER.rglob("*.py") if "migrations" not in p.parts}


def imports(path: Path, modules: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import of ``omega`` in ``path``;
    ``from package import module`` counts as importing the module."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("omega")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("omega"):
            names = [a.name for a in node.names]
            submodules = [n for n in names if f"{node.module}.{n}" in modules]
            out += [(f"{node.module}.{n}", []) for n in submodules]
            rest = [n for n in names if n not in submodules]
            if rest or not submodules:
                out.append((node.module, rest))
    return out


def unit_of(module: str, units: dict[str, int]) -> str | None:
    """The longest name of the floors that ``module`` is or is inside."""
    best = None
    for name in units:
        if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best)):
            best = name
    return best


def test_every_server_module_is_on_a_floor() -> None:
    units = {name: level for level, line in enumerate(floors()) for name in line}
    missing = sorted(m for m in server_modules() if m != "omega.server" and unit_of(m, units) is None)
    assert missing == []


def test_imports_go_down_the_floors_only() -> None:
    units = {name: level for level, line in enumerate(floors()) for name in line}
    modules = server_modules()
    wrong = []
    for module, path in sorted(modules.items()):
        mine = unit_of(module, units)
        if mine is None:
            continue
        for target, _ in imports(path, modules):
            theirs = unit_of(target, units)
            if theirs is None or theirs == mine:
                continue  # outside the server (the rules, the AI), or inside its own unit
            if units[theirs] >= units[mine]:
                wrong.append(f"{module} imports {target} ({theirs} is not below {mine})")
    assert wrong == []


def test_the_check_sees_a_wrong_import() -> None:
    # The check itself can fail: the core importing a feature breaks the floors.
    units = {name: level for level, line in enumerate(floors()) for name in line}
    core, ratings = unit_of("omega.server.tables.core", units), unit_of("omega.server.ratings.service", units)
    assert core is not None and ratings is not None and units[ratings] > units[core]


def test_no_module_imports_a_private_name() -> None:
    modules = server_modules()
    private = [f"{module} takes {name} from {target}"
               for module, path in sorted(modules.items())
               for target, names in imports(path, modules) for name in names
               if name.startswith("_") and not name.startswith("__")]
    assert private == []


def test_the_package_root_holds_the_wiring_only() -> None:
    root_modules = sorted(p.stem for p in SERVER.glob("*.py"))
    assert len(root_modules) <= 8, root_modules
    packages = sorted(p.name for p in SERVER.iterdir() if (p / "__init__.py").is_file())
    assert {"infra", "tables", "accounts", "lobby", "ratings", "social", "work"} <= set(packages)

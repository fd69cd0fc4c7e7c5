"""The page's module preloads (``web/index.html``) equal what its modules import.

A module the first screen imports but the page does not preload is fetched one import level
later (a round trip more before the board shows); one preloaded but not imported is fetched
for nothing.  ``web/js/main.js`` imports a few modules itself and the table's and the lobby's
page when opened; index.html marks the modules of one of those pages only with
``data-page`` (a module both import is not marked), and the server keeps only the page's own (``site.preloads_for``).  This test
reads the ``import`` lines, so a new module or a moved import fails it until index.html says
the same.  That the server sends each page its own is ``tests/server/test_i18n.py``'s
(the page as it is served).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

WEB = Path(__file__).resolve().parent.parent / "src" / "omega" / "web"
_STATIC_IMPORT = re.compile(r'^import\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"', re.M)
_DYNAMIC_IMPORT = re.compile(r'\bimport\("(\./[^"]+)"\)')
_PRELOAD = re.compile(r'<link rel="modulepreload" href="/static/js/([^"]+)"(?: data-page="([a-z]+)")?>')


def imported(module: str, found: set[str] | None = None) -> set[str]:
    """``module`` (a path under web/js) and every module it imports statically, itself
    and through the others."""
    found = set() if found is None else found
    if module in found:
        return found
    found.add(module)
    text = (WEB / "js" / module).read_text(encoding="utf-8")
    for match in _STATIC_IMPORT.finditer(text):
        imported(posixpath.normpath(posixpath.join(posixpath.dirname(module), match.group(1) or match.group(2))), found)
    return found


def test_imported_follows_relative_paths() -> None:
    assert {"views/email.js", "recovery.js", "dom.js"} <= imported("views/email.js")


def test_index_preloads_what_the_first_screens_import() -> None:
    main = (WEB / "js" / "main.js").read_text(encoding="utf-8")
    pages = {"table": "table.js", "lobby": "lobby.js"}
    assert {f"./{m}" for m in pages.values()} <= set(_DYNAMIC_IMPORT.findall(main))
    table, lobby = (imported(entry) for entry in pages.values())
    # What main.js imports, and what both pages do, every page preloads (one mark each).
    shared = (imported("main.js") - {"main.js"}) | (table & lobby)
    wanted = {"": shared, "table": table - shared, "lobby": lobby - shared}
    preloads: dict[str, set[str]] = {kind: set() for kind in wanted}
    for module, kind in _PRELOAD.findall((WEB / "index.html").read_text(encoding="utf-8")):
        preloads.setdefault(kind, set()).add(module)
    assert preloads == wanted

"""Collect every marked sentence into the message catalogs: ``python -m omega.catalogs``.

The sentences are found where they are written: ``_("...")`` and ``N_("...")`` in the
package's Python, ``t("...")`` in the page's modules (``web/js``). They make the template
``locale/omega.pot``; each language's ``locale/<lang>/LC_MESSAGES/omega.po`` then gains the
new ones (untranslated: English shows until someone translates them) and loses those no
longer written. Rerun it after adding or changing a sentence; ``--check`` only says whether
the catalogs are up to date (a test runs it), and ``--missing LANG`` lists what ``LANG``
still lacks. Both files are sorted and carry no source lines, so that two branches that add
sentences merge without conflicts in them.

>>> found = python_messages('raise ApiError("busy", _("try again in {s} s", s=3))')
>>> found, js_messages('h("h2", {}, t("Settings")); t(`Hi {name}`, { name })')
(['try again in {s} s'], ['Settings', 'Hi {name}'])
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from omega.i18n import DEFAULT, LANGUAGES, LOCALE_DIR

__all__ = ["PACKAGE", "python_messages", "js_messages", "collect", "template", "updated", "main"]

#: The package whose sources are read (``src/omega``).
PACKAGE = Path(__file__).parent
_MARKERS = frozenset({"_", "N_"})
# t("..."), t('...') or t(`...`) (a template with no ${...}: values go in as {name}).
_JS_CALL = re.compile(r"""(?<![\w.$])t\(\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\$]|\\.)*)`)""")
_JS_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "`": "`", "\\": "\\"}


def python_messages(source: str) -> list[str]:
    """The literal first arguments of ``_()`` and ``N_()`` calls in a module's source.

    >>> python_messages('x = N_("Red") + f(_("a {b}", b=1))')
    ['Red', 'a {b}']
    """
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _MARKERS
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.col_offset, node.args[0].value))
    return [text for _line, _col, text in sorted(found)]


def _unescape(text: str) -> str:
    out = re.sub(r"\\u\{?([0-9a-fA-F]{4,6})\}?", lambda m: chr(int(m[1], 16)), text)
    return re.sub(r"\\(.)", lambda m: _JS_ESCAPES.get(m[1], m[1]), out)


def js_messages(source: str) -> list[str]:
    """The literal first arguments of ``t()`` calls in a page module's source.

    >>> js_messages('el.title = t("Copy the link"); x.t("no"); t(\\'It\\\\\\'s {n}\\', { n })')
    ['Copy the link', "It's {n}"]
    """
    return [_unescape(next(g for g in m.groups() if g is not None)) for m in _JS_CALL.finditer(source)]


def collect(package: Path = PACKAGE) -> dict[str, list[str]]:
    """Every marked sentence of the package, with the files (relative) that write it.

    >>> "Settings" in collect()
    True
    """
    found: dict[str, list[str]] = {}

    def add(texts: Iterable[str], path: Path) -> None:
        for text in texts:
            where = found.setdefault(text, [])
            name = path.relative_to(package).as_posix()
            if name not in where:
                where.append(name)

    for path in sorted(package.rglob("*.py")):
        add(python_messages(path.read_text(encoding="utf-8")), path)
    for path in sorted((package / "web").rglob("*.js")):
        add(js_messages(path.read_text(encoding="utf-8")), path)
    return found


def template(package: Path = PACKAGE) -> Catalog:
    """The template: every marked sentence, untranslated, each with the files that write it
    as a comment (not as source lines, which change with every edit)."""
    pot = Catalog(project="omega", domain="omega", fuzzy=False)
    for text, files in collect(package).items():
        pot.add(text, auto_comments=files)
    return pot


def _po_bytes(po: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, po, width=0, no_location=True, omit_header=False, sort_output=True, include_previous=False)
    # The header's dates change at every write; they are left out so that a rerun with no
    # new sentence changes no file.
    lines = [line for line in out.getvalue().split(b"\n") if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision-Date'))]
    return b"\n".join(lines)


def updated(lang: str, pot: Catalog, locale_dir: Path = LOCALE_DIR) -> bytes:
    """``lang``'s ``.po`` file as it should be for the template ``pot``: its translations
    kept, new sentences added empty, sentences no longer written dropped."""
    path = locale_dir / lang / "LC_MESSAGES" / "omega.po"
    if path.is_file():
        with path.open("rb") as f:
            po = read_po(f, locale=lang)
    else:
        po = Catalog(locale=lang, project="omega", domain="omega", fuzzy=False)
    po.update(pot, no_fuzzy_matching=True, update_header_comment=False)
    po.obsolete.clear()
    return _po_bytes(po)


def _outputs(locale_dir: Path, package: Path) -> dict[Path, bytes]:
    pot = template(package)
    files = {locale_dir / "omega.pot": _po_bytes(pot)}
    for lang in LANGUAGES:
        if lang != DEFAULT:
            files[locale_dir / lang / "LC_MESSAGES" / "omega.po"] = updated(lang, pot, locale_dir)
    return files


def stale(locale_dir: Path = LOCALE_DIR, package: Path = PACKAGE) -> list[Path]:
    """The catalog files that a run of the extraction would change (none when up to date)."""
    return [path for path, data in _outputs(locale_dir, package).items()
            if not path.is_file() or path.read_bytes() != data]


def missing(lang: str) -> list[str]:
    """The template's sentences that ``lang`` has no translation for (fuzzy counts as none).

    >>> missing("fr")
    []
    """
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "omega.po").open("rb") as f:
        po = read_po(f, locale=lang)
    done = {str(m.id) for m in po if m.id and m.string and not m.fuzzy}
    return [text for text in collect() if text not in done]


def main(argv: list[str] | None = None) -> int:
    """Rewrite the catalogs from the sources (or ``--check`` them, or list ``--missing``)."""
    parser = argparse.ArgumentParser(prog="python -m omega.catalogs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the catalogs are up to date")
    parser.add_argument("--missing", metavar="LANG", help="list the sentences LANG has no translation for")
    args = parser.parse_args(argv)
    if args.missing:
        for text in missing(args.missing):
            print(text)
        return 0
    if args.check:
        old = stale()
        for path in old:
            print(f"out of date: {path.relative_to(PACKAGE)} (run python -m omega.catalogs)", file=sys.stderr)
        return 1 if old else 0
    for path, data in _outputs(LOCALE_DIR, PACKAGE).items():
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path.relative_to(PACKAGE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

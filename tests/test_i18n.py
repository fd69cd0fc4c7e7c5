"""The catalogs (``src/omega/locale``) hold every sentence the page and the server show, in
every language the site calls complete; no sentence is written outside them.

- The catalogs are what ``python -m omega.catalogs`` makes of the sources (so a sentence
  added without rerunning it fails here, and the test says which command to run).
- French, Spanish and German translate every sentence, keep its ``{placeholders}`` (a
  translation that loses or invents one would show a hole or a brace), and keep the
  spaces at its edges (sentences are put side by side).
- The page's modules pass every sentence through ``t()`` (``tests/js_strings.py``), and the
  server's refusals are all marked with ``_()``.
- The CLI's game texts (``omega.texts``) read in each language.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from js_strings import loose_in_page
from omega import catalogs
from omega.game import Color, Game
from omega.i18n import COMPLETE, DEFAULT, LANGUAGES, catalog
from omega.texts import color_name, factors_text, number_text, outcome_text, result_text, tie_break_text

SERVER = Path(catalogs.PACKAGE) / "server"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
TRANSLATED = [lang for lang in COMPLETE if lang != DEFAULT]

#: Literals of the page that read like prose but no person reads: a patch's errors (for the
#: log), the board's class names, a seat's rating in brackets.
NOT_SHOWN = {
    ("patch.js", None),
    ("views/board.js", '"stone ghost best"'), ("views/board.js", '"stone last"'),
    ("views/board.js", '"stone staged"'), ("views/board.js", '"stone ghost"'),
    ("live.js", None), ("api.js", "\"Content-Type\""),
}
#: Refusals whose words are not the site's own: the web framework's (a 404 or 405 of no
#: route).  The rules' (``omega.game``'s IllegalMove) are marked where they are raised.
FOREIGN_MESSAGES = {("site.py", "str(exc.detail)")}


def test_the_catalogs_are_up_to_date_with_the_sources() -> None:
    stale = [str(p.relative_to(catalogs.PACKAGE)) for p in catalogs.stale()]
    assert stale == [], f"run `python -m omega.catalogs` (or `make i18n`): {stale} are out of date"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_sentence_is_translated_keeping_its_placeholders(lang: str) -> None:
    wanted = catalogs.collect()
    messages = catalog(lang)
    assert [m for m in wanted if m not in messages] == []
    for msgid in wanted:
        text = messages[msgid]
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(msgid)), (msgid, text)
        assert (text[:1].isspace(), text[-1:].isspace()) == (msgid[:1].isspace(), msgid[-1:].isspace()), (msgid, text)


def test_the_partial_languages_keep_placeholders_too() -> None:
    for lang in set(LANGUAGES) - set(COMPLETE):
        messages = catalog(lang)
        assert messages, lang  # partial, not empty: the right-to-left layout is shown with it
        for msgid, text in messages.items():
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(msgid)), (msgid, text)


def test_no_sentence_of_the_page_is_written_outside_t() -> None:
    loose = [s for s in loose_in_page() if (s.path, None) not in NOT_SHOWN and (s.path, s.text) not in NOT_SHOWN]
    assert [f"{s.path}:{s.line}: {s.text[:80]}" for s in loose] == []


def test_every_refusal_of_the_server_is_marked_for_the_catalogs() -> None:
    unmarked = []
    for path in sorted(SERVER.rglob("*.py")):
        where = path.relative_to(SERVER).as_posix()
        marked = set()  # module constants and helpers' parameters that hold marked sentences
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _is_mark(node.value):
                marked.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ApiError"
                    and len(node.args) >= 2):
                continue
            message = node.args[1]
            if not _marked(message, marked) and (where, ast.unparse(message)) not in FOREIGN_MESSAGES:
                unmarked.append(f"{where}:{node.lineno}: {ast.unparse(message)[:80]}")
    assert unmarked == []


def _is_mark(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "Message")


def _marked(node: ast.expr, names: set[str]) -> bool:
    if _is_mark(node):
        return True
    if isinstance(node, ast.IfExp):
        return _marked(node.body, names) and _marked(node.orelse, names)
    if isinstance(node, ast.Name):
        # A constant marked where it is defined (here or in errors.py), or a parameter that
        # carries one (a helper's ``message: Message``).
        return node.id in names or node.id.isupper() or node.id == "message"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        # message_of(e): the Message an error of the rules was raised with (omega.game).
        return node.func.id in ("closed_message", "_too_many", "message_of")
    return False


def test_the_clis_game_texts_read_in_each_language() -> None:
    g = Game(size=2)
    g.play(["a1", "c3"])
    g.play(["c2", "b1"])
    assert result_text(g) == "White 1, Black 1; Black wins"  # records: English, always
    assert result_text(g, "fr") == "Blanc 1, Noir 1 ; Noir gagne"
    assert result_text(g, "es") == "Blanco 1, Negro 1; Negro gana"
    assert result_text(g, "de") == "Weiß 1, Schwarz 1; Schwarz gewinnt"
    assert tie_break_text(g, "de") == (
        "Gleichstand: Weiß und Schwarz haben beide 1; Schwarz gewinnt als die Farbe, die später in der Zugreihenfolge kommt.")
    assert outcome_text("resignation", Color.RED, "es") == "Rojo gana por abandono"
    assert [color_name(c, "fr") for c in Color] == ["Blanc", "Noir", "Rouge", "Bleu"]
    # A big product is written as each language writes numbers (records keep plain digits).
    assert [number_text(7560, lang) for lang in (None, "en", "fr", "de")] == ["7560", "7,560", "7\u202f560", "7.560"]
    played = Game(size=3)
    while not played.is_over:
        played.play(list(played.empty_cells()[:len(played.colors)]))
    assert factors_text(played, Color.WHITE, "de") == factors_text(played, Color.WHITE)  # small numbers: the same


def test_the_terminal_game_speaks_the_locales_language() -> None:
    """``omega play`` in a Spanish locale, and ``--lang`` over the locale."""

    def play(*args: str, **env: str) -> str:
        done = subprocess.run([sys.executable, "-m", "omega.cli", "play", "--size", "2", "--no-color", *args],
                              input="e5\nquit\n", capture_output=True, text=True, timeout=60,
                              env={**os.environ, "LC_ALL": "", "LC_MESSAGES": "", **env})
        assert done.returncode == 0, done.stderr
        return done.stdout

    spanish = play(LANG="es_ES.UTF-8")
    assert "Turno de Blanco (jugador 0), ronda 1; 7 casillas vacías" in spanish
    assert "Blanco (jugador 0), casillas para Blanco, Negro> " in spanish and "Partida detenida." in spanish
    german = play("--lang", "de", LANG="es_ES.UTF-8")
    assert "Weiß am Zug (Spieler 0), Runde 1; 7 leere Felder" in german
    assert "White to move (player 0)" in play(LANG="C.UTF-8")


def test_a_refused_turn_is_explained_in_the_readers_language() -> None:
    # The rules' sentences (omega.game, omega.board) are marked too: the server answers an
    # illegal turn in the reader's language, and the terminal tells it in the player's.
    from omega.game import Game, IllegalMove
    from omega.i18n import message_of

    g = Game()
    g.play(["e5", "a1"])
    said = {}
    for cells in (["e5", "b2"], ["z9", "b2"], ["b2"]):
        with pytest.raises(IllegalMove) as refused:
            g.play(cells)
        said[cells[0]] = {lang: message_of(refused.value).in_language(lang) for lang in ("en", "fr", "de")}
    assert said["e5"] == {"en": "cell e5 is occupied by White", "fr": "la case e5 est occupée par Blanc",
                          "de": "das Feld e5 ist von Weiß besetzt"}
    assert said["z9"]["en"] == "'z9' is not a cell of the side-5 board (rows a-i, columns 1-9, |row - column| <= 4)"
    assert said["z9"]["fr"] == "'z9' n'est pas une case du plateau de côté 5 (rangées a-i, colonnes 1-9, |rangée - colonne| <= 4)"
    assert said["b2"]["de"] == "ein Zug setzt 2 Steine (einen pro Farbe), erhalten: 1 Feld"

"""Sentences shown to people about a game: scores as factors, results, tie-breaks.

The terminal, the engine protocol, the records and the server all write these out; each
sentence is composed here once, so they always read the same. Records and the engine
protocol write them in English with plain numbers (``lang=None``, the default); the
terminal passes the player's language (``omega.i18n``), which also writes big numbers
as that language does.

>>> from omega.game import Color, Game
>>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"])
>>> result_text(g)
'White 1, Black 1; Black wins'
>>> factors_text(g, Color.BLACK)
'1 x 1 = 1'
>>> result_text(g, lang="fr")
'Blanc 1, Noir 1 ; Noir gagne'
"""

from __future__ import annotations

from omega.game import SWAP, Action, Color, Game
from omega.i18n import N_, fill_in, format_number, gettext

__all__ = [
    "COLOR_NAMES", "color_name", "number_text", "factors_text", "scores_text", "wins_text", "result_text", "standing_text", "OUTCOMES", "outcome_text",
    "tie_break_text", "action_text", "range_text", "one_line",
]


#: The colours' names (``Color.label``), marked for the catalogs.
COLOR_NAMES = (N_("White"), N_("Black"), N_("Red"), N_("Blue"))


def _say(msgid: str, lang: str | None, **params: object) -> str:
    # A sentence of this module in ``lang`` (None: the records' English).
    return fill_in(gettext(msgid, lang) if lang else msgid, params)


def color_name(color: Color, lang: str | None = None) -> str:
    """A colour's name in ``lang`` (None: English).

    >>> color_name(Color.BLACK), color_name(Color.BLUE, "de")
    ('Black', 'Blau')
    """
    return gettext(color.label, lang) if lang else color.label


def number_text(n: int, lang: str | None = None) -> str:
    """A number as ``lang`` writes it (None: plain digits, as records have them).

    >>> number_text(12600), number_text(12600, "en"), number_text(12600, "de")
    ('12600', '12,600', '12.600')
    """
    return format_number(n, lang) if lang else str(n)


def factors_text(game: Game, color: Color, lang: str | None = None) -> str:
    """A colour's score written as its factors, largest first: ``5 x 4 x 3 = 60``.

    >>> g = Game(); g.play(["e5", "a1"]); factors_text(g, Color.WHITE)
    '1 = 1'
    """
    sizes = game.group_sizes(color)
    if not sizes:
        return "0"
    return f"{' x '.join(number_text(n, lang) for n in sizes)} = {number_text(game.score(color), lang)}"


def scores_text(game: Game, lang: str | None = None) -> str:
    """Every colour's score in colour order: ``White 6, Black 16``.

    >>> g = Game(); g.play(["e5", "a1"]); scores_text(g), scores_text(g, "es")
    ('White 1, Black 1', 'Blanco 1, Negro 1')
    """
    scores = game.scores()
    return ", ".join(_say(N_("{color} {score}"), lang, color=color_name(c, lang), score=number_text(scores[c], lang))
                     for c in game.colors)


def wins_text(color: Color, lang: str | None = None) -> str:
    """The colour that won, as a sentence: ``White wins``.

    >>> wins_text(Color.RED), wins_text(Color.RED, "de")
    ('Red wins', 'Rot gewinnt')
    """
    return _say(N_("{color} wins"), lang, color=color_name(color, lang))


def result_text(game: Game, lang: str | None = None) -> str:
    """The ``Result`` tag of a finished game: each colour's score, then the winner.

    >>> g = Game(size=2); g.play(["a1", "c3"]); print(result_text(g))
    White 1, Black 1; Black wins
    """
    return _say(N_("{scores}; {winner}"), lang, scores=scores_text(game, lang), winner=wins_text(game.ranking()[0], lang))


def standing_text(game: Game, lang: str | None = None) -> str:
    """The scores, then the winner once the game is over, or the leader before it.

    >>> g = Game(); g.play(["e5", "a1"]); standing_text(g)
    'White 1, Black 1; Black leads'
    """
    if game.is_over:
        return result_text(game, lang)
    leader = _say(N_("{color} leads"), lang, color=color_name(game.ranking()[0], lang))
    return _say(N_("{scores}; {winner}"), lang, scores=scores_text(game, lang), winner=leader)


#: A record's ``Outcome`` tag for each way a game ends other than a full board: ``{wins}``
#: is the winner's sentence, ``{color}`` the colour the reason is about (the leader of an
#: abandoned table, the player who never moved of an aborted one).
OUTCOMES = {
    "resignation": N_("{wins} by resignation"),
    "timeout": N_("{wins} on time"),
    "abandoned": N_("Abandoned unfinished; {color} was ahead"),
    # Not played out, not to be rated: a flag before the seat's first move, and at a rated
    # table a flag or a resignation before each player had made the turns that make it count.
    "aborted": N_("Aborted: {color} made no first move in time"),
    "aborted_on_time": N_("Aborted: {color} ran out of time before the game counted"),
    "aborted_resigned": N_("Aborted: {color} resigned before the game counted"),
}


def outcome_text(reason: str, color: Color, lang: str | None = None) -> str | None:
    """How a game that ended for ``reason`` came out, for a record's ``Outcome`` tag (None: a
    game played to the end needs none); ``color`` is the winner, or for ``abandoned`` and
    ``aborted`` the colour the reason is about.

    >>> outcome_text("resignation", Color.BLACK), outcome_text("timeout", Color.WHITE)
    ('Black wins by resignation', 'White wins on time')
    >>> outcome_text("abandoned", Color.RED), outcome_text("board_full", Color.RED)
    ('Abandoned unfinished; Red was ahead', None)
    >>> outcome_text("aborted", Color.BLACK)
    'Aborted: Black made no first move in time'
    >>> outcome_text("timeout", Color.WHITE, "fr")
    'Blanc gagne au temps'
    """
    template = OUTCOMES.get(reason)
    if template is None:
        return None
    return _say(template, lang, wins=wins_text(color, lang), color=color_name(color, lang))


def tie_break_text(game: Game, lang: str | None = None) -> str | None:
    """Why the winner won on equal scores, when the top score is shared (game over only).

    >>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"]); tie_break_text(g)
    'Tie-break: White and Black both score 1; Black wins as the colour later in turn order.'
    """
    if not game.is_over:
        return None
    scores = game.scores()
    ranking = game.ranking()
    best = scores[ranking[0]]
    tied = [color_name(c, lang) for c in game.colors if scores[c] == best]
    if len(tied) < 2:
        return None
    names = _say(N_("{names} and {last}"), lang, names=", ".join(tied[:-1]), last=tied[-1])
    template = N_("Tie-break: {names} both score {score}; {wins} as the colour later in turn order.") if len(tied) == 2 \
        else N_("Tie-break: {names} all score {score}; {wins} as the colour later in turn order.")
    return _say(template, lang, names=names, score=number_text(best, lang), wins=wins_text(ranking[0], lang))


def action_text(action: Action) -> str:
    """One history entry as records and transcripts write it: its cells, or ``swap``.

    >>> action_text(("e5", "a1")), action_text("swap")
    ('e5 a1', 'swap')
    """
    return SWAP if action == SWAP else " ".join(action)


def range_text(what: str, low: int, high: int, value: int) -> str:
    """The complaint about a whole number outside ``low`` .. ``high``.

    >>> range_text("board size", 2, 13, 14)
    'board size must be from 2 to 13, got 14'
    """
    return f"{what} must be from {low} to {high}, got {value}"


def one_line(text: str, fallback: str) -> str:
    """``text`` folded onto one line (an error message printed where one line is the rule).

    >>> one_line("bad\\n  record", "error"), one_line("", "error")
    ('bad record', 'error')
    """
    return " ".join(text.split()) or fallback

"""Sentences shown to people about a game: scores as factors, results, tie-breaks.

The terminal, the engine protocol, the records and the server all write these out; each
sentence is composed here once, so they always read the same.

>>> from omega.game import Color, Game
>>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"])
>>> result_text(g)
'White 1, Black 1; Black wins'
>>> factors_text(g, Color.BLACK)
'1 x 1 = 1'
"""

from __future__ import annotations

from omega.game import SWAP, Action, Color, Game

__all__ = [
    "factors_text", "scores_text", "wins_text", "result_text", "standing_text", "OUTCOMES", "outcome_text",
    "tie_break_text", "action_text", "range_text", "one_line",
]


def factors_text(game: Game, color: Color) -> str:
    """A colour's score written as its factors, largest first: ``5 x 4 x 3 = 60``.

    >>> g = Game(); g.play(["e5", "a1"]); factors_text(g, Color.WHITE)
    '1 = 1'
    """
    sizes = game.group_sizes(color)
    if not sizes:
        return "0"
    return f"{' x '.join(map(str, sizes))} = {game.score(color)}"


def scores_text(game: Game) -> str:
    """Every colour's score in colour order: ``White 6, Black 16``.

    >>> g = Game(); g.play(["e5", "a1"]); scores_text(g)
    'White 1, Black 1'
    """
    scores = game.scores()
    return ", ".join(f"{c.label} {scores[c]}" for c in game.colors)


def wins_text(color: Color) -> str:
    """The colour that won, as a sentence: ``White wins``.

    >>> wins_text(Color.RED)
    'Red wins'
    """
    return f"{color.label} wins"


def result_text(game: Game) -> str:
    """The ``Result`` tag of a finished game: each colour's score, then the winner.

    >>> g = Game(size=2); g.play(["a1", "c3"]); print(result_text(g))
    White 1, Black 1; Black wins
    """
    return f"{scores_text(game)}; {wins_text(game.ranking()[0])}"


def standing_text(game: Game) -> str:
    """The scores, then the winner once the game is over, or the leader before it.

    >>> g = Game(); g.play(["e5", "a1"]); standing_text(g)
    'White 1, Black 1; Black leads'
    """
    if game.is_over:
        return result_text(game)
    return f"{scores_text(game)}; {game.ranking()[0].label} leads"


#: A record's ``Outcome`` tag for each way a game ends other than a full board: ``{wins}``
#: is the winner's sentence, ``{color}`` the colour the reason is about (the leader of an
#: abandoned table, the player who never moved of an aborted one).
OUTCOMES = {
    "resignation": "{wins} by resignation",
    "timeout": "{wins} on time",
    "abandoned": "Abandoned unfinished; {color} was ahead",
    # Not played out, not to be rated: a flag before the seat's first move, and at a rated
    # table a flag or a resignation before each player had made the turns that make it count.
    "aborted": "Aborted: {color} made no first move in time",
    "aborted_on_time": "Aborted: {color} ran out of time before the game counted",
    "aborted_resigned": "Aborted: {color} resigned before the game counted",
}


def outcome_text(reason: str, color: Color) -> str | None:
    """How a game that ended for ``reason`` came out, for a record's ``Outcome`` tag (None: a
    game played to the end needs none); ``color`` is the winner, or for ``abandoned`` and
    ``aborted`` the colour the reason is about.

    >>> outcome_text("resignation", Color.BLACK), outcome_text("timeout", Color.WHITE)
    ('Black wins by resignation', 'White wins on time')
    >>> outcome_text("abandoned", Color.RED), outcome_text("board_full", Color.RED)
    ('Abandoned unfinished; Red was ahead', None)
    >>> outcome_text("aborted", Color.BLACK)
    'Aborted: Black made no first move in time'
    """
    template = OUTCOMES.get(reason)
    return None if template is None else template.format(wins=wins_text(color), color=color.label)


def tie_break_text(game: Game) -> str | None:
    """Why the winner won on equal scores, when the top score is shared (game over only).

    >>> g = Game(size=2); g.play(["a1", "c3"]); g.play(["c2", "b1"]); tie_break_text(g)
    'Tie-break: White and Black both score 1; Black wins as the colour later in turn order.'
    """
    if not game.is_over:
        return None
    scores = game.scores()
    ranking = game.ranking()
    best = scores[ranking[0]]
    tied = [c.label for c in game.colors if scores[c] == best]
    if len(tied) < 2:
        return None
    names = f"{', '.join(tied[:-1])} and {tied[-1]}"
    both = "both" if len(tied) == 2 else "all"
    return f"Tie-break: {names} {both} score {best}; {wins_text(ranking[0])} as the colour later in turn order."


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

"""Points, tie-breaks and the order of the standings, from a tournament's history.

A finished game gives each player one point for every tablemate they finished above: with 2
players 1 for a win and 0 for a loss, with 3 players 2, 1, 0, with 4 players 3, 2, 1, 0.
Omega has no draws, so that is all a game can give. Each format says what a bye is worth and
which tie-breaks it uses (``docs/tournaments.md``); the tie-breaks themselves are here:

- **Buchholz**: the sum, over your finished games, of the points of your tablemates (how
  strong the field you met was).
- **Sonneborn-Berger**: the sum, over your finished games, of the points of the tablemates you
  finished above (beating strong players counts more than beating weak ones). With 2 players
  these are the classic tie-breaks of chess without draws.
- **Wins**: games finished first.
- **Performance**: the mean, over your finished games, of the mean rating of your tablemates
  plus 400 times (2 x your share of them beaten - 1): +400 for a win, -400 for a loss.

A bye has no tablemates, so it adds points but no tie-break. A game still being played adds
nothing here. A withdrawn entrant's games keep counting, for them and for their tablemates.

>>> from omega.pairing.model import Bye, Played
>>> history = History(games=(Played(1, (1, 2), (0, 1)), Played(2, (2, 3), (1, 0))))
>>> t = tally(history, players=2, bye_points=1.0)
>>> t[1].points, t[3].points, t[2].points, buchholz(t[3], t), sonneborn_berger(t[3], t)
(1.0, 1.0, 0.0, 0.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from omega.pairing.model import Entrant, History, Standing, check_entrants, check_history

__all__ = [
    "Meeting", "Tally", "game_points", "tally", "buchholz", "sonneborn_berger", "performance", "wins",
    "TIEBREAKS", "rank_standings", "standings_of", "PERFORMANCE_SPAN",
]

#: Rating points a game's share beaten moves the performance by: a win is worth +400 and a
#: loss -400 against the tablemates' mean rating (the linear rule of thumb used for
#: performance ratings in chess).
PERFORMANCE_SPAN = 400.0


def game_points(places: Sequence[int], seat: int) -> int:
    """The points of ``seat`` in a finished game: the tablemates it finished above.

    >>> [game_points((2, 0, 1), seat) for seat in range(3)]
    [0, 2, 1]
    """
    return len(places) - 1 - places[seat]


@dataclass(frozen=True)
class Meeting:
    """One finished game from one player's side: their place, their tablemates, and which of
    those they finished above."""

    place: int
    tablemates: tuple[int, ...]
    beaten: tuple[int, ...]


@dataclass
class Tally:
    """What one entrant's history adds up to (built by :func:`tally`).

    ``games`` counts finished games; ``seats`` counts every game paired, finished or not
    (seats are fair only if they count as soon as they are taken).
    """

    entrant: int
    players: int
    points: float = 0.0
    games: int = 0
    wins: int = 0
    byes: int = 0
    streak: int = 0
    seats: list[int] = field(default_factory=list)
    places: list[int] = field(default_factory=list)
    meetings: list[Meeting] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seats = self.seats or [0] * self.players
        self.places = self.places or [0] * self.players

    @property
    def fire(self) -> bool:
        """Whether the next game counts double (two wins in a row or more, arena only)."""
        return self.streak >= 2


def tally(history: History, players: int, bye_points: float, streaks: bool = False,
          entrants: Sequence[int] = ()) -> dict[int, Tally]:
    """Each entrant's points and games, for everyone in ``history`` and in ``entrants``.

    With ``streaks`` (an arena) a game played on fire (after two wins in a row) counts double,
    and the fire goes out after the first game that is not a win (that game still counts
    double, as a lost or drawn game on fire does on lichess).

    >>> from omega.pairing.model import Bye, Played
    >>> games = tuple(Played(0, (1, 2), (0, 1)) for _ in range(4))
    >>> t = tally(History(games=games), players=2, bye_points=0.0, streaks=True)
    >>> t[1].points, t[1].streak, t[1].fire   # 1 + 1, then 2 + 2 on fire
    (6.0, 4, True)
    """
    out: dict[int, Tally] = {}

    def get(entrant: int) -> Tally:
        if entrant not in out:
            out[entrant] = Tally(entrant, players)
        return out[entrant]

    for entrant in entrants:
        get(entrant)
    for game in history.games:
        for seat, entrant in enumerate(game.seats):
            get(entrant).seats[seat] += 1
        if game.places is None:
            continue
        for seat, entrant in enumerate(game.seats):
            t = get(entrant)
            place = game.places[seat]
            gained = float(game_points(game.places, seat))
            if streaks and t.fire:
                gained *= 2
            t.points += gained
            t.games += 1
            t.places[place] += 1
            t.wins += place == 0
            t.streak = t.streak + 1 if place == 0 else 0
            mates = tuple(e for e in game.seats if e != entrant)
            beaten = tuple(e for s, e in enumerate(game.seats) if game.places[s] > place)
            t.meetings.append(Meeting(place, mates, beaten))
    for bye in history.byes:
        t = get(bye.entrant)
        t.byes += 1
        t.points += bye_points
    return out


def buchholz(t: Tally, tallies: Mapping[int, Tally], ratings: Mapping[int, float] | None = None) -> float:
    """The sum of the points of every tablemate of every finished game.

    >>> from omega.pairing.model import Bye, Played
    >>> h = History(games=(Played(1, (1, 2), (0, 1)), Played(2, (1, 3), (1, 0)), Played(2, (2, 4), (0, 1))))
    >>> t = tally(h, 2, 1.0)
    >>> buchholz(t[1], t)   # met 2 (1 point) and 3 (1 point)
    2.0
    """
    return sum((tallies[m].points for meeting in t.meetings for m in meeting.tablemates), 0.0)


def sonneborn_berger(t: Tally, tallies: Mapping[int, Tally], ratings: Mapping[int, float] | None = None) -> float:
    """The sum of the points of every tablemate finished above.

    >>> from omega.pairing.model import Bye, Played
    >>> h = History(games=(Played(1, (1, 2), (0, 1)), Played(2, (1, 3), (1, 0)), Played(2, (2, 4), (0, 1))))
    >>> t = tally(h, 2, 1.0)
    >>> sonneborn_berger(t[1], t), sonneborn_berger(t[3], t)   # 1 beat 2 (1 point); 3 beat 1
    (1.0, 1.0)
    """
    return sum((tallies[m].points for meeting in t.meetings for m in meeting.beaten), 0.0)


def wins(t: Tally, tallies: Mapping[int, Tally], ratings: Mapping[int, float] | None = None) -> float:
    """Finished games won (first place).

    >>> from omega.pairing.model import Bye, Played
    >>> wins(tally(History(games=(Played(1, (1, 2, 3), (0, 1, 2)),)), 3, 1.0)[1], {})
    1.0
    """
    return float(t.wins)


def performance(t: Tally, tallies: Mapping[int, Tally], ratings: Mapping[int, float] | None = None) -> float:
    """The mean of (tablemates' mean rating + 400 x (2 x share beaten - 1)) over finished
    games; 0 without any.

    >>> from omega.pairing.model import Bye, Played
    >>> h = History(games=(Played(0, (1, 2), (0, 1)), Played(0, (3, 1), (0, 1))))
    >>> performance(tally(h, 2, 0.0)[1], {}, {1: 1500.0, 2: 1400.0, 3: 1600.0})  # (1800 + 1200) / 2
    1500.0
    """
    if not t.meetings or ratings is None:
        return 0.0
    total = 0.0
    for meeting in t.meetings:
        mean = sum(ratings.get(m, 0.0) for m in meeting.tablemates) / len(meeting.tablemates)
        share = len(meeting.beaten) / len(meeting.tablemates)
        total += mean + PERFORMANCE_SPAN * (2 * share - 1)
    return total / len(t.meetings)


#: Every tie-break by the name a format lists it under.
TIEBREAKS: dict[str, Callable[[Tally, Mapping[int, Tally], Mapping[int, float] | None], float]] = {
    "buchholz": buchholz,
    "sonneborn_berger": sonneborn_berger,
    "wins": wins,
    "performance": performance,
}


def rank_standings(entrants: Sequence[Entrant], tallies: Mapping[int, Tally],
                   tiebreak_names: Sequence[str]) -> list[Standing]:
    """The standings of ``entrants`` (each must have a tally): by points, then each tie-break in turn, best first.

    Entrants equal on points and every tie-break share a rank (1, 2, 2, 4) and are listed by
    rating (higher first), then id, so the order is always the same.

    >>> from omega.pairing.model import Bye, Played
    >>> field = [Entrant(1, 10.0), Entrant(2, 20.0), Entrant(3, 5.0)]
    >>> h = History(games=(Played(1, (1, 3), (0, 1)),), byes=(Bye(1, 2),))
    >>> [(s.entrant, s.rank, s.points) for s in rank_standings(field, tally(h, 2, 1.0), ())]
    [(2, 1, 1.0), (1, 1, 1.0), (3, 3, 0.0)]
    """
    ratings = {e.id: float(e.rating) for e in entrants}
    rows = []
    for e in entrants:
        t = tallies[e.id]
        breaks = tuple(TIEBREAKS[name](t, tallies, ratings) for name in tiebreak_names)
        rows.append((t, breaks, e))
    rows.sort(key=lambda row: (-row[0].points, *(-b for b in row[1]), -row[2].rating, row[2].id))
    out: list[Standing] = []
    for i, (t, breaks, e) in enumerate(rows):
        rank = i + 1
        if out and out[-1].points == t.points and out[-1].tiebreaks == breaks:
            rank = out[-1].rank
        out.append(Standing(entrant=e.id, rank=rank, points=t.points, tiebreaks=breaks, games=t.games,
                            wins=t.wins, byes=t.byes, seats=tuple(t.seats), places=tuple(t.places),
                            streak=t.streak, fire=t.fire))
    return out


def standings_of(entrants: Sequence[Entrant], history: History, players: int, bye_points: float,
                 tiebreak_names: Sequence[str], streaks: bool = False) -> list[Standing]:
    """A format's standings: ``entrants`` and ``history`` checked (every game's players among
    the entrants), tallied with the format's bye points and streaks, then ranked by its
    tie-breaks (every format's ``standings``).

    >>> from omega.pairing.model import Played
    >>> h = History(games=(Played(1, (1, 2), (0, 1)),))
    >>> [(s.entrant, s.points) for s in standings_of([Entrant(1, 0.0), Entrant(2, 0.0)], h, 2, 1.0, ("wins",))]
    [(1, 1.0), (2, 0.0)]
    """
    by_id = check_entrants(entrants)
    check_history(history, players, known=by_id)
    tallies = tally(history, players, bye_points, streaks=streaks, entrants=list(by_id))
    return rank_standings(entrants, tallies, tiebreak_names)

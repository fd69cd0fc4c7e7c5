"""The tournament formats (omega.pairing): examples a person can check by hand, properties over
random results, every bad input refused, and the pairing benchmark's figures."""

from __future__ import annotations

import doctest
import itertools
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omega.pairing import (
    Arena,
    Bye,
    Entrant,
    Format,
    History,
    Played,
    Round,
    RoundRobin,
    Swiss,
    format_named,
)
from omega.pairing.roundrobin import MAX_FIELD, schedule
from omega.pairing.seats import seat_history, seat_order

ROOT = Path(__file__).resolve().parent.parent


def field(n: int, rating: float = 2000.0) -> list[Entrant]:
    """Entrants 1..n, 1 the strongest."""
    return [Entrant(i, rating - i) for i in range(1, n + 1)]


def seats_of(games: Sequence[Played], players: int) -> dict[int, list[int]]:
    counts: dict[int, list[int]] = {}
    for game in games:
        for seat, x in enumerate(game.seats):
            counts.setdefault(x, [0] * players)[seat] += 1
    return counts


def spread(counts: Sequence[int]) -> int:
    return max(counts) - min(counts)


def placed_once(paired: Round, active: Sequence[Entrant], players: int) -> None:
    everyone = [x for table in paired.tables for x in table] + list(paired.byes)
    assert sorted(everyone) == sorted(e.id for e in active)
    assert all(len(table) == players for table in paired.tables)


# -- Swiss, 2 players: by hand ------------------------------------------------------------


def test_a_four_player_swiss_round_one_and_two() -> None:
    swiss = Swiss(players=2, rounds=3)
    four = field(4)
    # Round 1, one score group: the stronger half against the weaker half, in order; on equal
    # (empty) colour history the higher ranked is White.
    first = swiss.pair(four, History(), 1)
    assert first == Round(tables=((1, 3), (2, 4)))
    # 1 beats 3 as White; 4 beats 2 as Black.
    history = History(games=(Played(1, (1, 3), (0, 1)), Played(1, (2, 4), (1, 0))))
    # Round 2: the winners meet, the losers meet; each gets the colour they had less.
    assert swiss.pair(four, history, 2) == Round(tables=((4, 1), (3, 2)))


def test_the_odd_player_out_gets_one_bye_the_lowest_ranked_first() -> None:
    swiss = Swiss(players=2, rounds=3)
    five = field(5)
    first = swiss.pair(five, History(), 1)
    assert first.byes == (5,) and first.tables == ((1, 3), (2, 4))
    history = History(games=(Played(1, (1, 3), (1, 0)), Played(1, (2, 4), (0, 1))), byes=(Bye(1, 5),))
    # Scores: 2, 3, 5 on 1 point (5's from the bye: a win's point); 1, 4 on 0. The lowest
    # ranked without a bye is 4. Then 2 meets 3 (the 1-point group's halves) and 5 floats
    # down to 1 (3 and 1 have met); each gets the colour they had less.
    assert [s.points for s in swiss.standings(five, history)] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert swiss.pair(five, history, 2) == Round(tables=((3, 2), (5, 1)), byes=(4,))


def test_no_repeat_unless_nothing_else_pairs_everyone() -> None:
    swiss = Swiss(players=2, rounds=3)
    two = field(2)
    once = History(games=(Played(1, (1, 2), (0, 1)),))
    # Two players: the only pairing is the one they had; it is made, colours swapped.
    assert swiss.pair(two, once, 2) == Round(tables=((2, 1),))


def test_colours_follow_what_each_had_less_and_never_three_in_a_row_when_avoidable() -> None:
    # 1 had White twice, 2 had Black twice: 1 gets Black whatever the ranks say.
    assert seat_order((1, 2), {1: [0, 0], 2: [1, 1]}) == (2, 1)
    # Equal differences: the one whose last colour was White gets Black.
    assert seat_order((1, 2), {1: [1, 0], 2: [0, 1]}) == (2, 1)
    # Equal histories: White to the higher ranked.
    assert seat_order((1, 2), {1: [0, 1], 2: [0, 1]}) == (1, 2)


def test_the_pairing_does_not_depend_on_the_order_entrants_come_in() -> None:
    swiss = Swiss(players=2, rounds=4)
    entrants = field(11)
    history = History(games=(Played(1, (1, 6), (1, 0)), Played(1, (2, 7), (0, 1))), byes=(Bye(1, 11),))
    shuffled = entrants[::-1]
    assert swiss.pair(entrants, history, 2) == swiss.pair(shuffled, history, 2)


def test_a_withdrawn_player_is_not_paired_but_their_games_still_count() -> None:
    swiss = Swiss(players=2, rounds=3)
    four = field(4)
    history = History(games=(Played(1, (1, 3), (0, 1)), Played(1, (2, 4), (1, 0))))
    active = [e for e in four if e.id != 3]  # 3 withdraws
    paired = swiss.pair(active, history, 2)
    placed_once(paired, active, 2)
    assert 3 not in {x for t in paired.tables for x in t} | set(paired.byes)
    by_id = {s.entrant: s for s in swiss.standings(four, history)}
    assert by_id[1].tiebreaks[0] == 0.0 and by_id[3].games == 1  # 1 met 3, who scored 0


def test_games_still_played_count_as_met_and_for_colours_not_points() -> None:
    swiss = Swiss(players=2, rounds=3)
    four = field(4)
    running = History(games=(Played(1, (1, 3)), Played(1, (2, 4))))
    assert all(s.points == 0 and s.games == 0 for s in swiss.standings(four, running))
    second = swiss.pair(four, running, 2)
    assert {frozenset(t) for t in second.tables}.isdisjoint({frozenset((1, 3)), frozenset((2, 4))})
    assert all(table[0] in (3, 4) for table in second.tables)  # 1 and 2 had White


# -- tie-breaks by hand ---------------------------------------------------------------------


def test_buchholz_and_sonneborn_berger_on_a_small_history() -> None:
    # R1: 1 beats 2, 3 beats 4. R2: 1 beats 3, 4 beats 2. R3: 4 beats 1, 2 beats 3.
    games = (Played(1, (1, 2), (0, 1)), Played(1, (3, 4), (0, 1)), Played(2, (1, 3), (0, 1)),
             Played(2, (4, 2), (0, 1)), Played(3, (4, 1), (0, 1)), Played(3, (2, 3), (0, 1)))
    table = Swiss(players=2, rounds=3).standings(field(4), History(games=games))
    # Points 1: 2, 4: 2, 2: 1, 3: 1. Buchholz (opponents' points): 1: 1+1+2, 4: 1+1+2,
    # 2: 2+2+1, 3: 2+2+1. Sonneborn-Berger (points of those beaten): 1: 1+1, 4: 1+2, 2: 1, 3: 2.
    assert [(s.entrant, s.rank, s.points, s.tiebreaks) for s in table] == [
        (4, 1, 2.0, (4.0, 3.0)), (1, 2, 2.0, (4.0, 2.0)), (3, 3, 1.0, (5.0, 2.0)), (2, 4, 1.0, (5.0, 1.0)),
    ]
    assert [s.seats for s in table] == [(2, 1), (2, 1), (1, 2), (1, 2)]


def test_three_player_points_tiebreaks_and_a_shared_rank() -> None:
    # Game 1: 1 first, 2 second, 3 third. Game 2 (seats 3, 1, 2): 3 first, 2 second, 1 third.
    games = (Played(1, (1, 2, 3), (0, 1, 2)), Played(2, (3, 1, 2), (0, 2, 1)))
    entrants = [Entrant(1, 5.0), Entrant(2, 5.0), Entrant(3, 9.0)]
    table = RoundRobin(players=3).standings(entrants, History(games=games))
    # Points: 1: 2+0, 2: 1+1, 3: 0+2. Sonneborn-Berger: each beat tablemates worth 2+2 in all.
    # Wins: 1 and 3 one each, 2 none: 1 and 3 share rank 1 (listed by rating), 2 is third.
    assert [(s.entrant, s.rank, s.points, s.tiebreaks) for s in table] == [
        (3, 1, 2.0, (4.0, 1.0)), (1, 1, 2.0, (4.0, 1.0)), (2, 3, 2.0, (4.0, 0.0)),
    ]
    assert table[2].places == (0, 2, 0)


def test_arena_streaks_double_until_a_game_that_is_not_a_win() -> None:
    win, loss = (0, 1), (1, 0)
    results = [win, win, win, loss, win]  # 1, 1, then 2 on fire, 0 on fire, 1 after the fire went out
    games = tuple(Played(0, (1, 2), r) for r in results)
    me = Arena(players=2).standings([Entrant(1, 0.0), Entrant(2, 0.0)], History(games=games))
    one = next(s for s in me if s.entrant == 1)
    assert (one.points, one.streak, one.fire, one.wins) == (5.0, 1, False, 4)
    # 3 players: two wins (2 + 2), then second place on fire counts double (1 x 2).
    three = (Played(0, (1, 2, 3), (0, 1, 2)), Played(0, (1, 2, 3), (0, 1, 2)), Played(0, (1, 2, 3), (1, 0, 2)))
    table = Arena(players=3).standings([Entrant(i, 0.0) for i in (1, 2, 3)], History(games=three))
    assert {s.entrant: s.points for s in table} == {1: 6.0, 2: 4.0, 3: 0.0}


def test_arena_performance() -> None:
    games = (Played(0, (1, 2), (0, 1)), Played(0, (3, 1), (0, 1)))  # 1 beats 2 (1400), loses to 3 (1600)
    entrants = [Entrant(1, 1500.0), Entrant(2, 1400.0), Entrant(3, 1600.0)]
    table = {s.entrant: s for s in Arena(players=2).standings(entrants, History(games=games))}
    assert table[1].tiebreaks == ((1400 + 400 + 1600 - 400) / 2,)
    assert table[2].tiebreaks == (1500 - 400,)


# -- Swiss, 3-4 players ---------------------------------------------------------------------


def test_three_player_swiss_seats_top_scorers_together_and_rotates_seats() -> None:
    swiss = Swiss(players=3, rounds=3)
    six = field(6)
    first = swiss.pair(six, History(), 1)
    assert first == Round(tables=((1, 2, 3), (4, 5, 6)))
    # 3 and 6 win from the last seat, 2 and 5 second, 1 and 4 last.
    history = History(games=(Played(1, (1, 2, 3), (2, 1, 0)), Played(1, (4, 5, 6), (2, 1, 0))))
    second = swiss.pair(six, history, 2)
    # The two winners and the best second are together; nobody keeps their seat.
    assert set(second.tables[0]) == {3, 6, 2}
    for table in second.tables:
        for seat, x in enumerate(table):
            assert seat != seat_history(history)[x][0]


def test_three_player_swiss_byes_go_to_the_lowest_ranked_without_one() -> None:
    swiss = Swiss(players=3, rounds=3)
    seven = field(7)
    first = swiss.pair(seven, History(), 1)
    assert first.byes == (7,)
    history = History(games=tuple(Played(1, t, (0, 1, 2)) for t in first.tables), byes=(Bye(1, 7),))
    assert swiss.standings(seven, history)[0].points == 2.0
    assert next(s for s in swiss.standings(seven, history) if s.entrant == 7).points == 1.0  # an average game
    assert swiss.pair(seven, history, 2).byes == (6,)


def test_an_identical_table_is_not_repeated_when_a_swap_avoids_it() -> None:
    swiss = Swiss(players=3, rounds=4)
    # 1, 2, 3 played round 1 (4, 5, 6 have left); 7, 8, 9 join with no games. By standings the
    # cut would seat 1, 2, 3 together again (3's Buchholz puts it above the newcomers).
    history = History(games=(Played(1, (1, 2, 3), (0, 1, 2)), Played(1, (4, 5, 6), (0, 1, 2))))
    active = [e for e in field(9) if e.id not in (4, 5, 6)]
    assert [s.entrant for s in swiss.standings(field(9), history)][:3] == [1, 4, 2]
    second = swiss.pair(active, history, 2)
    placed_once(second, active, 3)
    assert frozenset((1, 2, 3)) not in {frozenset(t) for t in second.tables}


# -- round robin ----------------------------------------------------------------------------


def test_the_berger_table_for_four() -> None:
    rr = RoundRobin(players=2)
    assert [rr.pair(field(4), History(), r).tables for r in (1, 2, 3)] == [
        ((1, 4), (2, 3)), ((4, 3), (1, 2)), ((2, 4), (3, 1)),
    ]


def test_the_berger_table_for_five_uses_six_with_a_rest() -> None:
    # FIDE's table for 5-6 players: 1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 /
    # 3-6 4-2 5-1; whoever meets 6 rests.
    rr = RoundRobin(players=2)
    rounds = [rr.pair(field(5), History(), r) for r in range(1, 6)]
    assert [r.tables for r in rounds] == [
        ((2, 5), (3, 4)), ((5, 3), (1, 2)), ((3, 1), (4, 5)), ((1, 4), (2, 3)), ((4, 2), (5, 1)),
    ]
    assert [r.byes for r in rounds] == [(1,), (4,), (2,), (5,), (3,)]


def test_a_three_player_round_robin_of_three_gives_each_seat_once() -> None:
    rr = RoundRobin(players=3)
    trio = [Entrant(i, 0.0) for i in (10, 20, 30)]
    assert rr.rounds_for(3) == 3
    tables = [rr.pair(trio, History(), r).tables for r in (1, 2, 3)]
    assert tables == [((10, 20, 30),), ((30, 10, 20),), ((20, 30, 10),)]
    games = [Played(r, t[0], (0, 1, 2)) for r, t in enumerate(tables, 1)]
    assert all(c == [1, 1, 1] for c in seats_of(games, 3).values())


def test_round_robin_rounds_per_field() -> None:
    # docs/tournaments.md lists these; everyone rests equally often.
    assert [RoundRobin(3).rounds_for(n) for n in range(3, MAX_FIELD + 1)] == [3, 4, 5, 4, 7, 8, 4]
    assert [RoundRobin(4).rounds_for(n) for n in range(4, MAX_FIELD + 1)] == [4, 5, 3, 7, 3, 9]
    assert [RoundRobin(2).rounds_for(n) for n in (2, 3, 8, 9)] == [1, 3, 7, 9]


def test_a_withdrawal_from_a_round_robin_leaves_its_tablemates_resting() -> None:
    rr = RoundRobin(players=2)
    four = field(4)
    history = History(games=(Played(1, (1, 4), (0, 1)), Played(1, (2, 3), (0, 1))))
    without_3 = [e for e in four if e.id != 3]
    # Round 2 is 4-3 and 1-2: with 3 gone, 4 rests.
    assert rr.pair(without_3, history, 2) == Round(tables=((1, 2),), byes=(4,))


# -- arena ----------------------------------------------------------------------------------


def test_arena_pairs_the_waiting_by_standing_and_avoids_the_last_opponent() -> None:
    arena = Arena(players=2)
    entrants = field(6)
    history = History(games=(Played(1, (1, 2), (0, 1)), Played(1, (3, 4), (0, 1))))
    paired = arena.pair(entrants, history, 2, waiting=[1, 2, 3, 4, 5])
    # By standing: 1, 3 (a point each), then 2, 4, 5. 1 and 3 meet; 2 does not meet 1 again;
    # 5 waits (the lowest placed of an odd number).
    assert {frozenset(t) for t in paired.tables} == {frozenset((1, 3)), frozenset((2, 4))}
    assert paired.byes == (5,)
    # Two waiting who just met: no one else is there, so they meet again.
    assert arena.pair(entrants, history, 2, waiting=[3, 4]).tables in (((3, 4),), ((4, 3),))


def test_arena_pairs_nobody_while_fewer_than_a_table_wait() -> None:
    paired = Arena(players=4).pair(field(8), History(), 1, waiting=[8, 2, 5])
    assert paired == Round(tables=(), byes=(2, 5, 8))


# -- every bad input: ValueError with a clear message, nothing else ------------------------


@pytest.mark.parametrize(("make", "message"), [
    (lambda: format_named("knockout", 2), "unknown tournament format 'knockout'; choose one of swiss"),
    (lambda: format_named("swiss", 5, 3), "players must be 2, 3 or 4, got 5"),
    (lambda: format_named("arena", 1), "players must be 2, 3 or 4, got 1"),
    (lambda: format_named("swiss", 2), "a Swiss needs its number of rounds"),
    (lambda: format_named("swiss", 2, 0), "a Swiss needs at least 1 round, got 0"),
    (lambda: format_named("round_robin", 2, 3), "a round robin takes no rounds"),
    (lambda: Played(1, (1, 2), (1, 1)), "places must be each of 0 to 1 once"),
    (lambda: Played(1, (1, 2, 3), (0, 1)), "places must be each of 0 to 2 once"),
    (lambda: Played(1, (1, 1), (0, 1)), "an entrant holds two seats of one game"),
    (lambda: Played(1, (1,), (0,)), "a game has 2 to 4 seats"),
    (lambda: Played(-1, (1, 2)), "a game's round must be a whole number from 0"),
    (lambda: Entrant(1, float("nan")), "entrant 1's rating must be a finite number"),
    (lambda: Swiss(2, 3).pair([Entrant(1, 0.0), Entrant(1, 1.0)], History(), 1), "entrant 1 is entered twice"),
    (lambda: Swiss(2, 3).standings(field(2), History(games=(Played(1, (1, 9), (0, 1)),))),
     "a game of round 1 seats 9, who is not an entrant"),
    (lambda: Swiss(2, 3).standings(field(2), History(byes=(Bye(1, 9),))), "names entrant 9, who is not an entrant"),
    (lambda: Swiss(3, 3).pair(field(3), History(games=(Played(1, (1, 2), (0, 1)),)), 2),
     "a game of round 1 has 2 seats; this tournament's tables have 3"),
    (lambda: Swiss(2, 3).pair(field(4), History(), 4), "round must be from 1 to 3 in a 3-round Swiss, got 4"),
    (lambda: Swiss(2, 3).pair(field(4), History(), 1, waiting=[1]), "waiting is for an arena"),
    (lambda: RoundRobin(2).pair(field(4), History(), 4), "round must be from 1 to 3"),
    (lambda: RoundRobin(3).pair(field(10), History(), 1), "takes 3 to 9 entrants, got 10"),
    (lambda: RoundRobin(4).rounds_for(3), "takes 4 to 9 entrants, got 3"),
    (lambda: Arena(2).pair(field(4), History(), 1), "an arena pairs the waiting entrants: pass waiting"),
    (lambda: Arena(2).pair(field(4), History(), 1, waiting=[1, 7]), "waiting entrant 7 is not an active entrant"),
    (lambda: Arena(2).pair(field(4), History(), -1, waiting=[1]), "round must be at least 0 in an arena"),
])
def test_bad_input_is_refused_with_a_clear_message(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


# -- properties over random results -------------------------------------------------------


def play_round(paired: Round, number: int, rng: random.Random, players: int) -> list[Played]:
    games = []
    for table in paired.tables:
        places = list(range(players))
        rng.shuffle(places)
        games.append(Played(number, table, tuple(places)))
    return games


def clean_pairing_exists(active: Sequence[int], games: Sequence[Played], byes: Sequence[Bye]) -> bool:
    """Whether ``active`` could be paired with no repeat and no second bye (2 players)."""
    met = {frozenset(p) for g in games for p in itertools.combinations(g.seats, 2)}
    had = {b.entrant for b in byes}
    graph: nx.Graph[object] = nx.Graph()
    graph.add_nodes_from(active)
    graph.add_edges_from((a, b) for a, b in itertools.combinations(active, 2) if frozenset((a, b)) not in met)
    if len(active) % 2:
        graph.add_edges_from((x, "bye") for x in active if x not in had)
    return len(nx.max_weight_matching(graph, maxcardinality=True)) == (len(active) + 1) // 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 18), rounds=st.integers(1, 8), seed=st.integers(0, 10**6), withdraw=st.booleans())
def test_swiss_two_players_properties(n: int, rounds: int, seed: int, withdraw: bool) -> None:
    rng = random.Random(seed)
    entrants = [Entrant(i, rng.choice([1.0, 2.0, 3.0, rng.uniform(0.0, 3.0)])) for i in range(1, n + 1)]
    swiss = Swiss(players=2, rounds=rounds)
    games: list[Played] = []
    byes: list[Bye] = []
    active = list(entrants)
    for number in range(1, rounds + 1):
        if withdraw and number > 1 and len(active) > 2:
            active.pop(rng.randrange(len(active)))
        rng.shuffle(active)
        clean = clean_pairing_exists([e.id for e in active], games, byes)
        paired = swiss.pair(active, History(tuple(games), tuple(byes)), number)
        placed_once(paired, active, 2)
        met = {frozenset(p) for g in games for p in itertools.combinations(g.seats, 2)}
        had = {b.entrant for b in byes}
        if clean:  # no repeat and no second bye while the round can avoid them
            assert not any(frozenset(t) in met for t in paired.tables)
            assert not any(x in had for x in paired.byes)
        assert len(paired.byes) == len(active) % 2
        games += play_round(paired, number, rng, 2)
        byes += [Bye(number, x) for x in paired.byes]
        if rounds < n - 1:
            # (With n - 1 rounds or more a Swiss is a round robin in disguise: its last rounds
            # are forced, and no repeat comes before colours.)
            assert max(abs(w - b) for w, b in seats_of(games, 2).values()) <= 2
    if rounds <= n - 1 + n % 2 and not withdraw:
        # Enough players for everyone to meet someone new each round: a bye at most once each.
        assert max(Counter(b.entrant for b in byes).values(), default=0) <= 1


@settings(max_examples=30, deadline=None)
@given(players=st.sampled_from([3, 4]), tables=st.integers(1, 5), extra=st.integers(0, 3),
       rounds=st.integers(1, 8), seed=st.integers(0, 10**6))
def test_swiss_tables_properties(players: int, tables: int, extra: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    n = tables * players + extra % players
    entrants = [Entrant(i, rng.uniform(0.0, 3.0)) for i in range(1, n + 1)]
    swiss = Swiss(players=players, rounds=rounds)
    games: list[Played] = []
    byes: list[Bye] = []
    for number in range(1, rounds + 1):
        paired = swiss.pair(entrants, History(tuple(games), tuple(byes)), number)
        placed_once(paired, entrants, players)
        assert len(paired.byes) == n % players
        games += play_round(paired, number, rng, players)
        byes += [Bye(number, x) for x in paired.byes]
        worst = max(spread(c) for c in seats_of(games, players).values())
        # Full tables: every player's seats stay within one of each other (so after a multiple
        # of `players` rounds each has had each seat equally often). With byes a player may
        # fall one game behind in a seat.
        assert worst <= (1 if n % players == 0 else 2)
    if rounds * (n % players) <= n:
        assert max(Counter(b.entrant for b in byes).values(), default=0) <= 1


@settings(max_examples=25, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), n=st.integers(2, MAX_FIELD), seed=st.integers(0, 10**6))
def test_round_robin_properties(players: int, n: int, seed: int) -> None:
    if n < players:
        return
    rng = random.Random(seed)
    entrants = [Entrant(i, rng.uniform(0.0, 3.0)) for i in rng.sample(range(1, 100), n)]
    rr = RoundRobin(players=players)
    rounds = rr.rounds_for(n)
    assert rounds is not None
    games: list[Played] = []
    for number in range(1, rounds + 1):
        paired = rr.pair(entrants, History(tuple(games)), number)
        placed_once(paired, entrants, players)
        games += play_round(paired, number, rng, players)
        worst = max(spread(c) for c in seats_of(games, players).values())
        assert worst <= (2 if players == 2 else 1)
    met = Counter(frozenset(p) for g in games for p in itertools.combinations(g.seats, 2))
    assert all(met[frozenset(p)] >= 1 for p in itertools.combinations([e.id for e in entrants], 2))
    assert len(set(Counter(x for g in games for x in g.seats).values())) == 1  # everyone plays as often
    counts = seats_of(games, players)
    if players == 2:
        assert all(met[pair] == 1 for pair in met)
        assert max(abs(w - b) for w, b in counts.values()) <= 1
    if n == players > 2:  # one table, seats turning: each seat once
        assert all(c == [1] * players for c in counts.values())


@settings(max_examples=25, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), n=st.integers(2, 14), waves=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_arena_properties(players: int, n: int, waves: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = [Entrant(i, rng.uniform(0.0, 3.0)) for i in range(1, n + 1)]
    arena = Arena(players=players)
    games: list[Played] = []
    for wave in range(waves):
        waiting = [e.id for e in entrants if rng.random() < 0.8]
        paired = arena.pair(entrants, History(tuple(games)), wave, waiting=waiting)
        everyone = [x for t in paired.tables for x in t] + list(paired.byes)
        assert sorted(everyone) == sorted(waiting)
        assert len(paired.byes) == (len(waiting) if len(waiting) < players else len(waiting) % players)
        games += play_round(paired, wave, rng, players)


@settings(max_examples=20, deadline=None)
@given(fmt=st.sampled_from([Swiss(2, 4), Swiss(3, 4), RoundRobin(2), RoundRobin(3)]), seed=st.integers(0, 10**6))
def test_pairing_ignores_the_order_of_the_entrants(fmt: Format, seed: int) -> None:
    rng = random.Random(seed)
    entrants = [Entrant(i, float(rng.randint(1, 5))) for i in range(1, 8)]
    games: list[Played] = []
    byes: list[Bye] = []
    for number in (1, 2, 3):
        history = History(tuple(games), tuple(byes))
        paired = fmt.pair(entrants, history, number)
        assert fmt.pair(rng.sample(entrants, len(entrants)), history, number) == paired
        assert fmt.standings(rng.sample(entrants, len(entrants)), history) == fmt.standings(entrants, history)
        games += play_round(paired, number, rng, fmt.players)
        byes += [Bye(number, x) for x in paired.byes]


def test_a_schedule_meets_every_pair() -> None:
    for players in (3, 4):
        for n in range(players + 1, MAX_FIELD + 1):
            met = {frozenset(p) for tables in schedule(n, players) for t in tables
                   for p in itertools.combinations(t, 2)}
            assert len(met) == n * (n - 1) // 2


# -- the page and the benchmark ------------------------------------------------------------


def test_the_tournaments_page_examples_run() -> None:
    page = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    assert blocks
    runner = doctest.DocTestRunner()
    for number, block in enumerate(blocks, start=1):
        runner.run(doctest.DocTestParser().get_doctest(block, {}, f"python block {number}", "tournaments.md", 0))
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5 and result.failed == 0


def test_the_tournaments_page_lists_the_round_robin_rounds() -> None:
    page = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
    for players in (3, 4):
        row = next(line for line in page.splitlines() if line.startswith(f"| {players} at a table |"))
        listed = [int(cell) for cell in row.split("|")[2:-1] if cell.strip()]
        assert listed == [RoundRobin(players).rounds_for(n) for n in range(players, MAX_FIELD + 1)]


def test_the_pairing_benchmark_prints_its_figures() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "pairing.py"), "--entrants", "30", "--rounds", "4",
                           "--events", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["pairings"] == 4 and figures["entrants"] == 30
    assert 0 < figures["median_s"] <= figures["worst_s"]
    assert figures["complete_graph_s"] > 0 and figures["floaters"] >= 0

"""The MCTS bot: Monte Carlo tree search with RAVE, compiled with Numba.

Search tree
    A turn (one stone of every colour) is split into single-stone plies: the mover's own
    colour first, then the following colours in turn order.  Since the stones of a turn
    commute, fixing that order loses nothing and turns a turn's ``E**N`` combinations
    into ``N`` choices among ``E`` cells (move grouping).  Every ply of a turn belongs to
    the player whose turn it is: that player picks all of its stones.
Selection
    UCT on the mover's mean reward blended with RAVE (all-moves-as-first) statistics: an
    edge "colour ``k`` on cell ``x``" also learns from every simulation below its node that
    ended with a ``k`` stone on ``x``, whoever put it there and whenever, which is exactly
    what commuting stones allow.  Edges are expanded into nodes on their second visit.
Pattern prior
    At a node's 8th visit each of its stones gets a few virtual AMAF simulations valued
    by the learnt weight of what the stone sees of its six neighbours
    (:mod:`omega.ai.patterns`, :func:`omega.ai.tree.add_prior`): what long searches
    chose, guessed at before the node's own simulations can tell.
Simulation
    Uniform random stones to the end of the game (the kernel's playout), fully scored.
Reward
    Each player maximises their own result (so 3 and 4 players back up a vector): 1 for
    a win, 0 for a loss, mixed with a small share of the log-score margin
    (:func:`omega.ai.tree.margin_weight`: a fifth with three players, a twentieth
    otherwise) so that among won (or lost) lines the bigger margin is preferred.  Taking
    the others to play against the searching player instead (paranoid) measured worse.
Both cores (root parallelism)
    ``threads`` threads (the kernels release the GIL) search a tree each, with its own
    random stream, and their statistics are added ply by ply at the end; seeded
    iteration budgets stay reproducible.  The other way, ``parallel="tree"``, has the
    threads search one shared tree, each with its own stretch of the pools for new nodes
    and a virtual loss on its path to steer the others elsewhere; it fills one deeper tree
    when the second core is busy with other work, but on a free machine the two threads
    fight over the cache lines of the top nodes they both update, and search about as
    many iterations as one thread alone.
Tree reuse
    Between turns of one game the bot keeps, in each tree, the subtree under the stones
    actually played since its last search (its own turn and the opponents' turns it sees
    through :meth:`MctsBot.choose`), moved to the front of the pools.  A position that
    does not continue the last one simply starts from an empty tree.
Bounded memory
    The pools have a fixed size.  When one is nearly full the search recycles it: the
    nodes with the fewest visits are cut off (their parent edges keep their statistics)
    and the rest is compacted, so the tree goes on deepening at any thinking time.
Time
    A turn's budget (seconds and/or iterations) is the per-turn figure weighted by the
    stage of the game (:data:`STAGE_WEIGHT`: the weights average one over the bot's turns
    of a game).  A search stops early once no remaining simulation could change the turn
    (at each of its plies the leader's visit lead is larger than the simulations left);
    seconds saved that way are banked and spent on the following turns of the same game
    (each turn takes the bank divided by half the bot's turns left).
Pie rule
    As Black's player after turn 1, the bot searches the position and swaps when Black's
    value is below one half (White is ahead, so taking White is better).  As White's
    player on turn 1 with the pie rule on, it plays the searched turn whose value is
    closest to one half, leaving the opponent nothing to gain by the choice.

The search runs in chunks of iterations; between chunks it checks the clock and
:meth:`MctsBot.cancel`.  The web server runs bots in worker processes, so a long search
never blocks a caller.

The first version of this bot (one tree on one core, no reuse, an even split of time, a
tree that stops growing when full) stays available as the bot ``mcts-v1``, with the budgets
of its own five levels, to measure the current one against.

>>> from omega import Game
>>> bot = MctsBot(iterations=200, seed=1)
>>> g = Game(players=2, size=4); g.play(bot.choose(g)); g.turns_played
1
"""

from __future__ import annotations

import math
import threading
import time as _time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from omega.ai import levels
from omega.ai.greedy import greedy_cells
from omega.ai.net import load_net, trained_players
from omega.ai.simulation import MAST_SIZE, MAX_MAST, Mast
from omega.ai.tree import (
    MARGIN_WEIGHT,
    RECYCLE_AT,
    Prior,
    Tree,
    compact,
    margin_weight,
    nearly_full,
    recycle,
    run_iterations,
)
from omega.board import cell_count
from omega.game import SWAP, Action, Game, IllegalMove
from omega.kernel import MAX_COLORS, KernelState, seed_state

__all__ = ["MctsBot", "SearchResult", "V1_LEVELS", "bank_share", "stage_weights"]

#: Edges in all of one bot's pools together (about 28 bytes each: about 112 MB).
MAX_EDGES = 4_000_000

#: Weight of a turn's budget by the stage of the game (the share ``f`` of the bot's turns
#: already played, 0 to 1): ``1 - STAGE_WEIGHT + STAGE_WEIGHT * tent(f)``, a tent peaking
#: at :data:`STAGE_PEAK`; the weights are then scaled to average one over the game.
STAGE_WEIGHT = 0.6
STAGE_PEAK = 0.35

#: No turn gets more than this many times the per-turn budget, banked seconds included.
MAX_SHARE = 2.0

#: Threads (trees) by default: both cores of the machine the bot was built for.
DEFAULT_THREADS = 2
#: The ways to use several threads: ``root``, one tree per thread, their statistics added
#: at the end (the default); ``tree``, all threads on one shared tree with virtual losses.
PARALLEL = ("root", "tree")

#: Share of a kept tree's statistics carried into the next turn's search: kept whole,
#: they made the bot weaker (a stale favourite is hard to overturn with c = 0).
KEEP = 0.3

#: The pattern prior (:func:`omega.ai.tree.add_prior`): virtual AMAF simulations a stone
#: gets, and their value per unit of pattern weight.  Tuned at 20 000 iterations a turn
#: on side 5 (docs/measured/2026-12-02-search-experiments.md).
PRIOR_VISITS = 20.0
PRIOR_SCALE = 0.1

#: The learnt network's prior (``net=1``; :func:`omega.ai.tree.add_net_prior`): the visit
#: at which a node asks it, the virtual AMAF simulations a stone gets, their value per unit
#: of log-probability, the share of the network's value in their level, and the
#: simulations its value counts for on the edge into the node.
NET_AT = 32
NET_VISITS = 50.0
NET_SCALE = 0.2
NET_MIX = 0.5
NET_VALUE = 0.0

#: An iteration budget smaller than this is searched on one tree whatever ``threads``
#: says: split in two, a small budget loses more strength than the time it saves.
MIN_SPLIT = 100_000


# ---------------------------------------------------------------------------------------
# The Python face.


@dataclass
class SearchResult:
    """What a search found: the turn (cells by colour index), the root value for the
    mover, the iterations run and the time taken.

    ``values`` holds each colour's mean reward at the root over this search's simulations
    (colour order; about the colour's chance of winning, the margin adding at most
    :data:`omega.ai.tree.MARGIN_WEIGHT`).
    """

    cells: list[int]
    value: float
    iterations: int
    seconds: float
    #: The mover's mean reward over the simulations through the chosen turn's deepest
    #: searched stone (None when the tree did not reach it).
    turn_value: float | None = None
    values: list[float] = field(default_factory=list)
    #: Simulations already in the tree when the search started (kept from earlier turns).
    reused: int = 0
    #: Most edges in use in the pools at once, and how many times they were recycled.
    edges: int = 0
    recycled: int = 0
    #: Each searched stone of the chosen turn, in the order the tree places them: the
    #: cells it could go on and their visits (what self-play learns from; the stones the
    #: search did not reach, or a pie-rule opening's, are left out).
    plies: list[tuple[list[int], list[float]]] = field(default_factory=list)


def stage_weights(turns: int, weight: float = STAGE_WEIGHT, peak: float = STAGE_PEAK) -> list[float]:
    """The budget factors of a player's ``turns`` turns of a game, averaging one.

    >>> [round(w, 2) for w in stage_weights(5)]
    [0.97, 1.31, 1.24, 0.91, 0.58]
    >>> stage_weights(3, weight=0.0)
    [1.0, 1.0, 1.0]
    """
    if turns <= 1:
        return [1.0] * max(turns, 0)
    span = max(peak, 1.0 - peak)
    raw = [1.0 - weight + weight * (1.0 - abs(k / (turns - 1) - peak) / span) for k in range(turns)]
    mean = sum(raw) / turns
    return [w / mean for w in raw]


def bank_share(bank: float, turns_left: int) -> float:
    """The banked seconds a turn may add when the bot has ``turns_left`` turns to play,
    this one included: the bank divided by half of them.  Not by all of them: the last
    turns are nearly settled and stop early, so a share kept for them would mostly be
    banked again and never spent.

    >>> bank_share(3.0, 6), bank_share(3.0, 3), bank_share(3.0, 1)
    (1.0, 3.0, 3.0)
    """
    return bank / max(1, turns_left // 2)


@dataclass(eq=False, repr=False)  # a bot is compared and shown as an object, not by its settings
class MctsBot:
    """Monte Carlo tree search with RAVE; see the module doc for the design.

    ``iterations`` and ``time`` (seconds) bound each turn's search (whichever comes
    first; ``level`` picks both from :data:`omega.ai.levels.LEVELS`).  ``seed`` makes
    iteration-bounded searches reproducible.  ``threads`` threads search at once
    (``parallel``: ``"root"``, a tree each, the default, or ``"tree"``, one shared tree; budgets below
    :data:`MIN_SPLIT` use one); ``reuse`` keeps the tree between turns, its statistics
    scaled by ``keep``; ``manage`` weights each turn's budget by the stage of the game and
    stops a settled search early; ``recycle`` frees the least-visited nodes when the pools
    (``max_edges`` in all) fill up, otherwise the tree stops growing.  ``c`` (exploration),
    ``rave`` (RAVE bias constant; negative turns RAVE off), ``expand`` (visits before an
    edge becomes a node), ``prior`` (virtual simulations of the pattern prior; 0 turns it
    off), ``prior_scale`` (their value per unit of pattern weight), ``margin`` (the share of a
    simulation's reward given by its score margin; None: :func:`~omega.ai.tree.margin_weight`),
    ``mast`` (how many random cells a stone of a simulation picks the best of by what the
    search's simulations learnt, :func:`~omega.ai.simulation.mast_fill`; 0 or 1: uniformly random
    simulations; None: :data:`~omega.ai.simulation.MAST_SIZE`, or :data:`omega.ai.levels.MAST` for a level) and
    ``paranoid`` (how far the other players are taken to play against this one rather than
    for themselves, 0 to 1) are for tuning (``docs/measured/2026-12-06-multiplayer-search.md``).
    ``first_version`` searches with the first version's arithmetic and loops, and no
    prior (``mcts-v1``: the same games at the same speed).  ``net`` asks the learnt network
    of :mod:`omega.ai.net` at each node's visit ``net_at`` instead of the pattern prior (in
    games of the player counts it was trained on), with ``net_visits``, ``net_scale``,
    ``net_mix`` and ``net_value`` as :class:`omega.ai.tree.Prior` describes.

    >>> bot = MctsBot(iterations=MIN_SPLIT, seed=1)
    >>> bot.threads, bot.parallel, MctsBot(iterations=600).threads
    (2, 'root', 1)
    """

    iterations: int | None = None
    time: float | None = None
    level: int | None = None
    seed: int | None = None
    c: float = 0.0
    rave: float = 0.002
    expand: int = 2
    threads: int = DEFAULT_THREADS
    reuse: bool = True
    manage: bool = True
    recycle: bool = True
    max_edges: int = MAX_EDGES
    keep: float = KEEP
    parallel: str = PARALLEL[0]
    name: str = "mcts"
    first_version: bool = False
    prior: float = PRIOR_VISITS
    prior_scale: float = PRIOR_SCALE
    paranoid: float = 0.0
    margin: float | None = None
    mast: int | None = None
    blunder: float | None = None
    net: bool = False
    net_at: int = NET_AT
    net_visits: float = NET_VISITS
    net_scale: float = NET_SCALE
    net_mix: float = NET_MIX
    net_value: float = NET_VALUE

    def __post_init__(self) -> None:
        # The settings as given are the fields; what follows derives the ones that depend
        # on others (a level's budget, one tree for small budgets, no prior for mcts-v1).
        level, iterations, time, seed = self.level, self.iterations, self.time, self.seed
        if level is not None:
            budget = levels.level(level)
            iterations = budget.iterations if iterations is None else iterations
            time = budget.seconds if time is None else time
            self.blunder = budget.blunder if self.blunder is None else self.blunder
        self.blunder = self.blunder or 0.0
        if not 0.0 <= self.blunder <= 1.0:
            raise ValueError(f"blunder must be from 0 to 1, got {self.blunder!r}")
        if iterations is None and time is None:
            time = 1.0
        self.iterations, self.time = iterations, time
        small = iterations is not None and iterations < MIN_SPLIT
        self.threads = 1 if small else max(1, self.threads)
        if self.first_version:
            self.prior = 0.0
            self.mast = 0
        elif self.mast is None:
            # A level plays as the ladder measured it (levels.MAST), whatever the search gains since.
            self.mast = levels.MAST if level is not None else MAST_SIZE
        if not 0 <= self.mast <= MAX_MAST:
            raise ValueError(f"mast must be from 0 to {MAX_MAST}, got {self.mast!r}")
        if self.parallel not in PARALLEL:
            raise ValueError(f"parallel must be one of {', '.join(PARALLEL)}, got {self.parallel!r}")
        parts = [f"level={level}"] if level is not None else []
        if iterations is not None and level is None:
            parts.append(f"iterations={iterations}")
        if time is not None and level is None:
            parts.append(f"time={time:g}")
        if self.blunder and level is None:
            parts.append(f"blunder={self.blunder:g}")
        if seed is not None:
            parts.append(f"seed={seed}")
        if parts:
            self.name += ":" + ",".join(parts)
        self._rng = np.random.default_rng(seed)
        self._trees: list[Tree] = []
        #: The game (settings and history) at the root of the kept trees; None: nothing kept.
        self._kept: tuple[tuple[int, int, bool], tuple[Action, ...]] | None = None
        #: Seconds saved by early stops, to spend on later turns of the same game.
        self._bank = 0.0
        #: Simulations in the subtrees kept for the next search (before scaling by ``keep``).
        self._reused = 0
        self._cancel = threading.Event()
        self.last: SearchResult | None = None

    def take_tree(self, other: object) -> None:
        """Continue from the trees ``other`` (an earlier bot of the same kind) kept, if
        its settings match; the next :meth:`choose` uses them only if its game continues
        the position ``other`` last searched, and starts afresh otherwise.

        >>> from omega import Game
        >>> first, then = MctsBot(iterations=300, seed=1), MctsBot(iterations=300, seed=2)
        >>> g = Game(players=2, size=4); g.play(first.choose(g))
        >>> then.take_tree(first); g.play(then.choose(g)); then.last.reused > 0
        True
        """
        if (isinstance(other, MctsBot) and other is not self and other.threads == self.threads
                and other.parallel == self.parallel and other.max_edges == self.max_edges and self.reuse):
            self._trees, self._kept, self._bank = other._trees, other._kept, other._bank
            other._trees, other._kept = [], None

    def cancel(self) -> None:
        """Stop the running search (from another thread) after its current chunk, or the
        next one if none is running; the bot then plays the best turn found so far."""
        self._cancel.set()

    def choose(self, game: Game) -> Action:
        """The searched action for the side to move: a turn in colour order, or ``"swap"``."""
        if game.is_over:
            raise IllegalMove("the game is over")
        state = KernelState.from_game(game)
        pie_opening = game.pie_rule and game.turns_played == 0
        if not self._continue(game):
            for tree in self._trees:
                tree.reset()
            self._bank = 0.0
        scale, bonus = self._budget_share(state)
        result = self._run(state, pie_opening, scale, bonus)
        self._kept = ((game.players, game.size, game.pie_rule), game.history) if self.reuse else None
        if game.can_swap and result.value < 0.5:
            return SWAP
        cells = result.cells if not self.blunder else self._blunders(state, result.cells)
        return tuple(game.cells[i] for i in cells)

    def _blunders(self, state: KernelState, cells: list[int]) -> list[int]:
        """``cells`` with each stone, with probability ``blunder``, moved to an empty cell
        drawn at random (the weakest levels: a beginner's turn is mostly sensible, with
        stones put down without a plan)."""
        rng, chance = self._rng, self.blunder or 0.0
        empties = [int(c) for c in state.empties() if int(c) not in cells]
        out = list(cells)
        for colour, cell in enumerate(cells):
            if cell >= 0 and empties and rng.random() < chance:
                out[colour] = empties.pop(int(rng.integers(len(empties))))
        return out

    def search(self, state: KernelState, balanced: bool = False) -> SearchResult:
        """Search ``state`` (at the start of a turn) from an empty tree and return the
        chosen turn (the whole per-turn budget, without weighting by the stage)."""
        for tree in self._trees:
            tree.reset()
        self._kept = None
        self._reused = 0
        return self._run(state, balanced, 1.0, 0.0)

    # -- between turns ------------------------------------------------------------------

    def _continue(self, game: Game) -> bool:
        """Move each kept tree's root to ``game``'s position if ``game`` continues the
        position last searched; False if there is nothing to keep."""
        if self._kept is None or not self.reuse or not self._trees:
            return False
        settings, history = self._kept
        if settings != (game.players, game.size, game.pie_rule) or game.history[:len(history)] != history:
            return False
        index = game.board.index
        players = game.players
        # The kept root is at the start of the turn of the colour to move back then.
        turn = sum(1 for a in history if a != SWAP) % players
        plies = []
        for action in game.history[len(history):]:
            if action == SWAP:
                continue  # a swap changes who holds a colour, not the position
            plies += [index(action[(turn + j) % players]) for j in range(players)]
            turn = (turn + 1) % players
        for tree in self._trees:
            node = tree.root
            for cell in plies:
                node = tree.child(node, cell) if node >= 0 else -1
            if node < 0:
                tree.reset()
            else:
                compact(tree, node, 0.0)
                self._reused += int(tree.node_n[tree.root])
                if self.keep < 1.0:
                    nodes, used = int(tree.meta[0]), int(tree.meta[1])
                    tree.node_n[:nodes] *= self.keep
                    for stats in (tree.e_n, tree.e_w, tree.e_an, tree.e_aw):
                        stats[:used] *= np.float32(self.keep)
        return True

    def _budget_share(self, state: KernelState) -> tuple[float, float]:
        """This turn's factor on the per-turn budget, and the banked seconds it may add."""
        if not self.manage:
            return 1.0, 0.0
        square = state.players * state.players
        turns = cell_count(state.size) // square  # each player's turns in a game
        played = (cell_count(state.size) - state.empty) // square
        if turns <= 0:
            return 1.0, 0.0
        k = min(played, turns - 1)
        bonus = bank_share(self._bank, turns - k)
        self._bank -= bonus
        return stage_weights(turns)[k], bonus

    # -- the search ---------------------------------------------------------------------

    def _run(self, state: KernelState, balanced: bool, scale: float, bonus: float) -> SearchResult:
        if state.over or state.step != 0:
            raise ValueError("search starts at the start of a turn of a game in progress")
        a = state.arrays
        empties = state.empties()
        threads = self.threads
        budget = None if self.iterations is None else max(1, math.ceil(self.iterations * scale / threads))
        trees = self._trees_for(len(empties), budget)
        reused, self._reused = self._reused, 0
        for tree in trees:
            if tree.meta[0] == 0:
                tree.start(empties)
        # Each thread: the tree it searches and its stretch of that tree's pools.
        share = threads // len(trees)
        stretches = [tree.stretches(share) for tree in trees]
        work = [(trees[t // share], stretches[t // share][t % share]) for t in range(threads)]
        root_w = [np.zeros(MAX_COLORS, dtype=np.float64) for _ in range(threads)]
        rngs = [seed_state(int(self._rng.integers(0, 2**62))) for _ in range(threads)]
        # Each thread's simulations learn on their own (nothing shared, nothing raced), afresh
        # every search: where stones pay depends on the position.
        mast = [Mast.of(len(state.board), self.mast or 0) for _ in range(threads)]
        vloss = 1.0 if share > 1 else 0.0
        start = _time.perf_counter()
        seconds = None
        if self.time is not None:
            wanted = self.time * scale + bonus
            seconds = min(wanted, MAX_SHARE * self.time)
            self._bank += min(bonus, wanted - seconds)  # what the cap cuts off stays in the bank
        deadline = start + seconds if seconds is not None else math.inf
        per_thread = budget if budget is not None else 2**62
        done = 0
        edges = 0
        recycled = 0
        # Iteration budgets check the settled test on a fixed schedule (every ``step``
        # iterations), so a seeded search does the same work on any machine, time cap or not.
        # A time cap needs the clock looked at every few milliseconds as well: a budget of a
        # billion iterations "capped at 1 s" must stop at 1 s, not after its first 64th; its
        # chunks end on the schedule's marks, so the settled test sees the same counts.
        step = max(16, per_thread // 64) if budget is not None else 0
        chunk = step if seconds is None else 32  # no time cap: there is a budget, so a step

        # The network replaces the pattern prior, in the games it was trained for.
        net = self.net and state.players in trained_players()
        prior = Prior.of(state.size, 0.0 if net else self.prior, self.prior_scale, load_net() if net else None, self.net_at,
                         self.net_visits, self.net_scale, self.net_mix, self.net_value)
        # The first version's reward is its own, whatever the player count.
        margin = MARGIN_WEIGHT if self.first_version else \
            margin_weight(state.players) if self.margin is None else self.margin

        def run(i: int, n: int) -> None:
            tree, alloc = work[i]
            run_iterations(tree, alloc, root_w[i], state.board, empties, len(empties), state.turn, state.players, a.back,
                    a.logt, rngs[i], n, self.c, self.rave, float(self.expand), vloss, self.first_version, prior,
                    self.paranoid, margin, mast[i])

        pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        try:
            while done < per_thread and not self._cancel.is_set():
                n = min(chunk, per_thread - done)
                if step:
                    n = min(n, step - done % step)  # never across a mark of the schedule
                t0 = _time.perf_counter()
                others = [pool.submit(run, i, n) for i in range(1, threads)] if pool is not None else []
                run(0, n)
                for future in others:
                    future.result()
                done += n
                for tree, own in zip(trees, stretches, strict=True):
                    tree.used_to(own)
                edges = max(edges, sum(Tree.edges_used(own) for own in stretches))
                now = _time.perf_counter()
                if now >= deadline:
                    break
                if self.recycle:
                    for i, tree in enumerate(trees):
                        if any(nearly_full(tree, alloc, share) for alloc in stretches[i]):
                            if share > 1:
                                compact(tree, tree.root, 0.0)  # close the gaps between stretches
                            if tree.fill > RECYCLE_AT:
                                recycle(tree)
                                recycled += 1
                            stretches[i][:] = tree.stretches(share)
                    work = [(trees[t // share], stretches[t // share][t % share]) for t in range(threads)]
                rate = n / max(now - t0, 1e-6)
                if seconds is not None:
                    # Chunks of about 20 ms (the clock and cancel() are checked often enough),
                    # none running past the deadline.
                    chunk = max(16, min(chunk * 2, int(rate * 0.02), int(rate * (deadline - now))))
                if self.manage and (not step or done % step == 0):
                    left = per_thread - done
                    if seconds is not None:
                        left = min(left, int(done / max(now - start, 1e-6) * (deadline - now)) + 1)
                    if _settled(trees, left * threads, state.players):
                        break
        finally:
            if pool is not None:
                pool.shutdown()
        elapsed = _time.perf_counter() - start
        if seconds is not None and budget is None and self.manage and elapsed < seconds and not self._cancel.is_set():
            # Only a search bounded by time alone saves time by stopping early; an iteration
            # budget's time is a cap, not an allowance.
            self._bank += seconds - elapsed
        self._cancel.clear()
        cells, value, turn_value, plies = self._pick(state, trees, balanced)
        total = done * threads
        values = [float(sum(w[c] for w in root_w)) / total if total else 1.0 / state.players
                  for c in range(state.players)]
        self.last = SearchResult(cells=cells, value=value, iterations=total, seconds=elapsed,
                                 turn_value=turn_value, values=values, reused=reused,
                                 edges=edges, recycled=recycled, plies=plies)
        return self.last

    def _trees_for(self, n_empty: int, per_thread: int | None) -> list[Tree]:
        count = self.threads if self.parallel == "root" else 1
        share = self.threads // count
        cap = max(n_empty * 8 * share, self.max_edges // count)
        if per_thread is not None:
            want = max(n_empty * 64, per_thread * share * n_empty // max(1, self.expand))
        else:
            want = cap
        want = min(cap, max(want, n_empty * 8 * share))
        trees = self._trees[:count]
        trees = [tree if tree.capacity >= want else tree.grown(want) for tree in trees]
        trees += [Tree.allocate(want) for _ in range(count - len(trees))]
        self._trees = trees
        return trees

    def _pick(self, state: KernelState, trees: Sequence[Tree], balanced: bool
              ) -> tuple[list[int], float, float | None, list[tuple[list[int], list[float]]]]:
        players = state.players
        order = state.turn_colors()
        cells = [-1] * players
        nodes = [t.root for t in trees]
        root_n = sum(float(t.e_n[t.edges(t.root)].sum()) for t in trees)
        root_w = sum(float(t.e_w[t.edges(t.root)].sum()) for t in trees)
        # No iteration at all (cancelled at once): no opinion, so no swap.
        value = root_w / root_n if root_n > 0 else 0.5
        j = 0
        turn_value = None
        plies: list[tuple[list[int], list[float]]] = []
        if balanced:
            nodes, j, turn_value = _balanced_first(trees, cells, order)
        while j < players and sum(float(t.node_n[v]) for t, v in zip(trees, nodes, strict=True) if v >= 0) >= 8:
            ply = _Ply(trees, nodes)
            best = int(np.lexsort((-ply.q, -ply.n))[0])  # most visits, then best mean
            cells[order[j]] = int(ply.cells[best])
            if not balanced:
                plies.append((ply.cells.tolist(), ply.n.tolist()))
            turn_value = float(ply.w[best] / max(1.0, float(ply.n[best])))
            nodes = ply.children(best)
            j += 1
        if j < players:
            # Too few visits this deep (tiny budgets): finish the turn greedily.
            board = state.copy()
            for color in order[:j]:
                board.place(cells[color], color)
            out = np.full(MAX_COLORS, -1, dtype=np.int32)
            a = state.arrays
            greedy_cells(board.board, board.parent, board.gsize, a.nbr, a.logt, players, state.turn, j,
                         int(self._rng.integers(0, 2**62)), out)
            for color in order[j:]:
                cells[color] = int(out[color])
        return cells, value, turn_value, plies


class _Ply:
    """The statistics of one position's edges added over the trees that reached it, in
    the edge order of the first of them (so one tree reads exactly as its own edges)."""

    def __init__(self, trees: Sequence[Tree], nodes: Sequence[int]) -> None:
        self.trees = trees
        self.nodes = nodes
        present = [(t, v) for t, v in zip(trees, nodes, strict=True) if v >= 0]
        first_tree, first_node = present[0]
        self.cells = first_tree.e_cell[first_tree.edges(first_node)].copy()
        self.n = first_tree.e_n[first_tree.edges(first_node)].astype(np.float64)
        self.w = first_tree.e_w[first_tree.edges(first_node)].astype(np.float64)
        for tree, node in present[1:]:
            edges = tree.edges(node)
            where = np.full(int(self.cells.max()) + 1, 0, dtype=np.int64)
            where[self.cells] = np.arange(len(self.cells))
            at = where[tree.e_cell[edges]]
            np.add.at(self.n, at, tree.e_n[edges])
            np.add.at(self.w, at, tree.e_w[edges])
        self.q = self.w / np.maximum(self.n, 1.0)

    def children(self, i: int) -> list[int]:
        """Each tree's node after the stone on ``self.cells[i]`` (-1: not in that tree)."""
        cell = int(self.cells[i])
        return [tree.child(node, cell) if node >= 0 else -1 for tree, node in zip(self.trees, self.nodes, strict=True)]

    def visits(self, nodes: Sequence[int]) -> float:
        """Visits of the position at ``nodes`` over all trees."""
        return sum(float(t.node_n[v]) for t, v in zip(self.trees, nodes, strict=True) if v >= 0)


def _balanced_first(trees: Sequence[Tree], cells: list[int], order: list[int]) -> tuple[list[int], int,
                                                                                        float | None]:
    """Pie-rule opening: the well-searched first two stones whose value is nearest 1/2."""
    best: tuple[float, float, int, int, _Ply] | None = None
    root = _Ply(trees, [t.root for t in trees])
    for i in range(len(root.cells)):
        children = root.children(i)
        total = root.visits(children)
        if total < 8:
            continue
        reply = _Ply(trees, children)
        for at in np.flatnonzero(reply.n >= max(4.0, 0.05 * total)):
            key = (abs(float(reply.q[at]) - 0.5), -float(reply.n[at]))
            if best is None or key < (best[0], best[1]):
                best = (key[0], key[1], i, int(at), reply)
    if best is None:
        return [t.root for t in trees], 0, None
    _, _, i, g, reply = best
    cells[order[0]] = int(root.cells[i])
    cells[order[1]] = int(reply.cells[g])
    return reply.children(g), 2, float(reply.q[g])


def _settled(trees: Sequence[Tree], left: int, stones: int) -> bool:
    """True if the turn can no longer change: at each of its ``stones`` plies, down the
    most-visited path, the leader's lead in visits over the runner-up is more than the
    ``left`` simulations still to run."""
    nodes = [t.root for t in trees]
    for _ in range(stones):
        if all(v < 0 for v in nodes):
            return False  # not searched this deep yet
        ply = _Ply(trees, nodes)
        if len(ply.n) >= 2:
            top = np.partition(ply.n, len(ply.n) - 2)[-2:]
            if top[1] - top[0] <= left:
                return False
        nodes = ply.children(int(np.lexsort((-ply.q, -ply.n))[0]))
    return True


#: The five levels of the first MCTS bot (``mcts-v1:level=N``): iterations and seconds.
V1_LEVELS = {1: (10, 0.5), 2: (600, 1.0), 3: (4_000, 2.0), 4: (25_000, 3.0), 5: (150_000, 5.0)}

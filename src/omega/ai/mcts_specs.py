"""The search bot's names and their options: a spec's text (``mcts:level=3,seed=2``) to an
:class:`~omega.ai.mcts.MctsBot`.  ``mcts`` is the current bot (``net=1`` adds the learnt
network), ``mcts-v1`` the first version with its own five levels, ``mcts-v2`` the bot as
it was before the network, the three-player margin and the learning simulations (``mast``), kept to measure against.
Importing this module registers the three names (``omega.ai.make_bot`` does, on first use).

>>> bot = _options("mcts", {"level": "3", "seed": "2"}); bot.name, bot.iterations
('mcts:level=3,seed=2', 8)
"""

from __future__ import annotations

from omega.ai import levels
from omega.ai.base import float_option, int_option, no_more_options, register
from omega.ai.mcts import (
    DEFAULT_THREADS,
    KEEP,
    NET_AT,
    NET_MIX,
    NET_SCALE,
    NET_VALUE,
    NET_VISITS,
    PARALLEL,
    PRIOR_SCALE,
    PRIOR_VISITS,
    V1_LEVELS,
    MctsBot,
)
from omega.ai.simulation import MAX_MAST
from omega.ai.tree import MARGIN_WEIGHT

__all__: list[str] = []  # the names are registered, not imported


def _options(name: str, options: dict[str, str]) -> MctsBot:
    """The bot ``mcts`` or ``mcts-v1`` with the options of a spec."""
    v1 = name == "mcts-v1"
    levels_known = sorted(V1_LEVELS) if v1 else [lv.number for lv in levels.LEVELS]
    level = int_option(options, "level", None, levels_known[0], levels_known[-1])
    iterations = int_option(options, "iterations", None, 1, 10**9)
    seconds = float_option(options, "time", None, 0.001, 3600.0)
    seed = int_option(options, "seed", None, 0, 2**63 - 1)
    c = float_option(options, "c", 0.0, 0.0, 10.0)
    rave = float_option(options, "rave", 0.002, -1.0, 10.0)
    expand = int_option(options, "expand", 2, 1, 1000)
    threads = 1 if v1 else int_option(options, "threads", DEFAULT_THREADS, 1, 64)
    reuse, manage, recycle = ((False, False, False) if v1 else
                              (int_option(options, key, 1, 0, 1) == 1 for key in ("reuse", "manage", "recycle")))
    keep = 1.0 if v1 else float_option(options, "keep", KEEP, 0.0, 1.0)
    net = _net_options(name, options)
    prior = 0.0 if v1 else float_option(options, "prior", PRIOR_VISITS, 0.0, 10_000.0)
    prior_scale = 0.0 if v1 else float_option(options, "prior_scale", PRIOR_SCALE, 0.0, 10.0)
    paranoid = 0.0 if v1 else float_option(options, "paranoid", 0.0, 0.0, 1.0)
    # mcts-v2 keeps the margin's share it had with every player count (MARGIN_WEIGHT).
    margin = None if v1 else float_option(options, "margin", MARGIN_WEIGHT if name == "mcts-v2" else None, 0.0, 1.0)
    # mcts-v2 keeps the uniform simulations it had.
    mast = None if v1 else int_option(options, "mast", 0 if name == "mcts-v2" else None, 0, MAX_MAST)
    blunder = None if v1 else float_option(options, "blunder", None, 0.0, 1.0)
    parallel = "tree" if v1 else options.pop("parallel", PARALLEL[0])
    if parallel not in PARALLEL:
        raise ValueError(f"bot option parallel must be one of {', '.join(PARALLEL)}, got {parallel!r}")
    no_more_options(name, options)
    assert keep is not None and prior is not None and prior_scale is not None
    assert c is not None and rave is not None and expand is not None and threads is not None
    if not v1:
        bot = MctsBot(iterations=iterations, time=seconds, level=level, seed=seed, c=c, rave=rave, expand=expand,
                      threads=threads, reuse=reuse, manage=manage, recycle=recycle, keep=keep, parallel=parallel,
                      prior=prior, prior_scale=prior_scale, paranoid=paranoid or 0.0, margin=margin,
                      mast=mast, blunder=blunder, name=name)
        return _with_net(bot, net)
    if level is not None:
        iterations = V1_LEVELS[level][0] if iterations is None else iterations
        seconds = V1_LEVELS[level][1] if seconds is None else seconds
    bot = MctsBot(iterations=iterations, time=seconds, seed=seed, c=c, rave=rave, expand=expand, threads=1,
                  reuse=False, manage=False, recycle=False, name=name, first_version=True)
    if level is not None:
        bot.level = level
        bot.name = f"{name}:level={level}" + (f",seed={seed}" if seed is not None else "")
    return bot


def _net_options(name: str, options: dict[str, str]) -> dict[str, object]:
    """The learnt network's settings from the options of ``mcts`` (none for ``mcts-v1``
    and ``mcts-v2``): ``net=1`` turns it on (and the pattern prior off, in the games
    the network was trained for)."""
    if name != "mcts":
        return {}
    net = int_option(options, "net", 0, 0, 1) == 1
    values: dict[str, object] = {"net": net, "net_at": int_option(options, "net_at", NET_AT, 1, 10**6)}
    for key, default, high in (("net_visits", NET_VISITS, 10_000.0), ("net_scale", NET_SCALE, 10.0),
                               ("net_mix", NET_MIX, 1.0), ("net_value", NET_VALUE, 10_000.0)):
        values[key] = float_option(options, key, default, 0.0, high)
    return values


def _with_net(bot: MctsBot, settings: dict[str, object]) -> MctsBot:
    # Set after the constructor, which names the bot from the budget; ``net=1`` joins it.
    for key, value in settings.items():
        setattr(bot, key, value)
    if bot.net:
        bot.name += (",net=1" if ":" in bot.name else ":net=1")
    return bot


@register("mcts")
def _make_mcts(options: dict[str, str]) -> MctsBot:
    return _options("mcts", options)


@register("mcts-v1")
def _make_mcts_v1(options: dict[str, str]) -> MctsBot:
    """The first MCTS bot, kept to measure the current one against: one tree on one core,
    a new tree every turn, the same budget every turn, and a tree that stops growing when
    its pool is full."""
    return _options("mcts-v1", options)


@register("mcts-v2")
def _make_mcts_v2(options: dict[str, str]) -> MctsBot:
    """The bot ``mcts`` as it was before the learnt network, the three-player margin
    (:func:`omega.ai.tree.margin_weight`) and the learning simulations
    (:func:`omega.ai.simulation.mast_fill`), kept to measure the new versions against: the same as
    ``mcts:mast=0`` without ``net=1`` with two or four players, and with ``margin=0.05`` with
    three."""
    return _options("mcts-v2", options)


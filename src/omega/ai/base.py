"""What every bot is: something that picks the next action for the side to move.

A bot spec is a name with options after a colon, separated by commas or colons:
``random``, ``greedy:seed=3``, ``mcts:time=1.0``, ``mcts:level=3,seed=7``.

>>> parse_spec("mcts:time=0.5,seed=3")
('mcts', {'time': '0.5', 'seed': '3'})
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

from omega.game import Action, Game

__all__ = ["Bot", "BotFactory", "parse_spec", "register", "registered", "unregister", "create"]


@runtime_checkable
class Bot(Protocol):
    """A computer player. ``choose`` returns the action for ``game.to_move`` without
    changing ``game``: a turn (one cell per colour in play, colour order) or ``"swap"``.
    """

    name: str

    def choose(self, game: Game) -> Action:
        """The action this bot plays in ``game``'s current position."""
        ...


#: Builds a bot from its spec's options (all values still text).
BotFactory = Callable[[dict[str, str]], Bot]

_FACTORIES: dict[str, BotFactory] = {}
_N = TypeVar("_N", int, float)
_SPEC_RE = re.compile(r"[a-z][a-z0-9_-]*")


def register(name: str) -> Callable[[BotFactory], BotFactory]:
    """Class or function decorator that makes ``name`` a bot spec name."""

    def add(factory: BotFactory) -> BotFactory:
        _FACTORIES[name] = factory
        return factory

    return add


def unregister(name: str) -> None:
    """Forget the bot spec name ``name`` (for bots registered for a while, as in tests).

    >>> _ = register("example")(lambda options: None)
    >>> "example" in registered(), unregister("example"), "example" in registered()
    (True, None, False)
    """
    del _FACTORIES[name]


def registered() -> list[str]:
    """The bot names that specs may use."""
    return sorted(_FACTORIES)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a bot spec into its name and options; ValueError if malformed."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("a bot spec is a name such as 'random', 'greedy' or 'mcts:time=1.0'")
    name, _, rest = spec.strip().partition(":")
    name = name.lower()
    if not _SPEC_RE.fullmatch(name):
        raise ValueError(f"bad bot name {name!r} in spec {spec!r}")
    options: dict[str, str] = {}
    for part in re.split(r"[,:]", rest) if rest else []:
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or not key or not value.strip():
            raise ValueError(f"bot option {part!r} in {spec!r} must look like key=value")
        if key in options:
            raise ValueError(f"bot option {key!r} is given twice in {spec!r}")
        options[key] = value.strip()
    return name, options


def create(spec: str) -> Bot:
    """The bot a spec describes; ValueError naming the problem for a bad spec."""
    name, options = parse_spec(spec)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(registered())}")
    return factory(options)


def int_option(options: dict[str, str], key: str, default: int | None, low: int, high: int) -> int | None:
    """Take an integer option out of ``options`` (ValueError if out of range).

    >>> int_option({"seed": "7"}, "seed", None, 0, 100)
    7
    """
    return _number_option(options, key, default, low, high, int, "a whole number")


def float_option(options: dict[str, str], key: str, default: float | None, low: float, high: float) -> float | None:
    """Take a number option out of ``options`` (ValueError if out of range).

    >>> float_option({}, "time", 1.0, 0.0, 60.0)
    1.0
    """
    return _number_option(options, key, default, low, high, float, "a number")


def _number_option(
    options: dict[str, str], key: str, default: _N | None, low: _N, high: _N,
    convert: Callable[[str], _N], kind: str,
) -> _N | None:
    if key not in options:
        return default
    text = options.pop(key)
    try:
        value = convert(text)
    except ValueError:
        raise ValueError(f"bot option {key}={text!r} must be {kind}") from None
    if not low <= value <= high:
        raise ValueError(f"bot option {key} must be from {low} to {high}, got {value}")
    return value


def no_more_options(name: str, options: dict[str, str]) -> None:
    """ValueError if a spec carried options the bot does not know."""
    if options:
        raise ValueError(f"bot {name!r} has no option {', '.join(sorted(options))}")

"""What a seat may ask a table to do: typed actions, one small value each.

>>> action_fingerprint(TurnAction(cells=("E5", "a1")))
'turn e5 a1'
>>> action_fingerprint(ResignAction())
'resign'
>>> action_fingerprint(ClaimAction())
'claim'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = ["TurnAction", "SwapAction", "ResignAction", "ClaimAction", "Action", "action_fingerprint"]


@dataclass(frozen=True)
class TurnAction:
    """Place one stone per colour in play; ``cells`` in colour order White, Black, Red, Blue."""

    kind: ClassVar[str] = "turn"
    cells: tuple[str, ...]


@dataclass(frozen=True)
class SwapAction:
    """The pie-rule swap."""

    kind: ClassVar[str] = "swap"


@dataclass(frozen=True)
class ResignAction:
    """Give up: the seat ranks last and the computer plays on for it."""

    kind: ClassVar[str] = "resign"


@dataclass(frozen=True)
class ClaimAction:
    """At an untimed casual table, a player kept waiting by a person who is gone (no move for
    ``tables.state.CLAIM_AFTER``, no socket open) resigns the absent seat on its behalf: it
    ranks last and the computer plays on for it, and the game ends if too few are left."""

    kind: ClassVar[str] = "claim"


Action = TurnAction | SwapAction | ResignAction | ClaimAction


def action_fingerprint(action: Action) -> str:
    """A short text that is equal for equal actions (to spot a reused request_id)."""
    if isinstance(action, TurnAction):
        return "turn " + " ".join(c.strip().lower() for c in action.cells)
    return action.kind

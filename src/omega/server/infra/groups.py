"""Members grouped by key in one process's memory (the sockets watching a table, the requests
waiting for an answer), where a key goes with its last member so that the map holds only
keys someone still waits on.

>>> watching = {"t1": {"a", "b"}}
>>> leave(watching, "t1", "a"); watching
{'t1': {'b'}}
>>> leave(watching, "t1", "b"); leave(watching, "t2", "c"); watching
{}
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["leave", "Waiters"]

K = TypeVar("K")
T = TypeVar("T")


class _Group(Protocol):
    # A set or a list: what leave needs of a group.
    def __contains__(self, member: object, /) -> bool: ...
    def remove(self, member: Any, /) -> None: ...
    def __len__(self) -> int: ...


G = TypeVar("G", bound=_Group)


def leave(groups: MutableMapping[K, G], key: K, member: object) -> None:
    """Take ``member`` out of the group at ``key`` (if it is there), and the key with its last
    member."""
    group = groups.get(key)
    if group is None:
        return
    if member in group:
        group.remove(member)
    if not group:
        del groups[key]


class Waiters(Generic[K, T]):
    """The requests of this process waiting for the answer of ``key``, which another process
    announces by a note: each waits on a future made *before* it asks (the answer cannot come
    before anyone listens) and leaves, answered or not, in its ``finally``.

    >>> async def ask(waiters: Waiters[str, str]) -> str:
    ...     answer = waiters.expect("t1")
    ...     try:
    ...         waiters.answer("t1", "c3")   # the note, here at once
    ...         return await answer
    ...     finally:
    ...         waiters.leave("t1", answer)
    >>> asyncio.run(ask(Waiters()))
    'c3'
    """

    def __init__(self) -> None:
        self._futures: dict[K, list[asyncio.Future[T]]] = {}

    def expect(self, key: K) -> asyncio.Future[T]:
        """A new future for the answer of ``key`` (from a running event loop)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._futures.setdefault(key, []).append(future)
        return future

    def leave(self, key: K, future: asyncio.Future[T]) -> None:
        """``future`` waits no longer (answered, timed out or cancelled)."""
        leave(self._futures, key, future)

    def answer(self, key: K, value: T) -> None:
        """Give ``value`` to every request waiting for ``key`` here (none: nothing happens)."""
        for future in self._futures.pop(key, []):
            if not future.done():
                future.set_result(value)

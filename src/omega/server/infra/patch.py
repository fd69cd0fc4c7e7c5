"""What changed between two table states, as JSON Patch operations (RFC 6902: ``add``,
``replace`` and ``remove``, with JSON Pointer paths), so that a socket sends the few fields a
turn changes instead of the whole state.

:func:`diff` compares two JSON values; :func:`apply` gives the new one back from the old one
and the operations (the page has its own ``patch.js``).  Objects are compared key by key,
lists that only grew get their new items appended (``/-``: a game's history, a stone list),
lists of the same length are compared item by item (the seats), and anything else that
differs is replaced whole.

>>> old = {"version": 3, "game": {"history": [["e5", "a1"]], "stones": {"a1": "Black", "e5": "White"}}}
>>> new = {"version": 4, "game": {"history": [["e5", "a1"], ["c3", "b2"]],
...                               "stones": {"a1": "Black", "b2": "Black", "c3": "White", "e5": "White"}}}
>>> ops = diff(old, new); ops
[['replace', '/version', 4], ['add', '/game/history/-', ['c3', 'b2']], ['add', '/game/stones/b2', 'Black'], ['add', '/game/stones/c3', 'White']]
>>> apply(old, ops) == new
True

Each operation is the list ``[op, path, value]`` (``[op, path]`` for ``remove``): the RFC's
objects carry the same three things in more bytes.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["diff", "apply", "PatchError"]


class PatchError(ValueError):
    """Operations that do not fit the value they are applied to."""


def _escape(key: str) -> str:
    """A key as a JSON Pointer reference token (``~`` and ``/`` escaped)."""
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(old: Any, new: Any, path: str = "") -> list[list[Any]]:
    """The operations that turn ``old`` into ``new`` (both JSON values; ``old`` unchanged).

    >>> diff({"a": 1, "b": 2}, {"a": 1, "c": 3})
    [['remove', '/b'], ['add', '/c', 3]]
    >>> diff([{"x": 1}, {"x": 2}], [{"x": 1}, {"x": 5}])
    [['replace', '/1/x', 5]]
    >>> diff({"a/b": 1}, {"a/b": 2})
    [['replace', '/a~1b', 2]]
    """
    ops: list[list[Any]] = []
    if old != new:
        _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[list[Any]]) -> None:
    # Called only for values that differ.  Members and items that are equal are skipped
    # before any path is built: most of a state is equal, and == compares it in C.
    if isinstance(old, dict) and isinstance(new, dict):
        gone = old.keys() - new.keys()
        if gone:
            ops.extend(["remove", f"{path}/{_escape(key)}"] for key in old if key in gone)
        for key, value in new.items():
            if key not in old:
                ops.append(["add", f"{path}/{_escape(key)}", value])
            elif old[key] != value:
                _diff(old[key], value, f"{path}/{_escape(key)}", ops)
        return
    if isinstance(old, list) and isinstance(new, list):
        if len(new) > len(old) and new[:len(old)] == old:
            ops.extend(["add", f"{path}/-", item] for item in new[len(old):])
            return
        if len(new) == len(old):
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                if a != b:
                    _diff(a, b, f"{path}/{i}", ops)
            return
    ops.append(["replace", path, new])


def apply(value: Any, ops: list[list[Any]], *, in_place: bool = False) -> Any:
    """``value`` with ``ops`` applied (a new value: ``value`` is left as it was, unless
    ``in_place``, which saves a copy of the whole value); :class:`PatchError` if an
    operation does not fit (``value`` may then be half changed, if ``in_place``).

    >>> apply({"a": [1]}, [["add", "/a/-", 2], ["add", "/b", {"c": 3}]])
    {'a': [1, 2], 'b': {'c': 3}}
    >>> apply({"a": 1}, [["remove", "/z"]])
    Traceback (most recent call last):
    ...
    omega.server.infra.patch.PatchError: remove /z: no such member
    """
    out = value if in_place else copy.deepcopy(value)
    for op in ops:
        out = _apply_one(out, op)
    return out


def _apply_one(doc: Any, op: list[Any]) -> Any:
    if not isinstance(op, list) or len(op) not in (2, 3) or op[0] not in ("add", "replace", "remove"):
        raise PatchError(f"not an operation: {op!r}")
    kind, path = op[0], op[1]
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise PatchError(f"not a JSON Pointer: {path!r}")
    if (kind == "remove") != (len(op) == 2):
        raise PatchError(f"{kind} {path}: wrong number of arguments")
    if path == "":
        if kind == "remove":
            raise PatchError("cannot remove the whole value")
        return copy.deepcopy(op[2])
    *parents, last = [_unescape(t) for t in path[1:].split("/")]
    target = doc
    for token in parents:
        target = _step(target, token, f"{kind} {path}")
    where = f"{kind} {path}"
    if isinstance(target, dict):
        if kind != "add" and last not in target:
            raise PatchError(f"{where}: no such member")
        if kind == "remove":
            del target[last]
        else:
            target[last] = copy.deepcopy(op[2])
    elif isinstance(target, list):
        if last == "-" and kind == "add":
            target.append(copy.deepcopy(op[2]))
            return doc
        index = _index(last, len(target) + (1 if kind == "add" else 0), where)
        if kind == "add":
            target.insert(index, copy.deepcopy(op[2]))
        elif kind == "replace":
            target[index] = copy.deepcopy(op[2])
        else:
            del target[index]
    else:
        raise PatchError(f"{where}: the parent is not an object or a list")
    return doc


def _step(target: Any, token: str, where: str) -> Any:
    if isinstance(target, dict):
        if token not in target:
            raise PatchError(f"{where}: no such member")
        return target[token]
    if isinstance(target, list):
        return target[_index(token, len(target), where)]
    raise PatchError(f"{where}: the parent is not an object or a list")


def _index(token: str, size: int, where: str) -> int:
    if not (token.isascii() and token.isdigit()) or (len(token) > 1 and token[0] == "0") or int(token) >= size:
        raise PatchError(f"{where}: no such item")
    return int(token)

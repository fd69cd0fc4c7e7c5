"""Compiled kernels that outlive their sources: Numba's cache, made safe across files.

Numba keeps each ``@njit(cache=True)`` function's machine code in ``__pycache__`` and reuses
it while the function's *own* file is unchanged.  A change in a function it calls from
another file goes unseen: the search loop in ``omega.ai.tree`` would go on running the
simulation code of ``omega.ai.simulation`` as it was when it was compiled (it is inlined),
after a ``git pull``, a branch switch or an upgrade of the package over an older one.
:func:`forget_stale` closes that gap: it fingerprints every source file that holds compiled
functions, and when the fingerprint differs from the one the cache was built from, it
deletes the cache's files, so that every kernel is compiled again (about 15 s of CPU, once).
``omega.kernel``, which every compiled module imports first, calls it on import.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     source = Path(folder) / "fast.py"
...     _ = source.write_text("from numba import njit\\n@njit(cache=True)\\ndef one(): return 1\\n")
...     (Path(folder) / "__pycache__").mkdir()
...     _ = (Path(folder) / "__pycache__" / "fast.one-2.py311.nbi").write_bytes(b"old")
...     forget_stale([Path(folder)]), forget_stale([Path(folder)])
(True, False)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import numba

__all__ = ["PACKAGE_FOLDERS", "STAMP", "fingerprint", "forget_stale"]

#: The package's folders whose modules hold compiled functions (``omega`` and ``omega.ai``).
PACKAGE_FOLDERS = (Path(__file__).parent, Path(__file__).parent / "ai")
#: The file in the first folder's ``__pycache__`` that keeps the fingerprint the cache was
#: built from.
STAMP = "omega-kernels.sha256"
#: What marks a module as holding compiled functions.
COMPILED = b"@njit"


def fingerprint(folders: Iterable[Path]) -> str:
    """A hash of Numba's version and of every ``.py`` file in ``folders`` that holds
    compiled functions (its name and its bytes).

    >>> len(fingerprint(PACKAGE_FOLDERS))
    64
    """
    digest = hashlib.sha256(numba.__version__.encode())
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            text = path.read_bytes()
            if COMPILED in text:
                digest.update(f"\0{folder.name}/{path.name}\0".encode())
                digest.update(text)
    return digest.hexdigest()


def forget_stale(folders: Iterable[Path] = PACKAGE_FOLDERS) -> bool:
    """Delete the compiled-code cache of ``folders`` (their ``__pycache__``'s ``.nbi`` and
    ``.nbc`` files) when their compiled sources changed since it was built; True when it
    did.  A folder Numba cannot write to is left alone (Numba then caches elsewhere, by its
    own rules); a file another process deleted first is no matter: Numba compiles again
    whatever it does not find.
    """
    folders = list(folders)
    if not folders:
        return False
    stamp = folders[0] / "__pycache__" / STAMP
    now = fingerprint(folders)
    try:
        if stamp.read_text().strip() == now:
            return False
    except OSError:
        pass  # no stamp yet: a cache from before stamps, or none at all
    try:
        for folder in folders:
            for pattern in ("*.nbi", "*.nbc"):
                for path in (folder / "__pycache__").glob(pattern):
                    path.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(now + "\n")
    except OSError:
        return False  # a read-only install: nothing of ours to clean
    return True

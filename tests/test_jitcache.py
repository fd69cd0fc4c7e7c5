"""Numba's cache kept true to the sources (omega.jitcache): a compiled function that calls
into a changed file is compiled again, where Numba alone would run the old code."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from omega.jitcache import PACKAGE_FOLDERS, STAMP, fingerprint, forget_stale

CALLER = """
from numba import njit
from helper import helper

@njit(cache=True)
def total():
    return helper() + 10
"""
HELPER = """
from numba import njit

@njit
def helper():
    return {value}
"""


def run_total(folder: Path, forget: bool) -> int:
    """``total()`` in a fresh interpreter, after ``forget_stale`` when ``forget``."""
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(folder)!r})
        from omega.jitcache import forget_stale
        if {forget}:
            forget_stale([Path({str(folder)!r})])
        from caller import total
        print(total())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


def test_a_changed_callee_in_another_file_is_compiled_again(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text(CALLER)
    (tmp_path / "helper.py").write_text(HELPER.format(value=1))
    assert run_total(tmp_path, forget=True) == 11
    assert list((tmp_path / "__pycache__").glob("caller.total-*.nbi"))  # cached
    # (a longer file: Python's own bytecode cache goes by size and time to the second)
    (tmp_path / "helper.py").write_text(HELPER.format(value=200))
    # Numba alone reuses the cached caller, the old helper inlined in it: the gap closed here.
    assert run_total(tmp_path, forget=False) == 11
    assert run_total(tmp_path, forget=True) == 210
    # ... and cached again, not dropped at every start.
    assert len(list((tmp_path / "__pycache__").glob("caller.total-*.nbc"))) == 1
    assert forget_stale([tmp_path]) is False
    assert len(list((tmp_path / "__pycache__").glob("caller.total-*.nbc"))) == 1


def test_only_compiled_sources_count_and_only_the_cache_goes(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text(CALLER)
    (tmp_path / "plain.py").write_text("ANSWER = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for name in ("caller.total-5.py311.nbi", "caller.total-5.py311.1.nbc", "plain.cpython-311.pyc"):
        (cache / name).write_bytes(b"x")
    before = fingerprint([tmp_path])
    assert forget_stale([tmp_path]) is True  # no stamp: a cache of unknown sources
    assert sorted(p.name for p in cache.iterdir()) == [STAMP, "plain.cpython-311.pyc"]
    assert (cache / STAMP).read_text().strip() == before
    (tmp_path / "plain.py").write_text("ANSWER = 2\n")  # no compiled function in it
    assert fingerprint([tmp_path]) == before
    (cache / "caller.total-5.py311.nbi").write_bytes(b"x")
    assert forget_stale([tmp_path]) is False and (cache / "caller.total-5.py311.nbi").exists()
    (tmp_path / "caller.py").write_text(CALLER.replace("+ 10", "+ 20"))
    assert fingerprint([tmp_path]) != before
    assert forget_stale([tmp_path]) is True and not (cache / "caller.total-5.py311.nbi").exists()


def test_the_package_is_stamped_with_its_compiled_sources() -> None:
    # omega.kernel stamped the cache on import (the tests import it through omega.ai).
    import omega.kernel  # noqa: F401

    assert (PACKAGE_FOLDERS[0] / "__pycache__" / STAMP).read_text().strip() == fingerprint(PACKAGE_FOLDERS)

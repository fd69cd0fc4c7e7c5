"""``make bench``: the kernel speed table (``bench/playouts.py``) with its default settings."""

from __future__ import annotations

import runpy
from pathlib import Path

if __name__ == "__main__":
    runpy.run_path(str(Path(__file__).with_name("playouts.py")), run_name="__main__")

"""Background tasks of one process (a listener, a pump, a sampler) and their end at shutdown.

>>> async def main() -> bool:
...     task = asyncio.get_running_loop().create_task(asyncio.Event().wait())   # runs for ever
...     await stop_task(task); await stop_task(None)
...     return task.cancelled()
>>> asyncio.run(main())
True
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

__all__ = ["stop_task"]


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (None: none was started) and wait until it has stopped; its
    cancellation is how it ends, not an error to report."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

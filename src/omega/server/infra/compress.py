"""The page's files sent compressed: gzip for ``/static/`` and the HTML pages.

The page is some 230 KB of modules and styles as written (no build step), about 65 KB
gzipped, so compressing them is most of a first visit's transfer.  API answers are left
alone on purpose: some of them carry secrets (a new table's seat tokens) next to text a
client chose (a name), the mix that compression-length attacks read secrets from.

>>> compressible("/static/js/table.js"), compressible("/t/abc123"), compressible("/api/tables")
(True, True, False)
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["CompressPage", "compressible"]

#: Smaller answers are sent as they are: gzip would save less than its own overhead.
MINIMUM_SIZE = 1024


def compressible(path: str) -> bool:
    """Whether the answer for ``path`` may be compressed: the page's files and pages, never
    the API, the sockets or the metrics."""
    return not path.startswith(("/api/", "/ws/", "/metrics", "/healthz"))


class CompressPage:
    """ASGI middleware: gzip (when the client accepts it) for the paths
    :func:`compressible` allows; everything else passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=MINIMUM_SIZE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and compressible(scope["path"]):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)

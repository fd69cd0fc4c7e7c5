"""What the app keeps for its routes: each feature's ``setup`` stores its service in
``app.state``, and its routes receive it by a FastAPI dependency made here."""

from __future__ import annotations

from typing import Any

from fastapi import Depends
from starlette.requests import HTTPConnection

__all__ = ["from_app"]


def from_app(name: str) -> Any:
    """A dependency on ``app.state.<name>`` (for an HTTP route or a socket alike).

    >>> from typing import Annotated
    >>> Service = Annotated[dict, from_app("watching")]  # a route then takes ``watching: Service``
    >>> from_app("watching").dependency.__name__
    'app_state_watching'
    """

    def kept(conn: HTTPConnection) -> object:
        return getattr(conn.app.state, name)

    kept.__name__ = f"app_state_{name}"
    return Depends(kept)

"""What every test shares."""

from __future__ import annotations

import ssl
from typing import Any

import httpx

# httpx builds a new TLS context for each client it makes (reading the whole CA bundle), even
# for a client of http:// on loopback: about 20-45 ms of CPU a client, and the tests make
# thousands of clients. Every client the tests make shares one context instead.
LOOPBACK_TLS = ssl.create_default_context()


def _sharing_tls(cls: Any) -> None:
    made = cls.__init__

    def init(self: Any, *args: Any, verify: Any = LOOPBACK_TLS, **kwargs: Any) -> None:
        made(self, *args, verify=verify, **kwargs)

    cls.__init__ = init


_sharing_tls(httpx.Client)
_sharing_tls(httpx.AsyncClient)

"""Request limits: message size and token-bucket rate limits.

>>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
>>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)
(True, True, False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "TokenBucket", "Buckets"]


@dataclass(frozen=True)
class Limits:
    """What one client may send.  The defaults follow ``docs/server-api.md``."""

    #: Largest WebSocket message or HTTP request body, in bytes.
    max_message: int = 4096
    #: WebSocket messages per second per connection (and the burst allowed).
    ws_rate: float = 20.0
    ws_burst: int = 20
    #: HTTP requests per second per token (per client address without one).
    http_rate: float = 20.0
    http_burst: int = 40
    #: New tables per second per client address.
    create_rate: float = 1.0
    create_burst: int = 30
    #: Open sockets on one table (all viewers, this process).
    sockets_per_table: int = 64
    #: Largest WebSocket frame the transport accepts before it drops the connection.
    ws_max_frame: int = 65536
    #: Events waiting to be sent on one socket; a socket further behind is closed (4408).
    ws_send_queue: int = 256
    #: Seconds one message may wait for the client to read; then the socket is closed (4408).
    ws_send_timeout: float = 10.0


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; each message takes one."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one; ``now`` is the server clock's ``monotonic()``."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Buckets:
    """Token buckets by key (a token's digest, a client address), pruned as they refill."""

    def __init__(self, rate: float, burst: int, max_keys: int = 20000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, key: str, now: float) -> bool:
        """Spend one of ``key``'s tokens if it has one (``now``: the server clock's ``monotonic()``)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._prune(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
        return bucket.take(now)

    def _prune(self, now: float) -> None:
        # A bucket that has refilled completely carries no information: drop it.
        for key in [k for k, b in self._buckets.items() if b.tokens + (now - b.stamp) * b.rate >= b.burst]:
            del self._buckets[key]
        if len(self._buckets) >= self.max_keys:
            self._buckets.clear()

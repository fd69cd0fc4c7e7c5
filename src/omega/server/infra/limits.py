"""Request limits: message size and token-bucket rate limits.

>>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
>>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)
(True, True, False, True)
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from dataclasses import dataclass

from starlette.requests import HTTPConnection, Request

from omega.i18n import translatable as _
from omega.server.errors import ApiError

__all__ = ["Limits", "TokenBucket", "Buckets", "read_body", "client_address", "address_key", "owner_key", "account_owner"]


@dataclass(frozen=True)
class Limits:
    """What one client may send.  The defaults follow ``docs/server-api.md``."""

    #: Largest WebSocket message or HTTP request body, in bytes.
    max_message: int = 4096
    #: WebSocket messages per second per connection (and the burst allowed).
    ws_rate: float = 20.0
    ws_burst: int = 20
    #: HTTP requests per second per token that proved itself (per client address for
    #: requests without one, or with an unknown one).
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
    #: New WebSockets per second per client address (and the burst), and per token.
    ws_connect_rate: float = 2.0
    ws_connect_burst: int = 60
    ws_token_connect_rate: float = 0.5
    ws_token_connect_burst: int = 10
    #: Open lobby sockets per process (``/ws/lobby``); past it a new one is refused ``busy``.
    lobby_sockets: int = 2000
    #: Lobby tables waiting for players that one account may have open at once; past it a
    #: new one is refused (``too_many_open_tables``) until one starts or is cancelled.  A
    #: person waits at one or two tables; five leave room for different boards and clocks,
    #: and the listing shows every creator's newest table first whatever the rest hold.
    lobby_open_per_account: int = 5
    #: The same per client address, all its accounts together: registrations are limited per
    #: address, not to one, so a flooder could otherwise multiply the account's cap.  Twenty
    #: leaves room for a family, a club or a school behind one address.
    lobby_open_per_address: int = 20
    #: Reports one account may have open (not yet resolved by a moderator) at once; past it
    #: a new one is refused (``too_many_reports``).  Enough to report everyone at a 4-player
    #: table for each reason that applies; a flood of reports waits on the moderators.
    reports_open_per_reporter: int = 10
    #: Computer turns waiting or thinking, site-wide, past which a new table with computer
    #: seats is refused (``busy``).
    computer_queue: int = 64
    #: Worker-seconds a round that one owner's unfinished computer games may take
    #: (``config.computer_load``: three level-5 players on side 10 are 15), past which a new
    #: table with slow computers is refused (``too_many_computer_games``).  Four workers give
    #: 4 s each second, so one owner could otherwise keep every worker busy.
    computer_load: float = 20.0
    #: Log-in attempts (and password changes) per client address, and per username tried
    #: (existing or not: the limit must not tell them apart).  A minute refills 10 and 1.
    login_rate: float = 1 / 6
    login_burst: int = 20
    login_user_rate: float = 1 / 60
    login_user_burst: int = 10
    #: Verification mails (adding or changing an address) per account, and per address mailed
    #: to whichever accounts ask: a burst for typos, then one every ten minutes, so nobody can
    #: make the site flood a mailbox (docs/security.md, Email).
    email_mail_rate: float = 1 / 600
    email_mail_burst: int = 5
    #: "Forgot password" requests per client address (answered ``rate_limited``), and reset
    #: mails per account (past it the same answer as always, and no mail: the answer must not
    #: tell whether the account exists).  An hour refills 6 and 2.
    forgot_rate: float = 1 / 600
    forgot_burst: int = 10
    reset_mail_rate: float = 1 / 1800
    reset_mail_burst: int = 3
    #: New secret links (``POST /api/tables/{id}/links``) per table: a minute refills one.
    relink_rate: float = 1 / 60
    relink_burst: int = 5
    #: New accounts per client address, and attempts per username asked for.
    register_rate: float = 1 / 60
    register_burst: int = 10
    register_user_rate: float = 1 / 60
    register_user_burst: int = 5
    #: Reviews of games waiting or being made, site-wide, past which a request for one more
    #: is refused (``busy``).
    review_queue: int = 8
    #: Chat messages per seat of a table (per spectator's address for spectators): a burst,
    #: then one every 1 / ``chat_rate`` seconds.
    chat_rate: float = 0.5
    chat_burst: int = 5
    #: Seconds a connection may take to send a request's headers, from its first byte (from
    #: the connection, for its first request); then ``408`` and closed.  A browser sends them
    #: at once: only a slow sender holding connections open (slowloris) needs longer.
    header_timeout: float = 10.0
    #: Seconds a request's body may pause between two reads; then the connection is closed.
    body_timeout: float = 10.0
    #: Bytes of one request's line and headers (``431`` past it); a page's requests send
    #: under 2 KiB, nginx allows 4 buffers of 8 KiB.
    max_header_bytes: int = 32768
    #: Seconds an idle kept-alive HTTP connection is kept (uvicorn's default).
    keep_alive_timeout: int = 5
    #: Connections of one process waiting for a request's headers or idle between requests;
    #: a new one past it closes the oldest, so slow senders cannot take every file descriptor
    #: (``LimitNOFILE``) while clients that send at once are served.
    waiting_connections: int = 1024


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
    """Token buckets by key (a valid token's digest, a client address), at most ``max_keys``
    of them: past that the least recently used bucket is forgotten, one at a time (a
    forgotten key starts again with a full bucket, which only a key unused for a while gets).

    >>> b = Buckets(rate=1.0, burst=1, max_keys=2)
    >>> b.take("a", 0.0), b.take("a", 0.0), b.take("b", 0.0), b.take("c", 0.0), "a" in b
    (True, False, True, True, False)
    """

    def __init__(self, rate: float, burst: int, max_keys: int = 20000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self._buckets

    def __len__(self) -> int:
        return len(self._buckets)

    def open(self, key: str, now: float) -> None:
        """Give ``key`` a bucket (full) if it has none, without spending from it."""
        if key in self._buckets:
            self._buckets.move_to_end(key)
            return
        while len(self._buckets) >= self.max_keys:
            self._buckets.popitem(last=False)
        self._buckets[key] = TokenBucket(self.rate, self.burst, now)

    def take(self, key: str, now: float) -> bool:
        """Spend one of ``key``'s tokens if it has one (``now``: the server clock's ``monotonic()``)."""
        self.open(key, now)
        return self._buckets[key].take(now)


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (``too_large``) as soon as it is known to pass ``limit``
    bytes: by its Content-Length, or while it is read."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise ApiError("too_large", _("request bodies are limited to {limit} bytes", limit=limit))
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError("too_large", _("request bodies are limited to {limit} bytes", limit=limit))
        chunks.append(chunk)
    return b"".join(chunks)


def client_address(conn: HTTPConnection) -> str:
    """The client's address, which per-address limits count (the proxy's, unless
    ``omega serve --forwarded-allow-ips`` trusts that proxy to say whom it forwards).
    An IPv6 client counts as its /64 network (:func:`address_key`)."""
    return address_key(conn.client.host) if conn.client else "?"


def address_key(host: str) -> str:
    """What per-address limits count for ``host``: an IPv4 address as it is, an IPv6 one as
    its /64 network, since whoever has one address of a /64 (a home, a rented server) can
    use all 2^64 of them for free.

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:aaaa::1"), address_key("::ffff:192.0.2.1")
    ('203.0.113.7', '2001:db8:1:2::/64', '192.0.2.1')
    >>> address_key("testclient")
    'testclient'
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an address (a test client's name, a Unix socket): as it is
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def owner_key(conn: HTTPConnection, user_id: int | None) -> str:
    """Who a share counts (the computer players' time, open tables): the account when logged
    in, else the address (:func:`client_address`).

    An account's key never looks like an address: ``user:<id>``.
    """
    return account_owner(user_id) if user_id is not None else client_address(conn)


def account_owner(user_id: int) -> str:
    """The owner key of an account (:func:`owner_key`), where there is no request to ask.

    >>> account_owner(7)
    'user:7'
    """
    return f"user:{user_id}"

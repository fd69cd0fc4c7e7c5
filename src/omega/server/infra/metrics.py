"""What a server process counts, for Prometheus (``GET /metrics``, text format).

Each process (``omega serve``, ``omega worker``) has its own :class:`Metrics` in a registry
of its own and is scraped at its own address: the figures are the process's, and Prometheus
adds them up over its targets.  (prometheus-client's multiprocess mode is for servers that
fork workers sharing one port; here every process has a port of its own, so it is not used.)

Labels take a bounded set of values only: a route is its template
(``/api/tables/{table_id}``, never a table id or a token), a method one of the HTTP
methods (anything else is ``other``), a status a number the server chose.

>>> m = Metrics()
>>> m.request("/api/tables/{table_id}", "GET", 200, 0.004)
>>> m.request("/api/tables/{table_id}", "BREW", 405, 0.001)
>>> m.timeout_fired()
>>> body, content_type = m.render()
>>> text = body.decode()
>>> 'omega_http_requests_total{method="GET",route="/api/tables/{table_id}",status="200"} 1.0' in text
True
>>> 'method="other"' in text, "omega_clock_timeouts_total 1.0" in text
(True, True)
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Awaitable, Callable, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Metrics", "MetricsAccess", "RequestMetrics", "DEFAULT_METRICS_FROM", "UNMATCHED", "METHODS"]

#: Who may read ``/metrics`` unless ``--metrics-from`` says otherwise: this machine only.
DEFAULT_METRICS_FROM = "127.0.0.1,::1"
#: The route label of a request no route matched (a 404, a probe).
UNMATCHED = "unmatched"
#: Methods counted under their own name; any other is counted as ``other``.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

# Seconds: a stored move answers in milliseconds; a queue of them in up to seconds.
_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Computer turns: waiting for a worker and thinking take up to tens of seconds.
_SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 30.0, 60.0)

#: Fills gauges just before a scrape (reads what the process holds, or asks the database).
Sampler = Callable[[], Awaitable[None]]


class Metrics:
    """The counters, gauges and histograms of one process, in a registry of its own."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.requests = Counter("omega_http_requests", "HTTP requests answered, by route template, method and status",
                                ["route", "method", "status"], registry=r)
        self.request_seconds = Histogram("omega_http_request_duration_seconds",
                                         "Seconds from a request's arrival to the end of its answer, by route template",
                                         ["route"], buckets=_FAST, registry=r)
        self.move_seconds = Histogram(
            "omega_move_roundtrip_seconds",
            "Seconds from receiving an action (a turn, swap, resignation) to its acknowledgement, sent after "
            "the commit, by transport (http, websocket)", ["transport"], buckets=_FAST, registry=r)
        self.sockets = Gauge("omega_open_sockets", "Table WebSockets open on this process", registry=r)
        self.computer_due = Gauge("omega_computer_turns_due",
                                  "Computer turns due site-wide (waiting for a process, or being played)", registry=r)
        self.computer_oldest = Gauge("omega_computer_oldest_waiting_seconds",
                                     "Seconds the oldest computer turn no process has claimed yet has been due "
                                     "(site-wide; 0 when none waits)", registry=r)
        self.computer_waiting = Gauge("omega_computer_turns_waiting",
                                      "Computer turns this process claimed that wait for a free worker", registry=r)
        self.computer_thinking = Gauge("omega_computer_turns_thinking",
                                       "Computer turns this process's workers are thinking about", registry=r)
        self.computer_wait = Histogram("omega_computer_wait_seconds",
                                       "Seconds a claimed computer turn waited for a free worker", buckets=_SLOW,
                                       registry=r)
        self.computer_think = Histogram("omega_computer_think_seconds",
                                        "Seconds a worker thought about a computer turn, by level", ["level"],
                                        buckets=_SLOW, registry=r)
        self.deadline_misses = Counter("omega_computer_deadline_misses",
                                       "Computer turns whose bot missed its deadline (its worker was restarted)",
                                       registry=r)
        self.timeouts = Counter("omega_clock_timeouts", "Clock flags that fell (timeouts fired) in this process",
                                registry=r)
        self.database_errors = Counter("omega_database_errors",
                                       "Database operations that failed (connection lost, lock timeout, ...), "
                                       "by error class", ["error"], registry=r)
        self._samplers: list[Sampler] = []

    # -- what the rest of the server calls ----------------------------------------------------

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        """One HTTP request answered (``route``: the matched template, or :data:`UNMATCHED`)."""
        self.requests.labels(route, method if method in METHODS else "other", str(status)).inc()
        self.request_seconds.labels(route).observe(seconds)

    def moved(self, transport: str, seconds: float) -> None:
        """An action was acknowledged ``seconds`` after it arrived (``http`` or ``websocket``)."""
        self.move_seconds.labels(transport).observe(seconds)

    def timeout_fired(self) -> None:
        """A clock's flag fell and the server acted on it (called once per timeout)."""
        self.timeouts.inc()

    def database_error(self, error: BaseException) -> None:
        """A database operation failed with ``error`` (a DBAPIError)."""
        self.database_errors.labels(type(error).__name__).inc()

    # -- scraping ---------------------------------------------------------------------------

    def sample_with(self, sampler: Sampler) -> None:
        """Run ``sampler`` before every scrape (on the event loop: it may read what the
        process holds, and await the database)."""
        self._samplers.append(sampler)

    async def refresh(self) -> None:
        """Bring the gauges up to date (every sampler)."""
        for sampler in self._samplers:
            await sampler()

    def render(self, accept: str = "") -> tuple[bytes, str]:
        """Every metric, and the content type, in the format the scraper's ``Accept`` header
        asks for (Prometheus text format 0.0.4 unless it asks for a newer one)."""
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type


class MetricsAccess:
    """Who may read ``/metrics``: clients at one of ``allowed`` (comma-separated addresses or
    networks; empty: nobody) that came straight to this process, not through a proxy (a
    request carrying ``X-Forwarded-For`` is refused whatever its address).

    >>> access = MetricsAccess("127.0.0.1, 10.1.0.0/16")
    >>> access.allows("10.1.2.3", forwarded=False), access.allows("10.2.0.1", forwarded=False)
    (True, False)
    >>> access.allows("127.0.0.1", forwarded=True), MetricsAccess("").allows("127.0.0.1", forwarded=False)
    (False, False)
    >>> MetricsAccess("localhost")
    Traceback (most recent call last):
    ...
    ValueError: not an address or network: 'localhost'
    """

    def __init__(self, allowed: str) -> None:
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for part in (p.strip() for p in allowed.split(",")):
            if not part:
                continue
            try:
                self.networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"not an address or network: {part!r}") from None

    def allows(self, client: str | None, *, forwarded: bool) -> bool:
        """Whether a request from ``client`` (``forwarded``: it carried X-Forwarded-For) may read."""
        if forwarded or client is None:
            return False
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


class RequestMetrics:
    """ASGI middleware: counts every HTTP request by route template, method and status, and
    times it; a 200 on one of ``move_routes`` is also a move's round trip over HTTP.
    WebSocket connections pass through untouched."""

    def __init__(self, app: ASGIApp, metrics: Metrics, clock: Callable[[], float] = time.monotonic,
                 move_routes: Sequence[str] = ()) -> None:
        self.app = app
        self.metrics = metrics
        self.clock = clock
        self.move_routes = frozenset(move_routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = self.clock()
        status = 500  # unless an answer starts: an exception that escapes is a server error

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = self.clock() - started
            route = _route_of(scope)
            self.metrics.request(route, str(scope.get("method", "")), status, seconds)
            if status == 200 and route in self.move_routes:
                self.metrics.moved("http", seconds)


def _route_of(scope: Scope) -> str:
    """The template of the route (or mount) that answered, which the router leaves in the
    scope, or :data:`UNMATCHED`: never the raw path, which holds ids."""
    template = getattr(scope.get("route"), "path", None)
    return template if isinstance(template, str) else UNMATCHED

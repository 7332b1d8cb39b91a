"""Servers that slow or hostile clients cannot starve (docs/display.md, "Under load").

Every server of the project (the display, the archive viewer, the event hub) runs uvicorn
with ``GuardedProtocol``, its HTTP/1.1 protocol with these bounds (``ServerLimits``):

- a **connection cap** (``max_connections``), below the process's descriptor limit
  (``limits_for_descriptors``). At the cap a new connection takes the place of one still
  waiting for its request — the oldest of the client holding the most connections — so
  slow clients, from however many addresses, never lock out a newcomer (the admin above
  all) for longer than it takes to send a request; only when every connection is busy
  with a request is the newcomer answered 503 and closed at once;
- a **share reserved for the admin**: spectators get at most ``max_connections -
  reserved`` connections. Who is the admin is only known from the request, so a connection
  beyond the spectators' share (or beyond its client's share) is admitted *on probation*,
  at most ``probation_per_client`` per client address: it is served only an admin page
  (``/admin``) or an asset (``/static/``), anything else gets 503 at once;
- a **per-client limit** (``per_client`` connections per client address);
- a **request timeout**: a request's headers and body must arrive within
  ``request_timeout_s`` of its first byte (of the connection, for the first request),
  else the connection is closed — a client sending its headers a byte a minute holds a
  connection no longer than that; between requests uvicorn's keep-alive timeout
  (``idle_timeout_s``) closes an idle connection;
- a **send stall bound**: a response (an event stream above all) whose client stops
  reading is dropped once the server's send buffer has stayed full for ``stall_s``.

uvicorn's own ``limit_concurrency`` is not used: it refuses the admin with everyone else.
"""

from __future__ import annotations

import asyncio
import resource
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from homeworlds.web import kit

#: Connections the server accepts at one wake-up (asyncio's ``backlog``). asyncio accepts a
#: whole batch before any is refused, so up to about three batches are open beyond the cap
#: for a moment.
ACCEPT_BATCH = 16
#: The kernel's queue of connections not yet accepted, once the server runs (asyncio sets
#: it to the batch when it starts serving; ``widen_queue`` sets it back): they hold none of
#: the server's descriptors, and a burst of spectators need not retry.
LISTEN_QUEUE = 256
#: Descriptors kept beyond the connections: the program's own (store, broker, logs) and the
#: batches accepted before they are refused.
DESCRIPTOR_RESERVE = 64 + 3 * ACCEPT_BATCH


@dataclass(frozen=True)
class ServerLimits:
    #: connections open at once, spectators and admin together
    max_connections: int = 400
    #: of those, kept for the admin (never given to spectators)
    reserved: int = 32
    #: connections per client address within the spectators' share
    per_client: int = 24
    #: connections on probation (admin pages only) per client address
    probation_per_client: int = 2
    #: seconds for a request's headers and body to arrive
    request_timeout_s: float = 10.0
    #: seconds an idle keep-alive connection is kept
    idle_timeout_s: float = 5.0
    #: seconds a response may wait for its client to read before the connection is dropped
    stall_s: float = 20.0
    #: paths served on probation: the admin's pages and the assets they link
    admin_paths: tuple[str, ...] = ("/admin", "/static/")

    def __post_init__(self) -> None:
        if not 1 <= self.reserved < self.max_connections:
            raise ValueError(f"reserved {self.reserved} must be 1 to "
                             f"{self.max_connections - 1}")


def limits_for_descriptors(limits: ServerLimits | None = None) -> ServerLimits:
    """``limits`` with the connection cap below this process's descriptor limit (raised to
    its hard limit first, as far as allowed)."""
    from dataclasses import replace

    limits = limits or ServerLimits()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (OSError, ValueError):
            pass
    if soft == resource.RLIM_INFINITY:
        return limits
    cap = max(8, soft - DESCRIPTOR_RESERVE)
    if cap >= limits.max_connections:
        return limits
    return replace(limits, max_connections=cap,
                   reserved=max(1, min(limits.reserved, cap // 8)))


class ConnectionGuard:
    """The counts behind the limits, shared by a server's connections (on its loop)."""

    def __init__(self, limits: ServerLimits):
        self.limits = limits
        self.open = 0
        self.regular = 0
        self._regular_of: Counter[str] = Counter()
        self._probation_of: Counter[str] = Counter()
        #: connections waiting for their request (the protocol -> its client), oldest first
        self._waiting: dict[Any, str] = {}
        #: connections refused, dropped for a slow request, dropped for not reading, and
        #: closed at the cap to make room for a newcomer
        self.refused = 0
        self.timed_out = 0
        self.stalled = 0
        self.evicted = 0

    def admit(self, client: str) -> str | None:
        """"regular", "probation" or None (refused) for a new connection from ``client``."""
        limits = self.limits
        if self.open >= limits.max_connections and not self._evict():
            self.refused += 1
            return None
        if self._regular_of[client] < limits.per_client and \
                self.regular < limits.max_connections - limits.reserved:
            kind = "regular"
            self.regular += 1
            self._regular_of[client] += 1
        elif self._probation_of[client] < limits.probation_per_client:
            kind = "probation"
            self._probation_of[client] += 1
        else:
            self.refused += 1
            return None
        self.open += 1
        return kind

    def waiting(self, protocol: Any, client: str) -> None:
        """``protocol`` waits for a request (connected, or its last answered)."""
        self._waiting[protocol] = client

    def working(self, protocol: Any) -> None:
        """``protocol`` has a whole request: it is no longer taken for a newcomer."""
        self._waiting.pop(protocol, None)

    def _evict(self) -> bool:
        """Close the oldest waiting connection of the client holding the most; False when
        none waits."""
        if not self._waiting:
            return False
        held = Counter(self._waiting.values())
        worst = max(held, key=lambda c: (self._regular_of[c] + self._probation_of[c],
                                         held[c]))
        victim = next(p for p, c in self._waiting.items() if c == worst)
        self.evicted += 1
        victim.evict()  # releases its place at once
        return True

    def release(self, client: str, kind: str) -> None:
        self.open -= 1
        counts = self._regular_of if kind == "regular" else self._probation_of
        counts[client] -= 1
        if counts[client] <= 0:
            del counts[client]
        if kind == "regular":
            self.regular -= 1


BUSY_TEXT = ("busy: too many connections are open here; try again in a minute (the "
             "admin's pages are still served)")


def _busy_response() -> bytes:
    body = kit.error_page(503, BUSY_TEXT).encode()
    head = ["HTTP/1.1 503 Service Unavailable", "Content-Type: text/html; charset=utf-8",
            f"Content-Length: {len(body)}", "Connection: close", "Retry-After: 60",
            *(f"{k}: {v}" for k, v in kit.SECURITY_HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _busy_app(scope, receive, send) -> None:
    """The answer to a spectator's request on a probation connection."""
    from starlette.responses import HTMLResponse

    response = HTMLResponse(kit.error_page(503, BUSY_TEXT), status_code=503,
                            headers=kit.headers({"Retry-After": "60", "Connection": "close"}))
    await response(scope, receive, send)


class _Guarded:
    """What ``guarded_protocol`` adds to uvicorn's h11 protocol (a mixin before it): the
    admission, the request timer, the send stall bound and the eviction at the cap."""

    guard: ConnectionGuard
    _kind: str | None = None
    _peer = ""
    _request_timer: asyncio.TimerHandle | None = None
    _stall_timer: asyncio.TimerHandle | None = None
    _timed_cycle: Any = None
    # Set by uvicorn's protocol (the class this one comes before).
    app: Any
    client: Any
    cycle: Any
    loop: asyncio.AbstractEventLoop
    transport: Any

    def connection_made(self, transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        guard = self.guard
        self._peer = self.client[0] if self.client else ""
        self._kind = guard.admit(self._peer)
        if self._kind is None:
            transport.write(_busy_response())
            transport.close()
            return
        if self._kind == "probation":
            self.app = _probation_gate(self.app, guard.limits.admin_paths)
        guard.waiting(self, self._peer)
        self._arm_request_timer()

    def _leave(self) -> None:
        for timer in (self._request_timer, self._stall_timer):
            if timer is not None:
                timer.cancel()
        self._request_timer = self._stall_timer = None
        self.guard.working(self)
        if self._kind is not None:
            self.guard.release(self._peer, self._kind)
            self._kind = None

    def evict(self) -> None:
        """Make room for a newcomer at the cap (``ConnectionGuard._evict``)."""
        self._leave()
        self.transport.close()

    def connection_lost(self, exc) -> None:
        self._leave()
        super().connection_lost(exc)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if self._kind is not None:
            self.guard.waiting(self, self._peer)  # kept alive: waits for its next request

    def _arm_request_timer(self) -> None:
        self._timed_cycle = self.cycle
        self._request_timer = self.loop.call_later(self.guard.limits.request_timeout_s,
                                                   self._request_too_slow)

    def _request_too_slow(self) -> None:
        self._request_timer = None
        self.guard.timed_out += 1
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        idle = self.cycle is None or self.cycle.response_complete
        if self._request_timer is None and idle and self._kind is not None:
            self._arm_request_timer()  # a new request begins on a kept-alive connection
        super().data_received(data)  # type: ignore[misc]
        cycle = self.cycle
        if self._request_timer is not None and cycle is not None and \
                cycle is not self._timed_cycle and not cycle.more_body:
            self._request_timer.cancel()  # the whole request has arrived
            self._request_timer = None
            self.guard.working(self)

    def pause_writing(self) -> None:
        super().pause_writing()  # type: ignore[misc]
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(self.guard.limits.stall_s,
                                                     self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()  # type: ignore[misc]
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _stalled(self) -> None:
        self._stall_timer = None
        self.guard.stalled += 1
        self.transport.abort()


def guarded_protocol(guard: ConnectionGuard) -> type:
    """uvicorn's h11 protocol held to ``guard``'s limits (a class: uvicorn's ``http``)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    return type("GuardedProtocol", (_Guarded, H11Protocol), {"guard": guard})


def _probation_gate(app: Callable, admin_paths: tuple[str, ...]) -> Callable:
    async def gate(scope, receive, send) -> None:
        if scope.get("type") == "http" and not str(scope.get("path", "")).startswith(
                admin_paths):
            await _busy_app(scope, receive, send)
            return
        await app(scope, receive, send)
    return gate


def guarded_config(app, limits: ServerLimits | None = None, **options) -> Any:
    """A ``uvicorn.Config`` for ``app`` under ``limits`` (``options``: host, port, ...);
    its guard is ``config.guard`` (its counts, for tests and the log)."""
    import uvicorn

    guard = ConnectionGuard(limits or ServerLimits())
    options.setdefault("log_level", "warning")
    config = uvicorn.Config(app, http=guarded_protocol(guard), limit_concurrency=None,
                            backlog=ACCEPT_BATCH,
                            timeout_keep_alive=max(1, round(guard.limits.idle_timeout_s)),
                            server_header=False, **options)
    config.guard = guard  # type: ignore[attr-defined]
    return config


def widen_queue(server, sockets, timeout: float = 10.0) -> None:
    """Once ``server`` (a ``uvicorn.Server``) serves ``sockets``, give their kernel queue
    ``LISTEN_QUEUE`` places again (asyncio set it to its accept batch); on a thread of its
    own, as it waits for the start."""
    import threading
    import time

    def widen() -> None:
        deadline = time.monotonic() + timeout
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        for sock in sockets:
            try:
                sock.listen(LISTEN_QUEUE)
            except OSError:
                pass

    threading.Thread(target=widen, name="widen-listen-queue", daemon=True).start()

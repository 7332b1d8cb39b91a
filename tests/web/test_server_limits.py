"""Servers that slow and hostile clients cannot starve (issue 27, defect 6), tried with real
sockets against the display's server under small limits: slow-header connections beyond
the spectators' share and their clients' limit are refused, yet the admin is served; they
are closed once the request timeout passes; event-stream clients that never read are
dropped once their send buffer stays full; the hub's cap stays below its descriptor limit.
The counts are modest, but above every limit set."""

from __future__ import annotations

import dataclasses
import socket
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from homeworlds.feed import FeedHub, FeedProducer  # noqa: E402
from homeworlds.web.guard import ServerLimits, limits_for_descriptors  # noqa: E402
from homeworlds.web.server import WebDisplay  # noqa: E402
from tests.test_session_clocks import SETUP, Table  # noqa: E402

TOKEN = "limits-token-123"
LIMITS = ServerLimits(max_connections=40, reserved=8, per_client=20, probation_per_client=2,
                      request_timeout_s=1.0, idle_timeout_s=1.0, stall_s=1.0)


def _connect(port: int, source: str, *, receive_buffer: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    return sock


def _get(port: int, path: str, source: str) -> int:
    """The status of a whole GET from ``source`` (0: closed without an answer)."""
    return _answer(port, path, source)[0]


def _answer(port: int, path: str, source: str) -> tuple[int, bytes]:
    """(status, the whole answer) of a GET from ``source`` (0: closed without one)."""
    with _connect(port, source) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\nConnection: close\r\n\r\n"
                     .encode())
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    if not data.startswith(b"HTTP/1.1 "):
        return 0, data
    return int(data.split()[1]), data


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


@pytest.fixture
def display():
    server = WebDisplay(FeedHub(), None, host="127.0.0.1", port=0, admin_token=TOKEN,
                        limits=LIMITS)
    with server:
        yield server


def test_slow_connections_refuse_spectators_but_never_the_admin_and_time_out(display):
    port = display.port
    slow = []
    try:
        # Two clients open 30 connections each and send half a request, then nothing.
        for source in ("127.0.0.10", "127.0.0.11"):
            for _ in range(30):
                sock = _connect(port, source)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: table\r\nX-Slow: ")
                slow.append(sock)
        time.sleep(0.2)
        guard = display.guard
        assert guard.open == 36  # 20 + 12 in the spectators' share, 2 + 2 on probation
        assert guard.refused == 60 - 36
        # Spectators are refused while they last; the admin is served.
        status, answer = _answer(port, "/", "127.0.0.2")
        assert status == 503 and b"too many connections are open here" in answer
        assert b"Content-Security-Policy: default-src 'self'" in answer.replace(
            b"content-security-policy", b"Content-Security-Policy")
        # (the token in the address is exchanged for a cookie: 303 to /admin)
        assert _get(port, f"/admin?token={TOKEN}", "127.0.0.3") == 303
        assert _get(port, "/admin", "127.0.0.3") == 200
        # The request timeout closes every slow connection...
        started = time.monotonic()
        assert all(_closed_by_server(sock, 5) for sock in slow)
        assert time.monotonic() - started < LIMITS.request_timeout_s + 3
        assert guard.timed_out == 36
        # ...and the spectators are served again.
        assert _get(port, "/", "127.0.0.2") == 200
    finally:
        for sock in slow:
            sock.close()


def test_slow_connections_from_many_addresses_never_lock_out_a_newcomer(display):
    """Twelve addresses, five slow connections each: more than the cap. Each newcomer at
    the cap takes the place of the oldest waiting connection of the client holding the
    most, so the admin still gets in at once."""
    port = display.port
    slow = []
    try:
        for k in range(12):
            for _ in range(5):
                sock = _connect(port, f"127.0.0.{40 + k}")
                sock.sendall(b"GET / HTTP/1.1\r\nHost: table\r\nX-Slow: ")
                slow.append(sock)
        time.sleep(0.2)
        guard = display.guard
        assert guard.open == LIMITS.max_connections
        # Beyond the cap each took a waiting one's place, or was refused as its client's
        # third on probation.
        assert guard.evicted + guard.refused == 60 - 40 and guard.evicted >= 10
        assert _get(port, "/admin", "127.0.0.3") == 200
    finally:
        for sock in slow:
            sock.close()


def test_spectators_beyond_their_share_are_refused_and_the_admin_is_served(display):
    """Event streams (whole requests, being answered) fill the spectators' share: the next
    spectator gets 503, the admin its page, from the share kept for it."""
    port = display.port
    streams = []
    try:
        for k in range(4):
            for _ in range(8):
                sock = _connect(port, f"127.0.0.{60 + k}")
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: table\r\n\r\n")
                streams.append(sock)
        time.sleep(0.3)
        assert display.guard.open == LIMITS.max_connections - LIMITS.reserved
        assert _get(port, "/", "127.0.0.2") == 503
        assert _get(port, "/admin", "127.0.0.3") == 200
        assert display.guard.evicted == 0  # a stream being answered is never taken
    finally:
        for sock in streams:
            sock.close()


def test_a_client_beyond_its_limit_is_refused_while_others_are_served(display):
    port = display.port
    held = []
    try:
        for _ in range(LIMITS.per_client + LIMITS.probation_per_client + 3):
            sock = _connect(port, "127.0.0.20")
            sock.sendall(b"GET / HTTP/1.1\r\n")
            held.append(sock)
        time.sleep(0.2)
        assert display.guard.open == LIMITS.per_client + LIMITS.probation_per_client
        assert display.guard.refused == 3
        assert _get(port, "/", "127.0.0.21") == 200  # another spectator: served
    finally:
        for sock in held:
            sock.close()


def test_event_streams_that_never_read_are_dropped_and_the_page_still_answers(display):
    port = display.port
    table = Table()
    producer = FeedProducer(table.session, table="club", rules_name="looney")
    for text in SETUP:
        table.play(text)
    snapshot = producer.snapshot()
    readers_that_never_read = []
    try:
        for _ in range(12):
            sock = _connect(port, "127.0.0.30", receive_buffer=4096)
            sock.sendall(b"GET /events HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream"
                         b"\r\n\r\n")
            readers_that_never_read.append(sock)
        time.sleep(0.3)
        padded = dataclasses.replace(snapshot, turn_log=snapshot.turn_log + ("x" * 4000,))
        deadline = time.monotonic() + 20
        seq = 0
        while display.guard.stalled < 12 and time.monotonic() < deadline:
            seq += 1
            display.state.hub.publish_threadsafe(dataclasses.replace(padded, seq=seq))
            time.sleep(0.005)
        assert display.guard.stalled == 12, (display.guard.stalled, seq)
        assert _get(port, "/", "127.0.0.31") == 200
        assert display.guard.open == 0
    finally:
        for sock in readers_that_never_read:
            sock.close()


def test_the_connection_cap_is_below_the_descriptor_limit(monkeypatch):
    """With 256 descriptors (soft and hard), the cap leaves the program's own and three
    accept batches; with 4096 the configured cap stands."""
    from homeworlds.web import guard

    limit = [(256, 256)]
    monkeypatch.setattr(guard.resource, "getrlimit", lambda _which: limit[0])
    monkeypatch.setattr(guard.resource, "setrlimit", lambda _which, value: None)
    limits = limits_for_descriptors(ServerLimits(max_connections=1000, reserved=32))
    assert limits.max_connections == 256 - guard.DESCRIPTOR_RESERVE
    assert 1 <= limits.reserved < limits.max_connections
    limit[0] = (4096, 4096)
    assert limits_for_descriptors(ServerLimits(max_connections=1000, reserved=32)) \
        .max_connections == 1000
    # A soft limit below the hard one is raised first.
    limit[0] = (256, 4096)
    raised: list = []
    monkeypatch.setattr(guard.resource, "setrlimit", lambda _which, value: raised.append(value))
    assert limits_for_descriptors(ServerLimits(max_connections=1000)).max_connections == 1000
    assert raised == [(4096, 4096)]

"""The display's own process: fed through a pipe, commands back through the table loop,
garbage on the pipe skipped, and a display that dies never holds the table up."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest

from homeworlds.feed import GameInfo, Hints, SnapshotEvent
from homeworlds.session import ControlQueue
from homeworlds.web import WebUnavailable
from homeworlds.web.process import DisplayProcess

TOKEN = "process-test-token-0123456789abcdef"


def _snapshot(seq: int, log=()) -> SnapshotEvent:
    return SnapshotEvent("club", seq, time.time(), GameInfo("u1", "sdg", ("Ann", "Bob"), 0, 0,
                                                       len(log) + 1, None, False),
                    "Ann (0, y1b2) g3-\n", {"r1": 3}, tuple(log), Hints(), True)


def _get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _wait(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def display():
    commands = ControlQueue()
    process = DisplayProcess(commands, host="127.0.0.1", port=0, admin_token=TOKEN,
                             table_name="club").start()
    yield process, commands
    process.stop()


def test_events_reach_the_display_and_garbage_on_the_pipe_is_skipped(display):
    process, _ = display
    url = process.url.rstrip("/")
    process.publish(_snapshot(1))
    _wait(lambda: _get(url + "/api/snapshot")["seq"] == 1)
    process._out.put(b"this is not json\n")
    process._out.put(b'{"type": "snapshot", "seq": "x"}\n')
    process.publish(_snapshot(2, ["Homeworld Y1 B2 G3"]))
    _wait(lambda: _get(url + "/api/snapshot")["seq"] == 2)
    assert _get(url + "/api/snapshot")["turn_log"] == ["Homeworld Y1 B2 G3"]


def test_an_admin_command_is_run_by_the_table_loop_and_answered(display):
    process, commands = display
    url = process.url.rstrip("/")
    process.publish(_snapshot(1))
    ran = []
    stop = threading.Event()

    def table_loop():
        while not stop.is_set():
            commands.run_pending(lambda c: ran.append(c) or f"did {c.verb}")
            time.sleep(0.01)

    thread = threading.Thread(target=table_loop)
    thread.start()
    try:
        request = urllib.request.Request(url + "/admin/resign", data=b"seat=1", method="POST",
                                         headers={"Authorization": f"Bearer {TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            assert json.loads(r.read()) == {"ok": True, "message": "did resign"}
        assert ran[0].verb == "resign" and ran[0].seat == 1
        forged = urllib.request.Request(url + "/admin/draw", data=b"", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(forged, timeout=10)
        assert refused.value.code == 403
        assert len(ran) == 1
    finally:
        stop.set()
        thread.join()


def test_a_display_killed_with_kill_9_never_blocks_the_table_and_comes_back(display):
    process, _ = display
    url = process.url.rstrip("/")
    process.publish(_snapshot(1))
    _wait(lambda: _get(url + "/api/snapshot")["seq"] == 1)
    os.kill(process._proc.pid, signal.SIGKILL)
    # A publish that waited on the dead child would hang the table loop: the publishes run
    # on a thread that must finish (the bound only catches a hang; speed is benchmarked).
    publisher = threading.Thread(
        target=lambda: [process.publish(_snapshot(seq)) for seq in range(2, 2002)])
    publisher.start()
    publisher.join(timeout=60)
    assert not publisher.is_alive(), "publishing to a killed display blocked the table loop"
    # The watchdog starts it again on the same port, with the latest snapshot.
    _wait(lambda: process.restarts == 1)
    _wait(lambda: _get(url + "/api/snapshot")["seq"] == 2001)


def test_a_port_in_use_is_reported_by_the_display_process():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(WebUnavailable, match=f"127.0.0.1:{port}"):
            DisplayProcess(ControlQueue(), host="127.0.0.1", port=port, admin_token=TOKEN,
                           table_name="club").start()


def test_a_broken_line_from_the_display_is_refused_alone_and_the_next_command_runs():
    # The reader thread answers the child's admin commands: a line that is not JSON (the
    # first, or after a good one) ends neither the thread nor answers for another command.
    import types

    commands = ControlQueue()
    process = DisplayProcess(commands, host="127.0.0.1", port=0, admin_token=TOKEN,
                             table_name="club")
    lines = [b"not json\n",
             b'{"id": 7, "command": {"verb": "resign", "seat": 1}}\n',
             b"{broken\n",
             b'{"id": 8, "command": {"verb": "draw"}}\n']
    process._proc = types.SimpleNamespace(stdin=object(), stdout=lines)
    process._read_loop()
    ran = []
    commands.run_pending(lambda c: ran.append((c.verb, c.seat)) or "done")
    assert ran == [("resign", 1), ("draw", None)]
    replies = []
    while not process._out.empty():
        replies.append(json.loads(process._out.get_nowait()))
    assert {r["id"] for r in replies} == {7, 8}
    assert all(r["ok"] for r in replies)

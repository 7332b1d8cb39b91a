"""``homeworlds display --feed URL``: another host shows the table from its feed alone, and
follows it through the table host's restart."""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from homeworlds.cli import main
from homeworlds.commands import display
from tests.web.live_table import LiveTable
from tests.web.server import free_port


def _snapshot(url):
    try:
        with urllib.request.urlopen(url + "/api/snapshot", timeout=2) as r:
            return json.loads(r.read())
    except OSError:
        return None


def _wait(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_a_display_on_another_host_follows_the_table_through_its_restart():
    with LiveTable() as table:
        table.play_turn()
        port = free_port()
        remote = f"http://127.0.0.1:{port}"
        stop = threading.Event()
        args = argparse.Namespace(feed=table.url + "/feed", listen=f"127.0.0.1:{port}",
                                  table="hall")
        thread = threading.Thread(target=display.run, args=(args, stop))
        thread.start()
        try:
            _wait(lambda: (_snapshot(remote) or {}).get("turn_log") == ["Homeworld Y1 B2 G3"])
            table.play_turn()
            _wait(lambda: len(_snapshot(remote)["turn_log"]) == 2)
            assert _snapshot(remote)["position"] == table.producer.latest.position
            # The table's host restarts; the remote display reconnects and resyncs.
            table.stop_server()
            table.play_turn()
            table.start_server()
            _wait(lambda: len(_snapshot(remote)["turn_log"]) == 3)
            # Read-only: no admin action reaches the table from here.
            request = urllib.request.Request(remote + "/admin/undo", data=b"", method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=5)
            assert refused.value.code == 403
            assert len(table.sim.session.tracker.record) == 3
        finally:
            stop.set()
            thread.join(10)


@pytest.mark.parametrize("argv, says", [
    (["display", "--feed", "table-1:8080/feed"], "not an http(s) URL"),
    (["display", "--feed", "http://t/feed", "--listen", "nowhere"], "not an IP address"),
])
def test_bad_options_are_refused(argv, says, capsys):
    assert main(argv) == 2
    assert says in capsys.readouterr().err

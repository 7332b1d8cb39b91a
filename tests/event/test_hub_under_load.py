"""The hub cannot be starved (issue 27, defect 6): run as an organiser runs it, with a low
descriptor limit, more slow connections than it has descriptors leave its pages and its
admin answering — its connection cap is below its descriptor limit, with a share kept for
the admin — and the slow connections are closed by the request timeout."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys

from homeworlds.web.guard import DESCRIPTOR_RESERVE
from tests.event.broker import free_port
from tests.event.helpers import wait_for
from tests.event.test_hub_command import get
from tests.shared import REPO

DESCRIPTORS = 256


def _low_descriptor_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


def test_more_slow_connections_than_descriptors_leave_the_hub_answering(tmp_path, broker):
    token = tmp_path / "admin.token"
    token.write_text("let-me-in\n")
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO / "host") + os.pathsep + str(REPO / "firmware"))
    hub = subprocess.Popen([sys.executable, "-m", "homeworlds", "hub", "--broker", broker.url,
                            "--event", "club", "--store", str(tmp_path / "hub.sqlite"),
                            "--listen", f"127.0.0.1:{port}", "--admin-token-file", str(token)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                           preexec_fn=_low_descriptor_limit)
    base = f"http://127.0.0.1:{port}"
    slow: list[socket.socket] = []
    try:
        wait_for(lambda: get(base + "/")[0] == 200, 20, "the hub's page")
        # 300 connections from 6 addresses (more than the hub's 256 descriptors), each
        # sending half a request and then nothing.
        for k in range(6):
            for _ in range(50):
                sock = socket.socket()
                sock.bind((f"127.0.0.{50 + k}", 0))
                sock.settimeout(5)
                try:
                    sock.connect(("127.0.0.1", port))
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: hub\r\nX-Slow: ")
                except OSError:
                    sock.close()
                    continue
                slow.append(sock)
        # The admin is served meanwhile (a share of the connections is kept for it).
        status, text = get(base + "/admin/round", b"token=wrong")
        assert status == 403 and "admin token is missing or wrong" in text
        # Once the request timeout has closed the slow ones, spectators are served again.
        wait_for(lambda: get(base + "/")[0] == 200, 20, "the hub's page after the flood")
    finally:
        for sock in slow:
            sock.close()
        hub.send_signal(signal.SIGINT)
        out, err = hub.communicate(timeout=20)
    assert "Traceback" not in err, err
    assert "Too many open files" not in err, err
    assert f"at most {DESCRIPTORS - DESCRIPTOR_RESERVE} connections" in out

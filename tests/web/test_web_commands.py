"""``homeworlds demo --web`` and ``play --listen``: the URL, the options, clear refusals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from homeworlds.cli import main
from tests.web.server import free_port


def test_demo_web_prints_the_url_serves_the_game_and_stops_on_ctrl_c():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", "demo", "--web", "--speed",
                             "0", "--once", "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stdout.readline()
        assert first.strip() == f"display: http://127.0.0.1:{port}/"
        first_admin = proc.stdout.readline()
        assert first_admin.startswith(f"admin: http://127.0.0.1:{port}/admin?token=")
        for line in proc.stdout:
            if "the display stays up" in line:
                break
        snap = _final_snapshot(port)
        assert snap["game"]["result"]["winners"] == [1]  # SDG #608: MatrixFrog wins
        assert snap["game"]["players"] == ["Aaron", "MatrixFrog"]
        assert len(snap["turn_log"]) > 40
        token = first_admin.split("token=")[1].strip()
        answer = _post(f"http://127.0.0.1:{port}/admin/undo", token)
        assert answer[0] == 409 and "recorded game" in answer[1]["message"]
        answer = _post(f"http://127.0.0.1:{port}/admin/settings", token, b"hint_level=minimal")
        assert answer == (200, {"ok": True, "message": "settings: hint level minimal"})
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


TINY_GAMES = {
    "a.raw": "Homeworlds Online (SDG# 1)\nParticipants: Bea (S), Al (N)\n\n"
             "1) Al: Homeworld Y1 B2 G3\n\n2) Bea: Homeworld G3 Y2 R3\n\n"
             "3) Al: Build G1 Al\n\n",
    "b.raw": "Homeworlds Online (SDG# 2)\nParticipants: Dee (S), Cy (N)\n\n"
             "1) Cy: Homeworld R1 B2 Y3\n\n2) Dee: Homeworld B1 Y2 G3\n\n",
}


def test_demo_web_plays_the_games_round_and_round_and_its_links_work(tmp_path):
    """A stand that runs itself: game after game on the same display, each with its own
    players, a pause on each end; the live page's links answer (no archive link without
    an archive; the error page is styled)."""
    files = []
    for name, text in TINY_GAMES.items():
        (tmp_path / name).write_text(text)
        files += ["--game", str(tmp_path / name)]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", "demo", "--web", "--speed",
                             "0", "--pause", "0.5", *files, "--listen", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        seen = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(seen) < 3:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot",
                                            timeout=5) as r:
                    players = json.loads(r.read())["game"]["players"]
            except (OSError, ValueError):
                time.sleep(0.2)
                continue
            if not seen or seen[-1] != players:
                seen.append(players)
            time.sleep(0.1)
        assert seen[:3] == [["Al", "Bea"], ["Cy", "Dee"], ["Al", "Bea"]], seen
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            page = r.read().decode()
        assert 'id="archive-link"' not in page  # the demo has no archive to link to
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/archive", timeout=5)
        except urllib.error.HTTPError as exc:
            assert exc.code == 404 and b'href="/static/kit.css"' in exc.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/kit.css", timeout=5) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_demo_versus_computer_web_serves_its_page():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", "demo", "--versus-computer",
                             "--web", "--speed", "0", "--turns", "3", "--listen",
                             f"127.0.0.1:{port}"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout.readline().strip() == f"display: http://127.0.0.1:{port}/"
        for line in proc.stdout:
            if "the display stays up" in line:
                break
        snap = _final_snapshot(port, within_s=5)
        assert snap["game"]["players"] == ["Person", "Computer"]
        assert len(snap["turn_log"]) >= 3
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200 and b'id="map"' in r.read()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def _final_snapshot(port, within_s=30.0):
    """The display's snapshot once it shows the game's result. The display process runs
    niced and reads the table's events at its own pace: on a loaded machine it may still be
    working through the last turns when the table prints that the game is over (a person
    looking at the page sees it catch up)."""
    deadline = time.monotonic() + within_s
    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as r:
            snap = json.loads(r.read())
        if snap["game"]["result"] is not None or time.monotonic() > deadline:
            return snap
        time.sleep(0.1)


def _post(url, token, body=b""):
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_killed_host_takes_its_display_process_with_it(tmp_path):
    """kill -9 of the table's process: the display process sees its pipe close and ends
    (no orphan keeps the port)."""
    script = tmp_path / "host.py"
    script.write_text(
        "import sys, time\n"
        "from homeworlds.session import ControlQueue\n"
        "from homeworlds.web.process import DisplayProcess\n"
        "p = DisplayProcess(ControlQueue(), host='127.0.0.1', port=0, "
        "admin_token='t' * 20, table_name='t').start()\n"
        "print(p._proc.pid, p.port, flush=True)\n"
        "time.sleep(60)\n")
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        child, port = map(int, host.stdout.readline().split())
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(child, signal.SIGKILL)
            raise AssertionError("the display process outlived its host")
    finally:
        host.stdout.close()
        if host.poll() is None:
            host.kill()
            host.wait()


@pytest.mark.parametrize("argv, says", [
    (["demo", "--listen", "0.0.0.0"], "--listen needs --web"),
    (["demo", "--web", "--listen", "example.org:80"], "not an IP address"),
    (["demo", "--web", "--listen", "127.0.0.1:99999"], "port must be a number"),
    (["demo", "--web", "--listen", "[::1"], "needs its ']'"),
])
def test_bad_listen_options_are_refused_with_the_reason(argv, says, capsys):
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_a_port_in_use_is_a_clear_refusal(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["demo", "--web", "--speed", "0", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve the display on 127.0.0.1:{port}" in err
    assert "Traceback" not in err


def test_without_the_web_extra_the_message_names_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn -> ImportError
    assert main(["demo", "--web", "--speed", "0", "--listen", "127.0.0.1:0"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'homeworlds-table[web]'" in err and "uvicorn" in err


def test_the_admin_link_is_printed_with_a_qr_code_on_a_terminal():
    import io

    from homeworlds.feed import FeedHub
    from homeworlds.web.server import WebDisplay

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    display = WebDisplay(FeedHub(), None, port=8080, admin_token="t" * 20)
    display.announce(out)
    text = out.getvalue()
    assert "admin: http://127.0.0.1:8080/admin?token=" + "t" * 20 in text
    assert text.count("\n") > 15 and "█" in text  # the QR code's rows

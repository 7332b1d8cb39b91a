"""`homeworlds hub` as an organiser runs it: a real broker, a table, the page, the token."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

from tests.event.broker import free_port
from tests.event.helpers import TWO_PLAYER_GAMES, TableProcess, wait_for
from tests.shared import REPO


def get(url: str, data: bytes | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError:
        return 0, ""


def test_the_hub_command_follows_a_table_and_guards_admin(tmp_path, broker):
    token = tmp_path / "admin.token"
    token.write_text("let-me-in\n")
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO / "host") + os.pathsep + str(REPO / "firmware"))
    keys = subprocess.run([sys.executable, "-m", "homeworlds", "hub-keys", "--store",
                           str(tmp_path / "hub.sqlite"), "--event", "club", "--dir",
                           str(tmp_path / "keys"), "issue", "t1"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert keys.returncode == 0, keys.stderr
    assert "table t1: key t1." in keys.stdout
    hub = subprocess.Popen([sys.executable, "-m", "homeworlds", "hub", "--broker", broker.url,
                            "--event", "club", "--store", str(tmp_path / "hub.sqlite"),
                            "--listen", f"127.0.0.1:{port}", "--admin-token-file", str(token)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    table = TableProcess(tmp_path, broker.url, "club", "t1", TWO_PLAYER_GAMES[0],
                         interval=0.02, turns=6, key_file=tmp_path / "keys" / "t1.key")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: get(base + "/")[0] == 200, 20, "the hub's page")
        table.start()
        wait_for(lambda: 'data-turn="7"' in get(base + "/fragment/tables")[1], 20,
                 "turn 7 to play on the hub's page")
        status, text = get(base + "/admin/round", b"token=wrong")
        assert status == 403 and "admin token is missing or wrong" in text
        status, text = get(base + "/admin/players", b"token=let-me-in&players=A%0AB")
        assert status == 200 and "Standings" in text  # redirected to /results
    finally:
        table.stop()
        hub.send_signal(signal.SIGINT)
        out, err = hub.communicate(timeout=20)
    assert "Traceback" not in err, err
    assert "let-me-in" not in out + err
    assert f"page at http://127.0.0.1:{port}/" in out
    assert "1 table has a key (t1)" in out


def test_the_hub_command_refuses_bad_arguments_clearly(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "host") + os.pathsep + str(REPO / "firmware"))
    done = subprocess.run([sys.executable, "-m", "homeworlds", "hub", "--broker",
                           "mqtt://ann:pw123@host:1883", "--event", "club", "--listen", "nope"],
                          capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 2
    assert "--listen 'nope'" in done.stderr and "Traceback" not in done.stderr


def test_hub_keys_issue_rotate_revoke_and_list(tmp_path, capsys):
    from homeworlds.cli import main
    from homeworlds.identity import TableKey

    base = ["hub-keys", "--store", str(tmp_path / "hub.sqlite"), "--event", "club", "--dir",
            str(tmp_path / "keys")]
    assert main(base + ["issue", "t1", "t2"]) == 0
    first = TableKey.from_text((tmp_path / "keys" / "t1.key").read_text())
    assert main(base + ["issue", "t1"]) == 2
    assert "table t1 has a key already: `rotate`" in capsys.readouterr().err
    assert main(base + ["rotate", "t1"]) == 0
    rotated = TableKey.from_text((tmp_path / "keys" / "t1.key").read_text())
    assert rotated.key_id != first.key_id
    assert "stays valid until the table first uses this one" in capsys.readouterr().out
    assert main(base + ["revoke", "t2"]) == 0
    out = capsys.readouterr().out
    assert "table t2: revoked t2." in out and "broker account removed" in out
    acl = (tmp_path / "keys" / "broker.acl").read_text()
    assert "user t1\n" in acl and "user t2\n" not in acl and "user hub\n" in acl
    assert main(base + ["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in listed] == ["t1", "t1", "t2"]
    assert listed[0].endswith("valid") and listed[1].endswith("valid")
    assert "revoked" in listed[2]
    for line in listed:
        assert first.secret.hex() not in line and rotated.secret.hex() not in line
    assert main(base + ["rotate", "t2"]) == 2
    assert "table t2 has no valid key" in capsys.readouterr().err
    assert main(base + ["issue", "hub"]) == 2
    assert main(base[:-2] + ["--dir", str(tmp_path / "keys"), "issue", "t/3"]) == 2

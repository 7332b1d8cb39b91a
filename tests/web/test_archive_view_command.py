"""``homeworlds archive-view`` serves the archive and the attract page, and says what is
wrong with its arguments."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from homeworlds.cli import main
from tests.web.archive_data import SDG_DIR, record_games
from tests.web.server import free_port

pytest.importorskip("uvicorn")


def test_it_serves_the_store_and_the_files_until_stopped(tmp_path):
    store = tmp_path / "games.sqlite"
    record_games(store, ["6980.raw"])
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", "archive-view", "--store",
                             str(store), "--listen", f"127.0.0.1:{port}", "--attract-after",
                             "30", str(SDG_DIR / "3426.raw")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/archive" in banner
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                    listing = reply.read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "archive-view did not answer"
                time.sleep(0.1)
        assert "TwoShort v Cochise" in listing and "3426.raw" in listing
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/attract/state", timeout=5) as r:
            assert b'"active":false' in r.read()
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize("argv, words", [
    (["--listen", "nowhere"], "is not HOST:PORT"),
    (["--attract-after", "-3"], "out of range"),
])
def test_bad_options_are_refused_by_the_parser(argv, words, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["archive-view", *argv])
    assert exc.value.code == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--store", "/nonexistent/games.sqlite"], "no game store at /nonexistent/games.sqlite"),
    (["/nonexistent/game.raw"], "no such file: /nonexistent/game.raw"),
])
def test_missing_files_are_named(argv, words, capsys):
    assert main(["archive-view", *argv]) == 2
    assert words in capsys.readouterr().err


def test_a_bad_configuration_is_named_with_its_key(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text("[display]\nattract_after_s = 1\n")
    assert main(["archive-view", "--config", str(config)]) == 2
    assert "display.attract_after_s" in capsys.readouterr().err

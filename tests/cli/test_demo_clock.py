"""`homeworlds demo --clock`: the simulated table's game clocks on the terminal."""

from __future__ import annotations

import subprocess
import sys

import pytest

from homeworlds.cli import main


def test_the_demo_shows_the_clocks_running_and_stopped_at_the_end():
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--speed", "0",
                          "--clock", "600"], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("clocks:")]
    assert lines[0] == "clocks: Aaron 10:00 | MatrixFrog 10:00  (not running yet)"  # setup
    assert any(line.startswith("clocks: Aaron 9:5") and line.endswith("◂") for line in lines)
    assert lines[-1].endswith("(stopped: the game is over)")


@pytest.mark.parametrize("control, words", [
    ("soon", "'soon' is not a time control (forms: none, 600, 300+5, 300d5)"),
    ("300d0", "delay_s: 0 is out of range"),
])
def test_a_bad_time_control_is_refused(capsys, control, words):
    with pytest.raises(SystemExit) as caught:
        main(["demo", "--clock", control])
    assert caught.value.code == 2
    assert words in capsys.readouterr().err

"""`homeworlds demo --versus-computer`: a simulated person plays the computer on the
simulated table, carrying out each step the lights show (runtime.demo)."""

from __future__ import annotations

import subprocess
import sys


def test_the_person_and_the_computer_take_turns_on_the_simulated_table():
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--versus-computer",
                          "--turns", "4", "--speed", "0", "--no-color"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    assert "Person vs the computer (level 1) — simulated table, sdg rules" in out
    assert "1) Person: Homeworld" in out and "2) Computer: Homeworld" in out
    assert "4) Computer: " in out  # the computer's turns were laid out and committed
    assert out.rstrip().endswith("stopped after 4 turns")

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


def test_the_demo_plays_a_three_player_game_on_the_four_seat_table():
    """000 (HOMEWORLDS FOR MORE THAN TWO): "each player can be seeking to destroy the one
    on their left" — a Sinister game of three, one of whom leaves it, played to its end."""
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--players", "3",
                          "--speed", "0", "--no-color"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    assert "SDG game #20061: radio414 vs dragmio vs GodofPie — simulated table" in out
    assert "GodofPie resigned and leaves the game; radio414 is to move" in out
    assert "34) radio414: Sacrifice Y3 radio414" in out
    assert out.rstrip().endswith("game over (opponent-eliminated): radio414 wins")


def test_the_demo_refuses_a_player_count_it_has_no_game_for():
    run = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--players", "5"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--players: invalid choice: 5" in run.stderr

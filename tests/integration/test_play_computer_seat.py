"""`homeworlds play` with a computer seat, over the simulated MCU on a pty: it announces the
computer, and after the person's homeworld the computer thinks and prints its first step."""

from __future__ import annotations

import time

from homeworlds.notation import parse_sdg_action
from tests.integration.play_host import SETTLE_S, PlayHost


def test_play_runs_a_computer_seat_and_prints_its_steps(tmp_path, capsys, sim_table):
    sim = sim_table(players=("Ann", "Hal"), sections="[seats.1]\ncomputer = true\nlevel = 1\n"
                                                     "seed = 3\n")
    driver = sim.driver()
    host = PlayHost(sim.config, tmp_path / "game.raw")
    try:
        time.sleep(SETTLE_S)
        driver.play_turn((parse_sdg_action("Homeworld Y1 B2 G3", player="Ann"),))
        deadline = time.monotonic() + 30
        out = ""
        while time.monotonic() < deadline:
            out += capsys.readouterr().out
            if "from the bank and put it on the empty slot" in out:
                break
            time.sleep(0.1)
    finally:
        host.close()
    out += capsys.readouterr().out
    assert "Hal (seat 1) is the computer, level 1" in out
    assert "turn 1: Ann: homeworld y1 b2 g3 Ann" in out
    assert "Hal: the computer (level 1) is thinking" in out
    assert "Hal plays: homeworld " in out
    assert "from the bank and put it on the empty slot N3 north home (a new system)" in out

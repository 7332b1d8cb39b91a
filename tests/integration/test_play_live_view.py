"""`homeworlds play --live` on an 80×24 pseudo-terminal: the table is drawn in place and
fits, turns and messages scroll in its log, a command typed on its last line is shown as it
is typed and carried out, and when the host stops everything it printed is on the
terminal."""

from __future__ import annotations

import time

from tests.integration.play_host import PLAYERS, SETTLE_S, sdg_turn
from tests.integration.pty_terminal import PtyTerminal, after_live, screens


def _last_screen(out: str) -> str:
    drawn = screens(out)
    return "\n".join(drawn[-1]) if drawn else ""


def test_play_live_view_at_80x24(tmp_path, sim_table):
    sim = sim_table()
    term = PtyTerminal(["play", "--config", str(sim.config), "--live"], 80, 24, cwd=tmp_path)
    try:
        term.wait_for(lambda out: "turn 1: Ann to play" in _last_screen(out))
        driver = sim.driver()
        for k, text in enumerate(["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3"]):
            time.sleep(SETTLE_S)  # let the host see the pieces before the token moves
            driver.play_turn(sdg_turn(text, PLAYERS[k % 2]))
            term.wait_for(lambda out, n=k + 1: f"turn {n}: " in _last_screen(out)
                          and f"turn {n + 1}: " in _last_screen(out))
        term.type("hel")
        term.wait_for(lambda out: "> hel" in _last_screen(out))
        term.type("x\x7fp\r")  # a typo, rubbed out
        term.wait_for(lambda out: "commands: resign NAME" in _last_screen(out))
        term.type("resign Bob\r")
        term.wait_for(lambda out: "Bob resign" in _last_screen(out)
                      or "resigned" in _last_screen(out))
    finally:
        term.interrupt()
        code = term.finish()
    out = term.output
    assert code == 0, out[-3000:]
    drawn = screens(out)
    assert all(len(screen) <= 24 for screen in drawn)
    assert all(len(line) <= 80 for screen in drawn for line in screen)
    last = _last_screen(out)
    assert "Ann" in last and "Bob" in last and "bank:" in last and "\n  >" in last
    assert last.count("game over: Bob resigned") == 2  # printed twice, not shown thrice
    # The whole log stays on the terminal after the view closes.
    after = after_live(out)
    assert "turn 1: Ann: homeworld y1 b2 g3 Ann" in after
    assert "turn 2: Bob: homeworld r1 y2 g3 Bob" in after
    assert "commands: resign NAME" in after
    assert (tmp_path / "game-record.raw").exists()


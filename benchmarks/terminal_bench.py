"""The terminal view's cost: CPU per picture taken, per layout and per whole live redraw.

The bundled demo game is played to turn 30 on the simulated table (four systems, fleets of
five); its picture is laid out (``fit``) and drawn by rich's live display into memory at
80×24, 120×40, 200×60 and 50×20 (the narrow ``record`` form). The live view redraws at
most ten times a second, so ten times the redraw figure is its share of a core at worst.
CPU time of this thread, so other load on the machine does not count. Prints figures,
asserts nothing.

    python benchmarks/terminal_bench.py
"""

from __future__ import annotations

import io
import time
from importlib import resources

from homeworlds.display.fit import fit
from homeworlds.display.picture import picture_of_session
from homeworlds.display.screen import REDRAWS_PER_SECOND, TerminalScreen
from homeworlds.notation.sdg import read_sdg
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame

SIZES = ((80, 24), (120, 40), (200, 60), (50, 20))


def _cpu_ms(action, n: int) -> float:
    start = time.thread_time()
    for _ in range(n):
        action()
    return (time.thread_time() - start) / n * 1000


def run() -> dict:
    from rich.console import Console

    game = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text(),
                    source="demo-game.raw")
    sim = SimulatedTableGame(preset("sdg"), game.players, first_seat=game.turns[0].seat,
                             miss_rate=0.0, seed=1)
    figures: dict = {}
    with sim:
        for turn in game.turns[:30]:
            sim.driver.begin_turn()
            for action in turn.actions:
                sim.driver.act(action)
                sim.settle()
            after = sim.driver.end_turn(hand_over=False)
            sim.settle()
            sim.hand_over_and_wait(after.to_move)
        figures["picture_of_session_ms_cpu"] = round(_cpu_ms(
            lambda: picture_of_session(sim.session, sim.layout, game.players, title="bench"),
            200), 3)
        picture = picture_of_session(sim.session, sim.layout, game.players, title="bench")
    for width, height in SIZES:
        form = fit(picture, width, height, color=True).form
        fit_ms = _cpu_ms(lambda w=width, h=height: fit(picture, w, h, color=True), 200)
        console = Console(file=io.StringIO(), width=width, height=height, force_terminal=True,
                          color_system="truecolor")
        screen = TerminalScreen(console=console)
        screen.start()
        screen.show(picture)
        redraw_ms = _cpu_ms(screen._live.refresh, 50)
        screen.close()
        figures[f"{width}x{height}"] = (f"{form}: fit {fit_ms:.2f} ms CPU, live redraw "
                                        f"{redraw_ms:.2f} ms CPU, at most "
                                        f"{redraw_ms * REDRAWS_PER_SECOND / 10:.1f}% of a core")
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")

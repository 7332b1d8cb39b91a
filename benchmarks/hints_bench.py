"""Hint renderer speed: frames per second for the standard table (240 pixels).

A busy mid-game position: 11 systems on 14 slots, a ship lifted at a home
(spinner, bright connections, dashed empty slots for a new star, legality asked
of the rules through a turn in progress), an overpopulation pulsing, a
mistake blinking, the Red Alert heartbeat. Each frame is rendered at a new
time so every animation is recomputed. Prints figures, asserts nothing.

    python benchmarks/hints_bench.py [--seconds S]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from homeworlds.hints import HintSettings, HintView, LiftedShip, Renderer, render
from homeworlds.rules import GameState, Piece, preset
from homeworlds.table.layout import builtin_layout


@dataclass(frozen=True)
class _Spec:
    name: str
    home_of: int | None
    stars: tuple[Piece, ...]
    ships: tuple[tuple[Piece, ...], ...]


def _pieces(text: str) -> tuple[Piece, ...]:
    return tuple(Piece.from_text(text[i:i + 2]) for i in range(0, len(text), 2))


def _system(name: str, stars: str, south: str, north: str, home_of: int | None = None) -> _Spec:
    return _Spec(name, home_of, _pieces(stars), (_pieces(south), _pieces(north)))


#: slot -> system: two homes, nine colonies (one overpopulated in green), three empty slots.
BUSY = {
    3: _system("Alice", "b1y2", "g3y1r2", "", home_of=0),
    10: _system("Bob", "r1g3", "", "b3y2", home_of=1),
    0: _system("Alpha", "g3", "r1", "b1"),
    1: _system("Beta", "b2", "b1", ""),
    2: _system("Gamma", "b3", "y1", ""),
    4: _system("Delta", "r3", "g1g2", "g1g2"),
    5: _system("Eps", "y3", "", "r1"),
    7: _system("Zeta", "y1", "b2", "y3"),
    8: _system("Eta", "r2", "", "r2"),
    9: _system("Theta", "y3", "y2", ""),
    12: _system("Iota", "g2", "r3", "b3"),
}


def busy_view() -> HintView:
    layout = builtin_layout("standard-2p")
    state = GameState.from_position(BUSY.values(), preset("looney"))
    return HintView(layout, game=state, turn=state.begin_turn(),
                    system_at={slot: spec.name for slot, spec in BUSY.items()},
                    active_seat=0, lifted=LiftedShip(0, Piece.from_text("g3"), 3),
                    mistake_slots=frozenset({13}), red_alert_seat=0)


def _rate(render_at, seconds: float) -> float:
    frames = 0
    now = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            render_at(now)
            now += 1 / 60
        frames += 100
        if time.perf_counter() >= deadline:
            return frames / (time.perf_counter() - start)


def run(seconds: float = 1.0, repeat: int = 3) -> dict:
    """Frames per second (median of ``repeat`` runs of ``seconds``) for the busy view."""
    view = busy_view()
    settings = HintSettings()
    renderer = Renderer(view.layout, settings)
    quiet = HintView(view.layout, game=view.game, system_at=view.system_at, active_seat=0)
    # game clocks: the draining bar in its last minute, the other seat's flag
    timed = HintView(view.layout, game=view.game, system_at=view.system_at, active_seat=0,
                     clock_fraction=0.4, clock_low=True, flagged_seats=frozenset({1}))
    return {
        "layout": view.layout.name,
        "pixels": view.layout.pixel_count,
        "render_fps": statistics.median(
            _rate(lambda t: render(view, settings, t), seconds) for _ in range(repeat)),
        "renderer_fps": statistics.median(
            _rate(lambda t: renderer.render(view, t), seconds) for _ in range(repeat)),
        "idle_fps": statistics.median(
            _rate(lambda t: renderer.render(quiet, t), seconds) for _ in range(repeat)),
        "clock_fps": statistics.median(
            _rate(lambda t: renderer.render(timed, t), seconds) for _ in range(repeat)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each run")
    args = parser.parse_args()
    result = run(args.seconds)
    print(f"hint renderer, layout {result['layout']} ({result['pixels']} pixels), "
          "median of 3 runs")
    print("  busy mid-game, ship lifted, overpopulation, mistake, Red Alert:")
    print(f"    render(view, settings, now)        {result['render_fps']:10.0f} frames/s "
          f"({1e6 / result['render_fps']:.0f} us/frame)")
    print(f"    Renderer.render(view, now)         {result['renderer_fps']:10.0f} frames/s "
          f"({1e6 / result['renderer_fps']:.0f} us/frame)")
    print(f"  same position, nothing lifted        {result['idle_fps']:10.0f} frames/s "
          f"({1e6 / result['idle_fps']:.0f} us/frame)")
    print(f"  same, with game clocks (docs/clocks.md) {result['clock_fps']:7.0f} frames/s "
          f"({1e6 / result['clock_fps']:.0f} us/frame)")


if __name__ == "__main__":
    main()

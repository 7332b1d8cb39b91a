"""The computer at the table: does the table stay live while it thinks, and how fast is
the guidance judged?

A mid-game position of the bundled demo game is laid out on the simulated table (pty,
simulated microcontroller); north is the computer. While it thinks (levels 1, 3 and 4, in its
worker thread) the host loop goes on polling the link, judging and rendering the LEDs: the
figures are the gaps between two passes of that loop (a gap is a frame the LEDs wait
for), then the time of one judgement of the table against the computer's plan
(``table.guidance.guide``) and of one rendered frame with a step shown. Prints figures,
asserts nothing.

    python benchmarks/seat_bench.py
"""

from __future__ import annotations

import statistics
import time
from importlib import resources


def _percentile(values, share):
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))]


def _position(turns: int):
    from homeworlds.notation.sdg import read_sdg
    from homeworlds.replay import rules_for_game
    from homeworlds.rules import GameState

    game = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text())
    rules = rules_for_game(game, None)
    state = GameState(rules, 2, first_to_move=game.turns[0].seat)
    record = []
    for turn in game.turns:
        if len(record) >= turns and turn.seat == 1:
            break
        state.apply_turn(turn.actions)
        record.append((turn.seat, turn.actions))
    return game, rules, state, record


def _think_on_the_table(level: int) -> dict[str, str]:
    from homeworlds.runtime.table_replay import SimulatedTableGame
    from homeworlds.session import ComputerSeat
    from homeworlds.sim import TableDriver
    from homeworlds.table.guidance import guide

    game, rules, state, record = _position(36)
    if state.to_move != 1:
        raise RuntimeError("the benchmark position must have north to move")
    sim = SimulatedTableGame(rules, game.players, first_seat=game.turns[0].seat,
                             miss_rate=0.05, seed=1,
                             computer_seats={1: ComputerSeat(level=level, seed=1)})
    out = {}
    with sim:
        session = sim.session
        session.tracker.resume(record)
        sim.driver = TableDriver(sim.table, state)
        sim.driver.arrange()
        # No settle() first: the computer starts thinking as soon as the host has found the
        # recorded position on the table, which may be before the table has settled.
        gaps = []
        last = time.perf_counter()
        started = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for event in sim.link.poll(0.002):
                session.handle(event)
            session.tick()
            now = time.perf_counter()
            thinking = session.computer.thinking is not None and not session.computer.thinking.done
            if thinking:
                started = started or now
                gaps.append(now - last)
            last = now
            if session.computer.planned_turn is not None:
                break
        if not gaps:
            raise RuntimeError(f"level {level} never started thinking in 60 s "
                               f"(table: {session.status.phase} {session.status.message!r})")
        seconds = time.perf_counter() - started
        out[f"level {level}: thought for"] = f"{seconds:.2f} s"
        out[f"level {level}: host loop while thinking (gap p50 / p99 / max)"] = (
            f"{1000 * statistics.median(gaps):.1f} / {1000 * _percentile(gaps, 0.99):.1f} / "
            f"{1000 * max(gaps):.1f} ms over {len(gaps)} passes")
        if level == 1 and session.computer.planned_turn is not None:
            plan = session.computer.planned_turn.plan
            obs = session.observation
            times = []
            for _ in range(200):
                t0 = time.perf_counter()
                guide(plan, obs)
                times.append(time.perf_counter() - t0)
            out["guide(): one judgement of the table (p50 / max)"] = (
                f"{1e6 * statistics.median(times):.0f} / {1e6 * max(times):.0f} µs")
            frames = []
            for k in range(200):
                t0 = time.perf_counter()
                session.render(k / 50)
                frames.append(time.perf_counter() - t0)
            out["frame with the computer's step shown (p50)"] = (
                f"{1e6 * statistics.median(frames):.0f} µs")
    return out


def run() -> dict[str, str]:
    figures = {}
    for level in (1, 3, 4):
        figures.update(_think_on_the_table(level))
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key}: {value}")

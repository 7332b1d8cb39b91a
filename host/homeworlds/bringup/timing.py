"""Bring-up timing: the scanner board's per-operation costs, measured.

The board runs ``tablefw.timing.Bench`` (firmware/bringup_timing.py as its code.py) and
prints ``TIMING key p5 p50 p95 count`` lines on its console; :func:`read_lines` turns
them into measurements and :func:`measured_costs` into a costs file of the form the
timing model reads (hardware/scan-costs.toml): low / likely / high are the board's 5th,
50th and 95th percentiles, and a key the board could not measure keeps the reference
figures, saying so. :func:`simulated_lines` runs the same firmware code on the simulated
board (the emulated PN5180 behind the simulated relay multiplexer), which is how the
command is tested. docs/hardware.md, "Bring-up: scan timing".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from homeworlds.table.scancosts import COST_KEYS, Cost, ScanCosts


class TimingError(ValueError):
    """Board output that is not a timing run; the message says which line."""


@dataclass(frozen=True, slots=True)
class Measurement:
    key: str
    low: float
    likely: float
    high: float
    samples: int


@dataclass(slots=True)
class TimingRun:
    board: str = ""
    measured: dict[str, Measurement] = field(default_factory=dict)
    unmeasured: dict[str, str] = field(default_factory=dict)
    complete: bool = False


def read_lines(lines: Iterable[str]) -> TimingRun:
    """The ``TIMING`` lines of a board's console output (other lines are skipped)."""
    run = TimingRun()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line.startswith("TIMING "):
            continue
        words = line.split()
        if words[1] == "END":
            run.complete = True
            break
        if words[1] == "BOARD":
            run.board = " ".join(words[2:])
            continue
        key = words[1]
        if key not in COST_KEYS:
            raise TimingError(f"line {number}: unknown cost {key!r} in {line!r}")
        if len(words) < 6:
            raise TimingError(
                f"line {number}: expected 'TIMING key p5 p50 p95 count', got {line!r}"
            )
        if words[2] == "-":
            run.unmeasured[key] = " ".join(words[6:]) or "not measured"
            continue
        try:
            low, likely, high = (float(word) for word in words[2:5])
            count = int(words[5])
        except ValueError:
            raise TimingError(f"line {number}: figures are not numbers in {line!r}") from None
        if not 0 < low <= likely <= high or count <= 0:
            raise TimingError(f"line {number}: p5 <= p50 <= p95 must be positive, got {line!r}")
        run.measured[key] = Measurement(key, low, likely, high, count)
    if not run.complete:
        raise TimingError(
            "the run did not finish (no 'TIMING END' line): was the board reset, "
            "or did the read time out?"
        )
    return run


def measured_costs(run: TimingRun, reference: ScanCosts, when: str) -> ScanCosts:
    """A costs file's contents: the measured keys from ``run``, the others from
    ``reference`` (noted as not measured)."""
    costs: dict[str, Cost] = {}
    for key in COST_KEYS:
        found = run.measured.get(key)
        if found is None:
            old = reference.costs[key]
            why = run.unmeasured.get(key, "not in the run's output")
            costs[key] = Cost(
                key,
                old.low,
                old.likely,
                old.high,
                old.source,
                f"not measured on this board ({why}): the reference figures are kept. "
                + old.assumed,
            )
            continue
        low, likely, high = found.low, found.likely, found.high
        if key == "gc_every_ms":  # an interval: the long one is the cheap side
            low, high = high, low
        costs[key] = Cost(
            key,
            low,
            likely,
            high,
            f"measured by homeworlds bringup-timing on {run.board or 'the board'}, "
            f"{when}: 5th / 50th / 95th percentile of {found.samples} samples",
        )
    return ScanCosts(f"measured: {run.board or 'the board'} ({when})", costs)


def summary(run: TimingRun, costs: ScanCosts, reference: ScanCosts) -> list[str]:
    """What the command prints: each cost, measured or kept, beside the reference."""
    lines = [f"{'cost':<18} {'low':>8} {'likely':>8} {'high':>8}   reference likely"]
    for key in COST_KEYS:
        cost = costs.costs[key]
        mark = "" if key in run.measured else "   (not measured: reference kept)"
        lines.append(
            f"{key:<18} {cost.low:>8g} {cost.likely:>8g} {cost.high:>8g}   "
            f"{reference.costs[key].likely:g}{mark}"
        )
    return lines


def simulated_lines(
    layout_name: str = "standard-2p",
    zone: int | None = None,
    *,
    costs: Mapping[str, float] | None = None,
    seed: int = 0,
    tag: bool = True,
) -> list[str]:
    """Run the firmware's timing bench on the simulated board of ``layout_name`` with
    one tag on ``zone`` (default: reader 0's first pad) and return what it printed.
    ``costs``: the band the simulated board is built with (default: the likely band of
    hardware/scan-costs.toml). ``tag``: False leaves the pad empty (a builder who forgot
    the tag)."""
    from homeworlds.sim import SimClock
    from homeworlds.sim.emulated_readers import EmulatedTable
    from homeworlds.sim.pn5180_chip import PERFECT
    from homeworlds.table.layout import builtin_layout
    from homeworlds.table.scancosts import load_costs
    from tablefw.timing import Bench

    layout = builtin_layout(layout_name)
    if costs is None:
        costs = load_costs().band("likely")
    clock = SimClock()
    table = EmulatedTable(
        layout, clock, model=PERFECT, seed=seed, costs=costs, irq_read_us=costs["pin_read_us"]
    )
    if zone is None:
        zone = table.readers[0].zones[0]
    index = layout.wiring(zone).reader
    reader = table.readers[index]
    channel = list(reader.zones).index(zone)
    if tag:
        table.set_tags(zone, ("E004015000001234",))
    other = None if len(reader.zones) < 2 else (1 if channel == 0 else 0)
    lines = [f"TIMING BOARD simulated {layout_name} reader {index} zone {zone} channel {channel}"]
    Bench(reader, channel, other, ticks=clock.ticks_us, gc=None, out=lines.append, repeat=100).run()
    return lines

"""``homeworlds bringup-timing``: measure the scanner board's per-operation costs.

On a real board: copy firmware/bringup_timing.py to the board as code.py (beside tablefw
and table_config.py), put one tag on the pad it measures (reader 0's first pad unless
its ZONE says otherwise), then run this with ``--port`` naming the board's *console*
port. The board measures an SPI command frame, a register read, taking the bus, a clock
and a pin reading, the scan core's bookkeeping, gc.collect() and the heap's fill rate,
and sweeps the relay's and the field's settle; this command writes what it printed as a
costs file (hardware/scan-costs.toml's form: low / likely / high = 5th / 50th / 95th
percentile), which ``benchmarks/scan_bench.py --costs FILE`` then uses instead of the
assumptions. ``--simulate LAYOUT`` runs the same firmware code on the simulated board.
docs/hardware.md, "Bring-up: scan timing".
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

from homeworlds.bringup.timing import (
    TimingError,
    measured_costs,
    read_lines,
    simulated_lines,
    summary,
)
from homeworlds.table.scancosts import CostsError, costs_text, load_costs

#: Longest the board may take (the settle sweeps read the tag a few thousand times).
PORT_TIMEOUT_S = 300.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bringup-timing",
        help="measure the scanner board's per-operation costs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--port",
        metavar="DEVICE",
        help="the board's console port (e.g. /dev/ttyACM0) while it runs bringup_timing.py",
    )
    source.add_argument(
        "--simulate",
        metavar="LAYOUT",
        help="run the firmware's timing bench on the simulated board of this layout",
    )
    source.add_argument(
        "--from-file", metavar="FILE", help="the board's console output saved to a file"
    )
    p.add_argument(
        "--zone", type=int, help="with --simulate: the pad with the tag (default: reader 0's first)"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default="scan-costs.measured.toml",
        help="costs file to write (default: scan-costs.measured.toml)",
    )
    p.add_argument(
        "--reference",
        metavar="FILE",
        help="costs whose figures are kept where the board measured nothing "
        "(default: hardware/scan-costs.toml)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=PORT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"with --port: give up after this long (default {PORT_TIMEOUT_S:g})",
    )
    p.set_defaults(func=run)


def _port_lines(device: str, timeout: float) -> list[str]:
    import serial  # pyserial: only the real board needs it

    lines: list[str] = []
    end = time.monotonic() + timeout
    with serial.Serial(device, 115200, timeout=1.0) as port:
        while time.monotonic() < end:
            raw = port.readline()
            if not raw:
                continue
            line = raw.decode("ascii", "replace").strip()
            lines.append(line)
            if line.startswith("TIMING"):
                print(line, flush=True)
            if line == "TIMING END":
                break
    return lines


def run(args: argparse.Namespace) -> int:
    name = "homeworlds bringup-timing"
    try:
        reference = load_costs(args.reference)
    except CostsError as error:
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    try:
        if args.simulate:
            lines = simulated_lines(args.simulate, args.zone)
            for line in lines:
                print(line)
        elif args.from_file:
            lines = Path(args.from_file).read_text(encoding="utf-8", errors="replace").splitlines()
        else:
            lines = _port_lines(args.port, args.timeout)
        result = read_lines(lines)
    except (TimingError, OSError, KeyError, ValueError) as error:
        print(f"{name}: {error}", file=sys.stderr)
        return 1
    when = datetime.date.today().isoformat()
    costs = measured_costs(result, reference, when)
    header = (
        f"Measured by `homeworlds bringup-timing` on {result.board or 'the board'}, {when}.\n"
        "low / likely / high: 5th / 50th / 95th percentile of the board's samples.\n"
        "Use it: .venv/bin/python benchmarks/scan_bench.py --costs THIS_FILE"
    )
    Path(args.output).write_text(costs_text(costs, header), encoding="utf-8")
    print()
    for line in summary(result, costs, reference):
        print(line)
    print(
        f"\nwritten: {args.output} ({len(result.measured)} of {len(costs.costs)} costs measured); "
        f"run: .venv/bin/python benchmarks/scan_bench.py --costs {args.output}"
    )
    return 0

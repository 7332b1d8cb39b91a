"""``homeworlds sim-mcu``: a simulated table MCU on a pseudo-terminal.

Prints the device path (``/dev/pts/N``) on the first line of standard output,
then runs the real firmware core against a simulated table until SIGINT or
SIGTERM. A host opens the path like the table's USB serial port.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from homeworlds.sim import DEFAULT_SCAN_TIME_MS, PtyMcu, SimError, VirtualTable, make_registry
from homeworlds.table.layout import Layout, LayoutError, builtin_layout, load_layout
from homeworlds.table.registry import RegistryError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sim-mcu", help="run a simulated table MCU on a pty (prints the device path)",
        description="Run the firmware core against a simulated table and speak the serial "
        "protocol on a pseudo-terminal. The first line of output is the device path to open "
        "(e.g. /dev/pts/3). Every piece starts in the bank, the turn token on seat 0. Runs "
        "until interrupted (Ctrl-C or SIGTERM), then exits 0.")
    p.add_argument("--pty", action="store_true",
                   help="serve the protocol on a pseudo-terminal (the only transport; the "
                   "default)")
    p.add_argument("--layout", default="standard-2p", metavar="NAME|FILE",
                   help="a bundled layout name or a layout .toml file (default: standard-2p)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="players the simulated piece set is for: 3 copies of each piece for "
                   "two, N+1 otherwise (default: the layout's seat count)")
    p.add_argument("--miss-rate", type=_probability, default=0.0, metavar="P",
                   help="probability that a read misses a tag lying on the scanned pad "
                   "(default 0)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the missed reads (default 0)")
    p.add_argument("--scan-time", type=_milliseconds, default=DEFAULT_SCAN_TIME_MS, metavar="MS",
                   help=f"time one zone scan takes (default {DEFAULT_SCAN_TIME_MS} ms)")
    p.add_argument("--firmware-config", type=Path, metavar="FILE",
                   help="build the simulated board from this table_config.py (as the real board "
                   "would), to check it against the layout before flashing")
    p.add_argument("--registry", type=Path, metavar="FILE",
                   help="write the simulated tag registry to FILE (TOML) for the host")
    p.set_defaults(func=run)


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"a miss rate is a probability 0 <= P < 1, not {text}")
    return value


def _milliseconds(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {text!r}") \
            from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a scan time is >= 0 ms, not {value}")
    return value


def _load_layout(text: str) -> Layout:
    if text.endswith(".toml") or "/" in text or Path(text).is_file():
        return load_layout(text)
    return builtin_layout(text)


def run(args: argparse.Namespace) -> int:
    try:
        layout = _load_layout(args.layout)
        players = args.players if args.players is not None else layout.seat_count
        registry = make_registry(layout, players)
        firmware_config = None
        if args.firmware_config is not None:
            firmware_config = _read_firmware_config(args.firmware_config)
        if args.registry is not None:
            registry.save(args.registry)
    except (LayoutError, RegistryError, ValueError) as error:
        print(f"homeworlds sim-mcu: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"homeworlds sim-mcu: {args.registry}: cannot write the registry: "
              f"{error.strerror or error}", file=sys.stderr)
        return 2

    stop = threading.Event()

    def request_stop(signum, frame) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        table = VirtualTable(layout, registry)
        try:
            mcu = PtyMcu(table, miss_rate=args.miss_rate, seed=args.seed,
                         scan_time=args.scan_time, firmware_config=firmware_config)
        except SimError as error:
            print(f"homeworlds sim-mcu: {error}", file=sys.stderr)
            return 1
        with mcu:
            print(mcu.device_path, flush=True)
            print(f"homeworlds sim-mcu: layout {layout.name}, {layout.zone_count} zones, "
                  f"{len(layout.readers)} readers, {len(registry)} tags; serving "
                  f"{mcu.device_path} until interrupted", file=sys.stderr, flush=True)
            while not stop.wait(0.2):
                if not mcu.running:
                    print(f"homeworlds sim-mcu: the simulated MCU stopped: {mcu.error!r}",
                          file=sys.stderr)
                    return 1
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _read_firmware_config(path: Path) -> dict:
    from homeworlds.table.fwconfig import read_config_text

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"{path}: cannot read: {error.strerror or error}") from None
    config = read_config_text(text, str(path))
    if not isinstance(config, dict):
        raise ValueError(f"{path}: CONFIG is {type(config).__name__}, not a dict "
                         "(make it with homeworlds firmware-config)")
    return config

"""``homeworlds enroll``: build the tag registry from a filled bank tray.

Fill every bank-tray compartment with the copies of its colour-size, lay the turn token on
seat 0's token pad, then run this. It reads one complete snapshot from the table over the
serial link, reports duplicates, missing and unknown tags, and writes the registry only when
the report is clean (or with --force). See docs/hardware.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from homeworlds.rules import PRESETS, preset
from homeworlds.table.enroll import EnrollError, enroll
from homeworlds.table.layout import LayoutError, builtin_layout, load_layout
from homeworlds.table.registry import Registry, RegistryError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enroll", help="build the tag registry from a filled bank tray",
                       description=__doc__)
    p.add_argument("--port", required=True, help="the microcontroller's data port")
    p.add_argument("--layout", default="standard-2p",
                   help="a bundled layout name or a layout file (default: standard-2p)")
    p.add_argument("--players", type=int, default=2,
                   help="players the pieces are for: 3 copies each for two; for more, as the "
                   "rules' bank says (--rules)")
    p.add_argument("--rules", choices=sorted(PRESETS), default="looney",
                   help="the preset whose bank the tray holds: players+1 copies each under "
                   "every preset but good-evil, whose bank is a standard Icehouse set (5 each "
                   "from three players on; docs/rules.md, The bank); default looney")
    p.add_argument("--registry", default="registry.toml", help="registry file to write")
    p.add_argument("--merge", action="store_true", help="keep tags already in the registry")
    p.add_argument("--force", action="store_true", help="write even if problems were found")
    p.add_argument("--timeout", type=float, default=15.0,
                   help="seconds to wait for the table's snapshot (default 15)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        layout = (load_layout(Path(args.layout)) if args.layout.endswith(".toml")
                  else builtin_layout(args.layout))
    except (LayoutError, KeyError, FileNotFoundError, ValueError) as exc:
        print(f"homeworlds enroll: --layout: {exc}", file=sys.stderr)
        return 2
    rules = preset(args.rules)
    if not 2 <= args.players <= 6 or not rules.min_players <= args.players <= rules.max_players:
        print(f"homeworlds enroll: --players: the {rules.name} rules are for "
              f"{rules.min_players} to {rules.max_players} players, not {args.players}",
              file=sys.stderr)
        return 2
    try:
        layout.check_bank_fits(rules, args.players)
    except LayoutError as exc:
        print(f"homeworlds enroll: {exc}", file=sys.stderr)
        return 2
    registry_path = Path(args.registry)
    existing = None
    if args.merge and registry_path.exists():
        try:
            existing = Registry.load(registry_path)
        except RegistryError as exc:
            print(f"homeworlds enroll: {exc}", file=sys.stderr)
            return 2
    snapshot = read_snapshot(args.port, layout.zone_count, args.timeout)
    if snapshot is None:
        return 2
    try:
        result = enroll(layout, snapshot, copies_per_kind=rules.bank_copies(args.players),
                        existing=existing)
    except EnrollError as exc:
        print(f"homeworlds enroll: {exc}", file=sys.stderr)
        return 2
    print(result.report.to_text())
    if not result.report.ok and not args.force:
        print("homeworlds enroll: registry not written (fix the tray and run again, or use "
              "--force)", file=sys.stderr)
        return 1
    result.registry.save(registry_path)
    print(f"registry written to {registry_path}")
    return 0


def read_snapshot(port: str, zones: int, timeout: float):
    """One complete snapshot from the table, or None after a message naming the problem."""
    from homeworlds.link import LinkDown, SerialTransport, SnapshotReceived, TableLink

    link = TableLink(lambda: SerialTransport(port), expected_zones=zones)
    deadline = time.monotonic() + timeout
    last_problem = "no answer"
    try:
        while time.monotonic() < deadline:
            for event in link.poll(0.05):
                if isinstance(event, SnapshotReceived):
                    return dict(event.zones)
                if isinstance(event, LinkDown):
                    last_problem = event.reason
    finally:
        link.close()
    print(f"homeworlds enroll: no snapshot from {port} within {timeout:g} s ({last_problem})",
          file=sys.stderr)
    return None

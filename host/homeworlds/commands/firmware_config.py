"""``homeworlds firmware-config LAYOUT``: the board's table_config.py from a layout file.

The layout file is the one place the table's wiring is written down; this
command turns it into the firmware's configuration (docs/hardware.md,
"Wiring"). ``--check FILE`` says whether an existing table_config.py still
matches (``make flash`` uses it), ``--wiring-table`` prints the wiring as the
Markdown table hardware/README.md shows.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from homeworlds.table.fwconfig import (
    FirmwareConfigError,
    firmware_config,
    layout_source,
    read_config_text,
    render_table_config,
    wiring_table,
)
from homeworlds.table.layout import Layout, LayoutError, builtin_layout, load_layout

PROG = "homeworlds firmware-config"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "firmware-config", help="write the board's table_config.py from a layout file",
        description="Generate the scanner firmware's configuration (table_config.py: readers, "
        "pins, zones) from a layout file, so that the board drives the pins the layout says "
        "and reports the zones the host expects. Copy the output to the CIRCUITPY drive, or "
        "let `make flash LAYOUT=...` do it.")
    p.add_argument("layout", metavar="LAYOUT",
                   help="a bundled layout name (standard-2p, four-seat) or a layout .toml file")
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="write to FILE instead of standard output")
    p.add_argument("--check", type=Path, metavar="FILE",
                   help="do not write: exit 0 if FILE's CONFIG matches the layout, 1 (naming "
                   "the first difference) if not")
    p.add_argument("--wiring-table", action="store_true",
                   help="print the wiring as a Markdown table (as in hardware/README.md)")
    p.set_defaults(func=run)


def _load(text: str) -> Layout:
    if text.endswith(".toml") or "/" in text or Path(text).is_file():
        return load_layout(text)
    return builtin_layout(text)


def run(args: argparse.Namespace) -> int:
    try:
        layout = _load(args.layout)
        if args.wiring_table:
            sys.stdout.write(wiring_table(layout))
            return 0
        if args.check is not None:
            return _check(layout, args.layout, args.check)
        text = render_table_config(layout, args.layout)
        for note in layout.warnings:
            print(f"{PROG}: warning: {note}", file=sys.stderr)
    except (LayoutError, FirmwareConfigError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"{PROG}: cannot write {args.output}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"{PROG}: wrote {args.output} for layout {layout.name} ({layout.zone_count} zones, "
          f"{len(layout.readers)} readers)", file=sys.stderr)
    return 0


def _check(layout: Layout, given: str, path: Path) -> int:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise FirmwareConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise FirmwareConfigError(f"{path}: not UTF-8 text: {error.reason}") from None
    found = read_config_text(text, str(path))
    wanted = firmware_config(layout, layout_source(layout, given))
    difference = first_difference(wanted, found)
    jumper = read_config_text(text, str(path), "DEV_JUMPER", required=False)
    mcu = layout.mcu
    assert mcu is not None  # firmware_config refuses a layout that does not wire its MCU
    if difference is None and jumper != mcu.dev_jumper:
        difference = (f"DEV_JUMPER: the layout says {mcu.dev_jumper!r}, the file says "
                      f"{jumper!r}")
    if difference is None:
        print(f"{PROG}: {path} matches layout {layout.name}", file=sys.stderr)
        return 0
    print(f"{PROG}: {path} does not match layout {layout.name}: {difference}; regenerate it "
          f"with `{PROG} {given} -o {path}`", file=sys.stderr)
    return 1


def first_difference(wanted: object, found: object, key: str = "CONFIG") -> str | None:
    """Where ``found`` first differs from ``wanted``, as ``key: layout says X, file says Y``."""
    if isinstance(wanted, dict) and isinstance(found, dict):
        for name in list(wanted) + [k for k in found if k not in wanted]:
            if name not in found:
                return f"{key}[{name!r}] is missing (the layout says {wanted[name]!r})"
            if name not in wanted:
                return f"{key}[{name!r}] = {found[name]!r} is not in the layout"
            inner = first_difference(wanted[name], found[name], f"{key}[{name!r}]")
            if inner is not None:
                return inner
        return None
    if isinstance(wanted, list) and isinstance(found, list) and len(wanted) == len(found):
        for index, (a, b) in enumerate(zip(wanted, found, strict=True)):
            inner = first_difference(a, b, f"{key}[{index}]")
            if inner is not None:
                return inner
        return None
    if wanted != found:
        return f"{key}: the layout says {wanted!r}, the file says {found!r}"
    return None

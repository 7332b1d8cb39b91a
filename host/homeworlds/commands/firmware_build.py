"""``homeworlds firmware-build``: the files ``make flash`` copies to the board.

tablefw compiled to .mpy by the board's own CircuitPython compiler (see
homeworlds.tools.firmware_build), with code.py, boot.py and the table's
table_config.py as source.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from homeworlds.tools.firmware_build import (
    FlashError,
    board_on,
    build,
    check_compiler,
    fetch_compiler,
)

PROG = "homeworlds firmware-build"


def _firmware() -> Path:
    import tablefw

    return Path(tablefw.__file__).resolve().parents[1]


def _named(compiler: Path) -> Path:
    """The compiler given: a file (relative to here) or a command on PATH."""
    if compiler.is_file():
        return compiler.resolve()
    found = shutil.which(str(compiler))
    if found is None:
        raise FlashError(f"{compiler}: no such file or command")
    return Path(found)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "firmware-build", help="compile the firmware for the board whose drive is mounted",
        description="Write the files make flash copies to the board: tablefw compiled to .mpy by "
        "the mpy-cross of the CircuitPython the board runs (its boot_out.txt says which), "
        "code.py, boot.py and table_config.py as source.")
    p.add_argument("--drive", type=Path, required=True, metavar="DIR",
                   help="the board's CIRCUITPY drive (only boot_out.txt is read)")
    p.add_argument("--config", type=Path, required=True, metavar="FILE",
                   help="the table_config.py to ship (homeworlds firmware-config writes it)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                   help="where to write the files (emptied first)")
    p.add_argument("--mpy-cross", type=Path, metavar="FILE",
                   default=os.environ.get("MPY_CROSS") or None,
                   help="CircuitPython's mpy-cross for the board's version (default: $MPY_CROSS, "
                   "else Adafruit's build, downloaded once)")
    p.add_argument("--firmware", type=Path, default=None, metavar="DIR", help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    firmware = args.firmware or _firmware()
    try:
        if not (firmware / "code.py").is_file():
            raise FlashError(f"{firmware}: no code.py here; run this from the project's checkout")
        board = board_on(args.drive)
        compiler = _named(args.mpy_cross) if args.mpy_cross else fetch_compiler(board)
        version = check_compiler(compiler, board)
        files = build(firmware, args.config, args.output, board, compiler)
    except FlashError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    compiled = sum(1 for path in files if path.suffix == ".mpy")
    print(f"{PROG}: {compiled} modules compiled for CircuitPython {board.circuitpython} "
          f"({version}), {len(files) - compiled} files as source, in {args.output}")
    return 0

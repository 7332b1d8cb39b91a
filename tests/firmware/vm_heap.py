"""The firmware's heap on MicroPython: tests/firmware/vm/heap.py run on a board drive.

Shared by tests/firmware/test_fw_vm_heap.py (the 64 KB limit) and
benchmarks/firmware_heap.py (the figures `make bench` prints).
"""

from __future__ import annotations

import runpy
import shutil
import subprocess
import sys
from pathlib import Path

from tests.firmware import mpvm
from tests.firmware.vm_board import VmBoard

SCRIPT = mpvm.VM_DIR / "heap.py"
LAYOUT = "standard-2p"
FIGURES = ("imports", "boot", "live_max", "step_max")


def uid(number: int) -> str:
    return f"E0040150{number:08X}"


#: What lies on the table: a single tag, two on a pad, eight tags with consecutive
#: UIDs (anticollision over several rounds), a stack of three bank pieces.
TAGS = {
    0: [uid(0x100)],
    17: [uid(0x200), uid(0x201)],
    33: [uid(0x300 + n) for n in range(8)],
    44: [uid(0x400), uid(0x401), uid(0x402)],
}


def drive(destination: Path, mpy: bool = True, layout: str = LAYOUT) -> Path:
    """The board's drive: tablefw (as .mpy, as ``make flash`` ships it, or as source),
    code.py, boot.py, and table_config.py generated for ``layout``."""
    if mpy:
        mpvm.mpy_drive(destination)
    else:
        shutil.copytree(mpvm.FIRMWARE / "tablefw", destination / "tablefw",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("code.py", "boot.py"):
            shutil.copy(mpvm.FIRMWARE / name, destination / name)
    subprocess.run([sys.executable, "-m", "homeworlds", "firmware-config", layout, "-o",
                    str(destination / "table_config.py")], check=True, capture_output=True,
                    timeout=120)
    return destination


def table_config(path: Path) -> dict:
    return runpy.run_path(str(path / "table_config.py"))["CONFIG"]


def measure(workdir: Path, mpy: bool = True, steps: int = 120) -> dict[str, int]:
    """Boot a drive on the VM with chip models and pieces on the pads; returns the
    heap figures of heap.py (bytes)."""
    board_drive = drive(workdir / ("mpy" if mpy else "py"), mpy)
    board = VmBoard(table_config(board_drive), lambda board: "go")
    for zone, uids in TAGS.items():
        board.place(zone, uids)
    done = mpvm.run(SCRIPT,
                    mounts=[(board_drive, "/flash"), (mpvm.CIRCUITPYTHON, "/circuitpython")],
                    args=["/flash", "/circuitpython", str(steps)], serve=board.serve,
                    timeout=600).check()
    figures = {}
    for line in done.stdout.splitlines():
        if line.startswith("heap "):
            _, name, value = line.split()
            figures[name] = int(value)
    assert set(figures) == set(FIGURES), done.stdout
    return figures

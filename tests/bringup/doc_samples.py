"""The sample outputs in docs/hardware.md, made by the programs themselves.

``python -m tests.bringup.doc_samples`` runs ``homeworlds doctor``, ``homeworlds
pad-test`` and ``homeworlds bringup-timing`` on the simulated table and writes what
they printed between the ``<!-- sample: NAME -->`` and ``<!-- end of sample -->``
markers of docs/hardware.md; tests/bringup/test_doc_samples.py runs them again and
checks that the document still shows what they print (figures that depend on the
machine's speed, and the pty's device name, are compared as placeholders).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from pathlib import Path

from homeworlds.cli import main
from homeworlds.sim import PtyMcu, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout

DOC = Path(__file__).resolve().parents[2] / "docs" / "hardware.md"
BLOCK = re.compile(
    r"(<!-- sample: (?P<name>[a-z-]+) -->\n```\n)(?P<body>.*?)(```\n<!-- end of sample -->)", re.S
)


def _run(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    return out.getvalue()


def _config(directory: Path, port: str, registry) -> Path:
    registry.save(directory / "registry.toml")
    (directory / "table.toml").write_text(
        '[table]\nlayout = "standard-2p"\nregistry = "registry.toml"\n'
        f'[serial]\nport = "{port}"\n[pixels]\nsink = "neopixel-spi"\n'
    )
    return directory / "table.toml"


def _root(directory: Path) -> Path:
    """A Raspberry Pi 4 whose SPI is on and whose spidev buffer is the default 4096."""
    root = directory / "root"
    (root / "dev").mkdir(parents=True)
    (root / "dev" / "spidev0.0").touch()
    params = root / "sys" / "module" / "spidev" / "parameters"
    params.mkdir(parents=True)
    (params / "bufsiz").write_text("4096\n")
    (root / "proc" / "device-tree").mkdir(parents=True)
    (root / "proc" / "device-tree" / "model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    return root


def samples() -> dict[str, str]:
    """Each sample's text as the program printed it (the command line first)."""
    layout = builtin_layout("standard-2p")
    registry = make_registry(layout)
    found: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        table = VirtualTable(layout, registry)
        cwd = os.getcwd()
        os.chdir(directory)
        try:
            with PtyMcu(table, scan_time=1, seed=3) as mcu:
                config = _config(directory, mcu.device_path, registry)
                table.reader_fault(2, scans=None, code="NOCHIP")
                argv = [
                    "doctor",
                    "--config",
                    config.name,
                    "--root",
                    str(_root(directory)),
                    "--no-leds",
                ]
                found["doctor"] = "$ homeworlds doctor --config table.toml --no-leds\n" + _run(argv)
                table.clear_reader_fault(2)
                mcu.mcu.set_miss_rate(0.15)  # pad-test shows read rates: one read in seven missed
                argv = [
                    "pad-test",
                    "--config",
                    config.name,
                    "--once",
                    "--settle",
                    "3",
                    "--zones",
                    "44",
                    "--no-leds",
                ]
                found["pad-test"] = (
                    "$ homeworlds pad-test --config table.toml --once --settle 3 --zones 44 "
                    "--no-leds\n" + _run(argv)
                )
        finally:
            os.chdir(cwd)
        argv = [
            "bringup-timing",
            "--simulate",
            "standard-2p",
            "-o",
            str(directory / "measured.toml"),
        ]
        text = _run(argv).replace(str(directory / "measured.toml"), "scan-costs.measured.toml")
        found["bringup-timing"] = "$ homeworlds bringup-timing --simulate standard-2p\n" + text
    return found


#: What varies from run to run: the pty's name, figures of a real-time run, temp paths.
VOLATILE = [
    (re.compile(r"/dev/pts/\d+"), "/dev/pts/N"),
    (re.compile(r"\d+ pad scans/s"), "N pad scans/s"),
    (re.compile(r"every \d+ ms"), "every N ms"),
    (re.compile(r"\d+(\.\d+)?% read, \d+ missed reads in \d+ s"), "N% read, N missed reads in N s"),
    (re.compile(r"\(\d+ reads/s"), "(N reads/s"),
    (re.compile(r"\d+ faults since start"), "N faults since start"),
    (re.compile(r"\((read|missed) now\)"), "(read or missed now)"),
    (re.compile(r"last report: (\w+) zone \d+:"), r"last report: \1 zone N:"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "DATE"),
]


def normalised(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def document_samples(text: str | None = None) -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8") if text is None else text
    return {match["name"]: match["body"] for match in BLOCK.finditer(text)}


def write(found: dict[str, str]) -> None:
    text = DOC.read_text(encoding="utf-8")

    def replace(match: re.Match) -> str:
        body = found.get(match["name"], match["body"])
        return match.group(1) + body + match.group(4)

    DOC.write_text(BLOCK.sub(replace, text), encoding="utf-8")


if __name__ == "__main__":
    write(samples())
    print(f"written: {', '.join(document_samples())} in {DOC}", file=sys.stderr)

"""An event under attack through a real mosquitto (tests/event/attack.py, issue 27): eight
tables with their own broker accounts and keys, rogue publishers with and without an
account (and on the old shared one), forged and replayed turns and results, the broker, the
hub and a table host killed. Prints the messages tried, refused by the broker and the hub,
and stored.

    python benchmarks/event_attack.py      (also part of `make bench`)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "host"), str(HERE.parent / "firmware")]


def run() -> dict:
    if not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").is_file()):
        return {"not run": "mosquitto is not installed (make mosquitto-bin)"}
    from tests.event.attack import run_attack

    out = {}
    for label, turns in (("whole games", None),):
        with tempfile.TemporaryDirectory(prefix="event-attack-") as tmp:
            figures = run_attack(Path(tmp), tables=8, turns=turns, interval=0.25)
        for k, line in enumerate(figures.lines()):
            out[f"{label} [{k + 1}]"] = line
    return out


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key}: {value}")

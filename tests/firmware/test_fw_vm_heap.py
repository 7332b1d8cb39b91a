"""The firmware's heap on MicroPython, as the board gets it: at most 64 KB kept after boot.

An RP2040 board has about 170-210 KB of heap for Python (docs/firmware.md, "Heap"),
and the firmware must leave room for the game to run and for garbage between two
collections. tests/firmware/vm/heap.py boots the drive ``make flash`` builds (tablefw
as .mpy, code.py and table_config.py of standard-2p as source) on MicroPython 1.27,
with four PN5180 chip models answering over the pipe and pieces on the pads, and
measures what stays reachable. Heap use is deterministic enough to be a functional
limit; `make bench` prints the figures (benchmarks/firmware_heap.py).
"""

from __future__ import annotations

import pytest

from tests.firmware import mpvm
from tests.firmware.vm_heap import measure

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def figures(tmp_path_factory) -> dict[str, int]:
    mpvm.require()
    return measure(tmp_path_factory.mktemp("heap"), mpy=True, steps=120)


def test_the_heap_kept_after_boot_is_at_most_64_kb(figures):
    assert figures["imports"] < figures["boot"] <= LIMIT, figures


def test_scanning_keeps_no_more_than_boot_did(figures):
    # 120 scan steps (7 rounds) with pieces on the table: nothing piles up.
    assert figures["live_max"] <= figures["boot"] + 2048, figures

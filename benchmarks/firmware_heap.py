"""The firmware's heap on MicroPython 1.27 (the VM of the firmware tests), as the board keeps it.

The drive ``make flash`` builds for standard-2p (tablefw as .mpy; code.py and
table_config.py as source) boots on the VM with four PN5180 chip models and pieces
on the pads (tests/firmware/vm_heap.py), then scans. For comparison, the same
drive with tablefw as .py source (what a board would compile itself). Figures in
bytes over the heap before the firmware's first import:

- imports: after importing what code.py imports;
- boot: kept after booting to the scan loop (tests/firmware/test_fw_vm_heap.py
  holds it to 64 KB);
- live_max: the most still reachable between two scan steps (the high-water mark
  of what the firmware keeps while scanning);
- step_max: reachable plus all a scan step allocated before a collection (a bound
  on the high-water mark of a board that collects only when its heap is full).

An RP2040 gives Python about 171 KB (CircuitPython 10.1 on a Pico: gc.mem_free()
171,440) to 210 KB (MicroPython 1.20 on a Pico: 209,936) of heap; docs/firmware.md,
"Heap", has the sources.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.firmware import mpvm  # noqa: E402
from tests.firmware.vm_heap import FIGURES, measure  # noqa: E402

#: What an RP2040 board leaves Python (bytes): CircuitPython 10.1.4 on a Pico.
RP2040_HEAP = 171440
STEPS = 200


def run():
    reason = mpvm.missing()
    if reason is not None:
        raise RuntimeError(reason)
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for mpy, label in ((True, ".mpy (as make flash ships)"), (False, ".py source")):
            figures = measure(Path(work), mpy=mpy, steps=STEPS)
            for name in FIGURES:
                value = figures[name]
                results[f"{label} {name}"] = (f"{value} bytes ({value / 1024:.1f} KB, "
                                              f"{100 * value / RP2040_HEAP:.0f} % of an RP2040's "
                                              f"{RP2040_HEAP // 1024} KB)")
    return results


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
    sys.exit(0)

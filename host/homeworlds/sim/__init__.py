"""The simulated table: virtual tags on virtual pads, and the firmware core on CPython.

- :class:`VirtualTable` — the physical world: where every tagged piece lies, changed
  by test verbs (place, lift, move, flip, move_token, press, unplug, ...), each
  recorded in ``history``; :func:`make_registry` invents a deterministic tag set.
- :class:`SimulatedMcu` — the real ``tablefw.scan.Scanner`` with virtual readers that
  follow the table; in-process (``step``/``read``/``write``, virtual clock).
- :class:`PtyMcu` — the same behind a pseudo-terminal (``device_path`` for pyserial),
  scanning in a background thread.
- :class:`TableDriver` — plays recorded turns as physical handling of the table.
- :func:`carry_out` — a person's hands doing one step of the table's guidance.

See docs/simulator.md.
"""

from homeworlds.sim.driver import DriverStep, TableDriver, compare_table
from homeworlds.sim.guided import carry_out
from homeworlds.sim.mcu import DEFAULT_SCAN_TIME_MS, SimulatedMcu, corrupt_line
from homeworlds.sim.pty import PtyMcu
from homeworlds.sim.sim_clock import SimClock
from homeworlds.sim.table import (
    HAND,
    OFF_TABLE,
    TOKEN_UID,
    SimError,
    TableEvent,
    VirtualTable,
    make_registry,
)

__all__ = [
    "DEFAULT_SCAN_TIME_MS",
    "HAND",
    "OFF_TABLE",
    "TOKEN_UID",
    "DriverStep",
    "PtyMcu",
    "SimClock",
    "SimError",
    "SimulatedMcu",
    "TableDriver",
    "TableEvent",
    "VirtualTable",
    "carry_out",
    "compare_table",
    "corrupt_line",
    "make_registry",
]

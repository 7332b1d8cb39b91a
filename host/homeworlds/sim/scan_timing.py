"""The simulator's default costs of the firmware's work: what one SPI frame, one clock
reading and one zone's bookkeeping cost on CircuitPython when no costs are given.

The timing model whose figures docs/performance.md reports does not use these: it
charges the per-operation costs of hardware/scan-costs.toml, each with a source and a
low / likely / high band (``homeworlds.table.scancosts``; ``EmulatedTable(costs=...)``,
``benchmarks/scan_bench.py``), which ``homeworlds bringup-timing`` measures on a board.
What follows is the older CPython-times-a-factor estimate, kept as the default of the
simulated table (demo, tests), where only the order of magnitude matters.

The air interface is timed by the chip model (:mod:`homeworlds.sim.pn5180_chip`,
ISO 15693 figures). What the microcontroller adds is modelled here and charged
to the simulated clock:

- **SPI transfer**: ``bytes * 8 / baudrate`` (7 MHz by default: 1.1 us a byte);
- **CircuitPython overhead per SPI frame**: the driver's Python work for one
  frame (BUSY check, CS low/high, the ``busio`` call) measured on CPython with a
  do-nothing bus (:func:`measure_cpython`) and multiplied by
  :data:`CIRCUITPYTHON_FACTOR`; taking the bus (``try_lock``, ``configure``,
  ``unlock``) is charged once per burst of frames, as the driver does it;
- **a clock reading** (``time.monotonic_ns`` behind ``ticks_us``), scaled the
  same way;
- **scan-core bookkeeping per zone** (debounce, change detection, reporting),
  measured on CPython with a virtual reader and scaled.

:data:`CIRCUITPYTHON_FACTOR` = 40: CircuitPython on an RP2040 at 125 MHz runs
plain Python 25-35 times slower than CPython 3.11 on the development machine
(an empty ``for`` loop: about 1.2 us an iteration on the board, 0.045 us here),
and calls into ``busio``/``digitalio`` cost several microseconds each on the
board where the measurement's fakes cost almost nothing; 40 errs on the slow
side. The figures below were measured with ``python -m homeworlds.sim.scan_timing``
(``benchmarks/scan_bench.py`` prints them again).
"""

from __future__ import annotations

import time

CIRCUITPYTHON_FACTOR = 40
#: Driver Python work per SPI frame on CPython (us), bus already locked (during a
#: scan the driver keeps the bus from one frame to the next): BUSY check, CS
#: low/high, the ``busio`` call. A read (command + answer frame) counts as two.
CPYTHON_FRAME_US = 0.9
#: Taking the bus: ``try_lock`` and ``configure``, and ``unlock`` later (us).
CPYTHON_LOCK_US = 1.0
#: One ``ticks_us()`` reading on CPython (us), with the call around it.
CPYTHON_CLOCK_READ_US = 0.15
#: Scan-core bookkeeping per zone scanned on CPython (us).
CPYTHON_ZONE_US = 3.0

FRAME_OVERHEAD_US = CPYTHON_FRAME_US * CIRCUITPYTHON_FACTOR
BUS_LOCK_US = CPYTHON_LOCK_US * CIRCUITPYTHON_FACTOR
CLOCK_READ_US = CPYTHON_CLOCK_READ_US * CIRCUITPYTHON_FACTOR
ZONE_OVERHEAD_US = CPYTHON_ZONE_US * CIRCUITPYTHON_FACTOR
SPI_BAUDRATE = 7_000_000


def spi_frame_us(nbytes: int, baudrate: int = SPI_BAUDRATE,
                 overhead_us: float | None = None) -> float:
    """Time one SPI frame of ``nbytes`` costs the board: transfer plus overhead."""
    if overhead_us is None:
        overhead_us = FRAME_OVERHEAD_US
    return overhead_us + nbytes * 8 * 1_000_000 / baudrate


def measure_cpython(repeat: int = 20000) -> dict[str, float]:
    """Measure on this machine what the constants above state (microseconds)."""
    from tablefw.clock import ticks_us
    from tablefw.readers.pn5180 import IRQ_CLEAR, IRQ_STATUS, PN5180
    from tablefw.scan import Scanner
    from tablefw.virtual import VirtualReader

    class _Pin:
        value = False

    class _Bus:
        def try_lock(self):
            return True

        def unlock(self):
            pass

        def configure(self, **options):
            pass

        def write(self, data):
            pass

        def readinto(self, buffer, write_value=0):
            pass

    reader = PN5180(_Bus(), _Pin(), _Pin(), zones=[0])

    def best(fn, count):
        result = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(count):
                fn()
            result = min(result, (time.perf_counter() - start) / count * 1e6)
        return result

    write = best(lambda: reader.write_register(IRQ_CLEAR, 0xFFFFF), repeat)
    read = best(lambda: reader.read_register(IRQ_STATUS), repeat)

    def lock_and_release():
        reader._lock()
        reader._release_bus()

    lock = best(lock_and_release, repeat)
    reader._burst = True
    reader._lock()
    frame = bytes([0x00, IRQ_CLEAR, 0xFF, 0xFF, 0x0F, 0x00])
    burst_write = best(lambda: reader._transceive(frame), repeat)
    burst_read = best(lambda: reader._transceive(bytes([0x04, IRQ_STATUS]), 4), repeat)
    reader._burst = False
    reader._release_bus()
    clock = best(ticks_us, repeat)
    virtual = VirtualReader(list(range(16)))
    for zone in range(0, 16, 2):
        virtual.set_tags(zone, [f"E00401500000{zone:04X}"])
    scanner = Scanner([virtual], lambda data: None, clock=lambda: 0)
    zone = best(scanner.step, repeat)
    return {"frame_us": (burst_write + burst_read / 2) / 2, "lock_us": lock,
            "write_register_us": write, "read_register_us": read, "clock_read_us": clock,
            "zone_us": zone}


if __name__ == "__main__":
    for key, value in measure_cpython().items():
        scaled = value * CIRCUITPYTHON_FACTOR
        print(f"{key}: {value:.2f} (x{CIRCUITPYTHON_FACTOR} = {scaled:.0f} us)")

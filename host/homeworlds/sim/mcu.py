"""The simulated microcontroller: the real firmware core on CPython.

:class:`SimulatedMcu` runs ``tablefw.scan.Scanner`` — the very code the board
runs — with one ``tablefw.virtual.VirtualReader`` per reader of the layout,
wired channel by channel as the layout says. The readers' tags follow a
:class:`~homeworlds.sim.table.VirtualTable`, so placing a piece on the table is
what the firmware's next scans see (after the firmware's own debounce).

In-process use (deterministic, with the built-in virtual clock)::

    mcu = SimulatedMcu(table)          # attaches itself to the table
    mcu.settle()                       # run until HELLO + SNAP were sent and the
                                       # debounced picture matches the table
    host.feed(mcu.read())              # bytes the firmware wrote
    mcu.write(encoder.encode(Sync()))  # bytes from the host
    mcu.run_for(500)                   # 500 ms of virtual time

Link faults act on what the firmware writes, after the codec framed it:
``corrupt_next_line()`` flips a byte of the next line (its CRC no longer
matches), ``drop_lines(n)`` loses the next ``n`` lines (the host sees a
sequence gap), ``unplug()`` silences the MCU (nothing sent, host bytes
discarded, no scanning: a USB-powered board is off) and ``replug()`` boots it
again: a fresh scanner, sequence numbers from 0, warm-up, HELLO and SNAP.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping

from homeworlds.sim.emulated_readers import EmulatedTable
from homeworlds.sim.firmware import board_plan
from homeworlds.sim.pn5180_chip import ReadModel
from homeworlds.sim.sim_clock import SimClock
from homeworlds.sim.table import SimError, VirtualTable
from tablefw.protocol import SEQ_MODULO, frame
from tablefw.scan import MAX_IDLE_MS, WARMUP_MS, Scanner
from tablefw.settings import Settings
from tablefw.virtual import VirtualReader

DEFAULT_SCAN_TIME_MS = 5
"""Time one zone scan takes: a PN5180 inventory of a pad with a tag or two."""

READER_MODELS = ("virtual", "pn5180")
"""``virtual``: readers that return the table's tags and cost ``scan_time`` per zone;
``pn5180``: the real PN5180 driver over emulated chips, timed by the chip model."""

OUTPUT_LIMIT = 256 * 1024
"""Bytes of unread output kept; beyond that lines are dropped as by a full USB buffer."""


class _SimReader(VirtualReader):
    """A virtual reader whose every inventory costs the MCU's scan time."""

    def __init__(self, zones, rng, spend: Callable[[], None], name: str):
        VirtualReader.__init__(self, zones, 0.0, rng, name)
        self._spend = spend

    def inventory(self, channel):
        self._spend()
        return VirtualReader.inventory(self, channel)


class SimulatedMcu:
    """The firmware core with virtual readers that follow ``table``.

    ``clock``: a callable giving integer milliseconds. None (the default) makes a
    :class:`SimClock`; any clock with an ``advance(ms)`` method counts as virtual and
    is advanced by each zone scan's ``scan_time`` and by :meth:`run_for`. With a real
    clock (``tablefw.clock.monotonic_ms``) :meth:`step` sleeps the scan time instead.
    ``miss_rate``: probability that a read misses a tag on the scanned zone.
    ``seed``: seeds the missed reads. ``settings``: initial firmware settings
    (``{"debounce_on": 2, ...}``, see tablefw.settings); a reset returns to them.
    ``firmware_config``: a board's ``CONFIG`` (table_config.py); the simulated board then
    has the readers, zone count and buttons that config gives the real one (checked by the
    firmware's own config code), instead of those of the layout.
    ``emulation``: options of the emulated board (reader model ``pn5180``), see
    :class:`~homeworlds.sim.emulated_readers.EmulatedTable`: ``costs`` (one band of
    hardware/scan-costs.toml), ``latched``, ``irq_read_us``, ``settle_us``, ...
    """

    def __init__(self, table: VirtualTable, *, clock: Callable[[], int] | None = None,
                 miss_rate: float = 0.0, seed: int = 0,
                 scan_time: int = DEFAULT_SCAN_TIME_MS,
                 settings: Mapping[str, int] | None = None, warmup_ms: int = WARMUP_MS,
                 firmware_config: Mapping | None = None,
                 reader_model: str = "virtual", read_model: ReadModel | None = None,
                 emulation: Mapping[str, object] | None = None):
        self.table = table
        self.layout = table.layout
        self.clock = clock if clock is not None else SimClock()
        advance = getattr(self.clock, "advance", None)
        #: a virtual clock's advance(ms); None for a real clock
        self._advance: Callable[[int], object] | None = advance if callable(advance) else None
        self.virtual_time = self._advance is not None
        self.lock = threading.RLock()
        self.initial_settings = dict(settings or {})
        try:
            Settings(self.initial_settings)
        except ValueError as error:
            raise SimError(f"settings: {error}") from None
        self.warmup_ms = warmup_ms
        self.scan_time = 0
        self.set_scan_time(scan_time)
        self.miss_rate = 0.0
        if reader_model not in READER_MODELS:
            raise SimError(f"reader model: expected one of {', '.join(READER_MODELS)}, "
                           f"got {reader_model!r}")
        self.reader_model = reader_model
        self.emulated: EmulatedTable | None = None
        self.slow_zones: tuple[int, ...] = ()
        self.readers: list[VirtualReader] = []
        if firmware_config is None:
            wiring = [([zone for zone in reader.zones if zone is not None],
                       f"reader {reader.index}" + (f" ({reader.label})" if reader.label else ""))
                      for reader in self.layout.readers]
            self.zone_count = self.layout.zone_count
            self.buttons = max((seat.button + 1 for seat in self.layout.seats
                                if seat.button is not None), default=0)
        else:
            plan = board_plan(firmware_config)
            wiring = [(list(zones), f"reader {index}")
                      for index, zones in enumerate(plan.reader_zones)]
            self.zone_count = plan.zone_count
            self.buttons = plan.buttons
        self._reader_by_zone: dict[int, int] = {}
        for index, (zones, name) in enumerate(wiring):
            for zone in zones:
                self._reader_by_zone[zone] = index
            self.readers.append(_SimReader(zones, random.Random(seed * 1009 + index),
                                           self._spend_scan_time, name))
        self.set_miss_rate(miss_rate)
        if reader_model == "pn5180":
            if not self.virtual_time:
                raise SimError("reader model 'pn5180' needs a virtual clock (one with advance())")
            if not hasattr(self.clock, "ticks_us"):
                raise SimError("reader model 'pn5180' needs a SimClock (microsecond time)")
            self.emulated = EmulatedTable(self.layout, self.clock, model=read_model, seed=seed,
                                          **dict(emulation or {}))  # type: ignore[arg-type]
            self.readers = self.emulated.readers  # type: ignore[assignment]
            # The bank tray changes at most once a turn: scanned at a lower rate.
            self.slow_zones = tuple(c.zone for c in self.layout.bank)
        self.plugged = True
        self.resets = 0
        #: Lines lost to drop_lines() and corrupted by corrupt_next_line(), in total.
        self.lines_dropped = 0
        self.lines_corrupted = 0
        self._drop_pending = 0
        self._corrupt_pending = 0
        self._output = bytearray()
        self._owed_ms = 0
        #: Called (under ``lock``) after every reset, e.g. to flush a transport's buffers.
        self.on_reset: list[Callable[[], None]] = []
        self.scanner = self._boot()
        table.attach(self)

    # ------------------------------------------------------------------ lifecycle

    def _boot(self) -> Scanner:
        return Scanner(self.readers, self._emit, self.clock, Settings(self.initial_settings),
                       slow_zones=self.slow_zones,
                       fields_at_once=self.emulated.fields_at_once if self.emulated else None,
                       zone_count=self.zone_count, buttons=self.buttons,
                       warmup_ms=self.warmup_ms)

    def reset(self, *, mid_line: bool = False) -> None:
        """Restart the firmware (as after a power cycle or a watchdog reset): new scanner,
        sequence numbers from 0, settings back to the initial ones, warm-up, then HELLO
        and SNAP. Unread output is lost. ``mid_line``: the reset cut a line in half while
        it was being sent; its first half reaches the host, and the rebooted firmware's
        first line (HELLO) follows it on the same line."""
        with self.lock:
            half = b""
            if mid_line:
                line = frame(self.scanner.encoder.seq, "ZONE 0 E004015000000011,E004015000000022")
                half = line[:len(line) // 2]
            self.scanner = self._boot()
            self.resets += 1
            self._output.clear()
            for callback in self.on_reset:
                callback()
            self._output += half

    def close(self) -> None:
        """Stop following the table."""
        self.table.detach(self)

    # ------------------------------------------------------------------ running

    def step(self) -> int:
        """One firmware step (one zone scanned, whatever became due sent). Returns how
        many ms the firmware would idle before its next step (0: none)."""
        wait, owed = self.step_without_sleeping()
        if owed:
            time.sleep(owed / 1000)
        return wait

    def step_without_sleeping(self) -> tuple[int, int]:
        """Like :meth:`step`, but with a real clock the scan time is returned (second
        item, ms) for the caller to sleep, instead of slept here."""
        with self.lock:
            if not self.plugged:
                return MAX_IDLE_MS, 0
            self._owed_ms = 0
            wait = self.scanner.step()
            owed, self._owed_ms = self._owed_ms, 0
            return wait, owed

    def run_for(self, ms: int) -> None:
        """Run the firmware for ``ms`` milliseconds of virtual time (virtual clocks only)."""
        self._need_virtual_time("run_for")
        end = self.clock() + ms
        while self.clock() < end:
            before = self.clock()
            wait = self.step()
            if self.clock() == before:
                # An idle firmware (or zero scan time) still lets time pass.
                self._advance_clock(max(1, min(wait, end - self.clock())))

    def run_until(self, condition: Callable[[], bool], timeout_ms: int = 10_000) -> bool:
        """Run until ``condition()`` holds (True) or ``timeout_ms`` of virtual time
        passed (False)."""
        self._need_virtual_time("run_until")
        end = self.clock() + timeout_ms
        while not condition():
            if self.clock() >= end:
                return False
            self.run_for(max(1, self.scan_time))
        return True

    def in_step_with_table(self) -> bool:
        """Whether the firmware is up and its debounced picture equals the table."""
        with self.lock:
            return (self.plugged and self.scanner.ready
                    and self.scanner.snapshot() == self.table.zone_sets())

    def settle(self, timeout_ms: int = 30_000) -> None:
        """Run (virtual time) until :meth:`in_step_with_table`; SimError if it does not
        happen within ``timeout_ms`` (e.g. a reader left faulted)."""
        if not self.run_until(self.in_step_with_table, timeout_ms):
            differing = [zone for zone, (seen, placed) in
                         enumerate(zip(self.scanner.snapshot(), self.table.zone_sets(),
                                       strict=True)) if seen != placed]
            raise SimError(f"the simulated MCU did not settle within {timeout_ms} ms "
                           f"(ready={self.scanner.ready}, plugged={self.plugged}, zones "
                           f"differing: {differing})")

    # ------------------------------------------------------------------ the wire

    def read(self, size: int = -1) -> bytes:
        """What the firmware wrote and nobody read yet: everything, or at most ``size``
        bytes (as pyserial's ``read``). Never waits: run the firmware to get more."""
        with self.lock:
            if size is None or size < 0 or size >= len(self._output):
                size = len(self._output)
            data = bytes(self._output[:size])
            del self._output[:size]
            return data

    @property
    def in_waiting(self) -> int:
        return len(self._output)

    def write(self, data: bytes) -> int:
        """Bytes from the host (SYNC, PING, CFG lines). Lost while unplugged."""
        with self.lock:
            if self.plugged:
                self.scanner.feed(bytes(data))
            return len(data)

    def _emit(self, data: bytes) -> None:
        # The scanner's write(): link faults act here, on framed lines.
        if len(self._output) + len(data) > OUTPUT_LIMIT:
            raise OSError("simulated USB buffer full: the host is not reading")
        for line in data.splitlines(keepends=True):
            if self._drop_pending:
                self._drop_pending -= 1
                self.lines_dropped += 1
                continue
            if self._corrupt_pending:
                self._corrupt_pending -= 1
                self.lines_corrupted += 1
                line = corrupt_line(line)
            self._output += line

    # ------------------------------------------------------------------ verbs

    def zone_changed(self, zone: int, uids: tuple[str, ...]) -> None:
        with self.lock:
            if self.emulated is not None:
                self.emulated.set_tags(zone, uids)
                return
            reader = self._reader_of(zone)
            if reader is not None:  # a pad the board's config does not scan stays unseen
                self.readers[reader].set_tags(zone, uids)

    def sync_from_table(self) -> None:
        with self.lock:
            for zone, uids in enumerate(self.table.zone_sets()):
                self.zone_changed(zone, uids)

    def press(self, button: int) -> None:
        """A seat button press (BTN). Lost while unplugged, like any press on an
        unpowered board."""
        with self.lock:
            if not isinstance(button, int) or not 0 <= button < self.buttons:
                raise SimError(f"press: no button {button!r} (layout {self.layout.name!r} "
                               f"has {self.buttons} button(s))")
            if self.plugged:
                self.scanner.press(button)

    def long_press(self, button: int) -> None:
        """A seat button pressed and held past ``hold_ms``: BTN, then HOLD (the firmware's
        timing of the hold is ``tablefw.buttons.ButtonBank.holds``, tested on its own)."""
        with self.lock:
            if not isinstance(button, int) or not 0 <= button < self.buttons:
                raise SimError(f"long_press: no button {button!r} (layout "
                               f"{self.layout.name!r} has {self.buttons} button(s))")
            if self.plugged:
                self.scanner.press(button)
                self.scanner.hold(button)

    def unplug(self) -> None:
        with self.lock:
            if not self.plugged:
                raise SimError("unplug: the simulated MCU is already unplugged")
            self.plugged = False
            self._output.clear()
            self._drop_pending = self._corrupt_pending = 0

    def replug(self) -> None:
        with self.lock:
            if self.plugged:
                raise SimError("replug: the simulated MCU is plugged in")
            self.plugged = True
            self.reset()

    def corrupt_next_line(self) -> None:
        with self.lock:
            self._corrupt_pending += 1

    def drop_lines(self, count: int) -> None:
        with self.lock:
            if count >= SEQ_MODULO:
                # A whole wrap of sequence numbers would hide the gap.
                raise SimError(f"drop_lines: at most {SEQ_MODULO - 1} lines at once")
            self._drop_pending += count

    def reader_fault(self, reader: int, scans: int | None = 1, code: str = "TIMEOUT",
                     message: str = "injected fault") -> None:
        """Fail reader ``reader``'s next ``scans`` inventories, or every one (None)
        until :meth:`clear_reader_fault`."""
        with self.lock:
            target = self._reader(reader, "reader_fault")
            if self.emulated is not None:
                # The emulated chip fails as a chip does: a general error, or silence.
                if scans is not None and (not isinstance(scans, int) or scans <= 0):
                    raise SimError(f"reader_fault: scans must be a positive count or None, "
                                   f"got {scans!r}")
                self.emulated.fault(reader, scans)
                return
            if scans is None:
                target.set_faulted(True, code, message)
            elif isinstance(scans, int) and scans > 0:
                target.fail_next(scans, code, message)
            else:
                raise SimError(f"reader_fault: scans must be a positive count or None, "
                               f"got {scans!r}")

    def clear_reader_fault(self, reader: int) -> None:
        with self.lock:
            target = self._reader(reader, "clear_reader_fault")
            if self.emulated is not None:
                self.emulated.clear_fault(reader)
                return
            target.set_faulted(False)
            target.fail_next(0)

    def set_miss_rate(self, probability: float) -> None:
        if not isinstance(probability, (int, float)) or not 0 <= probability < 1:
            raise SimError(f"miss rate: expected a probability 0 <= p < 1, got {probability!r}")
        with self.lock:
            self.miss_rate = float(probability)
            for reader in self.readers:
                reader.miss_probability = self.miss_rate

    def set_scan_time(self, ms: int) -> None:
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise SimError(f"scan time: expected milliseconds >= 0, got {ms!r}")
        with self.lock:
            self.scan_time = ms

    # ------------------------------------------------------------------ internals

    def _advance_clock(self, ms: int) -> None:
        if self._advance is None:
            raise SimError("this needs a virtual clock (one with advance(ms)), not a real one")
        self._advance(ms)

    def _spend_scan_time(self) -> None:
        if self.virtual_time:
            self._advance_clock(self.scan_time)
        else:
            self._owed_ms += self.scan_time

    def _reader_of(self, zone: int) -> int | None:
        return self._reader_by_zone.get(zone)

    def _reader(self, index: object, verb: str) -> VirtualReader:
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.readers):
            raise SimError(f"{verb}: no reader {index!r} (layout {self.layout.name!r} has "
                           f"readers 0-{len(self.readers) - 1})")
        return self.readers[index]

    def _need_virtual_time(self, what: str) -> None:
        if not self.virtual_time:
            raise SimError(f"{what} needs a virtual clock (one with advance()); this MCU "
                           "runs on real time")


def corrupt_line(line: bytes) -> bytes:
    """``line`` with one byte changed inside the CRC-covered part: the first letter
    of the message type changes case, so the line stays printable ASCII and the
    receiver drops it for its CRC."""
    space = line.find(b" ")
    index = space + 1 if 0 <= space < len(line) - 1 else 0
    return line[:index] + bytes([line[index] ^ 0x20]) + line[index + 1:]

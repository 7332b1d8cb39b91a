"""The simulated MCU behind a pseudo-terminal: a real serial device for the host.

:class:`PtyMcu` opens a pty pair and runs a :class:`SimulatedMcu` (real clock) in
a background thread: host bytes read from the pty master go into the firmware,
firmware lines go out through it. ``device_path`` is the slave side
(``/dev/pts/N``), which the host opens with pyserial like a USB serial port::

    with PtyMcu(table, scan_time=2) as mcu:
        port = serial.Serial(mcu.device_path, timeout=0.1)
        ...
        table.place(uid, zone)        # the firmware scans it and sends ZONE

The pty stays open for the object's whole life, so the device path never
changes. ``table.unplug()`` makes the MCU silent (no lines; what the host sends
is discarded) — the host notices by its silence timeout; ``table.replug()``
boots the firmware again (HELLO + SNAP, sequence numbers from 0) on the same
path. Opening the device with pyserial discards what was written before, as
with a real port; while nobody reads, at most ``output_limit`` bytes wait and
further lines are dropped (counted in the heartbeat's tx_dropped).
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Mapping

from homeworlds.sim.mcu import DEFAULT_SCAN_TIME_MS, SimulatedMcu
from homeworlds.sim.table import SimError, VirtualTable
from tablefw.clock import monotonic_ms
from tablefw.scan import MAX_IDLE_MS, WARMUP_MS

READ_CHUNK = 4096


class PtyMcu:
    """A :class:`SimulatedMcu` speaking over a pty from a background thread.

    Start it with :meth:`start` (or ``with``); :meth:`stop` ends the thread,
    :meth:`close` also closes the pty. ``error`` holds the exception that ended the
    thread, if one did.
    """

    def __init__(self, table: VirtualTable, *, miss_rate: float = 0.0, seed: int = 0,
                 scan_time: int = DEFAULT_SCAN_TIME_MS,
                 settings: Mapping[str, int] | None = None, warmup_ms: int = WARMUP_MS,
                 output_limit: int = 64 * 1024, firmware_config: Mapping | None = None):
        self.mcu = SimulatedMcu(table, clock=monotonic_ms, miss_rate=miss_rate, seed=seed,
                                scan_time=scan_time, settings=settings, warmup_ms=warmup_ms,
                                firmware_config=firmware_config)
        self.table = table
        self.output_limit = output_limit
        try:
            self._master, self._slave = os.openpty()
        except OSError as error:
            self.mcu.close()
            raise SimError(f"cannot open a pseudo-terminal: {error.strerror or error}") from None
        # Raw: no echo of our own lines back to us, no newline translation.
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.device_path = os.ttyname(self._slave)
        self.error: BaseException | None = None
        #: Lines dropped because nobody read the pty.
        self.overflow_lines = 0
        self._pending = bytearray()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        # A reset is a new USB device: nothing sent to the old one reaches the new firmware.
        self.mcu.on_reset.append(self._forget_link_buffers)

    # ------------------------------------------------------------------ lifecycle

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> PtyMcu:
        if self._closed:
            raise SimError("this PtyMcu is closed; make a new one")
        if not self.running:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="sim-mcu-pty", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """End the scanning thread (the pty stays open)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise SimError(f"the simulated MCU thread did not stop within {timeout} s")
            self._thread = None

    def close(self) -> None:
        """Stop the thread, close the pty and stop following the table."""
        if self._closed:
            return
        try:
            self.stop()
        finally:
            self._closed = True
            self.mcu.close()
            for fd in (self._master, self._slave):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __enter__(self) -> PtyMcu:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ------------------------------------------------------------------ the loop

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                pause = self._cycle()
                if pause == 0:
                    time.sleep(0)  # let the host's thread run
                    continue
                # Wake early when the host writes, so PING and SYNC are answered at once.
                select.select([self._master], [], [], pause / 1000)
        except BaseException as error:  # reported through .error; the thread must end
            self.error = error

    def _cycle(self) -> int:
        """One firmware step with its I/O; returns the ms to pause afterwards."""
        mcu = self.mcu
        with mcu.lock:
            if not mcu.plugged:
                # Unplugged: nothing goes out, whatever the host sends is lost.
                self._pending.clear()
                self._read_input()
                return MAX_IDLE_MS
            data = self._read_input()
            if data:
                mcu.write(data)
            wait, owed = mcu.step_without_sleeping()
            self._pending += mcu.read()
            self._flush()
        # The scan time is spent outside the lock, so table verbs are never held up. With a
        # scan time of 0 (fast replays) the loop only yields between zones.
        if self.mcu.scan_time == 0:
            return 0
        return max(1, owed, min(wait, MAX_IDLE_MS))

    def _forget_link_buffers(self) -> None:
        self._pending.clear()
        self._read_input()

    def _read_input(self) -> bytes:
        chunks = []
        while True:
            try:
                data = os.read(self._master, READ_CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:  # EIO: no one holds the slave open
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)

    def _flush(self) -> None:
        while self._pending:
            try:
                written = os.write(self._master, self._pending)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if written <= 0:
                break
            del self._pending[:written]
        # Nobody reads: keep whole lines only, oldest dropped first.
        while len(self._pending) > self.output_limit:
            end = self._pending.find(b"\n")
            if end < 0:
                self._pending.clear()
                break
            del self._pending[:end + 1]
            self.overflow_lines += 1
            self.mcu.scanner.tx_dropped += 1

"""Bring-up timing: measure on the board what each operation of the scan costs.

Run on a real Pico with one PN5180, one multiplexer and one pad with one tag on it
(firmware/bringup_timing.py, copied to the board as code.py; docs/hardware.md,
"Bring-up: scan timing"), and in the tests on the simulated board. Each measurement
prints one line on the console::

    TIMING command_frame_us 61 64 79 200

(key, then the 5th, 50th and 95th percentile of the samples, then their count);
``homeworlds bringup-timing`` reads these lines and writes a costs file of the form
the timing model reads (hardware/scan-costs.toml). A key the board cannot measure
prints ``TIMING key - - - 0 why``; ``TIMING END`` ends the run.

The keys are those of hardware/scan-costs.toml:

- command_frame_us: a register write with the bus held, as the scan sends it;
- register_read_us: a register read (command and answer frame);
- bus_lock_us: taking and giving back the SPI bus (try_lock, configure, unlock): a
  register write that takes the bus, less one with the bus held;
- clock_read_us: one ticks_us() reading;
- pin_read_us: one reading of the chip's BUSY input (the IRQ input costs the same);
- zone_us: the scan core's bookkeeping for one pad (a Scanner over a reader that
  costs nothing);
- gc_pause_us: one gc.collect();
- gc_every_ms: scanning time between two collections: the free heap divided by the
  heap the scan of the pad takes per millisecond;
- relay_settle_us: the shortest wait after switching to the pad with which the tag
  reads every time (the wait is swept, the other channel selected in between);
- field_settle_us: the same for the wait between the field going on and the
  first request.
"""

from tablefw.clock import ticks_us as _ticks_us

KEYS = (
    "command_frame_us",
    "register_read_us",
    "bus_lock_us",
    "clock_read_us",
    "pin_read_us",
    "zone_us",
    "gc_pause_us",
    "gc_every_ms",
    "relay_settle_us",
    "field_settle_us",
)
IRQ_CLEAR = 0x03
IRQ_STATUS = 0x02
ALL_IRQS = 0x000FFFFF
# The sweeps: waits tried (microseconds) and reads at each that must all succeed.
SETTLE_STEP_US = 100
SETTLE_MAX_US = 10000
READS_PER_STEP = 10


def percentiles(samples):
    """(5th, 50th, 95th percentile) of ``samples`` (nearest rank)."""
    ordered = sorted(samples)
    last = len(ordered) - 1
    return (
        ordered[(last * 5 + 50) // 100],
        ordered[(last * 50 + 50) // 100],
        ordered[(last * 95 + 50) // 100],
    )


class Bench:
    """Measurements on ``reader`` (a tablefw PN5180) at ``channel``, the pad with
    one tag; ``other`` another channel of its multiplexer (None: the pad's reader has
    no multiplexer). ``ticks`` the microsecond clock, ``gc`` the gc module (None where
    there is none), ``out`` where the lines go."""

    def __init__(self, reader, channel, other=None, ticks=None, gc=None, out=print, repeat=200):
        self.reader = reader
        self.channel = channel
        self.other = other
        self.ticks = ticks if ticks is not None else getattr(reader, "ticks_us", _ticks_us)
        self.gc = gc
        self.out = out
        self.repeat = repeat

    def report(self, key, samples, why=""):
        if not samples:
            self.out("TIMING %s - - - 0 %s" % (key, why or "not measured"))
            return None
        low, likely, high = percentiles(samples)
        if high <= 0:
            self.out("TIMING %s - - - 0 the clock did not move while it ran" % key)
            return None
        self.out("TIMING %s %d %d %d %d" % (key, max(1, low), max(1, likely), high, len(samples)))
        return likely

    def each(self, action, count=None):
        """Microseconds of each of ``count`` calls of ``action``, less a clock reading."""
        ticks = self.ticks
        overhead = self.clock_cost()
        samples = []
        for _ in range(count or self.repeat):
            start = ticks()
            action()
            samples.append(max(0, ticks() - start - overhead))
        return samples

    def clock_cost(self):
        ticks = self.ticks
        start = ticks()
        for _ in range(50):
            ticks()
        return (ticks() - start) // 51

    def run(self):
        reader = self.reader
        reader.prepare()
        self.clock_reads()
        reader.burst(True)  # frames as the scan sends them: the bus stays held
        try:
            held = self.each(lambda: reader.write_register(IRQ_CLEAR, ALL_IRQS))
            self.report("command_frame_us", held)
            self.report("register_read_us", self.each(lambda: reader.read_register(IRQ_STATUS)))
        finally:
            reader.burst(False)
        # Taking the bus: a frame that takes and gives back the bus, less a frame.
        alone = self.each(lambda: reader.write_register(IRQ_CLEAR, ALL_IRQS))
        frame = percentiles(held)[1]
        self.report("bus_lock_us", [max(0, sample - frame) for sample in alone])
        busy = getattr(reader, "irq", None) or getattr(reader, "busy", None)
        if busy is None:
            self.report("pin_read_us", [], "the reader has no BUSY or IRQ input")
        else:
            self.report("pin_read_us", self.each(lambda: busy.value))
        self.bookkeeping()
        self.collections()
        self.settles()
        self.out("TIMING END")

    def clock_reads(self):
        ticks = self.ticks
        samples = []
        for _ in range(self.repeat):
            start = ticks()
            for _ in range(10):
                ticks()
            samples.append((ticks() - start) // 11)
        self.report("clock_read_us", samples)

    def bookkeeping(self):
        from tablefw.scan import Scanner
        from tablefw.virtual import VirtualReader

        virtual = VirtualReader(list(range(16)))
        for zone in range(0, 16, 2):
            virtual.set_tags(zone, ["E00401500000%04X" % zone])
        scanner = Scanner([virtual], lambda data: None, clock=lambda: 0)
        self.report("zone_us", self.each(scanner.step))

    def collections(self):
        gc = self.gc
        if gc is None or not hasattr(gc, "mem_alloc"):
            self.report(
                "gc_pause_us", self.each(gc.collect, 20) if gc is not None else [], "no gc module"
            )
            self.report("gc_every_ms", [], "no gc.mem_alloc() on this Python")
            return
        self.report("gc_pause_us", self.each(gc.collect, 20))
        samples = []
        reader = self.reader
        for _ in range(20):
            gc.collect()
            free = gc.mem_free()
            before = gc.mem_alloc()
            start = self.ticks()
            reader.select(self.channel)
            reader.inventory(self.channel)
            elapsed = max(1, self.ticks() - start)
            grown = max(1, gc.mem_alloc() - before)
            samples.append(free * elapsed // grown // 1000)  # ms of scanning to fill the heap
        self.report("gc_every_ms", samples)

    def reads_with(self, settle_us, power_up_us, switch):
        """Whether the tag reads READS_PER_STEP times in a row with these waits;
        ``switch``: select another channel before each read, so the relay moves."""
        reader = self.reader
        mux = reader.mux
        base = getattr(mux, "mux", mux)
        saved = (getattr(base, "settle_us", 0), reader.power_up_us)
        try:
            if base is not None:
                base.settle_us = settle_us
            reader.power_up_us = power_up_us
            for _ in range(READS_PER_STEP):
                if switch and self.other is not None:
                    reader.select(self.other)
                    reader.inventory(self.other)
                reader.select(self.channel)
                if not reader.inventory(self.channel):
                    return False
            return True
        except Exception:  # a read that fails outright is a failed read
            reader.ready = False
            return False
        finally:
            if base is not None:
                base.settle_us = saved[0]
            reader.power_up_us = saved[1]

    def sweep(self, reads):
        """The shortest wait from which every longer one reads every time (``reads(wait)``),
        or None when even SETTLE_MAX_US does not."""
        good = None
        wait = SETTLE_MAX_US
        while wait >= 0 and reads(wait):
            good = wait
            wait -= SETTLE_STEP_US
        return good

    def settles(self):
        """The tags power up once the field reaches them: after RF_ON (the chip's
        field settle) and after the relay closed. Without switching, the shortest
        power-up wait that reads is the field settle; switching channels with no
        power-up wait, the shortest relay wait that reads is relay + field settle."""
        if not self.reads_with(SETTLE_MAX_US, SETTLE_MAX_US, True):
            why = (
                "the tag on channel %d does not read even with %d us waits: put one tag on the pad"
                % (self.channel, SETTLE_MAX_US)
            )
            self.report("relay_settle_us", [], why)
            self.report("field_settle_us", [], why)
            return
        field = self.sweep(lambda wait: self.reads_with(0, wait, False))
        if self.other is None:
            self.report("relay_settle_us", [], "the reader has no multiplexer")
        else:
            both = self.sweep(lambda wait: self.reads_with(wait, 0, True))
            if both is None or field is None:
                self.report(
                    "relay_settle_us",
                    [],
                    "no relay wait up to %d us reads every time" % SETTLE_MAX_US,
                )
            else:
                self.report("relay_settle_us", [max(SETTLE_STEP_US, both - field)])
        self.report("field_settle_us", [max(SETTLE_STEP_US, field)] if field is not None else [])

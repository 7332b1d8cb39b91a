"""The pipelined scan order of the scan core (tablefw.scan.Scanner), loaded only on a
board whose readers each have a multiplexer of their own.

Each reader walks its own pads and starts the next the moment one is done, so no reader
waits for the slowest pad of a batch, and a reader's relay settles while the others are
on air. A scan waiting for the air yields the microsecond tick it waits for; one clock
reading a pass tells which scans to resume. The round is counted over the readers that
serve a map pad (a reader of slow zones alone, the bank tray, keeps its own pace);
readers start round-robin within ``fields_at_once``; a reader to be reset waits until
none is on air (the reset line is shared). docs/firmware.md, section 7.
"""

from tablefw.clock import ticks_us
from tablefw.scan import PRIORITY_REPEATS, ready_reader


class Pipeline:
    """The pipelined order's state for ``scanner`` with ``count`` readers."""


    def __init__(self, scanner, count):
        self.scanner = scanner
        self._running = [None] * count  # (channel, zone, scan generator) on air per reader
        self._pipe_next = 0  # the reader to start first at the next pipelined step
        self._wake = [0] * count  # microsecond tick each running scan waits for
        ticks = getattr(scanner.clock, "ticks_us", None)
        self.ticks_us = ticks if ticks is not None else ticks_us
        self._cursor = [0] * count  # next channel of each reader
        self._reader_rounds = [0] * count
        self._reader_repeats = [0] * count
        self._fast = []  # per reader: does it serve a zone that is not slow?
        for reader in scanner.readers:
            fast = False
            for zone in reader.zones:
                if zone not in scanner.slow:
                    fast = True
            self._fast.append(fast)

    def step(self, now):
        """Start the next pad of every reader that is free, then step the scans on
        air until one of them is done (its result recorded). A reset pulse reaches
        every chip on the line, so a reader to recover waits until none is on air."""
        sc = self.scanner
        if sc._pause_until is not None:
            if now < sc._pause_until:
                return sc._pause_until - now
            sc._pause_until = None
        waiting = self._start_free(now)
        for item in self._running:
            if item is not None:
                self._step_running()
                return 0
        return max(1, waiting) if waiting else 0

    def _start_free(self, now):
        """Put the free readers on air (within fields_at_once); returns how long the
        earliest one waiting out a fault still waits (None: none does)."""
        running = self._running
        count = len(running)
        waiting = None
        # A reader to be reset goes first: the others start nothing new until it did.
        resetting = -1
        for index in range(count):
            if running[index] is None and self._needs_reset(index, now):
                resetting = index
                break
        on_air = count - running.count(None)
        # The next reader to start is the one after the last started (round robin), so a
        # supply budget of fewer fields than readers shares the air fairly.
        first = self._pipe_next
        for offset in range(count):
            index = (first + offset) % count
            if on_air >= self.scanner.fields_at_once:
                break
            if running[index] is None and (resetting < 0 or index == resetting):
                self._pipe_next = (index + 1) % count
                delay = self._start(index, now)
                if delay and (waiting is None or delay < waiting):
                    waiting = delay
                if running[index] is not None:
                    on_air += 1
        return waiting

    def _step_running(self):
        """Step the scans on air until one is done. A scan waiting for the air yields the
        microsecond tick it waits for: one clock reading a pass tells which scans to
        resume (each reading costs the board)."""
        sc = self.scanner
        running = self._running
        ticks = self.ticks_us
        wake = self._wake
        while True:
            now_us = ticks()
            for index in range(len(running)):
                item = running[index]
                if item is None or wake[index] > now_us:
                    continue
                try:
                    wake[index] = next(item[2]) or 0
                    continue
                except StopIteration:
                    running[index] = None
                    self._done(index, item[0], item[1], sc.readers[index].found, sc.clock())
                except Exception as exc:  # any driver failure is a reader fault
                    running[index] = None
                    self._reader_repeats[index] = 0
                    sc._fault(index, item[1], exc, sc.clock())
                return

    def _needs_reset(self, index, now):
        sc = self.scanner
        if sc.faulted[index]:
            return now >= sc._retry_at[index]
        return not getattr(sc.readers[index], "ready", True)

    def _start(self, index, now):
        """Put reader ``index`` on air on its next due pad. Returns 0, or how many ms
        until it may try again (a fault being waited out)."""
        sc = self.scanner
        reader = sc.readers[index]
        if sc.faulted[index] or not getattr(reader, "ready", True):
            if sc.faulted[index] and now < sc._retry_at[index]:
                return sc._retry_at[index] - now
            for other in range(len(sc.readers)):
                if other != index and self._running[other] is not None:
                    return 0  # recovered once the others are off the air
        zones = reader.zones
        channel = self._cursor[index]
        for _skip in range(len(zones)):
            zone = zones[channel]
            if zone not in sc.slow or not (self._reader_rounds[index] + channel) % sc.slow_every \
                    or sc.debouncers[zone].unsettled():
                break
            channel = self._next_channel(index, channel, now)
        zone = zones[channel]
        try:
            ready_reader(reader, sc.faulted[index])
            steps = reader.scan_steps(channel, sc.debouncers[zone].several())
            self._running[index] = (channel, zone, steps)
            self._wake[index] = 0
        except Exception as exc:  # any driver failure is a reader fault
            self._cursor[index] = channel
            sc._fault(index, zone, exc, now)
            return sc.settings.retry_ms
        self._cursor[index] = channel
        return 0

    def _next_channel(self, index, channel, now):
        sc = self.scanner
        channel += 1
        if channel >= len(sc.readers[index].zones):
            channel = 0
            self._reader_rounds[index] += 1
            # A round: every reader that serves a pad of the map went through its pads
            # (a reader of slow zones alone, the bank tray, keeps its own pace).
            least = None
            for other in range(len(sc.readers)):
                if self._fast[other] and (least is None or self._reader_rounds[other] < least):
                    least = self._reader_rounds[other]
            if least is None:
                least = self._reader_rounds[index]
            if least > sc.rounds:
                sc._round_done(now)
        return channel

    def _done(self, index, channel, zone, found, now):
        sc = self.scanner
        sc._record(index, zone, found, now)
        # A pad that may be changing is scanned again at once (a piece just put down
        # is confirmed now instead of a round later), up to PRIORITY_REPEATS times.
        if sc.ready and zone not in sc.slow and self._reader_repeats[index] < PRIORITY_REPEATS \
                and sc.debouncers[zone].unsettled() and not sc.faulted[index]:
            self._reader_repeats[index] += 1
            return
        self._reader_repeats[index] = 0
        self._cursor[index] = self._next_channel(index, channel, now)

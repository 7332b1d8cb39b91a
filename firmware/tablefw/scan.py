"""The scan core: readers in turn, debounce, change detection, reporting.

No hardware imports: the readers, the clock (integer milliseconds) and the
output writer are handed in, so the same code runs on the board, in the
simulated table and in the tests.

One call of ``Scanner.step()`` scans one *batch* and sends whatever became
due: a ZONE line when a zone's debounced tag set changed, the heartbeat, the
periodic snapshot.

- Readers that offer ``scan_steps(channel)`` (the PN5180) work concurrently:
  a batch is one multiplexer channel on up to ``fields_at_once`` readers
  (how many fields the supply budget allows on together; 1 = one reader
  after another); each reader's scan is a generator that yields while its
  chip is on air, and the batch steps them in turn, so the readers' air
  time overlaps and only the SPI work is serial. Select lines shared by all
  readers are why a batch is one channel.
- Other readers (PN532, VirtualReader) take turns zone by zone (reader 0
  channel 0, reader 1 channel 0, ..., reader 0 channel 1, ...), one zone a
  batch.
- In concurrent mode the zones of a batch that may be changing (a tag seen
  but not yet counted, or a counted tag just missed) are scanned again at
  once, up to PRIORITY_REPEATS times: a piece just put down is confirmed in
  the next batch instead of a round later.
- ``slow_zones`` (the bank tray) are scanned only every ``slow_every``-th
  round (staggered by channel, so every round carries its share), unless
  they are changing.
- A clean answer whose UID is no ISO 15693 UID (the reader's ``rejected``)
  is reported once with ERR UID, naming it, while it stays on the pad.
- A pad that held several tags is scanned with ``several=True``: the
  reader skips its one-slot probe, which could only collide.
- Before a batch starts, every reader in it is ``prepare()``d (initialised
  or recovered): a reset pulse on a shared line must not hit a chip that is
  already on air.

A reader that raises is reported with ERR and left alone for ``retry_ms``
while the others keep scanning; its zones keep their last debounced
contents (a fault is not an empty pad).

Host lines (SYNC, PING, CFG) are passed to ``feed()`` as raw bytes.
"""

from tablefw import __version__
from tablefw.clock import monotonic_ms
from tablefw.debounce import ZoneDebouncer
from tablefw.settings import Settings
from tablefw.wire import (
    FROM_HOST,
    MAX_ZONE_TAGS,
    PROTOCOL_VERSION,
    SEQ_MODULO,
    ButtonHold,
    ButtonPress,
    Config,
    Decoder,
    Encoder,
    ErrorReport,
    Heartbeat,
    Hello,
    Ping,
    Pong,
    Snapshot,
    Sync,
    ZoneState,
    normalize_uid,
)

# A reader that stays faulty is reported again this often (ms).
ERR_REPEAT_MS = 10000
# Longest wait for the first debounced picture before HELLO is sent (ms).
WARMUP_MS = 3000
# Longest sleep run() takes, so host input and buttons stay responsive (ms).
MAX_IDLE_MS = 10
# Batches repeated at once while one of their zones is changing.
PRIORITY_REPEATS = 4
# Default rate of the slow zones: one round in this many.
SLOW_EVERY = 4
_COUNTER_LIMIT = 10 ** 12 - 1


class _DataError(Exception):
    code = "DATA"


def _error_code(exc):
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code and len(code) <= 16 and code.isalpha() and code.isupper():
        return code
    return "EXC"


def _switch(reader):
    """(select lines, channel map) of ``reader``'s multiplexer, or None without
    one: scanning channel ``c`` needs those lines in position ``map[c]`` (``c``
    when the map is None). A channel map (a mux whose channels are wired to
    zones out of order) exposes ``mux`` and ``map``."""
    mux = getattr(reader, "mux", None)
    if mux is None:
        return None
    base = getattr(mux, "mux", mux)
    pins = getattr(base, "pins", None)
    key = tuple([id(pin) for pin in pins]) if pins is not None else id(base)
    if getattr(base, "strobe", None) is not None:
        key = (id(base),)  # a board that latches its channel: shared lines, a switch of its own
    return (key, getattr(mux, "map", None))

def ready_reader(reader, faulted):
    """Before a reader's scan: a faulted one is recovered first (its reset pulse may reach
    the readers that share the line), then it prepares (e.g. re-arms its field)."""
    if faulted:
        recover = getattr(reader, "recover", None)
        if recover is not None:
            recover()
    prepare = getattr(reader, "prepare", None)
    if prepare is not None:
        prepare()


class Scanner:
    """Scans every zone of every reader and speaks the protocol.

    ``readers``: objects with ``zones``, ``select(channel)``,
    ``inventory(channel)`` and optionally ``recover()`` (see
    tablefw.readers). ``write(data: bytes)`` sends to the host; an
    exception from it counts the lines as dropped. ``clock()`` returns
    integer milliseconds. ``zone_count`` defaults to the highest zone
    served plus one. ``buttons`` is how many buttons ``press()`` accepts.
    """

    def __init__(self, readers, write, clock=None, settings=None, zone_count=None,
                 buttons=0, firmware=None, warmup_ms=WARMUP_MS, slow_zones=(),
                 slow_every=SLOW_EVERY,
                 fields_at_once=None):
        self.readers = list(readers)
        self.write = write
        self.clock = clock if clock is not None else monotonic_ms
        self.settings = settings if settings is not None else Settings()
        self.firmware = firmware if firmware is not None else __version__
        self.warmup_ms = warmup_ms
        owner: dict[int, int] = {}
        for index in range(len(self.readers)):
            for zone in self.readers[index].zones:
                if zone in owner:
                    raise ValueError("zone %d is served by reader %d and reader %d"
                                     % (zone, owner[zone], index))
                owner[zone] = index
        served = max(owner) + 1 if owner else 0
        if zone_count is None:
            zone_count = served
        elif zone_count < served:
            raise ValueError("zone_count %d is too small: reader %d serves zone %d" % (
                zone_count, owner[served - 1], served - 1))
        self.zone_count = zone_count
        # A zone gets a debouncer of its own when a tag is first seen there, and gives it up
        # when its last tag is gone: until then every empty zone shares this idle one,
        # which is never updated (56 debouncers would cost the board's heap 2.5 KB).
        self._idle = ZoneDebouncer(self.settings.debounce_on, self.settings.debounce_off)
        self.debouncers = [self._idle] * zone_count
        self.slow = {}
        for zone in slow_zones:
            self.slow[zone] = True
        self.slow_every = max(1, slow_every)
        self.concurrent = bool(self.readers)
        for reader in self.readers:
            if getattr(reader, "scan_steps", None) is None:
                self.concurrent = False
        # The wiring does not change: each reader's switch is worked out once, not every batch.
        self._switches = [_switch(reader) for reader in self.readers]
        # Pipelined: every reader has a switch of its own (a board that latches its channel,
        # a GpioMux with a latch strobe, or select lines of its own), so each walks its own
        # channels and starts its next pad the moment it finished one; no reader waits for
        # the slowest pad of a batch. Boards that follow shared select lines (LE tied high)
        # share one key, and scan in batches.
        keys = [switch[0] for switch in self._switches if switch is not None]
        self.pipelined = self.concurrent and len(set(keys)) == len(keys)
        count = len(self.readers)
        self.fields_at_once = count if fields_at_once is None else max(1, fields_at_once)
        # Each order is imported only where it runs (the board's heap is small); the
        # pipelined one walks each reader's pads itself, so it keeps no batches.
        self._pipeline = None
        self._batch_order = None
        if self.pipelined and keys:
            from tablefw.pipeline import Pipeline

            self._schedule = [()]
            self._switches = []  # the batches' grouping only
            self._pipeline = Pipeline(self, count)
        else:
            from tablefw import batches

            self._batch_order = batches
            self._schedule = batches.schedule(self, fields_at_once)
        self._next = 0
        self._priority = None  # batch to repeat at once
        self._repeats = 0

        self.encoder = Encoder()
        self.decoder = Decoder(accept=FROM_HOST)
        count = len(self.readers)
        self.reader_errors = [0] * count
        self.faulted = [False] * count
        self._retry_at = [0] * count
        self._last_err_at = [0] * count
        self._overflowing = {}
        self._bad_uids = {}  # zone -> True while a rejected UID lies there
        self.button_counts = [0] * buttons
        self.scans = 0
        self.rounds = 0
        self.tx_dropped = 0
        self.snap_id = 0
        self.ready = False

        now = self.clock()
        self._started_at = now
        self._round_start = now
        self._pause_until = None
        self._next_hb = 0  # due time of the next heartbeat, once ready
        self._next_snap = None
        self._hb_at = now
        self._hb_scans = 0
        self._round_began = now
        self.round_ms = 0  # duration of the last complete round
        self._longest_round = 0  # since the last heartbeat

    # ------------------------------------------------------------ output

    def _send(self, message):
        data = self.encoder.encode(message)
        try:
            self.write(data)
        except Exception:  # host gone or buffer full: keep scanning
            self.tx_dropped += data.count(b"\n")

    def hello(self):
        return Hello(self.firmware, PROTOCOL_VERSION, self.zone_count, len(self.readers),
                     len(self.button_counts))

    def snapshot(self):
        """Every zone's debounced tag set, zone 0 first."""
        return tuple([debouncer.present for debouncer in self.debouncers])

    def send_snapshot(self, now=None):
        if now is None:
            now = self.clock()
        self._send(Snapshot(self.snap_id, self.snapshot()))
        self.snap_id = (self.snap_id + 1) % SEQ_MODULO
        self._next_snap = now + self.settings.snap_ms if self.settings.snap_ms else None

    def heartbeat(self, now):
        elapsed = now - self._hb_at
        scans = self.scans - self._hb_scans
        rate = scans * 1000 // elapsed if elapsed > 0 else 0
        # The real time between two scans of a zone: the longest round since
        # the last heartbeat (or the round still running, if longer).
        refresh = max(self._longest_round, now - self._round_began)
        self._longest_round = 0
        faulted = [index for index in range(len(self.readers)) if self.faulted[index]]
        self._hb_at = now
        self._hb_scans = self.scans
        return Heartbeat(
            min(now - self._started_at, _COUNTER_LIMIT), min(self.scans, _COUNTER_LIMIT), rate,
            refresh,
            [min(n, _COUNTER_LIMIT) for n in self.reader_errors], faulted,
            min(self.decoder.dropped, _COUNTER_LIMIT), min(self.tx_dropped, _COUNTER_LIMIT),
        )

    def press(self, button):
        """Report a press of button ``button`` (BTN)."""
        if button < 0 or button >= len(self.button_counts):
            raise ValueError("no button %d (this table has %d)" % (button, len(self.button_counts)))
        self.button_counts[button] += 1
        self._send(ButtonPress(button, self.button_counts[button]))

    def hold(self, button):
        """Report that button ``button`` is still held down after ``hold_ms`` (HOLD)."""
        if button < 0 or button >= len(self.button_counts):
            raise ValueError("no button %d (this table has %d)" % (button, len(self.button_counts)))
        self._send(ButtonHold(button, self.button_counts[button]))

    # ------------------------------------------------------------ input

    def feed(self, data):
        """Handle bytes received from the host."""
        for message in self.decoder.feed(data):
            if isinstance(message, Sync):
                if self.ready:  # during warm-up HELLO + SNAP are coming anyway
                    self._send(self.hello())
                    self.send_snapshot()
            elif isinstance(message, Ping):
                self._send(Pong(message.token))
            elif isinstance(message, Config):
                self.configure(message.items)

    def configure(self, items):
        """Apply (key, value) settings, report rejected ones with ERR and
        answer with every current setting (CFG)."""
        for key, value in items:
            try:
                self.settings.set(key, value)
            except ValueError as exc:
                self._send(ErrorReport(None, "CFG", str(exc)))
        for debouncer in self.debouncers:
            debouncer.on = self.settings.debounce_on
            debouncer.off = self.settings.debounce_off
        now = self.clock()
        if self.ready:
            if self._next_hb > now + self.settings.hb_ms:
                self._next_hb = now + self.settings.hb_ms
            if not self.settings.snap_ms:
                self._next_snap = None
            elif self._next_snap is None or self._next_snap > now + self.settings.snap_ms:
                self._next_snap = now + self.settings.snap_ms
        self._pause_until = None
        self._send(Config(self.settings.items()))

    # ------------------------------------------------------------ scanning

    def step(self):
        """Scan one zone and send what is due. Returns how many ms the caller
        may sleep before the next step (0: call again at once)."""
        wait = self._scan_next(self.clock())
        now = self.clock()
        if not self.ready:
            # One spare round beyond debounce_on, so that a single missed
            # read does not leave a piece out of the first snapshot.
            if (self.rounds > self.settings.debounce_on or not self._schedule
                    or now - self._started_at >= self.warmup_ms):
                self.ready = True
                self._send(self.hello())
                self.send_snapshot(now)
                self._hb_at = now
                self._hb_scans = self.scans
                self._next_hb = now + self.settings.hb_ms
            return wait
        if now >= self._next_hb:
            self._send(self.heartbeat(now))
            self._next_hb = max(self._next_hb + self.settings.hb_ms, now + 1)
        if self._next_snap is not None and now >= self._next_snap:
            self.send_snapshot(now)
        if wait:
            wait = min(wait, max(1, self._next_hb - now))
        return wait

    def run(self, read=None, sleep=None, poll_buttons=None, stop=None, poll_holds=None):
        """Loop for the board: read host bytes, poll buttons, step, idle.

        ``read()`` returns bytes (or None), ``sleep(ms)`` idles,
        ``poll_buttons()`` returns the indices of buttons just pressed,
        ``stop()`` ends the loop when it returns True, ``poll_holds(hold_ms)``
        returns the indices of buttons just held down for ``hold_ms``.
        """
        while stop is None or not stop():
            if read is not None:
                data = read()
                if data:
                    self.feed(data)
            if poll_buttons is not None:
                for button in poll_buttons():
                    self.press(button)
            if poll_holds is not None:
                for button in poll_holds(self.settings.hold_ms):
                    self.hold(button)
            wait = self.step()
            if wait > 0 and sleep is not None:
                sleep(min(wait, MAX_IDLE_MS))

    def _scan_next(self, now):
        if not self._schedule:
            return MAX_IDLE_MS
        if self._pipeline is not None:
            return self._pipeline.step(now)
        return self._batch_order.step(self, now)  # type: ignore[union-attr]

    def _round_done(self, now):
        self.rounds += 1
        self.round_ms = now - self._round_began
        self._round_began = now
        if self.round_ms > self._longest_round:
            self._longest_round = self.round_ms
        earliest = self._round_start + self.settings.scan_ms
        if earliest > now:
            self._pause_until = earliest
            self._round_start = earliest
        else:
            self._round_start = now

    def _record(self, index, zone, found, now):
        uids = []
        if found:
            try:
                uids = [normalize_uid(uid) for uid in found]
            except ValueError as exc:
                self._fault(index, zone, _DataError(str(exc)), now)
                return
        self.scans += 1
        self.faulted[index] = False
        rejected = getattr(self.readers[index], "rejected", None)
        if rejected:
            if zone not in self._bad_uids:
                self._bad_uids[zone] = True
                self._send(ErrorReport(index, "UID", "zone %d: %s not an ISO 15693 UID (must start "
                                                     "with E0); "
                                       "ignored"
                                       % (zone, ", ".join(rejected) + (" is" if len(rejected) == 1
                                                                                 else " are"))))
        elif zone in self._bad_uids:
            del self._bad_uids[zone]
        if len(uids) > MAX_ZONE_TAGS:
            uids = sorted(set(uids))[:MAX_ZONE_TAGS]
            if zone not in self._overflowing:
                self._overflowing[zone] = True
                self._send(ErrorReport(index, "OVERFLOW", "zone %d holds more than %d tags; extra "
                                                          "tags ignored" % (
                    zone, MAX_ZONE_TAGS)))
        elif zone in self._overflowing:
            del self._overflowing[zone]
        debouncer = self.debouncers[zone]
        if debouncer is self._idle:
            if not uids:
                return  # an empty zone stays empty
            debouncer = ZoneDebouncer(self.settings.debounce_on, self.settings.debounce_off)
            self.debouncers[zone] = debouncer
        if debouncer.update(uids) and self.ready:
            self._send(ZoneState(zone, debouncer.present))
        if debouncer._tracks is None and not debouncer.present:
            self.debouncers[zone] = self._idle  # nothing left to count

    def _fault(self, index, zone, exc, now):
        self.reader_errors[index] += 1
        first = not self.faulted[index]
        self.faulted[index] = True
        self._retry_at[index] = now + self.settings.retry_ms
        if first or now - self._last_err_at[index] >= ERR_REPEAT_MS:
            self._last_err_at[index] = now
            text = str(exc) or type(exc).__name__
            self._send(ErrorReport(index, _error_code(exc), "zone %d: %s" % (zone, text)))

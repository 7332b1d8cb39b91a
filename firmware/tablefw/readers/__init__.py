"""Tag readers: the interface the scan core drives, and the drivers.

A reader serves one or more zones through an antenna multiplexer. Its
``zones`` tuple gives the global zone number of each mux channel (channel
``i`` is zone ``zones[i]``). The scan core calls, for one zone at a time::

    reader.select(channel)            # route the RF to that antenna
    uids = reader.inventory(channel)  # UIDs on it: list of 16-hex strings,
                                      # or None when nothing answered

A fault (bus error, chip not answering) raises ReaderError; the scan core
reports it with ERR, keeps scanning the other readers and later calls
``reader.recover()`` before trying this one again.
"""


class ReaderError(Exception):
    """A reader fault. ``code`` is a short word for ERR lines (TIMEOUT,
    BUS, NOCHIP, MUX, PROTOCOL...), the message says what happened."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Reader:
    """Base of the readers: zone bookkeeping and the optional mux."""

    name = "reader"

    def __init__(self, zones, mux=None):
        zones = tuple(zones)
        if not zones:
            raise ValueError("%s: a reader needs at least one zone" % self.name)
        for zone in zones:
            if not isinstance(zone, int) or zone < 0:
                raise ValueError("%s: zone numbers must be non-negative integers, got %r"
                                 % (self.name, zone))
        if len(set(zones)) != len(zones):
            raise ValueError("%s: zone listed twice in %r" % (self.name, zones))
        if len(zones) > 1 and mux is None:
            raise ValueError("%s: %d zones need an antenna multiplexer" % (self.name, len(zones)))
        if mux is not None and len(zones) > mux.channels:
            raise ValueError("%s: %d zones but the multiplexer has %d channels"
                             % (self.name, len(zones), mux.channels))
        self.zones = zones
        self.mux = mux
        self.selected = None

    def select(self, channel):
        """Route the RF to antenna ``channel`` (0 .. len(zones)-1); True if the
        multiplexer switched (and needs its settle time)."""
        if channel < 0 or channel >= len(self.zones):
            raise ReaderError("MUX", "%s: no channel %d" % (self.name, channel))
        switched = False
        if self.mux is not None:
            switched = bool(self.mux.select(channel))
        self.selected = channel
        return switched

    def inventory(self, channel):
        raise NotImplementedError

    def recover(self):
        """Bring the reader back after a fault (re-initialise the chip)."""

"""Scan settings: the keys a host may change with CFG, with their limits."""

# key: (default, minimum, maximum); the meanings are comments, not strings the
# board would keep in its heap (docs/protocol.md lists them too).
SETTINGS = {
    # scans a tag must be seen in before it counts as present
    "debounce_on": (2, 1, 20),
    # consecutive scans a tag must be missed in before it counts as gone
    "debounce_off": (3, 1, 50),
    # shortest time between two scans of the same zone; 0 = as fast as possible
    "scan_ms": (0, 0, 10000),
    # heartbeat period
    "hb_ms": (1000, 100, 60000),
    # period of unsolicited snapshots; 0 = only on SYNC
    "snap_ms": (5000, 0, 600000),
    # wait before retrying a faulted reader
    "retry_ms": (1000, 50, 60000),
    # a seat button held down this long is a long press (HOLD)
    "hold_ms": (800, 200, 10000),
}


class Settings:
    """Current values of every key in SETTINGS, as attributes."""

    __slots__ = tuple(sorted(SETTINGS))
    debounce_on: int
    debounce_off: int
    scan_ms: int
    hb_ms: int
    snap_ms: int
    retry_ms: int
    hold_ms: int

    def __init__(self, values=None):
        for key in SETTINGS:
            setattr(self, key, SETTINGS[key][0])
        if values:
            for key in values:
                self.set(key, values[key])

    def set(self, key, value):
        """Change one setting; raises ValueError naming the key if it is
        unknown or the value out of range."""
        spec = SETTINGS.get(key)
        if spec is None:
            raise ValueError("unknown setting %r (known: %s)" % (key, ", ".join(sorted(SETTINGS))))
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError("setting %s: expected an integer, got %r" % (key, value))
        if value < spec[1] or value > spec[2]:
            raise ValueError("setting %s: %d is outside %d..%d" % (key, value, spec[1], spec[2]))
        setattr(self, key, value)

    def items(self):
        """Sorted (key, value) pairs, as a CFG answer lists them."""
        return [(key, getattr(self, key)) for key in sorted(SETTINGS)]

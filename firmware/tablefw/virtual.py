"""A reader without hardware: tests and the simulated table place its tags.

::

    reader = VirtualReader([0, 1, 2, 3])          # serves zones 0..3
    reader.set_tags(2, ["E004015012345678"])      # a piece on zone 2
    reader.miss_probability = 0.1                 # 10 % of reads miss a tag
    reader.fail_next(3, "TIMEOUT")                # the next 3 scans fail
    reader.set_faulted(True)                      # unplugged until cleared

Zones are the global zone numbers; channel ``i`` of the reader is
``zones[i]``, as with the real drivers.
"""

import random

from tablefw.readers import Reader, ReaderError
from tablefw.wire import normalize_uid


class _AnyChannelMux:
    # The virtual antenna switch: any number of channels, nothing to drive.
    channels = 1 << 16

    def select(self, channel):
        pass


class VirtualReader(Reader):
    """``zones``: a count (zones 0..n-1) or the global zone numbers.
    ``rng``: anything with ``random()`` (a ``random.Random`` in tests);
    by default the ``random`` module."""

    name = "virtual"

    def __init__(self, zones, miss_probability=0.0, rng=None, name=None):
        if isinstance(zones, int):
            zones = range(zones)
        if name is not None:
            self.name = name
        Reader.__init__(self, zones, _AnyChannelMux())
        self.miss_probability = miss_probability
        self.rng = rng if rng is not None else random
        self._tags: dict[int, tuple[str, ...]] = {}
        for zone in self.zones:
            self._tags[zone] = ()
        self._fail_count = 0
        self._fail_code = "TIMEOUT"
        self._fail_message = ""
        self.faulted = False
        self.inventories = 0
        self.recoveries = 0

    def _check_zone(self, zone):
        if zone not in self._tags:
            raise ValueError("%s: zone %r is not one of its zones %r"
                             % (self.name, zone, self.zones))

    def set_tags(self, zone, uids):
        """Place exactly these tags on ``zone`` (replacing what was there)."""
        self._check_zone(zone)
        result = []
        for uid in uids:
            text = normalize_uid(uid)
            if text not in result:
                result.append(text)
        self._tags[zone] = tuple(result)

    def add_tag(self, zone, uid):
        self._check_zone(zone)
        text = normalize_uid(uid)
        if text not in self._tags[zone]:
            self._tags[zone] = self._tags[zone] + (text,)

    def remove_tag(self, zone, uid):
        """Take ``uid`` off ``zone``; True if it was there."""
        self._check_zone(zone)
        text = normalize_uid(uid)
        before = self._tags[zone]
        self._tags[zone] = tuple([t for t in before if t != text])
        return len(before) != len(self._tags[zone])

    def tags(self, zone):
        """The tags placed on ``zone`` (what a perfect read would return)."""
        self._check_zone(zone)
        return self._tags[zone]

    def clear(self, zone=None):
        """Lift every tag (from one zone, or from all)."""
        for key in self._tags:
            if zone is None or key == zone:
                self._tags[key] = ()

    def fail_next(self, count=1, code="TIMEOUT", message="injected fault"):
        """Make the next ``count`` inventories raise ReaderError(code)."""
        self._fail_count = count
        self._fail_code = code
        self._fail_message = message

    def set_faulted(self, faulted=True, code="NOREPLY", message="reader not answering"):
        """Fail every inventory (and recovery) until called with False."""
        self.faulted = faulted
        self._fail_code = code
        self._fail_message = message

    def recover(self):
        self.recoveries += 1
        if self.faulted:
            raise ReaderError(self._fail_code, "%s: %s" % (self.name, self._fail_message))

    def inventory(self, channel):
        if channel != self.selected:
            raise ReaderError("MUX", "%s: inventory of channel %d but channel %r is selected" % (
                self.name, channel, self.selected))
        self.inventories += 1
        if self.faulted:
            raise ReaderError(self._fail_code, "%s: %s" % (self.name, self._fail_message))
        if self._fail_count > 0:
            self._fail_count -= 1
            raise ReaderError(self._fail_code, "%s: %s" % (self.name, self._fail_message))
        placed = self._tags[self.zones[channel]]
        if not placed:
            return None
        if self.miss_probability <= 0:
            return list(placed)
        seen = [uid for uid in placed if self.rng.random() >= self.miss_probability]
        return seen or None

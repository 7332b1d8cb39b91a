"""Per-zone debounce: which tags really lie on a pad.

Single missed reads are common (a tag at the edge of an antenna, two tags
shadowing each other), and a tag swept across a pad may be read once in
passing. So a tag counts as present once it has been seen in ``on`` scans
without ``off`` consecutive misses in between ("recent" sightings add up),
and it counts as gone after ``off`` consecutive misses.
"""

# A tag's track is one small integer (no object on the board's heap): hits in the low
# byte, consecutive misses in the next, PRESENT set once it counts as present. The settings
# keep on at most 20 and off at most 50 (tablefw.settings): each fits a byte.
_HIT = 1
_MISS = 1 << 8
_BYTE = 0xFF
_PRESENT = 1 << 16


class ZoneDebouncer:
    """Debounced tag set of one zone, updated once per scan of the zone."""

    __slots__ = ("on", "off", "present", "_tracks")

    def __init__(self, on=2, off=3):
        self.on = on
        self.off = off
        self.present = ()  # sorted tuple of UIDs counted as present
        # uid -> track (hits, misses, present: see _HIT); None while the zone has seen no tag (most
        # zones, most of the time: no dict for them on the board's heap).
        self._tracks = None

    def update(self, seen):
        """Feed the UIDs read in one scan; returns True if ``present`` changed."""
        tracks = self._tracks
        if tracks is None:
            if not seen:
                return False
            tracks = self._tracks = {}
        changed = False
        seen_now = {}
        for uid in seen:
            seen_now[uid] = True
            track = tracks.get(uid, 0) & ~(_BYTE * _MISS)  # seen: no misses in a row
            if track & _BYTE < self.on:
                track += _HIT
            if not track & _PRESENT and track & _BYTE >= self.on:
                track |= _PRESENT
                changed = True
            tracks[uid] = track
        gone = []
        for uid in tracks:
            if uid in seen_now:
                continue
            track = tracks[uid] + _MISS
            tracks[uid] = track
            if (track >> 8) & _BYTE >= self.off:
                gone.append(uid)
                if track & _PRESENT:
                    changed = True
        for uid in gone:
            del tracks[uid]
        if not tracks:
            self._tracks = None
        if changed:
            present = [uid for uid in tracks if tracks[uid] & _PRESENT]
            present.sort()
            self.present = tuple(present)
        return changed

    def unsettled(self):
        """True while the zone may be changing: a tag seen but not yet
        counted, or a counted tag missed in the last scan."""
        tracks = self._tracks
        if tracks is None:
            return False
        for uid in tracks:
            track = tracks[uid]
            if not track & _PRESENT or track & (_BYTE * _MISS):
                return True
        return False

    def several(self):
        """True when two or more tags count as present or were seen recently
        (what ``present`` and ``candidates()`` together hold, without building them)."""
        return self._tracks is not None and len(self._tracks) >= 2

    def candidates(self):
        """UIDs seen recently that do not count as present yet."""
        tracks = self._tracks
        if tracks is None:
            return ()
        result = [uid for uid in tracks if not tracks[uid] & _PRESENT]
        result.sort()
        return tuple(result)

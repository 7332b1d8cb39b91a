"""A clock for times that are shown as the time of day and subtracted from each other (a
snapshot's moment, a turn's start) and must never step: the wall time at an anchor plus
the monotonic time since. A wall-clock step (NTP, an admin's ``date -s``, +1 h) moves
nothing that was measured with it; its readings stay close to the time of day.

Every process of a table reads the same anchor: the first sets ``ANCHOR_VARIABLE`` in its
environment, and the processes it starts (the web display's child) inherit it; the
monotonic clock is the machine's, the same in every process.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

#: The environment variable that carries the anchor to the processes a table starts.
ANCHOR_VARIABLE = "HOMEWORLDS_CLOCK_ANCHOR"


class SteadyClock:
    """Seconds since the epoch, as ``time.time()`` read at the anchor, plus the
    ``monotonic`` seconds since: never steps, whatever the wall clock does."""

    def __init__(self, anchor: float | None = None, *,
                 monotonic: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time):
        self._monotonic = monotonic
        #: wall time minus monotonic time, fixed once
        self.anchor = wall() - monotonic() if anchor is None else anchor

    def __call__(self) -> float:
        return self.anchor + self._monotonic()


def _inherited_anchor() -> float | None:
    text = os.environ.get(ANCHOR_VARIABLE, "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and abs(value) < 1e11 else None


#: This process's steady clock (the anchor inherited from the process that started it).
steady_time = SteadyClock(_inherited_anchor())
os.environ.setdefault(ANCHOR_VARIABLE, repr(steady_time.anchor))

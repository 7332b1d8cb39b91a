"""Seat buttons: edge detection with debounce, no hardware imports.

Pins are anything with a readable boolean ``value`` (digitalio inputs with
pull-ups on the board, so pressed reads False by default).
"""

from tablefw.clock import monotonic_ms


class ButtonBank:
    """``poll()`` returns the indices of the buttons pressed since the last
    poll. A press counts once the pin has held its new level for
    ``debounce_ms``; releasing re-arms the button."""

    def __init__(self, pins, clock=None, debounce_ms=30, active_low=True):
        self.pins = list(pins)
        self.clock = clock if clock is not None else monotonic_ms
        self.debounce_ms = debounce_ms
        self.active_low = active_low
        count = len(self.pins)
        self._stable = [False] * count  # debounced "pressed" state
        self._raw = [False] * count
        self._since = [0] * count
        self._held = [False] * count  # HOLD already reported for the current press

    def __len__(self):
        return len(self.pins)

    def _pressed(self, pin):
        return bool(pin.value) != self.active_low

    def poll(self):
        now = self.clock()
        pressed = []
        for index in range(len(self.pins)):
            raw = self._pressed(self.pins[index])
            if raw != self._raw[index]:
                self._raw[index] = raw
                self._since[index] = now
            elif raw != self._stable[index] and now - self._since[index] >= self.debounce_ms:
                self._stable[index] = raw
                self._held[index] = False
                if raw:
                    pressed.append(index)
        return pressed

    def holds(self, hold_ms):
        """Indices of the buttons that have now been held down (debounced) for
        ``hold_ms``: each press is reported once, however long it lasts."""
        now = self.clock()
        held = []
        for index in range(len(self.pins)):
            if self._stable[index] and not self._held[index] and self._raw[index] \
                    and now - self._since[index] >= hold_ms:
                self._held[index] = True
                held.append(index)
        return held

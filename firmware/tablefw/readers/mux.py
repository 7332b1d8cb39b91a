"""Antenna multiplexer driven by binary-coded GPIO select lines.

Pins are anything with a writable boolean ``value`` (digitalio.DigitalInOut
on the board, fakes in tests). Several readers may share one mux's select
lines: only one reader scans at a time.
"""


class GpioMux:
    """``pins[0]`` is the least significant select bit. With ``enable``
    (active low by default) the switch is disabled while no channel is
    selected.

    ``strobe``, ``output``: a board whose decoder latches its channel (the 74HCT4514's
    ``LE``): the select pins are shared by every board, and after setting them
    ``strobe.pulse(output)`` (tablefw.chipselect.LatchStrobe) opens this board's latch
    for a moment, so it takes the channel and holds it while the lines are set for
    another board. Each reader then owns its switch and the scan core walks every
    reader's pads on its own (the pipelined order). A board whose ``LE`` is tied high
    follows the shared lines instead: it must be built without a strobe.

    ``settle_us``: how long after a switch the new channel alone is connected
    and steady (a relay's operate + bounce time, or its release time if
    longer). The mux does not wait: it counts its switches (``switches``) and
    the reader that switched it stamps ``settled_at`` (its own microsecond
    clock), so every reader sharing the select lines knows when the channel
    is usable."""

    # Defaults as class attributes: an instance stores only what differs (one board per
    # reader on a latched table: each attribute costs the board's heap four times).
    enable_active_low = True
    settle_us = 0
    strobe = None
    output = 0

    def __init__(self, pins, enable=None, enable_active_low=True, settle_us=0, strobe=None,
                 output=0):
        self.pins = tuple(pins)
        if not self.pins:
            raise ValueError("mux: at least one select pin is needed")
        self.enable = enable
        if not enable_active_low:
            self.enable_active_low = False
        if settle_us:
            self.settle_us = settle_us
        if strobe is not None:
            self.strobe = strobe
            self.output = output
        self.switches = 0
        self.settled_at = 0
        self.channel = None
        if enable is not None:
            enable.value = enable_active_low  # off

    @property
    def channels(self):
        return 1 << len(self.pins)

    def select(self, channel):
        """Switch to ``channel``; True if the switch moved (and so must settle)."""
        if channel < 0 or channel >= self.channels:
            raise ValueError("mux: channel %d outside 0..%d" % (channel, self.channels - 1))
        if channel == self.channel:
            return False
        for bit in range(len(self.pins)):
            self.pins[bit].value = bool((channel >> bit) & 1)
        if self.strobe is not None:
            self.strobe.pulse(self.output)  # the latch takes the lines, then holds them
        if self.enable is not None:
            self.enable.value = not self.enable_active_low
        self.channel = channel
        self.switches += 1
        return True

    def release(self):
        """Disable the switch (if it has an enable line)."""
        if self.enable is not None:
            self.enable.value = self.enable_active_low
        self.channel = None

"""Chip selects through a 3-to-8 decoder (a pin-like adapter that config.py puts
between the drivers and the GPIO pins, so the drivers keep writing ``cs.value``), and
the decoder on the same address lines that strobes the multiplexer boards' latches.
(Multiplexer channel maps: tablefw.chanmap.)
"""


class NssDecoder:
    """A 74HC138 driving the readers' active-low NSS lines.

    ``address``: outputs to A0, A1, ... (least significant first); ``enable``:
    output to the active-low enable G2A (G1 tied high, G2B tied low). While
    ``enable`` is high every decoder output is high: no reader selected.
    """

    def __init__(self, address, enable):
        self.address = tuple(address)
        self.enable = enable
        self.outputs = 1 << len(self.address)
        enable.value = True

    def line(self, output):
        if output < 0 or output >= self.outputs:
            raise ValueError("nss decoder: no output %d (it has %d)" % (output, self.outputs))
        return DecodedSelect(self, output)


class DecodedSelect:
    """One decoder output as a chip-select pin: ``value = False`` selects it."""

    def __init__(self, decoder, output):
        self.decoder = decoder
        self.output = output
        self._value = True

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, level):
        decoder = self.decoder
        if level:
            decoder.enable.value = True
        else:
            # Address first, then enable: no other output pulses low meanwhile.
            for bit in range(len(decoder.address)):
                decoder.address[bit].value = bool((self.output >> bit) & 1)
            decoder.enable.value = False
        self._value = bool(level)


class LatchStrobe:
    """The decoder that strobes the multiplexer boards' latches (``LE`` of each board's
    74HCT4514), whose address inputs are the NSS decoder's lines (``address``, A0 first):
    up to three lines a 74HC238 (3-to-8, active-high outputs, ``enable`` to its active-high
    G1), four lines a 74HC4514 (4-to-16, active-high outputs, its own LE tied high,
    ``enable`` to its active-low E_N). Output *n* goes to the ``LE`` of the multiplexer of
    the reader selected by NSS output *n*. The NSS decoder is disabled between SPI frames,
    so the shared address lines are free for a strobe then."""

    def __init__(self, address, enable):
        self.address = tuple(address)
        self.enable = enable
        self.outputs = 1 << len(self.address)
        self.active = len(self.address) <= 3  # the enable level that drives an output high
        self.pulses = 0
        enable.value = not self.active

    def pulse(self, output):
        """Open latch ``output`` and close it again: its board now holds the select lines."""
        if output < 0 or output >= self.outputs:
            raise ValueError("latch decoder: no output %d (it has %d)" % (output, self.outputs))
        for bit in range(len(self.address)):
            self.address[bit].value = bool((output >> bit) & 1)
        self.enable.value = self.active
        self.enable.value = not self.active
        self.pulses += 1

"""busio: an SPI bus whose transfers reach the chips of the test's board model."""

import hostboard


class SPI:
    def __init__(self, clock, MOSI=None, MISO=None):
        self.pins = (clock, MOSI, MISO)
        self._locked = False
        self.frequency = 250000

    def try_lock(self):
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self):
        self._locked = False

    def _check(self):
        if not self._locked:
            raise RuntimeError("Function requires lock")

    def configure(self, baudrate=100000, polarity=0, phase=0, bits=8):
        self._check()
        if polarity not in (0, 1) or phase not in (0, 1) or bits != 8:
            raise ValueError("SPI: polarity %r, phase %r, bits %r" % (polarity, phase, bits))
        self.frequency = baudrate

    def write(self, buffer, start=0, end=None):
        self._check()
        hostboard.request(87, buffer, start, len(buffer) if end is None else end)  # "W"

    def readinto(self, buffer, start=0, end=None, write_value=0):
        self._check()
        if end is None:
            end = len(buffer)
        hostboard.begin(82)  # "R"
        hostboard.put(end - start)
        hostboard.put(write_value)
        count = hostboard.finish()
        if count != end - start:
            raise RuntimeError("SPI read: %d bytes came, %d wanted" % (count, end - start))
        for index in range(count):
            buffer[start + index] = hostboard.answer(index)

    def deinit(self):
        pass


class UART:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("the VM board has no UART: PN532 tables are tested on CPython")

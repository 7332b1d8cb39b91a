"""digitalio: pins whose output levels reach the test's board model (hostboard)."""

import hostboard


class Direction:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class Pull:
    UP = "UP"
    DOWN = "DOWN"


class DriveMode:
    PUSH_PULL = "PUSH_PULL"
    OPEN_DRAIN = "OPEN_DRAIN"


claimed = {}  # pin number -> DigitalInOut


class DigitalInOut:
    def __init__(self, pin):
        if pin.number in claimed:
            raise ValueError("%r in use" % pin)
        claimed[pin.number] = self
        self.pin = pin
        self.direction = Direction.INPUT
        self.pull = None
        self._level = False
        self._driven = False  # no level has reached the wires yet

    def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
        self.direction = Direction.OUTPUT
        self.pull = None
        self.value = value

    def switch_to_input(self, pull=None):
        self.direction = Direction.INPUT
        self.pull = pull

    @property
    def value(self):
        if self.direction == Direction.OUTPUT:
            return self._level
        return hostboard.pin_level(self.pin.number, self.pull == Pull.UP)

    @value.setter
    def value(self, level):
        if self.direction != Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")
        level = bool(level)
        if level != self._level or not self._driven:
            self._driven = True
            hostboard.pin_set(self.pin.number, level)
        self._level = level

    def deinit(self):
        claimed.pop(self.pin.number, None)

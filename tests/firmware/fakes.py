"""Small fakes shared by the firmware tests: clocks, pins, board modules."""

from __future__ import annotations

from types import SimpleNamespace


class FakeClock:
    """Integer milliseconds that only move when the test says so."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


class TickingClock:
    """Advances ``step`` ms on every reading: drivers' wait loops end."""

    def __init__(self, step: int = 1) -> None:
        self.now = 0
        self.step = step
        self.readings = 0

    def __call__(self) -> int:
        self.now += self.step
        self.readings += 1
        return self.now

    def sleep(self, ms: float) -> None:
        self.now += int(ms)


class FakePin:
    def __init__(self, value: bool = False) -> None:
        self.value = value


def mux_channel(pins) -> int:
    return sum(1 << bit for bit, pin in enumerate(pins) if pin.value)


# ---------------------------------------------------------------- fake modules


class FakeDigitalInOut:
    def __init__(self, registry, pin, listeners=()) -> None:
        self.pin = pin
        self.listeners = listeners  # called with (pin name, level) after every write
        self._value = False
        self.direction = None
        self.pull = None
        registry[pin] = self

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, level):
        self._value = level
        for listener in self.listeners:
            listener(self.pin, level)

    def switch_to_output(self, value=False):
        self.direction = "output"
        self.value = value

    def switch_to_input(self, pull=None):
        self.direction = "input"
        self.pull = pull
        # An input with a pull-up reads high until something pulls it low.
        self.value = pull == "UP"


def make_board(names=None):
    names = names or [f"GP{i}" for i in range(29)]
    return SimpleNamespace(**{name: name for name in names})


def make_digitalio():
    registry: dict = {}
    module = SimpleNamespace(
        Pull=SimpleNamespace(UP="UP", DOWN="DOWN"),
        registry=registry,
    )
    module.listeners = []
    module.DigitalInOut = lambda pin: FakeDigitalInOut(registry, pin, module.listeners)
    return module


class LatchedBoards:
    """Multiplexer boards whose decoder latches the shared select lines while its ``LE``
    (latch decoder output *n*: ``enable`` high and ``address`` = *n*) is high, as the
    reference boards do; ``pins(n)`` gives what board *n*'s decoder sees."""

    def __init__(self, digitalio, select, address, enable):
        self.registry = digitalio.registry
        self.select, self.address, self.enable = select, address, enable
        self.held: dict[int, list[bool]] = {}
        digitalio.listeners.append(self._written)

    def _written(self, _pin, _level):
        enable = self.registry.get(self.enable)
        if enable is None or not enable.value:
            return
        output = sum(1 << bit for bit, name in enumerate(self.address)
                     if self.registry[name].value)
        self.held[output] = [bool(self.registry[name].value) for name in self.select]

    def pins(self, output):
        return lambda: [FakePin(level) for level in self.held.get(output, [False] * 4)]


def decoded_select(digitalio, address, enable, output):
    """Chip select ``output`` of a 74HC138-style decoder (low while enabled and addressed)."""
    registry = digitalio.registry

    def line():
        selected = not registry[enable].value and sum(
            1 << bit for bit, name in enumerate(address) if registry[name].value) == output
        return FakePin(not selected)

    return line


class FakeUsbPort:
    """usb_cdc.data as the firmware sees it."""

    def __init__(self, connected: bool = True) -> None:
        self.connected = connected
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.timeout = None
        self.write_timeout = None

    @property
    def in_waiting(self) -> int:
        return len(self.incoming)

    def read(self, count: int) -> bytes:
        data = bytes(self.incoming[:count])
        del self.incoming[:count]
        return data

    def write(self, data: bytes) -> int:
        self.outgoing += data
        return len(data)

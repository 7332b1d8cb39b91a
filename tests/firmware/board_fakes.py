"""Fake CircuitPython system modules that record every call (gpiozero style).

``history`` is one list shared by all the fakes of a board, so a test can
check the order of things across modules (the ERR line before the reset).
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

from .fakes import FakeUsbPort, make_board
from .pn532_emulator import FakeUart, Pn532Chip, Target


class SystemReset(BaseException):  # noqa: N818 - named after what happened
    """microcontroller.reset() never returns; the fake raises this instead."""


class StopTest(BaseException):  # noqa: N818
    """Raised by a fake to end an otherwise endless loop."""


class FakeWatchdog:
    def __init__(self, history: list, can_stop: bool = False) -> None:
        self.history = history
        self.timeout = None
        self.mode = None
        self.feeds = 0
        self.can_stop = can_stop

    def feed(self) -> None:
        self.feeds += 1

    def deinit(self) -> None:
        self.history.append(("watchdog.deinit",))
        if not self.can_stop:
            raise RuntimeError("WatchDogTimer cannot be deinitialized once mode is set to RESET")


class FakeMicrocontroller(ModuleType):
    def __init__(self, history: list, reset_reason: str = "POWER_ON") -> None:
        super().__init__("microcontroller")
        self.history = history
        self.watchdog = FakeWatchdog(history)
        self.nvm = bytearray(256)
        self.ResetReason = SimpleNamespace(POWER_ON="POWER_ON", WATCHDOG="WATCHDOG",
                                           SOFTWARE="SOFTWARE", RESET_PIN="RESET_PIN")
        self.cpu = SimpleNamespace(reset_reason=reset_reason)

    def reset(self) -> None:
        self.history.append(("microcontroller.reset",))
        raise SystemReset


class FakeStorage(ModuleType):
    def __init__(self, history: list) -> None:
        super().__init__("storage")
        self.history = history

    def remount(self, path: str, readonly: bool = False, *,
                disable_concurrent_write_protection=False):
        self.history.append(("storage.remount", path, readonly))

    def disable_usb_drive(self) -> None:
        self.history.append(("storage.disable_usb_drive",))


class FakeSupervisor(ModuleType):
    def __init__(self, history: list) -> None:
        super().__init__("supervisor")
        history_ref = history

        class Runtime:
            _autoreload = True

            @property
            def autoreload(self):
                return self._autoreload

            @autoreload.setter
            def autoreload(self, value):
                history_ref.append(("supervisor.runtime.autoreload", value))
                self._autoreload = value

        self.runtime = Runtime()


class RecordingPort(FakeUsbPort):
    """usb_cdc.data that records writes in ``history`` and can fail its reads."""

    def __init__(self, history: list, connected: bool = True, fail_read_after: int | None = None,
                 failure: Exception | None = None) -> None:
        super().__init__(connected)
        self.history = history
        self.reads = 0
        self.fail_read_after = fail_read_after
        self.failure = failure

    @property
    def in_waiting(self) -> int:
        self.reads += 1
        if self.fail_read_after is not None and self.reads > self.fail_read_after:
            raise self.failure
        return len(self.incoming)

    def write(self, data: bytes) -> int:
        if self.connected:
            self.history.append(("usb_cdc.data.write", bytes(data)))
        return super().write(data)


class FakeUsbCdc(ModuleType):
    def __init__(self, history: list, port: RecordingPort | None = None) -> None:
        super().__init__("usb_cdc")
        self.history = history
        self.data = port if port is not None else RecordingPort(history)

    def enable(self, console: bool = True, data: bool = False) -> None:
        self.history.append(("usb_cdc.enable", console, data))


class JumperPin:
    """digitalio.DigitalInOut on a pin that a jumper may tie to GND."""

    def __init__(self, history: list, grounded: set, pin: str) -> None:
        self.history, self.grounded, self.pin = history, grounded, pin
        self.pull = None

    def switch_to_input(self, pull=None) -> None:
        self.pull = pull

    def switch_to_output(self, value=False) -> None:
        self.value = value

    @property
    def value(self) -> bool:
        return self.pin not in self.grounded and self.pull == "UP"

    @value.setter
    def value(self, level) -> None:
        pass

    def deinit(self) -> None:
        self.history.append(("digitalio.deinit", self.pin))


def jumper_digitalio(history: list, grounded: set) -> SimpleNamespace:
    return SimpleNamespace(DigitalInOut=lambda pin: JumperPin(history, grounded, pin),
                           Pull=SimpleNamespace(UP="UP", DOWN="DOWN"))


class FakeBoard:
    """Every module code.py and boot.py import, sharing one ``history``.

    The readers are two PN532s on UARTs (as in the prototype config), tag T on
    zone 0, so the real firmware core runs end to end."""

    TAG = bytes.fromhex("04A1B2C3D4E5F6")

    def __init__(self, *, reset_reason: str = "POWER_ON", port: RecordingPort | None = None,
                 grounded: set | None = None) -> None:
        self.history: list = []
        history = self.history
        self.board = make_board()
        self.grounded = grounded if grounded is not None else set()
        from .fakes import make_digitalio
        self.digitalio = make_digitalio()
        self.boot_digitalio = jumper_digitalio(history, self.grounded)
        chips = {"GP0": Pn532Chip({0: [Target(self.TAG)]}), "GP4": Pn532Chip()}
        uarts = {name: FakeUart(chip) for name, chip in chips.items()}
        self.busio = SimpleNamespace(SPI=lambda *a, **k: SimpleNamespace(),
                                     UART=lambda tx, rx, baudrate=9600, timeout=1: uarts[tx])
        self.microcontroller = FakeMicrocontroller(history, reset_reason)
        self.supervisor = FakeSupervisor(history)
        self.storage = FakeStorage(history)
        self.watchdog = SimpleNamespace(WatchDogMode=SimpleNamespace(RAISE="RAISE", RESET="RESET"))
        self.usb_cdc = FakeUsbCdc(history, port)

    @property
    def dog(self) -> FakeWatchdog:
        return self.microcontroller.watchdog

    def port(self) -> RecordingPort:
        return self.usb_cdc.data

    def of(self, name: str) -> list:
        return [entry for entry in self.history if entry[0] == name]

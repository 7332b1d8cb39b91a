"""What the strip sinks tell a user whose Raspberry Pi is not set up yet.

A Raspberry Pi cannot be simulated here, so these tests stand in small fake
``board`` / ``busio`` / ``neopixel`` modules (removed again after each test)
that fail the way the real ones do on a misconfigured Pi, with the exception
types and messages copied from Blinka 10, Adafruit_PureIO and the Pi 5
backend, and check the sinks turn each failure into a PixelSinkUnavailable
with the right fix.
"""

from __future__ import annotations

import sys
import textwrap
from types import ModuleType, SimpleNamespace

import pytest

from homeworlds.pixels import PixelSinkUnavailable, open_sink


class FakePin:
    def __init__(self, number: int):
        self.id = number


def fake_board(model: str) -> ModuleType:
    board = ModuleType("board")
    board.board_id = {"pi4": "RASPBERRY_PI_4B", "pi5": "RASPBERRY_PI_5"}[model]
    board.detector = SimpleNamespace(board=SimpleNamespace(
        any_raspberry_pi=True, any_raspberry_pi_5_board=model == "pi5"))
    for number in range(28):
        setattr(board, f"D{number}", FakePin(number))
    board.SCK = board.SCLK = board.D11
    board.MOSI = board.D10
    board.MISO = board.D9
    return board


@pytest.fixture
def pi(monkeypatch):
    """Install a fake Pi board; returns a function to add more fake modules."""

    def install(model: str, **modules: ModuleType | None) -> None:
        monkeypatch.setitem(sys.modules, "board", fake_board(model))
        for name, module in modules.items():
            monkeypatch.setitem(sys.modules, name, module)

    return install


def fake_neopixel(write_error: Exception) -> ModuleType:
    module = ModuleType("neopixel")

    class NeoPixel:
        def __init__(self, pin, n, **_settings):
            self.n = n

        def __setitem__(self, index, value):
            pass

        def show(self):
            raise write_error

        def deinit(self):
            raise write_error

    module.NeoPixel = NeoPixel
    return module


def test_pi4_without_rpi_ws281x(pi, monkeypatch, tmp_path):
    # Blinka's neopixel_write turns the missing backend into a RuntimeError *from* the
    # ModuleNotFoundError; a module that fails the same way on import stands in for it.
    (tmp_path / "neopixel.py").write_text(textwrap.dedent("""
        try:
            import _rpi_ws281x_not_here as _rpi_ws281x
        except ModuleNotFoundError as error:
            error.name = "_rpi_ws281x"
            raise RuntimeError("The platform library '_rpi_ws281x' was not found. To install, "
                               "try typing: pip install 'rpi_ws281x>=4.0.0'") from error
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "neopixel", raising=False)
    pi("pi4")
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel", 30)
    error = caught.value
    assert error.problem == ("importing 'neopixel' failed: The platform library '_rpi_ws281x' "
                             "was not found. To install, try typing: pip install "
                             "'rpi_ws281x>=4.0.0'")
    assert error.remedy.startswith("pip install rpi_ws281x")


def test_pi5_without_its_neopixel_backend(pi, monkeypatch, tmp_path):
    (tmp_path / "neopixel.py").write_text(textwrap.dedent("""
        error = ModuleNotFoundError("No module named 'adafruit_raspberry_pi5_neopixel_write'",
                                    name="adafruit_raspberry_pi5_neopixel_write")
        raise RuntimeError("The platform library 'adafruit_raspberry_pi5_neopixel_write' was "
                           "not found.") from error
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "neopixel", raising=False)
    pi("pi5")
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel", 30)
    assert caught.value.remedy.startswith("pip install Adafruit-Blinka-Raspberry-Pi5-Neopixel")


def test_pi4_pwm_without_root(pi):
    pi("pi4", neopixel=fake_neopixel(
        RuntimeError("NeoPixel support requires running with sudo, please try again!")))
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel", 30, pin=18)
    error = caught.value
    assert error.problem == ("opening the LED chain (first write) failed: RuntimeError: "
                             "NeoPixel support requires running with sudo, please try again!")
    assert "needs root" in error.remedy and "'neopixel-spi' sink" in error.remedy


def test_pi5_without_access_to_pio(pi):
    pi("pi5", neopixel=fake_neopixel(RuntimeError("Failed to open PIO device (error -13)")))
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel", 30)
    assert "/dev/pio0" in caught.value.remedy
    assert "/etc/udev/rules.d/99-com.rules" in caught.value.remedy


def fake_busio(error: Exception) -> ModuleType:
    module = ModuleType("busio")

    def spi(clock, MOSI=None, MISO=None):  # noqa: N803 - Blinka's keyword names
        raise error

    module.SPI = spi
    return module


def test_spi_not_enabled(pi):
    # Adafruit_PureIO's SPI() when /dev/spidev0.0 is missing.
    pi("pi4", busio=fake_busio(OSError("/dev/spidev0.0 does not exist")),
       neopixel_spi=ModuleType("neopixel_spi"))
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel-spi", 30)
    error = caught.value
    assert error.problem == ("opening SPI bus 0 failed: OSError: /dev/spidev0.0 does not exist")
    assert "raspi-config nonint do_spi 0" in error.remedy


def test_spi_without_permission(pi):
    pi("pi5", busio=fake_busio(PermissionError(13, "Permission denied", "/dev/spidev0.0")),
       neopixel_spi=ModuleType("neopixel_spi"))
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel-spi", 30)
    assert caught.value.remedy == ("join the spi group: `sudo usermod -aG spi $USER`, "
                                   "then log in again")


def test_a_pin_the_board_lacks(pi):
    pi("pi4")
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel", 30, pin="GPIO40")
    error = caught.value
    assert error.problem.startswith("board RASPBERRY_PI_4B has no pin 'D40' (its pins: D0, D1, ")
    assert "D18 (PWM0)" in error.remedy


def test_spi_bus_1_pins_missing(pi):
    pi("pi4")  # the fake board, like a Pi without dtoverlay=spi1-1cs in Blinka's eyes, has no SCK_1
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink("neopixel-spi", 30, bus=1)
    assert "no pin 'SCK_1' or 'SCLK_1'" in caught.value.problem
    assert "dtoverlay=spi1-1cs" in caught.value.remedy

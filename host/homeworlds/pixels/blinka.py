"""Strip sinks: WS2812-family LEDs driven through Adafruit Blinka.

Two ways to make the 800 kHz NeoPixel signal on a Raspberry Pi:

* :class:`NeoPixelSpiSink` (kind ``neopixel-spi``, the default) clocks
  pre-shaped bit patterns out of the SPI bus on GPIO 10 (MOSI) with
  ``neopixel_spi``. No root on any Pi; SPI must be enabled.
* :class:`NeoPixelSink` (kind ``neopixel``) uses Blinka's ``neopixel``, whose
  backend depends on the board: on a Pi 4 and older the rpi_ws281x PWM/PCM DMA
  engine (GPIO 18, 12, 13, 19, 21; root required), on a Pi 5 the RP1 PIO
  backend from ``Adafruit-Blinka-Raspberry-Pi5-Neopixel`` (any GPIO, no root
  once /dev/pio0 is accessible).

Blinka modules (``board``, ``busio``, ``neopixel``, ``neopixel_spi``) are
imported here, inside the constructors, never when ``homeworlds.pixels`` is
imported: importing ``board`` probes the machine and fails on anything Blinka
does not know. Every way opening can fail becomes a
:class:`PixelSinkUnavailable` naming the sink, what failed and what to
install or enable. A blank frame is written while opening so that a missing
permission shows up now, not at the first hint of a game.
"""

from __future__ import annotations

import functools
import importlib
from itertools import permutations
from pathlib import Path
from types import ModuleType
from typing import Any

from homeworlds.pixels.errors import PixelSettingsError, PixelSinkUnavailable
from homeworlds.pixels.frame import Frame, blank
from homeworlds.pixels.sink import PixelSink

PIXEL_ORDERS = tuple("".join(order) for order in permutations("RGB"))
"""Byte orders a three-colour pixel may expect on the wire (WS2812B: GRB)."""

INSTALL_PI_EXTRAS = "pip install 'homeworlds-table[pi]'"
DOCS = "docs/leds.md"

SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")
"""Where Linux tells the largest SPI transfer spidev accepts (default 4096 bytes)."""

NEOPIXEL_SPI_FREQUENCY = 6_400_000
"""SPI clock for 800 kHz pixels: 8 SPI bits shape one NeoPixel bit."""

_RESET_SECONDS = 80e-6  # neopixel_spi's default latch gap, sent before and after the data

# What to install when an import fails, by the name of the missing module.
_INSTALL = {
    "_rpi_ws281x": "pip install rpi_ws281x  (the PWM/PCM backend of a Raspberry Pi 4 and older)",
    "rpi_ws281x": "pip install rpi_ws281x",
    "adafruit_raspberry_pi5_neopixel_write": "pip install Adafruit-Blinka-Raspberry-Pi5-Neopixel"
                                             "  (the Raspberry Pi 5 PIO backend)",
}

_NOT_A_SUPPORTED_BOARD = (
    "Blinka cannot drive LEDs on this machine. Run the table on a Raspberry Pi; on a PC use "
    "the 'terminal' or 'memory' sink (HOMEWORLDS_PIXELS=terminal), or set BLINKA_OS_AGNOSTIC=1 "
    "to run the driver code against Blinka's simulated board (no LEDs light)")

_ENABLE_SPI = (
    "enable SPI: `sudo raspi-config nonint do_spi 0` (or add dtparam=spi=on to "
    "/boot/firmware/config.txt), then reboot; SPI1 (bus=1) also needs dtoverlay=spi1-1cs")

_PWM_PINS = ("on a Raspberry Pi 4 or older use D18 (PWM0), D12, D13, D19, D21 or D10; "
             "on a Raspberry Pi 5 any GPIO (D18 is the usual choice)")


# --------------------------------------------------------------------------- sinks


class NeoPixelSink(PixelSink):
    """A WS2812/SK6812 chain on one GPIO pin through Blinka's ``neopixel``."""

    kind = "neopixel"

    def __init__(self, pixel_count: int, *, pin: str | int = "D18", order: str = "GRB"):
        super().__init__(pixel_count)
        self.order = _check_order(order)
        self.pin = _pin_name(pin)
        board = _import(self.kind, "board")
        platform = _platform(board)
        pin_object = _board_pin(self.kind, board, self.pin, _PWM_PINS)
        neopixel = _import(self.kind, "neopixel", platform)
        try:
            driver = neopixel.NeoPixel(pin_object, pixel_count, auto_write=False,
                                       brightness=1.0, pixel_order=self.order)
        except Exception as error:
            raise _failed(self.kind, f"NeoPixel on {self.pin}", error, platform) from error
        self._driver = driver
        _first_blank(self, platform, release=driver.deinit)

    def _write(self, frame: Frame) -> None:
        self._driver[:] = frame
        self._driver.show()

    def _release(self) -> None:
        self._driver.deinit()


class NeoPixelSpiSink(PixelSink):
    """A WS2812/SK6812 chain on the SPI MOSI pin (GPIO 10 for bus 0, 20 for bus 1)."""

    kind = "neopixel-spi"

    def __init__(self, pixel_count: int, *, bus: int = 0, order: str = "GRB",
                 frequency: int = NEOPIXEL_SPI_FREQUENCY):
        super().__init__(pixel_count)
        self.order = _check_order(order)
        if bus not in (0, 1) or isinstance(bus, bool):
            raise PixelSettingsError(f"must be 0 (MOSI on GPIO 10) or 1 (MOSI on GPIO 20), "
                                     f"not {bus!r}", key="spi_bus")
        if isinstance(frequency, bool) or not isinstance(frequency, int) or frequency <= 0:
            raise PixelSettingsError(f"must be a positive whole number of Hz, not {frequency!r}",
                                     key="spi_frequency")
        self.bus = bus
        board = _import(self.kind, "board")
        platform = _platform(board)
        busio = _import(self.kind, "busio", platform)
        suffix = "" if bus == 0 else "_1"
        clock = _first_board_pin(self.kind, board, (f"SCK{suffix}", f"SCLK{suffix}"), _ENABLE_SPI)
        mosi = _board_pin(self.kind, board, f"MOSI{suffix}", _ENABLE_SPI)
        neopixel_spi = _import(self.kind, "neopixel_spi", platform)

        transfer = spi_transfer_size(pixel_count, frequency)
        check_spi_transfer_size(pixel_count, frequency)
        try:
            spi = busio.SPI(clock, MOSI=mosi)
        except Exception as error:
            raise _failed(self.kind, f"SPI bus {bus}", error, platform) from error
        _fit_whole_frame_in_one_transfer(spi, transfer)
        try:
            driver = _fast_neopixel_spi(neopixel_spi)(
                spi, pixel_count, auto_write=False, brightness=1.0, pixel_order=self.order,
                frequency=frequency)
        except Exception as error:
            spi.deinit()
            raise _failed(self.kind, f"NeoPixel_SPI on SPI bus {bus}", error, platform) from error
        self._spi = spi
        self._driver = driver
        _first_blank(self, platform, release=spi.deinit)

    def _write(self, frame: Frame) -> None:
        self._driver[:] = frame
        self._driver.show()

    def _release(self) -> None:
        self._spi.deinit()


# --------------------------------------------------------------------------- SPI transfer size


def spi_transfer_size(pixel_count: int, frequency: int = NEOPIXEL_SPI_FREQUENCY) -> int:
    """Bytes ``neopixel_spi`` sends per frame: a latch gap, 24 SPI bytes a pixel, a latch gap."""
    return 2 * round(frequency * _RESET_SECONDS / 8) + 8 * 3 * pixel_count


def check_spi_transfer_size(pixel_count: int, frequency: int = NEOPIXEL_SPI_FREQUENCY,
                            bufsiz_file: Path | None = None) -> None:
    """Refuse a chain too long for one spidev transfer (PixelSinkUnavailable).

    A frame split over two transfers has a gap between them long enough for the
    LEDs to latch, so the pixels after the split show garbage. Linux limits one
    transfer to the spidev ``bufsiz`` parameter (4096 bytes unless raised: 165
    pixels), so a longer chain needs that parameter raised at boot. Nothing is
    checked where the parameter does not exist (not Linux, spidev not loaded).
    """
    path = SPIDEV_BUFSIZ if bufsiz_file is None else bufsiz_file
    try:
        limit = int(path.read_text().strip())
    except (OSError, ValueError):
        return
    transfer = spi_transfer_size(pixel_count, frequency)
    if transfer > limit:
        fits = max(0, limit - spi_transfer_size(0, frequency)) // 24
        raise PixelSinkUnavailable(
            NeoPixelSpiSink.kind,
            f"{pixel_count} pixels make a {transfer}-byte SPI transfer but spidev accepts at "
            f"most {limit} bytes per transfer ({path}), enough for {fits} pixels; a frame split "
            "in two garbles the LEDs after the split",
            "raise the limit: add spidev.bufsiz=65536 to the single line of "
            "/boot/firmware/cmdline.txt (/boot/cmdline.txt before Bookworm) and reboot")


def _fit_whole_frame_in_one_transfer(spi: Any, transfer: int) -> None:
    # Blinka's Linux SPI writes through Adafruit_PureIO, which cuts writes into
    # 4096-byte ioctls (or $SPI_BUFSIZE): make one frame one ioctl.
    device = getattr(getattr(spi, "_spi", None), "_spi", None)
    chunk = getattr(device, "chunk_size", None)
    if device is not None and isinstance(chunk, int) and chunk < transfer:
        device.chunk_size = transfer


@functools.cache
def _fast_neopixel_spi(neopixel_spi: ModuleType) -> type:
    """``neopixel_spi.NeoPixel_SPI`` with its per-bit Python loop replaced by a table.

    The upstream ``_transmogrify`` expands every data bit into one SPI byte in
    a Python loop (0.57 ms per 256-pixel frame on the x86 CI box, several times
    that on a Pi); a 256-entry table of 8-byte patterns built from the same
    ``bit0``/``bit1`` bytes gives identical output about 30 times faster
    (benchmarks/pixels_output.py; tests/pixels compare the two byte for byte).
    Everything else (bus set-up, latch gaps, byte order) is the library's own.
    """

    class FastNeoPixelSpi(neopixel_spi.NeoPixel_SPI):  # type: ignore[name-defined]
        def _transmogrify(self, buffer: bytearray) -> None:
            table = _bit_patterns(self._bit0, self._bit1)
            expanded = b"".join([table[byte] for byte in buffer])
            self._spibuf[:len(expanded)] = expanded

    return FastNeoPixelSpi


@functools.cache
def _bit_patterns(bit0: int, bit1: int) -> tuple[bytes, ...]:
    return tuple(bytes(bit1 if value >> shift & 1 else bit0 for shift in range(7, -1, -1))
                 for value in range(256))


# --------------------------------------------------------------------------- helpers


def _check_order(order: object) -> str:
    if not isinstance(order, str) or order.upper() not in PIXEL_ORDERS:
        raise PixelSettingsError(f"must be one of {', '.join(PIXEL_ORDERS)} (WS2812B: GRB), "
                                 f"not {order!r}", key="order")
    return order.upper()


def _pin_name(pin: object) -> str:
    """Accept ``D18``, ``GPIO18``, ``18`` or 18 for Blinka's ``board.D18``."""
    if isinstance(pin, int) and not isinstance(pin, bool):
        return f"D{pin}"
    if not isinstance(pin, str) or not pin.strip():
        raise PixelSettingsError(f"must be a board pin name such as 'D18', not {pin!r}",
                                 key="pin")
    name = pin.strip().upper()
    if name.isdigit():
        return f"D{name}"
    if name.startswith("GPIO") and name[4:].isdigit():
        return f"D{name[4:]}"
    return name


def _import(sink: str, module_name: str, platform: str = "unknown") -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or module_name
        problem = (f"module {module_name!r} is not installed" if missing == module_name else
                   f"importing {module_name!r} needs module {missing!r}, which is not installed")
        raise PixelSinkUnavailable(sink, problem, _install_for(missing)) from error
    except Exception as error:  # Blinka raises NotImplementedError, RuntimeError, ImportError...
        missing_backend = _missing_backend(error)
        if missing_backend is not None:
            raise PixelSinkUnavailable(
                sink, f"importing {module_name!r} failed: {_first_line(error)}",
                _install_for(missing_backend)) from error
        if "install" in str(error).lower():
            remedy = f"install what Blinka names above, then restart; or {INSTALL_PI_EXTRAS}"
        elif platform in ("unknown", "other"):
            remedy = _NOT_A_SUPPORTED_BOARD
        else:
            remedy = f"Blinka has no driver for this on this board; see {DOCS}"
        raise PixelSinkUnavailable(
            sink, f"importing {module_name!r} failed: {type(error).__name__}: "
                  f"{_first_line(error)}", remedy) from error


def _missing_backend(error: BaseException) -> str | None:
    """The platform module Blinka reported missing (it wraps ModuleNotFoundError)."""
    cause = error.__cause__
    if isinstance(cause, ModuleNotFoundError) and cause.name:
        return cause.name
    return None


def _install_for(module: str) -> str:
    return _INSTALL.get(module.split(".")[0], INSTALL_PI_EXTRAS)


def _platform(board: ModuleType) -> str:
    """``pi5``, ``pi`` (4 and older), ``agnostic`` (Blinka's simulated board) or ``other``."""
    detected = getattr(getattr(board, "detector", None), "board", None)
    try:
        if detected is not None and detected.any_raspberry_pi_5_board:
            return "pi5"
        if detected is not None and detected.any_raspberry_pi:
            return "pi"
    except Exception:  # noqa: BLE001 - detection is advice only, never a reason to fail
        pass
    if getattr(board, "board_id", None) == "OS_AGNOSTIC_BOARD":
        return "agnostic"
    return "other"


def _board_pins(board: ModuleType) -> list[str]:
    return sorted(name for name in dir(board)
                  if name[:1].isupper() and not name.startswith("_")
                  and hasattr(getattr(board, name), "id") and not callable(getattr(board, name)))


def _board_pin(sink: str, board: ModuleType, name: str, remedy: str) -> Any:
    return _first_board_pin(sink, board, (name,), remedy)


def _first_board_pin(sink: str, board: ModuleType, names: tuple[str, ...], remedy: str) -> Any:
    for name in names:
        pin = getattr(board, name, None)
        if pin is not None and not callable(pin):
            return pin
    board_id = getattr(board, "board_id", None) or "this board"
    wanted = " or ".join(repr(name) for name in names)
    pins = ", ".join(_board_pins(board)) or "none"
    if _platform(board) == "other":
        remedy = _NOT_A_SUPPORTED_BOARD
    raise PixelSinkUnavailable(sink, f"board {board_id} has no pin {wanted} (its pins: {pins})",
                               remedy)


def _failed(sink: str, what: str, error: BaseException, platform: str) -> PixelSinkUnavailable:
    return PixelSinkUnavailable(sink, f"opening {what} failed: {type(error).__name__}: "
                                      f"{_first_line(error)}",
                                _remedy_for(sink, error, platform))


def _first_blank(sink: PixelSink, platform: str, release: Any) -> None:
    try:
        sink._write(blank(sink.pixel_count))
    except Exception as error:
        try:
            release()
        except Exception:  # noqa: BLE001 - the first error is the one worth reporting
            pass
        raise _failed(sink.kind, "the LED chain (first write)", error, platform) from error


def _remedy_for(sink: str, error: BaseException, platform: str) -> str:
    text = str(error).lower()
    if platform in ("other", "unknown"):
        return _NOT_A_SUPPORTED_BOARD
    if sink == "neopixel" and platform == "pi" and (
            "sudo" in text or "/dev/mem" in text or "permission" in text or "mailbox" in text):
        return ("the PWM/PCM backend of a Raspberry Pi 4 and older needs root: run as root "
                "(sudo), or wire the data line to GPIO 10 and use the 'neopixel-spi' sink, "
                "which needs none")
    if sink == "neopixel" and (platform == "pi5" or "pio" in text):
        return ("the Raspberry Pi 5 backend needs /dev/pio0: if `ls -l /dev/pio0` finds nothing, "
                "update the firmware and kernel (sudo apt full-upgrade, reboot); if it is owned "
                "by root:root, add SUBSYSTEM==\"*-pio\", GROUP=\"gpio\", MODE=\"0660\" to "
                "/etc/udev/rules.d/99-com.rules and be in the gpio group")
    if sink == "neopixel-spi" and isinstance(error, PermissionError):
        return ("join the spi group: `sudo usermod -aG spi $USER`, then log in again")
    if sink == "neopixel-spi" and (isinstance(error, OSError | ValueError)
                                   or "spi" in text):
        return _ENABLE_SPI
    return f"see the troubleshooting notes in {DOCS}"


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__

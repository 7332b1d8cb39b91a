"""Checks of the host machine: the serial port, SPI for the LEDs, the LED supply.

Every function takes the file-system ``root`` it looks under (``/`` on the
table; a directory of fake ``dev`` and ``sys`` files in tests) and returns
:class:`~homeworlds.bringup.checks.Check` values; nothing here opens hardware.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from homeworlds.bringup.checks import Check
from homeworlds.pixels import PixelSettings, solid, spi_transfer_size
from homeworlds.pixels.limits import board_model, chain_problem, full_white_current_ma
from homeworlds.pixels.settings import SUPPLY_LOAD_FACTOR

WHITE = (255, 255, 255)

STABLE_PORT = "/dev/homeworlds-table"
"""The symlink the udev rule in hardware/pi/ makes for the table's data port."""

SPIDEV_BUFSIZ = Path("sys/module/spidev/parameters/bufsiz")

INSTALL_PI = ("run `make install-pi CONFIG=/path/to/table.toml` (= `sudo hardware/pi/install.sh "
              "--config ...`) on the Pi, then replug the board")

_ENABLE_SPI = ("enable SPI: `sudo raspi-config nonint do_spi 0` (or dtparam=spi=on in "
               "/boot/firmware/config.txt) and reboot")

_RAISE_BUFSIZ = ("add spidev.bufsiz=65536 to the single line of /boot/firmware/cmdline.txt "
                 "(/boot/cmdline.txt before Bookworm) and reboot")


def _under(root: Path | str, absolute: str) -> Path:
    return Path(root) / absolute.lstrip("/")


def check_port(port: str | None, *, root: Path | str = "/",
               access: Callable[[str, int], bool] = os.access) -> list[Check]:
    """Is the configured serial port there, and may this user read and write it?"""
    subject = "serial port"
    if not port:
        return [Check.fail(subject, "no port configured (serial.port)",
                           f"set serial.port to {STABLE_PORT} after installing the udev rule "
                           f"({INSTALL_PI}), or to the board's data port (the second "
                           f"/dev/ttyACM*)")]
    path = Path(port)  # as configured: a pty of the simulator lies outside any fake root
    if not path.exists():
        candidates = sorted(str(Path("/dev") / p.name)
                            for p in _under(root, "/dev").glob("ttyACM*"))
        seen = (f"serial ports present: {', '.join(candidates)}" if candidates
                else "no /dev/ttyACM* port at all")
        if port == STABLE_PORT:
            fix = (f"{INSTALL_PI}; if it is installed, the board is not plugged in or its "
                   f"USB IDs differ from the rule's (udevadm info -q property -n /dev/ttyACM1)")
        else:
            fix = ("plug the board in with a data USB cable; the table protocol runs on its "
                   "second port (usb_cdc.data, enabled by firmware/boot.py)")
        return [Check.fail(subject, f"{port} does not exist ({seen})", fix)]
    if not access(str(path), os.R_OK | os.W_OK):
        return [Check.fail(subject, f"{port} exists but this user may not read and write it",
                           "`sudo usermod -aG dialout $USER` and log in again; the udev rule "
                           f"in hardware/pi/ also gives the port to the dialout group "
                           f"({INSTALL_PI})")]
    target = f" (-> {os.path.realpath(path)})" if path.is_symlink() else ""
    return [Check.ok(subject, f"{port}{target} present, read/write permitted")]


def check_led_platform(settings: PixelSettings, pixel_count: int, *,
                       root: Path | str = "/") -> list[Check]:
    """SPI enabled, spidev's transfer limit, and the chain length for the configured sink."""
    kind = settings.sink_kind
    checks: list[Check] = []
    if kind != "neopixel-spi":
        checks.append(Check.skip("SPI", f"not used by the {kind!r} LED sink"))
    else:
        device = f"/dev/spidev{settings.spi_bus}.0"
        if _under(root, device).exists():
            checks.append(Check.ok("SPI", f"{device} present"))
        else:
            fix = _ENABLE_SPI + ("; bus 1 also needs dtoverlay=spi1-1cs"
                                 if settings.spi_bus == 1 else "")
            checks.append(Check.fail("SPI", f"{device} does not exist: SPI is not enabled", fix))
        checks.append(_check_bufsiz(settings, pixel_count, root))
    problem = chain_problem(pixel_count, kind, board_model(root))
    if problem:
        checks.append(Check.warn("LED chain length", *problem))
    return checks


def _check_bufsiz(settings: PixelSettings, pixel_count: int, root: Path | str) -> Check:
    subject = "spidev buffer"
    need = spi_transfer_size(pixel_count, settings.spi_frequency)
    path = Path(root) / SPIDEV_BUFSIZ
    try:
        limit = int(path.read_text().strip())
    except (OSError, ValueError):
        return Check.warn(subject, f"cannot read /{SPIDEV_BUFSIZ} (spidev not loaded?); a frame "
                                   f"of {pixel_count} pixels is a {need}-byte transfer",
                          _ENABLE_SPI)
    if limit < need:
        fits = max(0, limit - spi_transfer_size(0, settings.spi_frequency)) // 24
        return Check.fail(subject, f"spidev accepts {limit} bytes per transfer, enough for "
                                   f"{fits} pixels, but {pixel_count} pixels need {need} bytes "
                                   f"(a frame split in two garbles the LEDs after the split)",
                          _RAISE_BUFSIZ)
    return Check.ok(subject, f"{limit} bytes per transfer, {pixel_count} pixels need {need}")


def check_power(settings: PixelSettings, pixel_count: int,
                scanner_amps: float | None = None) -> list[Check]:
    """The LEDs' current against the supply, and (with the layout's ``[power]
    scanner_amps``) whether the host keeps enough of the supply for the readers."""
    checks = _check_led_power(settings, pixel_count)
    if scanner_amps is not None:
        subject = "readers' power"
        if settings.reserved_amps + 1e-9 < scanner_amps:
            checks.append(Check.warn(
                subject, f"pixels.reserved_amps = {settings.reserved_amps:g} A, but the layout's "
                f"[power] scanner_amps is {scanner_amps:g} A: with the LEDs at their cap the "
                "readers' fields would take the supply past what it is budgeted for",
                f"set pixels.reserved_amps = {scanner_amps:g}"))
        else:
            checks.append(Check.ok(subject, f"{settings.reserved_amps:g} A kept off the LEDs for "
                                            f"the scanner's {scanner_amps:g} A budget"))
    return checks


def _check_led_power(settings: PixelSettings, pixel_count: int) -> list[Check]:
    """The current cap against the worst frame the chain could be sent."""
    full = full_white_current_ma(pixel_count, settings.channel_current_ma,
                                 settings.idle_current_ma)
    cap = settings.current_cap_ma
    subject = "LED power"
    worst = f"a full-white frame on {pixel_count} pixels would draw {full / 1000:.1f} A"
    if cap is None:
        # What the strip really draws for full white after brightness and gamma, against what
        # the supply leaves the LEDs once the readers have theirs.
        correction = settings.correction()
        drawn = correction.estimate_current_ma(correction.apply(solid(pixel_count, WHITE)))
        budget = settings.supply_cap_ma()
        at = (f"a full-white frame at brightness {settings.brightness:g} draws "
              f"{drawn / 1000:.1f} A, the {settings.supply_amps:g} A supply leaves the LEDs "
              f"{budget / 1000:.1f} A")
        if drawn > budget:
            return [Check.warn(subject, f"current cap off (pixels.current_limit = false): {at}",
                               "remove current_limit = false, or set pixels.max_current_ma")]
        return [Check.ok(subject, f"no cap, but {at}: within the supply")]
    source = ("pixels.max_current_ma" if settings.max_current_ma is not None
              and cap == settings.max_current_ma else
              f"{SUPPLY_LOAD_FACTOR:.0%} of the {settings.supply_amps:g} A supply minus "
              f"{settings.reserved_amps:g} A for the readers")
    return [Check.ok(subject, f"frames are dimmed to at most {cap / 1000:.1f} A ({source}); "
                              f"{worst}")]

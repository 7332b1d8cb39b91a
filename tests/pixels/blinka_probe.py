"""Runs the strip sinks on Blinka's OS-agnostic board; prints what reached Blinka as JSON.

Not a test module: ``test_blinka_sinks.py`` runs it in a subprocess with
``BLINKA_OS_AGNOSTIC=1`` in the environment, because Blinka reads that variable
once, when ``board`` is first imported, and the simulated board must not leak
into other tests.

On that board the real driver code runs (``board``, ``digitalio``,
``busio.SPI``, ``adafruit_bus_device``, ``adafruit_pixelbuf``, ``neopixel``,
``neopixel_spi``, ``neopixel_write``) down to Blinka's agnostic backends,
whose ``SPI.write`` and ``neopixel_write`` accept the bytes and drop them.
Those two functions are the seam: each scenario wraps them to record the
bytes, then lets the original run.

Usage: ``python blinka_probe.py SCENARIO...``; prints ``{scenario: result}``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def recording_spi() -> Iterator[list[str]]:
    from adafruit_blinka.microcontroller.generic_agnostic_board import spi

    sent: list[str] = []
    original = spi.SPI.write

    def write(self, buf, start=0, end=None):  # noqa: ANN001 - Blinka's signature
        sent.append(bytes(buf[start:end]).hex())
        return original(self, buf, start, end)

    spi.SPI.write = write
    try:
        yield sent
    finally:
        spi.SPI.write = original


@contextmanager
def recording_neopixel_write() -> Iterator[list[dict]]:
    from adafruit_blinka.microcontroller.generic_agnostic_board import neopixel

    sent: list[dict] = []
    original = neopixel.neopixel_write

    def neopixel_write(gpio, buf):  # noqa: ANN001 - Blinka's signature
        sent.append({"pin": gpio._pin.id, "bytes": bytes(buf).hex()})
        return original(gpio, buf)

    neopixel.neopixel_write = neopixel_write
    try:
        yield sent
    finally:
        neopixel.neopixel_write = original


FRAME = [(255, 0, 0), (0, 128, 0), (1, 2, 3)]


def spi_sink(order: str = "GRB") -> dict:
    from homeworlds.pixels import open_sink

    with recording_spi() as sent:
        sink = open_sink("neopixel-spi", 3, order=order)
        after_open = len(sent)
        sink.show(tuple(FRAME))
        sink.close()
    return {"after_open": after_open, "sent": sent, "board": _board_id()}


def spi_sink_rgb() -> dict:
    return spi_sink("RGB")


def spi_fast_encoder() -> dict:
    import neopixel_spi

    from homeworlds.pixels import open_sink

    sink = open_sink("neopixel-spi", 40)
    driver = sink._driver
    rng = random.Random(7)
    buffer = bytearray(rng.randrange(256) for _ in range(120))
    neopixel_spi.NeoPixel_SPI._transmogrify(driver, buffer)
    upstream = bytes(driver._spibuf).hex()
    driver._spibuf[:] = bytes(len(driver._spibuf))
    driver._transmogrify(buffer)
    fast = bytes(driver._spibuf).hex()
    sink.close()
    return {"upstream": upstream, "fast": fast, "class": type(driver).__mro__[1].__module__}


def neopixel_sink() -> dict:
    from homeworlds.pixels import open_sink

    with recording_neopixel_write() as sent:
        sink = open_sink("neopixel", 3, pin="NEOPIXEL", order="GRB")
        after_open = len(sent)
        sink.show(tuple(FRAME))
        sink.close()
    return {"after_open": after_open, "sent": sent}


def missing_pin() -> dict:
    from homeworlds.pixels import PixelSinkUnavailable, open_sink

    try:
        open_sink("neopixel", 3, pin="D18")
    except PixelSinkUnavailable as error:
        return {"sink": error.sink, "problem": error.problem, "remedy": error.remedy}
    return {"opened": True}


def missing_spi_driver() -> dict:
    from homeworlds.pixels import PixelSinkUnavailable, open_sink

    saved = sys.modules.get("neopixel_spi")
    sys.modules["neopixel_spi"] = None  # as if adafruit-circuitpython-neopixel-spi were absent
    try:
        open_sink("neopixel-spi", 3)
    except PixelSinkUnavailable as error:
        return {"sink": error.sink, "problem": error.problem, "remedy": error.remedy,
                "message": str(error)}
    finally:
        if saved is None:
            del sys.modules["neopixel_spi"]
        else:
            sys.modules["neopixel_spi"] = saved
    return {"opened": True}


def spidev_limit() -> dict:
    import homeworlds.pixels.blinka as blinka
    from homeworlds.pixels import PixelSinkUnavailable, open_sink

    with tempfile.TemporaryDirectory() as directory:
        bufsiz = Path(directory) / "bufsiz"
        bufsiz.write_text("4096\n")
        original, blinka.SPIDEV_BUFSIZ = blinka.SPIDEV_BUFSIZ, bufsiz
        result: dict = {}
        try:
            open_sink("neopixel-spi", 165).close()
            result["165_opened"] = True
            try:
                open_sink("neopixel-spi", 166)
            except PixelSinkUnavailable as error:
                result["166"] = {"problem": error.problem, "remedy": error.remedy}
        finally:
            blinka.SPIDEV_BUFSIZ = original
        return result


def output_through_spi() -> dict:
    from homeworlds.pixels import PixelSettings

    settings = PixelSettings(sink="neopixel-spi", brightness=0.5, gamma=1.0, order="GRB")
    with recording_spi() as sent, settings.open_output(2) as output:
        output.submit(((200, 100, 0), (0, 0, 0)))
        output.submit(((200, 100, 0), (0, 0, 0)))  # unchanged: no second transfer
        written = output.stats.written
    return {"sent": sent, "written": written}


def output_blanks_on_exception() -> dict:
    from homeworlds.pixels import PixelSettings

    settings = PixelSettings(sink="neopixel", pin="NEOPIXEL", gamma=1.0, brightness=1.0)
    with recording_neopixel_write() as sent:
        try:
            with settings.open_output(2) as output:
                output.submit(((9, 8, 7), (6, 5, 4)))
                raise KeyError("renderer crashed")
        except KeyError:
            pass
    return {"sent": sent}


def _board_id() -> str:
    import board

    return board.board_id


SCENARIOS = {function.__name__: function for function in (
    spi_sink, spi_sink_rgb, spi_fast_encoder, neopixel_sink, missing_pin, missing_spi_driver,
    spidev_limit, output_through_spi, output_blanks_on_exception)}


def main(names: list[str]) -> None:
    if os.environ.get("BLINKA_OS_AGNOSTIC") != "1":
        raise SystemExit("run me with BLINKA_OS_AGNOSTIC=1")
    results = {}
    for name in names:
        try:
            results[name] = SCENARIOS[name]()
        except Exception:  # noqa: BLE001 - reported to the test, which fails on it
            results[name] = {"error": traceback.format_exc()}
    print("PROBE-RESULT " + json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])

"""What a LED chain asks of the machine and the supply, checked before a game starts.

Two limits a builder meets only with a long chain:

* **Current.** A WS2812B draws about 20 mA per colour channel at full duty
  (60 mA white) plus about 1 mA dark. :func:`full_white_current_ma` gives the
  worst case; :class:`~homeworlds.pixels.PixelSettings` caps the estimated
  current of every frame at what the configured supply allows.
* **Chain length on a Raspberry Pi 5 with ``neopixel-spi``.** Users report chains driven
  from the Pi 5's SPI MOSI failing from about 175 pixels: with 256 WS2812Bs "some after
  #178 are not the expected colour and then some beyond around #200 don't light up at
  all" (vanshksingh/Pi5Neo issue #2, 2024-09-23, a logic analyser on GPIO 10); the
  upstream ``neopixel_spi`` report (adafruit/Adafruit_CircuitPython_NeoPixel_SPI issue
  #37, "Max 339 LED chain on Pi5") saw its limit at 339 with one strip and none with
  another. :func:`chain_advice` warns from 175 pixels on a Pi 5 and names the fix: drive
  the chain with the Pi 5's PIO backend (the ``neopixel`` sink).

Both are pure functions of their arguments (the board model is read from
``/proc/device-tree/model`` under a root that tests replace).
"""

from __future__ import annotations

from pathlib import Path

PI5_NEOPIXEL_SPI_FAILING_PIXELS = 175
"""Chain length from which users report SPI-driven chains failing on a Raspberry Pi 5
(wrong colours after pixel 178, dark ones after about 200: Pi5Neo issue #2)."""

PI5_CHAIN_ISSUE = "https://github.com/vanshksingh/Pi5Neo/issues/2"
PI5_CHAIN_UPSTREAM = "https://github.com/adafruit/Adafruit_CircuitPython_NeoPixel_SPI/issues/37"

MODEL_FILE = Path("proc/device-tree/model")
"""The board model, relative to the file-system root (``Raspberry Pi 5 Model B Rev 1.0``)."""


def full_white_current_ma(pixel_count: int, channel_current_ma: float = 20.0,
                          idle_current_ma: float = 1.0) -> float:
    """Estimated current of ``pixel_count`` pixels at full white, no brightness limit."""
    return pixel_count * (3 * channel_current_ma + idle_current_ma)


def board_model(root: Path | str = "/") -> str | None:
    """The device-tree model string of this machine, None where there is none (not a Pi)."""
    try:
        raw = (Path(root) / MODEL_FILE).read_bytes()
    except OSError:
        return None
    text = raw.replace(b"\x00", b"").decode("ascii", "replace").strip()
    return text or None


def is_pi5(model: str | None) -> bool:
    return model is not None and model.startswith("Raspberry Pi 5")


def chain_problem(pixel_count: int, sink_kind: str, model: str | None) -> tuple[str, str] | None:
    """(why this chain may not work on this machine, what to do); None when nothing is known
    against it."""
    if sink_kind != "neopixel-spi" or not is_pi5(model):
        return None
    if pixel_count < PI5_NEOPIXEL_SPI_FAILING_PIXELS:
        return None
    return (f"{pixel_count} pixels on one neopixel-spi chain of a Raspberry Pi 5: users report "
            f"such chains failing there from about {PI5_NEOPIXEL_SPI_FAILING_PIXELS} pixels "
            f"({PI5_CHAIN_ISSUE}, {PI5_CHAIN_UPSTREAM})",
            "drive the chain with the Pi 5's PIO backend "
            "(pixels.sink = \"neopixel\", any GPIO, pip install "
            "Adafruit-Blinka-Raspberry-Pi5-Neopixel, wire the data line to GPIO 18) - see "
            "docs/leds.md, \"Long chains on a Raspberry Pi 5\"")


def chain_advice(pixel_count: int, sink_kind: str, model: str | None) -> str | None:
    """:func:`chain_problem` as one sentence; None when nothing is known against it."""
    problem = chain_problem(pixel_count, sink_kind, model)
    return None if problem is None else f"{problem[0]}. Fix: {problem[1]}"

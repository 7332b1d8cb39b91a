"""LED output: frames, colour correction, the output loop and the pixel sinks.

    from homeworlds.pixels import PixelSettings, blank

    with PixelSettings(brightness=0.3).open_output(pixel_count=240) as output:
        output.submit(frame)        # written if changed, at most max_fps times a second
        ...                         # call output.poll() from your loop for held frames

Sinks (``open_sink(kind, pixel_count, **settings)``; default kind from
``$HOMEWORLDS_PIXELS``, else ``neopixel-spi``): ``neopixel-spi`` (SPI MOSI,
GPIO 10, no root), ``neopixel`` (Blinka's neopixel: PWM/PCM on a Pi 4 with
root, PIO on a Pi 5), ``memory`` (records frames, for tests), ``terminal``
(ANSI preview). Hardware modules are imported only when a strip sink opens.
User documentation: docs/leds.md.
"""

from homeworlds.pixels.blinka import (
    PIXEL_ORDERS,
    NeoPixelSink,
    NeoPixelSpiSink,
    check_spi_transfer_size,
    spi_transfer_size,
)
from homeworlds.pixels.correction import ColorCorrection
from homeworlds.pixels.errors import (
    PixelSettingsError,
    PixelSinkClosed,
    PixelSinkUnavailable,
    UnknownSinkKind,
)
from homeworlds.pixels.factory import (
    DEFAULT_SINK_KIND,
    ENV_VAR,
    SINK_KINDS,
    default_sink_kind,
    open_sink,
    sink_class,
    sink_settings,
)
from homeworlds.pixels.frame import (
    BLACK,
    RGB,
    Frame,
    FrameError,
    blank,
    check_frame,
    frame_from_bytes,
    frame_to_bytes,
    solid,
)
from homeworlds.pixels.memory import MemorySink, ShownFrame
from homeworlds.pixels.output import BackgroundPixelOutput, OutputStats, PixelOutput
from homeworlds.pixels.settings import PixelSettings
from homeworlds.pixels.sink import PixelSink
from homeworlds.pixels.terminal import TerminalSink

__all__ = [
    "BLACK",
    "DEFAULT_SINK_KIND",
    "ENV_VAR",
    "PIXEL_ORDERS",
    "SINK_KINDS",
    "BackgroundPixelOutput",
    "RGB",
    "ColorCorrection",
    "Frame",
    "FrameError",
    "MemorySink",
    "NeoPixelSink",
    "NeoPixelSpiSink",
    "OutputStats",
    "PixelOutput",
    "PixelSettings",
    "PixelSettingsError",
    "PixelSink",
    "PixelSinkClosed",
    "PixelSinkUnavailable",
    "ShownFrame",
    "TerminalSink",
    "UnknownSinkKind",
    "blank",
    "check_frame",
    "check_spi_transfer_size",
    "default_sink_kind",
    "frame_from_bytes",
    "frame_to_bytes",
    "open_sink",
    "sink_class",
    "sink_settings",
    "solid",
    "spi_transfer_size",
]

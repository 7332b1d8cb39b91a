"""Opening a sink by kind name, with a process-wide default from the environment.

Like gpiozero's ``GPIOZERO_PIN_FACTORY``, the environment variable
``HOMEWORLDS_PIXELS`` picks the sink when the caller does not name one, so the
same command drives the LEDs on the table and a terminal preview on a laptop::

    HOMEWORLDS_PIXELS=terminal homeworlds demo
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from typing import Any

from homeworlds.pixels.blinka import NeoPixelSink, NeoPixelSpiSink
from homeworlds.pixels.errors import PixelSettingsError, UnknownSinkKind
from homeworlds.pixels.memory import MemorySink
from homeworlds.pixels.sink import PixelSink
from homeworlds.pixels.terminal import TerminalSink

ENV_VAR = "HOMEWORLDS_PIXELS"
DEFAULT_SINK_KIND = "neopixel-spi"

_SINKS: dict[str, type[PixelSink]] = {
    sink.kind: sink for sink in (NeoPixelSpiSink, NeoPixelSink, MemorySink, TerminalSink)
}

SINK_KINDS: tuple[str, ...] = tuple(_SINKS)
"""Every kind :func:`open_sink` accepts."""


def sink_class(kind: str, *, source: str | None = None) -> type[PixelSink]:
    """The sink class for ``kind`` (``neopixel_spi`` and ``NeoPixel-SPI`` are accepted too)."""
    name = _normalise(kind)
    if name not in _SINKS:
        raise UnknownSinkKind(f"unknown LED sink kind {kind!r}; the kinds are "
                              f"{', '.join(SINK_KINDS)}", key="sink", source=source)
    return _SINKS[name]


def sink_settings(kind: str) -> tuple[str, ...]:
    """The settings (keyword arguments) a sink kind takes."""
    parameters = inspect.signature(sink_class(kind)).parameters.values()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def default_sink_kind(environ: Mapping[str, str] | None = None) -> str:
    """``$HOMEWORLDS_PIXELS`` if set (checked), else ``neopixel-spi``."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    if not value:
        return DEFAULT_SINK_KIND
    return sink_class(value, source=f"environment variable {ENV_VAR}").kind


def open_sink(kind: str | None, pixel_count: int, **settings: Any) -> PixelSink:
    """Open a sink of ``kind`` (None: :func:`default_sink_kind`) for ``pixel_count`` pixels.

    ``settings`` are the sink's own keyword arguments (``pin``, ``order``,
    ``bus``, ``stream``, ``clock``...); one the kind does not take is refused
    with the list of those it does. Hardware sinks raise
    :class:`~homeworlds.pixels.PixelSinkUnavailable` when the machine cannot
    drive them.
    """
    cls = sink_class(default_sink_kind() if kind is None else kind)
    accepted = sink_settings(cls.kind)
    for key in settings:
        if key not in accepted:
            takes = ", ".join(accepted) or "no settings"
            raise PixelSettingsError(f"the {cls.kind!r} sink has no setting {key!r} "
                                     f"(it takes: {takes})", key=key)
    return cls(pixel_count, **settings)


def _normalise(kind: object) -> str:
    if not isinstance(kind, str):
        return repr(kind)
    return kind.strip().lower().replace("_", "-")

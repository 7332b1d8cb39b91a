"""The LED settings a table owner sets, checked, in one value.

A settings file (or command line) hands over a plain mapping, e.g. the
``[pixels]`` table of a TOML file::

    [pixels]
    sink = "neopixel-spi"   # or neopixel, terminal, memory; default: $HOMEWORLDS_PIXELS
    brightness = 0.4
    gamma = 2.2
    order = "GRB"
    max_fps = 60
    supply_amps = 10        # the 5 V LED supply's rating: the current cap follows from it
    current_limit = true    # false turns the derived cap off (max_current_ma still applies)

:meth:`PixelSettings.from_mapping` rejects unknown keys and bad values with
the key (and file) in the message; :meth:`PixelSettings.open_output` turns the
settings into a running :class:`~homeworlds.pixels.PixelOutput`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from homeworlds.pixels.blinka import NEOPIXEL_SPI_FREQUENCY, PIXEL_ORDERS
from homeworlds.pixels.correction import ColorCorrection
from homeworlds.pixels.errors import PixelSettingsError
from homeworlds.pixels.factory import default_sink_kind, open_sink, sink_class
from homeworlds.pixels.limits import board_model, chain_advice
from homeworlds.pixels.output import PixelOutput
from homeworlds.pixels.sink import PixelSink

SUPPLY_LOAD_FACTOR = 0.8
"""Share of a supply's rating the LEDs and other loads may use together."""


@dataclass(frozen=True, slots=True)
class PixelSettings:
    """Every LED output setting, with the defaults a table ships with."""

    sink: str | None = None
    """Sink kind; None means ``$HOMEWORLDS_PIXELS``, else ``neopixel-spi``."""
    brightness: float = 0.4
    """Brightness limit 0..1: undiffused LEDs at full duty glare (and draw amps)."""
    gamma: float = 2.2
    order: str = "GRB"
    """Byte order of the strip's pixels (WS2812B: GRB; some 5 mm and 8 mm pixels: RGB)."""
    max_fps: float | None = 60.0
    max_current_ma: float | None = None
    """An explicit cap on the estimated strip current (mA); the lower of it and the
    supply-derived cap applies."""
    supply_amps: float = 10.0
    """Rating of the 5 V supply the LEDs hang on (the reference table's 10 A supply)."""
    reserved_amps: float = 1.0
    """Current other loads draw from the same supply (NFC readers, level shifter)."""
    current_limit: bool = True
    """Cap the LED current at ``SUPPLY_LOAD_FACTOR * supply_amps - reserved_amps``."""
    channel_current_ma: float = 20.0
    idle_current_ma: float = 1.0
    pin: str = "D18"
    """Data pin of the ``neopixel`` sink."""
    spi_bus: int = 0
    """SPI bus of the ``neopixel-spi`` sink: 0 (MOSI = GPIO 10) or 1 (MOSI = GPIO 20)."""
    spi_frequency: int = NEOPIXEL_SPI_FREQUENCY

    def __post_init__(self) -> None:
        if self.sink is not None:
            object.__setattr__(self, "sink", sink_class(self.sink).kind)
        if not isinstance(self.order, str) or self.order.upper() not in PIXEL_ORDERS:
            raise PixelSettingsError(f"must be one of {', '.join(PIXEL_ORDERS)}, "
                                     f"not {self.order!r}", key="order")
        object.__setattr__(self, "order", self.order.upper())
        if self.max_fps is not None and (isinstance(self.max_fps, bool)
                                         or not isinstance(self.max_fps, int | float)
                                         or not math.isfinite(self.max_fps)
                                         or not 0 < self.max_fps <= 1000):
            raise PixelSettingsError(f"must be a number of frames per second above 0 and at "
                                     f"most 1000, not {self.max_fps!r}", key="max_fps")
        if not isinstance(self.pin, str | int) or isinstance(self.pin, bool):
            raise PixelSettingsError(f"must be a pin name such as 'D18', not {self.pin!r}",
                                     key="pin")
        if self.spi_bus not in (0, 1) or isinstance(self.spi_bus, bool):
            raise PixelSettingsError(f"must be 0 or 1, not {self.spi_bus!r}", key="spi_bus")
        if (isinstance(self.spi_frequency, bool) or not isinstance(self.spi_frequency, int)
                or self.spi_frequency <= 0):
            raise PixelSettingsError(f"must be a positive whole number of Hz, "
                                     f"not {self.spi_frequency!r}", key="spi_frequency")
        if not isinstance(self.current_limit, bool):
            raise PixelSettingsError(f"must be true or false, not {self.current_limit!r}",
                                     key="current_limit")
        for key in ("supply_amps", "reserved_amps"):
            value = getattr(self, key)
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value < 0 or (key == "supply_amps"
                                                                  and value == 0)):
                raise PixelSettingsError(f"must be a number of amperes above 0, not {value!r}"
                                         if key == "supply_amps" else
                                         f"must be a number of amperes, 0 or more, not {value!r}",
                                         key=key)
        if self.current_limit and self.supply_cap_ma() <= 0:
            raise PixelSettingsError(
                f"leaves nothing for the LEDs: {SUPPLY_LOAD_FACTOR:.0%} of supply_amps "
                f"({self.supply_amps:g} A) minus reserved_amps ({self.reserved_amps:g} A) is "
                f"not above 0; name a bigger supply or set current_limit = false",
                key="supply_amps")
        self.correction()  # checks brightness, gamma and the current settings

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], *, source: str | None = None,
                     prefix: str = "") -> PixelSettings:
        """Settings from a mapping such as a parsed TOML table; unknown keys are errors.

        ``source`` (a file name) and ``prefix`` (``pixels.``) only make error
        messages point at the right place.
        """
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in mapping.items():
            if key not in known:
                raise PixelSettingsError(f"unknown setting (the settings are "
                                         f"{', '.join(sorted(known))})",
                                         key=f"{prefix}{key}", source=source)
            values[key] = value
        try:
            return cls(**values)
        except PixelSettingsError as error:
            raise type(error)(error.reason, key=f"{prefix}{error.key}" if error.key else None,
                              source=source) from None

    def to_mapping(self) -> dict[str, Any]:
        """The settings as a plain mapping (None values left out), for saving."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @property
    def sink_kind(self) -> str:
        """The sink kind these settings open (resolving the environment default)."""
        return self.sink if self.sink is not None else default_sink_kind()

    def supply_cap_ma(self) -> float:
        """The cap the supply allows: a supply run at its full rating runs hot and sags."""
        return 1000.0 * (SUPPLY_LOAD_FACTOR * self.supply_amps - self.reserved_amps)

    @property
    def current_cap_ma(self) -> float | None:
        """The cap the output enforces (mA): the lower of the supply's and ``max_current_ma``."""
        caps = [cap for cap in (self.max_current_ma,
                                self.supply_cap_ma() if self.current_limit else None)
                if cap is not None]
        return min(caps) if caps else None

    def correction(self) -> ColorCorrection:
        return ColorCorrection(brightness=self.brightness, gamma=self.gamma,
                               max_current_ma=self.current_cap_ma,
                               channel_current_ma=self.channel_current_ma,
                               idle_current_ma=self.idle_current_ma)

    def sink_arguments(self, kind: str) -> dict[str, Any]:
        """The keyword arguments these settings give a sink of ``kind``."""
        kind = sink_class(kind).kind
        if kind == "neopixel":
            return {"pin": self.pin, "order": self.order}
        if kind == "neopixel-spi":
            return {"bus": self.spi_bus, "order": self.order, "frequency": self.spi_frequency}
        return {}

    def startup_warnings(self, pixel_count: int, *, model: str | None = None) -> list[str]:
        """What a builder should hear before the LEDs start (``model``: the board's
        device-tree model; None reads this machine's)."""
        if model is None:
            model = board_model()
        advice = chain_advice(pixel_count, self.sink_kind, model)
        return [advice] if advice else []

    def open_sink(self, pixel_count: int, **extra: Any) -> PixelSink:
        """Open the configured sink; ``extra`` adds arguments (a terminal ``stream``...)."""
        kind = self.sink_kind
        return open_sink(kind, pixel_count, **self.sink_arguments(kind), **extra)

    def open_output(self, pixel_count: int, *, clock: Callable[[], float] = time.monotonic,
                    sleep: Callable[[float], None] = time.sleep, **extra: Any) -> PixelOutput:
        """The configured sink behind a :class:`PixelOutput` with these settings."""
        return PixelOutput(self.open_sink(pixel_count, **extra), self.correction(),
                           max_fps=self.max_fps, clock=clock, sleep=sleep)

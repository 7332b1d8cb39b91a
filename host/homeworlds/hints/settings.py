"""What the hint lights look like: colours, brightness levels, animation periods.

One immutable value with the defaults the table ships with. A settings file
hands over a plain mapping, e.g. the ``[hints]`` table of a TOML file::

    [hints]
    seat_colors = ["#00a0ff", "#a000ff"]
    dim = 0.2
    blink_period = 0.4
    red_alert = true

:meth:`HintSettings.from_mapping` refuses unknown keys and bad values with the
key (and file) in the message. Levels are fractions 0..1 of full brightness,
applied before the pixel output's own gamma and brightness limit (docs/leds.md),
so they are *perceived* levels: 0.2 looks like a fifth of 1.0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from homeworlds.pixels import RGB

#: Player colours for the seat bars, seat 0 first. Chosen away from the warning
#: colours (mistake red, link-down amber) and from each other in brightness as
#: well as hue, so that they stay apart for colour-blind players too.
DEFAULT_SEAT_COLORS: tuple[RGB, ...] = (
    (0, 150, 255),    # seat 0: sky blue
    (170, 0, 255),    # seat 1: violet
    (255, 255, 255),  # seat 2: white
    (150, 255, 0),    # seat 3: lime
    (255, 60, 150),   # seat 4: pink
    (110, 110, 255),  # seat 5: periwinkle
)

#: The four piece colours as the rings show stars and overpopulations:
#: red, yellow, a *bluish* green (pure green and red look alike to most
#: colour-blind players; bluish green differs from red in brightness and in
#: its blue part), blue.
DEFAULT_STAR_COLORS: tuple[RGB, RGB, RGB, RGB] = (
    (255, 0, 0),
    (255, 170, 0),
    (0, 255, 140),
    (0, 60, 255),
)


class HintSettingsError(ValueError):
    """A bad hint setting: ``source`` (file), ``key``, ``reason``, joined by ``str()``."""

    def __init__(self, reason: str, *, key: str | None = None, source: str | None = None):
        self.reason = reason
        self.key = key
        self.source = source
        super().__init__(": ".join(part for part in (source, key, reason) if part))


_LEVELS = ("bright", "dim", "idle", "bar", "pulse_low")
_PERIODS = ("blink_period", "pulse_period", "spin_period", "link_down_period",
            "alert_period", "celebrate_period", "clock_period", "think_period",
            "wait_period")
_SINGLE_COLORS = ("mistake_color", "link_down_color", "alert_color", "hint_color",
                  "guide_color", "suggestion_color")
_MAX_PERIOD = 60.0


@dataclass(frozen=True, slots=True)
class HintSettings:
    """Every look-and-feel setting of the hint lights; see docs/leds.md for the legend."""

    seat_colors: tuple[RGB, ...] = DEFAULT_SEAT_COLORS
    """Bar colour of each seat (seat 0 first); a view may override them per game."""
    star_colors: tuple[RGB, RGB, RGB, RGB] = DEFAULT_STAR_COLORS
    """Red, yellow, green and blue as the rings show them."""
    mistake_color: RGB = (255, 0, 0)
    """Mistakes and refused hand-overs (always blinking, never steady)."""
    link_down_color: RGB = (255, 100, 0)
    """Amber on every bar while the table's sensor link is down."""
    alert_color: RGB = (255, 0, 0)
    """Red Alert flashes on the endangered player's bar."""
    hint_color: RGB = (255, 255, 255)
    """Move hints: connected systems (whole ring) and empty slots (every other pixel)."""
    bright: float = 1.0
    """Move hints the player can use now, mistakes, the lifted ship's origin."""
    dim: float = 0.2
    """Connections the player cannot use now (no yellow left this turn)."""
    idle: float = 0.4
    """Star arcs and home marks of the idle rings."""
    bar: float = 0.8
    """The active seat's bar and the celebration."""
    pulse_low: float = 0.15
    """Trough of the overpopulation and link-down pulses, as a fraction of their peak."""
    blink_period: float = 0.4
    """Mistake and refused hand-over blink: on for the first half, off for the second."""
    pulse_period: float = 1.2
    """Overpopulation pulse, trough to trough."""
    spin_period: float = 1.0
    """One turn of the spinner marking the lifted ship's origin."""
    link_down_period: float = 2.0
    """Amber breathing of the bars while the link is down."""
    alert_period: float = 1.5
    """Red Alert: two short flashes every period."""
    celebrate_period: float = 2.0
    """The winner's rainbow runs once along the bar per period."""
    clock_period: float = 1.0
    """A game clock's last minute: the draining bar blinks once per period (slower than a
    mistake's blink, and in the player's colour, so the two never look alike)."""
    red_alert: bool = True
    """Show the Red Alert a view carries (the table computes it only when the game's
    Red Alert handicap is on); False hides it."""
    guide_color: RGB = (255, 255, 255)
    """The computer's turn, step by step: where the lifted piece goes."""
    suggestion_color: RGB = (0, 200, 255)
    """A learner's hint (the computer's suggestion): the same steps in this colour."""
    think_period: float = 1.2
    """The thinking computer's bar: one run of the comet along the bar."""
    wait_period: float = 3.0
    """A seat played elsewhere (another table, a phone) whose turn is awaited: its bar
    breathes slowly in the seat's colour, trough to trough (slower than the link-down
    amber, and on that seat's bar alone)."""
    suggestions: bool = True
    """A long press of a seat's button shows the computer's suggestion for that seat;
    False (tournament mode) refuses it."""

    def __post_init__(self) -> None:
        seat_colors = self.seat_colors
        if isinstance(seat_colors, str) or not isinstance(seat_colors, tuple | list) \
                or not seat_colors:
            raise HintSettingsError(f"must be a non-empty list of colours, not {seat_colors!r}",
                                    key="seat_colors")
        object.__setattr__(self, "seat_colors", tuple(
            parse_color(c, f"seat_colors[{i}]") for i, c in enumerate(seat_colors)))
        star_colors = self.star_colors
        if isinstance(star_colors, str) or not isinstance(star_colors, tuple | list) \
                or len(star_colors) != 4:
            raise HintSettingsError("must be four colours (red, yellow, green, blue), "
                                    f"not {star_colors!r}", key="star_colors")
        object.__setattr__(self, "star_colors", tuple(
            parse_color(c, f"star_colors[{i}]") for i, c in enumerate(star_colors)))
        for name in _SINGLE_COLORS:
            object.__setattr__(self, name, parse_color(getattr(self, name), name))
        for name in _LEVELS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0.0 <= value <= 1.0:
                raise HintSettingsError(f"must be a level from 0 to 1, not {value!r}", key=name)
            object.__setattr__(self, name, float(value))
        if not self.dim < self.bright:
            raise HintSettingsError(f"must be below bright ({self.bright}) so that the two "
                                    f"kinds of move hint differ, not {self.dim}", key="dim")
        for name in _PERIODS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value) or not 0.0 < value <= _MAX_PERIOD:
                raise HintSettingsError(f"must be a number of seconds above 0 and at most "
                                        f"{_MAX_PERIOD:g}, not {value!r}", key=name)
            object.__setattr__(self, name, float(value))
        for name in ("red_alert", "suggestions"):
            if not isinstance(getattr(self, name), bool):
                raise HintSettingsError(f"must be true or false, not {getattr(self, name)!r}",
                                        key=name)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], *, source: str | None = None,
                     prefix: str = "") -> HintSettings:
        """Settings from a mapping such as a parsed TOML table; unknown keys are errors.

        Colours are ``"#rrggbb"`` strings or ``[r, g, b]`` lists. ``source`` (a file
        name) and ``prefix`` (``hints.``) only make error messages point at the right place.
        """
        known = {f.name for f in fields(cls)}
        for key in mapping:
            if key not in known:
                raise HintSettingsError(f"unknown setting (the settings are "
                                        f"{', '.join(sorted(known))})",
                                        key=f"{prefix}{key}", source=source)
        try:
            return cls(**mapping)
        except HintSettingsError as error:
            raise HintSettingsError(error.reason,
                                    key=f"{prefix}{error.key}" if error.key else None,
                                    source=source) from None

    def to_mapping(self) -> dict[str, Any]:
        """The settings as a plain mapping (colours as ``#rrggbb``), for saving."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("seat_colors", "star_colors"):
                value = [color_text(c) for c in value]
            elif f.name in _SINGLE_COLORS:
                value = color_text(value)
            out[f.name] = value
        return out

    def seat_color(self, seat: int) -> RGB:
        """The bar colour of ``seat``; seats past the list reuse it from the start."""
        return self.seat_colors[seat % len(self.seat_colors)]


def parse_color(value: object, key: str = "color") -> RGB:
    """``"#rrggbb"``, ``"rrggbb"`` or an ``(r, g, b)`` sequence of ints 0..255 -> a triple."""
    if isinstance(value, str):
        text = value.strip().removeprefix("#")
        if len(text) == 6:
            try:
                return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
            except ValueError:
                pass
        raise HintSettingsError(f"not a colour: {value!r} (expected '#rrggbb' or [r, g, b])",
                                key=key)
    if isinstance(value, tuple | list) and len(value) == 3 and all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value):
        return (value[0], value[1], value[2])
    raise HintSettingsError(f"not a colour: {value!r} (expected '#rrggbb' or [r, g, b] with "
                            "each part 0-255)", key=key)


def color_text(color: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)

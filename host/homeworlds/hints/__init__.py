"""homeworlds.hints: the pure LED renderer.

    from homeworlds.hints import HintSettings, HintView, LiftedShip, render

    view = HintView(layout, game=state, system_at={3: "Alice", 10: "Bob", 5: "Alpha"},
                    active_seat=0, lifted=LiftedShip(0, Piece.from_text("y1"), origin_slot=3))
    frame = render(view, HintSettings(), now=time.monotonic())

``render`` is a pure function of the view, the settings and the time: no I/O,
animations (blinks, pulses, the spinner, the celebration) are functions of
``now``. Hot loops may hold a :class:`Renderer` for their layout instead.
What each light means: docs/leds.md, "What the lights mean".
"""

from homeworlds.hints.animation import (
    blink_on,
    heartbeat_on,
    phase,
    pulse_level,
    rainbow,
    spinner_head,
)
from homeworlds.hints.patterns import arc_length, star_arcs
from homeworlds.hints.render import Renderer, render, renderer_for
from homeworlds.hints.settings import (
    DEFAULT_SEAT_COLORS,
    DEFAULT_STAR_COLORS,
    HintSettings,
    HintSettingsError,
    color_text,
    parse_color,
)
from homeworlds.hints.view import (
    GuidanceShown,
    HintView,
    HintViewError,
    LiftedShip,
    Outcome,
    slots_by_name,
)

__all__ = [
    "DEFAULT_SEAT_COLORS",
    "DEFAULT_STAR_COLORS",
    "GuidanceShown",
    "HintSettings",
    "HintSettingsError",
    "HintView",
    "HintViewError",
    "LiftedShip",
    "Outcome",
    "Renderer",
    "arc_length",
    "blink_on",
    "color_text",
    "heartbeat_on",
    "parse_color",
    "phase",
    "pulse_level",
    "rainbow",
    "render",
    "renderer_for",
    "slots_by_name",
    "spinner_head",
    "star_arcs",
]

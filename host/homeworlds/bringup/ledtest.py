"""The LED chain test pattern of ``homeworlds doctor``.

Each step is a frame and what a builder should see: the whole chain in red,
green and blue (a pixel that stays dark or shows the wrong colour marks a
broken joint or a wrong byte order; everything after a dead pixel stays dark),
then white, then only the first pixel of every ring and bar, which shows that
every ring is mounted the same way round (docs/hardware.md, ring orientation).
The frames go through the configured output, so the current cap applies.
"""

from __future__ import annotations

from homeworlds.pixels import Frame, blank, solid
from homeworlds.table.layout import Layout

WHITE = (255, 255, 255)


def pattern_steps(layout: Layout) -> list[tuple[str, Frame]]:
    """(what to look for, frame) for every step of the pattern."""
    count = layout.pixel_count
    steps: list[tuple[str, Frame]] = [
        ("all red: every pixel red (green instead: set pixels.order)", solid(count, (255, 0, 0))),
        ("all green", solid(count, (0, 255, 0))),
        ("all blue", solid(count, (0, 0, 255))),
        ("all white (dimmed by the current cap if the supply needs it)", solid(count, WHITE)),
    ]
    markers = list(blank(count))
    for segment in layout.chain:
        markers[segment.pixels[0]] = WHITE
    steps.append(("only the first pixel of every ring and bar: on every ring it should point "
                  "the same way (north)", tuple(markers)))
    return steps


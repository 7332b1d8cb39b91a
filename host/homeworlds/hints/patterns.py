"""Ring patterns: what one slot's ring shows, as a tuple of colours in ring order.

Ring order is the order the layout lists a ring's pixels ("the order patterns
run round the ring"), so position 0 is the same place on every ring of a
well-built table.
"""

from __future__ import annotations

from collections.abc import Sequence

from homeworlds.hints.animation import scale
from homeworlds.pixels import BLACK, RGB


def arc_length(section: int, size: int) -> int:
    """Pixels of a size-1/2/3 star's arc in a section of ``section`` pixels: a third,
    two thirds or all of it (never less than one pixel)."""
    return max(1, min(section, round(section * size / 3)))


def star_arcs(length: int, stars: Sequence[int], star_colors: Sequence[RGB],
              home_mark: RGB | None) -> tuple[RGB, ...]:
    """The idle ring of a system with ``stars`` (piece indices, shown in the order given).

    An ordinary system: one arc from position 0. A home (``home_mark`` is its
    owner's colour): the ring is cut into two halves, each ending in one mark
    pixel; each half shows one star's arc, so a home that lost a star keeps one
    half dark and both marks. A system with more stars is cut into as many
    sections. Levels are already in the colours passed.
    """
    sections = max(len(stars), 2 if home_mark is not None else 1)
    width = length // sections
    marks = home_mark is not None and width >= 2
    out = [BLACK] * length
    for k in range(sections):
        start = k * width
        room = width - 1 if marks else width
        if k < len(stars):
            star = stars[k]
            color = star_colors[star // 3]
            for i in range(arc_length(room, star % 3 + 1)):
                out[start + i] = color
        if marks and home_mark is not None:
            out[start + width - 1] = home_mark
    return tuple(out)


def solid(length: int, color: RGB) -> tuple[RGB, ...]:
    return (color,) * length


def dashed(length: int, color: RGB) -> tuple[RGB, ...]:
    """Every other pixel lit, starting at position 0."""
    return tuple(color if i % 2 == 0 else BLACK for i in range(length))


def split(length: int, colors: Sequence[RGB]) -> tuple[RGB, ...]:
    """The ring cut into equal arcs, one per colour in order (the last takes any rest)."""
    width = length // len(colors)
    out: list[RGB] = []
    for k, color in enumerate(colors):
        out += [color] * (width if k < len(colors) - 1 else length - width * k)
    return tuple(out)


def spinner(length: int, head: int, color: RGB, level: float) -> tuple[RGB, ...]:
    """A comet a quarter of the ring long: the head at ``level``, the tail fading
    behind it (head at ``head``, tail at ``head - 1``, ``head - 2`` ...)."""
    tail = max(1, length // 4)
    out = [BLACK] * length
    for j in range(tail):
        out[(head - j) % length] = scale(color, level * (tail - j) / tail)
    return tuple(out)


def size_marks(length: int, size: int, color: RGB, head: int = 0,
               background: RGB = BLACK) -> tuple[RGB, ...]:
    """A piece's size as marks: the ring cut into ``size`` equal sections, the first half
    of each lit in ``color`` (one mark = small, two = medium, three = large), the rest
    ``background``; the whole pattern turned by ``head`` positions."""
    size = max(1, min(3, size))
    out = [background] * length
    for k in range(size):
        start = k * length // size
        width = max(1, (length // size) // 2)
        for i in range(width):
            out[(start + i + head) % length] = color
    return tuple(out)

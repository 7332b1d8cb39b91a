"""Where a layout's pads, LED rings and bank tray lie: checked against the RF rules and drawn.

A layout file says which pad is which zone, not where it lies; hardware/geometry/LAYOUT.toml
does (millimetres on the table top). :func:`check` holds it to the rules of the build notes:

- every pad, ring and the tray inside the table top;
- 15 mm or more between neighbouring pads (hardware/README.md, section 4, "Spacing": a tag
  over a gap is read by two pads, and coils closer than that couple);
- every LED ring 10 mm or more clear of every pad's outline (hardware/rf-design.md,
  section 6: a ring's 5 V and GND annuli are closed copper loops; under a pad one shifts
  its resonance by half its bandwidth).

:func:`svg` draws the same shapes (pads by kind, rings, the top, the pitches), which
docs/hardware.md shows; ``python -m homeworlds.table.geometry`` checks both reference
layouts and writes their drawings to docs/images/.
"""

from __future__ import annotations

import math
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from homeworlds.table.board import HARDWARE_DIR
from homeworlds.table.layout import Layout, builtin_layout

GEOMETRY_DIR = HARDWARE_DIR / "geometry"
PAD_GAP_MM = 15.0
RING_CLEARANCE_MM = 10.0
#: Where a seat's ship pads lie from the star pad, by the seat's name.
DIRECTIONS = {"south": (0, -1), "north": (0, 1), "west": (-1, 0), "east": (1, 0)}
BANK_ROWS = "rygb"


class GeometryError(ValueError):
    """A geometry file that cannot be read; the message names the file and key."""


@dataclass(frozen=True, slots=True)
class Pad:
    zone: int
    kind: str  # star, ships, token, bank
    label: str
    x0: float
    y0: float
    x1: float
    y1: float

    def distance(self, other: Pad) -> float:
        """Gap between the two outlines (negative: they overlap)."""
        dx = max(other.x0 - self.x1, self.x0 - other.x1)
        dy = max(other.y0 - self.y1, self.y0 - other.y1)
        if dx < 0 and dy < 0:
            return max(dx, dy)
        return math.hypot(max(dx, 0.0), max(dy, 0.0))

    def distance_to_point(self, x: float, y: float) -> float:
        """From (x, y) to the outline: negative inside the pad."""
        dx = max(self.x0 - x, x - self.x1)
        dy = max(self.y0 - y, y - self.y1)
        if dx < 0 and dy < 0:
            return max(dx, dy)
        return math.hypot(max(dx, 0.0), max(dy, 0.0))


@dataclass(frozen=True, slots=True)
class Ring:
    slot: str
    x: float
    y: float
    radius: float


@dataclass(frozen=True, slots=True)
class Geometry:
    layout: Layout
    top: tuple[float, float]
    pads: tuple[Pad, ...]
    rings: tuple[Ring, ...]
    pitch: tuple[float, float]
    source: str


def _pair(table: dict, key: str, where: str) -> tuple[float, float]:
    value = table.get(key)
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise GeometryError(f"{where}: {key}: expected [x, y] in millimetres, got {value!r}")
    return float(value[0]), float(value[1])


def _number(table: dict, key: str, where: str) -> float:
    value = table.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise GeometryError(
            f"{where}: {key}: expected a positive number of millimetres, got {value!r}"
        )
    return float(value)


def _rect(zone: int, kind: str, label: str, x: float, y: float, size: tuple[float, float]) -> Pad:
    return Pad(
        zone, kind, label, x - size[0] / 2, y - size[1] / 2, x + size[0] / 2, y + size[1] / 2
    )


def load_geometry(
    layout: Layout | str, path: Path | str | None = None, data: dict | None = None
) -> Geometry:
    """The geometry of ``layout`` (default file: hardware/geometry/NAME.toml); ``data``:
    the file's contents already read (a test planting another design)."""
    if isinstance(layout, str):
        layout = builtin_layout(layout)
    path = Path(path) if path is not None else GEOMETRY_DIR / f"{layout.name}.toml"
    where = str(path)
    if data is None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise GeometryError(f"{where}: cannot read it ({error.strerror or error})") from None
        except tomllib.TOMLDecodeError as error:
            raise GeometryError(f"{where}: not TOML: {error}") from None
    if data.get("format") != 1:
        raise GeometryError(f"{where}: format: expected 1, got {data.get('format')!r}")
    if data.get("layout") != layout.name:
        raise GeometryError(
            f"{where}: layout: this file is for {data.get('layout')!r}, not {layout.name!r}"
        )
    top = _pair(data, "top", where)
    sizes = {
        kind: _pair(data.get("pads", {}), kind, f"{where}: pads")
        for kind in ("star", "ships", "token", "bank")
    }
    grid = data.get("map", {})
    origin = _pair(grid, "origin", f"{where}: map")
    pitch = _pair(grid, "pitch", f"{where}: map")
    offset = _number(grid, "ship_offset", f"{where}: map")
    ring_offset = _pair(grid, "ring_offset", f"{where}: map")
    radius = _number(data.get("ring", {}), "outer_diameter", f"{where}: ring") / 2
    seats = layout.seats
    for seat in seats:
        if seat.name not in DIRECTIONS:
            raise GeometryError(
                f"{where}: seat {seat.name!r} has no side of the slot (one of "
                f"{', '.join(DIRECTIONS)})"
            )
    columns = math.ceil(len(layout.slots) / 2) if len(seats) == 2 else 5
    pads: list[Pad] = []
    rings: list[Ring] = []
    for slot in layout.slots:
        row, column = divmod(slot.index, columns)
        if row % 2:
            column = columns - 1 - column  # the LED chain snakes back
        x, y = origin[0] + column * pitch[0], origin[1] + row * pitch[1]
        pads.append(_rect(slot.star_zone, "star", f"{slot.label} star", x, y, sizes["star"]))
        for seat in seats:
            dx, dy = DIRECTIONS[seat.name]
            size = sizes["ships"] if dx == 0 else (sizes["ships"][1], sizes["ships"][0])
            pads.append(
                _rect(
                    slot.ship_zone(seat.index),
                    "ships",
                    f"{slot.label} {seat.name} ships",
                    x + dx * offset,
                    y + dy * offset,
                    size,
                )
            )
        name = slot.label or f"slot {slot.index}"
        rings.append(Ring(name, x + ring_offset[0], y + ring_offset[1], radius))
    tokens = data.get("tokens", {})
    for seat in seats:
        centre = _pair(tokens, seat.name, f"{where}: tokens")
        pads.append(_rect(seat.token_zone, "token", f"{seat.name} token", *centre, sizes["token"]))
    tray = data.get("tray", {})
    tray_origin = _pair(tray, "origin", f"{where}: tray")
    tray_pitch = _pair(tray, "pitch", f"{where}: tray")
    for compartment in layout.bank:
        text = str(compartment.piece)
        colour, piece_size = text[0].lower(), int(text[1])
        x = tray_origin[0] + (piece_size - 1) * tray_pitch[0]
        y = tray_origin[1] + BANK_ROWS.index(colour) * tray_pitch[1]
        pads.append(_rect(compartment.zone, "bank", f"bank {text}", x, y, sizes["bank"]))
    return Geometry(layout, top, tuple(pads), tuple(rings), pitch, where)


def check(geometry: Geometry) -> list[str]:
    """Every broken rule, one sentence each naming the parts and the distance; [] when
    the geometry keeps them all."""
    problems: list[str] = []
    width, depth = geometry.top
    for pad in geometry.pads:
        if pad.x0 < 0 or pad.y0 < 0 or pad.x1 > width or pad.y1 > depth:
            problems.append(
                f"zone {pad.zone} ({pad.label}) reaches beyond the {width:g} x {depth:g} mm top"
            )
    pads = sorted(geometry.pads, key=lambda p: p.x0)
    for index, pad in enumerate(pads):
        for other in pads[index + 1 :]:
            if other.x0 - pad.x1 >= PAD_GAP_MM:
                break
            gap = pad.distance(other)
            if gap < PAD_GAP_MM:
                what = "overlap" if gap < 0 else f"are {gap:.1f} mm apart"
                first, second = sorted((pad, other), key=lambda p: p.zone)
                problems.append(
                    f"zone {first.zone} ({first.label}) and zone {second.zone} ({second.label}) "
                    f"{what}: at least {PAD_GAP_MM:g} mm between pads (hardware/README.md, "
                    "section 4, Spacing)"
                )
    for ring in geometry.rings:
        if (
            ring.x - ring.radius < 0
            or ring.y - ring.radius < 0
            or ring.x + ring.radius > width
            or ring.y + ring.radius > depth
        ):
            problems.append(f"the LED ring of {ring.slot} reaches beyond the top")
        for pad in geometry.pads:
            clear = pad.distance_to_point(ring.x, ring.y) - ring.radius
            if clear < RING_CLEARANCE_MM:
                where = (
                    "lies under"
                    if pad.distance_to_point(ring.x, ring.y) < 0
                    else ("overlaps" if clear < 0 else f"is {clear:.1f} mm from")
                )
                problems.append(
                    f"the LED ring of {ring.slot} {where} zone {pad.zone} ({pad.label}): its "
                    f"copper must stay {RING_CLEARANCE_MM:g} mm clear of every pad outline "
                    "(hardware/rf-design.md, section 6)"
                )
    return problems


COLOURS = {"star": "#f4d35e", "ships": "#9ecae1", "token": "#c7e9c0", "bank": "#fdd0a2"}


def svg(geometry: Geometry, scale: float = 0.5) -> str:
    """The geometry drawn to scale (``scale`` px per mm), north at the top."""
    width, depth = geometry.top
    margin = 30

    def px(x: float) -> float:
        return round(margin + x * scale, 1)

    def py(y: float) -> float:
        return round(margin + (depth - y) * scale, 1)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{px(width) + margin:g}" '
        f'height="{py(0) + margin + 20:g}" font-family="sans-serif" font-size="9">',
        f"<title>{geometry.layout.name}: pads, LED rings and bank tray (mm)</title>",
        f'<rect x="{px(0):g}" y="{py(depth):g}" width="{width * scale:g}" '
        f'height="{depth * scale:g}" '
        'fill="white" stroke="black"/>',
    ]
    for pad in geometry.pads:
        out.append(
            f'<rect x="{px(pad.x0):g}" y="{py(pad.y1):g}" width="{(pad.x1 - pad.x0) * scale:g}" '
            f'height="{(pad.y1 - pad.y0) * scale:g}" fill="{COLOURS[pad.kind]}" stroke="#555">'
            f"<title>zone {pad.zone}: {pad.label}</title></rect>"
        )
        out.append(
            f'<text x="{px((pad.x0 + pad.x1) / 2):g}" y="{py((pad.y0 + pad.y1) / 2) + 3:g}" '
            f'text-anchor="middle">{pad.zone}</text>'
        )
    for ring in geometry.rings:
        out.append(
            f'<circle cx="{px(ring.x):g}" cy="{py(ring.y):g}" r="{ring.radius * scale:g}" '
            'fill="none" '
            f'stroke="#d62728" stroke-width="2"><title>LED ring of {ring.slot}</title></circle>'
        )
    out.append(
        f'<text x="{px(0):g}" y="{py(0) + 15:g}">top {width:g} x {depth:g} mm; slot pitch '
        f"{geometry.pitch[0]:g} x {geometry.pitch[1]:g} mm; pads at least {PAD_GAP_MM:g} mm apart, "
        f"rings (red) {RING_CLEARANCE_MM:g} mm clear of every pad</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


def main(argv: list[str] | None = None) -> int:
    """Check the reference layouts' geometry and write their drawings to docs/images."""
    names = argv if argv else ["standard-2p", "four-seat"]
    failed = 0
    for name in names:
        geometry = load_geometry(name)
        problems = check(geometry)
        for problem in problems:
            print(f"{name}: {problem}")
        failed += bool(problems)
        target = IMAGES / f"geometry-{name}.svg"
        target.write_text(svg(geometry), encoding="utf-8")
        print(
            f"{name}: {len(geometry.pads)} pads, {len(geometry.rings)} rings: "
            f"{'OK' if not problems else f'{len(problems)} problem(s)'}; drawn to {target}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

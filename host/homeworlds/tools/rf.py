"""The table's 13.56 MHz antennas in numbers: inductance, Q damping, 50 Ω matching.

Formulas and where they come from (all SI units: metres, henries, farads, ohms):

* **Inductance of a rectangular loop** of round wire, high-frequency form
  (current on the conductor's surface): the Rosa–Grover formula (F. W. Grover,
  *Inductance Calculations*, 1946; as tabulated e.g. in the "Inductance"
  article of Wikipedia), :func:`loop_inductance`. A flat PCB trace of width w
  and thickness t behaves like a round wire of radius 0.2235·(w + t) (Grover's
  geometric mean distance of a rectangle), :func:`strip_radius`.
* **Closely wound coils** of N turns: N^1.8 times the loop of average size,
  the empirical exponent NXP's antenna design guides use for PCB reader
  antennas, :func:`pcb_coil_inductance`. Widely spaced turns (the ship pads)
  are computed without it, by the Neumann double line integral over the
  conductors (:func:`polyline_inductance`), which also checks the formula.
* **Antenna equivalent circuit from a measurement**, **Q damping** and the
  **EMC filter**: NXP AN145715 *PN544 Antenna Design Guide* (Rev. 1.5, 2009)
  and its calculation sheet, also the procedure of AN11740 (PN5180) and
  AN11019 (CLRC663): :func:`antenna_from_measurement`, :func:`damping_resistor`,
  :func:`emc_capacitor`, :func:`emc_transformed_impedance`. The tests
  reproduce the sheet's worked example to its printed digits.
* **Matching to 50 Ω** with a series capacitor C1 and a parallel capacitor
  C2 (the "50 Ω matched antenna" topology of NXP's guides: coax → C1 → C2
  across the damped coil), solved exactly as an L network,
  :func:`match_to_50_ohm`; :func:`input_impedance` evaluates any result.
* **Field on the axis of a rectangular loop** (Biot–Savart; K. Finkenzeller,
  *RFID Handbook*, section 4.1.1.1), :func:`field_on_axis`, and beside a long
  straight conductor, :func:`field_beside_wire`, for the tag-size reasoning in
  hardware/rf-design.md.

``python -m homeworlds.tools.rf`` prints the design table of every pad type of the
reference tables (hardware/rf-design.md quotes it; a test keeps them equal).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

MU0 = 4e-7 * math.pi
"""Permeability of free space, H/m (close enough to the 2019 SI value for design)."""
F_NFC = 13.56e6
"""The carrier frequency of ISO 15693 and ISO 14443, Hz."""
COPPER_RESISTIVITY = 1.72e-8
"""Ω·m at 20 °C."""

Point = tuple[float, float, float]


def omega(f: float = F_NFC) -> float:
    return 2 * math.pi * f


# ------------------------------------------------------------------ inductance


def loop_inductance(a: float, b: float, radius: float, *, uniform_current: bool = False) -> float:
    """Self-inductance of one rectangular loop, sides ``a`` × ``b`` (centre to centre of the
    conductor), round conductor of ``radius`` (Rosa–Grover; Y = 0 for surface current at
    high frequency, 1 for uniform current at DC)."""
    if min(a, b) <= 2 * radius or radius <= 0:
        raise ValueError(f"a {a * 1e3:g} x {b * 1e3:g} mm loop of a {radius * 1e3:g} mm radius "
                         "conductor is not a loop")
    y = 1.0 if uniform_current else 0.0
    diagonal = math.hypot(a, b)
    return MU0 / math.pi * (
        a * math.log(2 * a / radius) + b * math.log(2 * b / radius)
        - (2 - y / 2) * (a + b) + 2 * diagonal
        - a * math.asinh(a / b) - b * math.asinh(b / a))


def strip_radius(width: float, thickness: float = 35e-6) -> float:
    """Radius of the round wire with the same inductance as a flat trace (Grover's GMD of a
    rectangular cross-section, 0.2235 (w + t))."""
    return 0.2235 * (width + thickness)


def pcb_coil_inductance(outer_a: float, outer_b: float, turns: int, width: float, gap: float,
                        thickness: float = 35e-6, exponent: float = 1.8) -> float:
    """A closely wound rectangular PCB coil: the loop of average size times N^exponent."""
    shrink = turns * (width + gap)
    a, b = outer_a - shrink, outer_b - shrink
    return loop_inductance(a, b, strip_radius(width, thickness)) * turns ** exponent


def rectangle_path(a: float, b: float, z: float = 0.0, *, centre: tuple[float, float] = (0, 0)
                   ) -> list[Point]:
    """Corners of an ``a`` × ``b`` rectangle (closed: the first corner repeated last)."""
    x0, y0 = centre[0] - a / 2, centre[1] - b / 2
    x1, y1 = centre[0] + a / 2, centre[1] + b / 2
    return [(x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z), (x0, y0, z)]


def circle_path(radius: float, z: float = 0.0, *, centre: tuple[float, float] = (0, 0),
                sides: int = 48) -> list[Point]:
    return [(centre[0] + radius * math.cos(2 * math.pi * k / sides),
             centre[1] + radius * math.sin(2 * math.pi * k / sides), z)
            for k in range(sides + 1)]


def _segments(path: Sequence[Point], step: float) -> list[tuple[Point, Point]]:
    """(midpoint, vector) of pieces of at most ``step`` along a polyline."""
    pieces: list[tuple[Point, Point]] = []
    for start, end in zip(path, path[1:], strict=False):
        dx, dy, dz = (e - s for s, e in zip(start, end, strict=True))
        count = max(1, math.ceil(math.sqrt(dx * dx + dy * dy + dz * dz) / step))
        piece = (dx / count, dy / count, dz / count)
        for k in range(count):
            at = k + 0.5
            mid = (start[0] + piece[0] * at, start[1] + piece[1] * at, start[2] + piece[2] * at)
            pieces.append((mid, piece))
    return pieces


def mutual_inductance(first: Sequence[Point], second: Sequence[Point], *,
                      step: float = 2e-3) -> float:
    """Neumann's formula M = μ0/4π ∮∮ dl·dl'/r between two polylines: exact for pieces that
    are parallel (Grover's formula for parallel filaments, which is all of them in
    rectangular coils), the midpoint rule for the others."""
    one, two = _segments(first, step), _segments(second, step)
    total = 0.0
    for (m1, d1) in one:
        l1 = math.sqrt(d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2])
        for (m2, d2) in two:
            dot = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]
            if dot == 0.0:
                continue
            l2 = math.sqrt(d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2])
            if abs(abs(dot) - l1 * l2) < 1e-9 * l1 * l2:
                total += math.copysign(_parallel_filaments(m1, d1, l1, m2, d2, l2), dot)
            else:
                total += dot / math.dist(m1, m2)
    return MU0 / (4 * math.pi) * total


def _parallel_filaments(m1: Point, d1: Point, l1: float, m2: Point, d2: Point,
                        l2: float) -> float:
    """∫∫ ds ds' / r of two parallel straight pieces (without μ0/4π)."""
    unit = tuple(c / l1 for c in d1)
    # Both pieces measured along the first one's direction; the caller adds the sign.
    start1 = tuple(m - u * l1 / 2 for m, u in zip(m1, unit, strict=True))
    start2 = tuple(m - u * l2 / 2 for m, u in zip(m2, unit, strict=True))
    offset = tuple(b - a for a, b in zip(start1, start2, strict=True))
    s = sum(o * u for o, u in zip(offset, unit, strict=True))
    d = math.sqrt(max(0.0, sum(o * o for o in offset) - s * s))

    def f(x: float) -> float:
        return x * math.asinh(x / d) - math.sqrt(x * x + d * d)

    return f(s + l2) - f(s + l2 - l1) - f(s) + f(s - l1)


def polyline_inductance(path: Sequence[Point], radius: float, *, step: float = 2e-3) -> float:
    """Self-inductance of a conductor following ``path`` (a closed coil: start and end
    joined by the feed), as the mutual inductance between its centre line and the same line
    moved ``radius`` off it, the usual way round the integral's singularity."""
    moved = [(x, y, z + radius) for x, y, z in path]
    return mutual_inductance(path, moved, step=step)


def spiral_path(outer_a: float, outer_b: float, turns: int, pitch: float) -> list[Point]:
    """A rectangular spiral, outside in, turns ``pitch`` apart (centre to centre)."""
    points: list[Point] = []
    for turn in range(turns):
        inset = turn * pitch
        a, b = outer_a - 2 * inset, outer_b - 2 * inset
        x0, y0, x1, y1 = -a / 2, -b / 2, a / 2, b / 2
        points += [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
        # step in to the next turn along the left side
        points.append((x0, y0 + pitch if turn + 1 < turns else y0, 0.0))
    return points


def coupling(first: Sequence[Point], first_radius: float, second: Sequence[Point],
             second_radius: float, *, step: float = 2e-3) -> float:
    """Coupling coefficient k = M / sqrt(L1 L2) of two conductors."""
    m = mutual_inductance(first, second, step=step)
    l1 = polyline_inductance(first, first_radius, step=step)
    l2 = polyline_inductance(second, second_radius, step=step)
    return m / math.sqrt(l1 * l2)


def shorted_turn_detuning(k: float) -> float:
    """Relative drop of a coil's inductance (so rise of its resonance ~ half of it) caused by
    a closed low-resistance loop coupled with factor ``k``: L' = L (1 - k²)."""
    return k * k


# ------------------------------------------------------------------ resistance


def skin_depth(f: float = F_NFC, resistivity: float = COPPER_RESISTIVITY) -> float:
    return math.sqrt(resistivity / (math.pi * f * MU0))


def trace_resistance(length: float, width: float, thickness: float = 35e-6,
                     f: float = F_NFC) -> float:
    """AC resistance of a PCB trace: the current flows in one skin depth round its perimeter
    (an estimate: proximity of neighbouring turns adds to it; measure, see rf-design.md)."""
    depth = min(skin_depth(f), thickness / 2)
    area = 2 * (width + thickness) * depth
    return COPPER_RESISTIVITY * length / area


# ------------------------------------------------------------------ antenna equivalent circuit


@dataclass(frozen=True, slots=True)
class AntennaEquivalent:
    """The series equivalent of an antenna at the operating frequency (AN145715, 4.1)."""

    inductance: float
    """La, H (measured at 1 MHz)."""
    resistance: float
    """Ra at the operating frequency, Ω."""
    capacitance: float
    """Ca, the coil's own parallel capacitance, F."""
    parallel_resistance: float
    """Rp at the operating frequency, Ω."""
    f: float = F_NFC

    @property
    def quality(self) -> float:
        return quality(self.inductance, self.resistance, self.f)


def antenna_capacitance(inductance: float, self_resonance: float) -> float:
    """Ca = 1 / ((2π f_ra)² La)."""
    return 1.0 / (omega(self_resonance) ** 2 * inductance)


def antenna_from_measurement(inductance: float, series_resistance: float,
                             parallel_resistance_at_resonance: float, self_resonance: float,
                             f: float = F_NFC) -> AntennaEquivalent:
    """AN145715's step from a network-analyser measurement (La and Rs at 1 MHz, Rp and f_ra
    at the coil's self-resonance) to Ra at ``f``: Rp scales with the square root of
    frequency (skin effect) down to ``f``, and Ra = Rs + (ωLa)² / Rp(f)."""
    rp = parallel_resistance_at_resonance * math.sqrt(self_resonance / f)
    ra = series_resistance + (omega(f) * inductance) ** 2 / rp
    return AntennaEquivalent(inductance, ra, antenna_capacitance(inductance, self_resonance),
                             rp, f)


def quality(inductance: float, resistance: float, f: float = F_NFC) -> float:
    """Q = ωL / R."""
    return omega(f) * inductance / resistance


def damping_resistor(inductance: float, resistance: float, target_q: float, *,
                     resistors: int = 1, f: float = F_NFC) -> float:
    """The external resistance that brings the coil to ``target_q``, split over ``resistors``
    equal resistors (2 in a symmetric antenna, 1 in a 50 Ω pad): (ωL/Q - Ra) / n. Negative
    means the coil's own Q is already below the target: fit none."""
    return (omega(f) * inductance / target_q - resistance) / resistors


def emc_capacitor(inductance: float, cutoff: float) -> float:
    """C0 of the EMC low-pass filter for L0 and the chosen cut-off: 1 / ((2π f0)² L0)."""
    return 1.0 / (omega(cutoff) ** 2 * inductance)


def resonance(inductance: float, capacitance: float) -> float:
    return 1.0 / (2 * math.pi * math.sqrt(inductance * capacitance))


def emc_transformed_impedance(rmatch: float, l0: float, c0: float, f: float = F_NFC) -> complex:
    """What the antenna side sees looking back into a symmetric EMC filter (L0, C0 in each
    leg) from a reader whose driver is matched to ``rmatch`` (differential): each half is
    (Rmatch/2 + jωL0) in parallel with C0, doubled. The matching network must present the
    conjugate of this to the filter (AN145715 calculation sheet: Rtr, Xtr)."""
    w = omega(f)
    half = 1.0 / (1.0 / complex(rmatch / 2, w * l0) + complex(0, w * c0))
    return 2 * half


# ------------------------------------------------------------------ 50 Ω matching


@dataclass(frozen=True, slots=True)
class Match:
    """Series C1 (towards the coax) and parallel C2 (across the damped coil)."""

    series: float
    parallel: float


def match_to_50_ohm(inductance: float, resistance: float, *, z0: float = 50.0,
                    coil_capacitance: float = 0.0, f: float = F_NFC) -> Match:
    """C1 and C2 that make a coil of ``inductance`` with total series ``resistance`` (its own
    plus damping) look like ``z0`` at ``f``: the coil in parallel with C2 (and its own
    capacitance) has the real part z0 and an inductive rest that C1 cancels. Needs the coil's
    parallel resistance (ωL)²/R above z0."""
    w = omega(f)
    coil = complex(resistance, w * inductance)
    y = 1.0 / coil
    g = y.real
    if g * z0 >= 1.0:
        raise ValueError(f"a coil of {inductance * 1e6:.3g} µH and {resistance:.3g} Ω cannot "
                         f"be matched to {z0:g} Ω with a series and a parallel capacitor: "
                         "more turns or less damping")
    # Total susceptance B (negative: inductive) with Re(1/(g + jB)) = z0.
    b = -math.sqrt(g / z0 - g * g)
    c_parallel = (b - y.imag) / w - coil_capacitance
    reactance = -b / (g * g + b * b)  # inductive rest of the parallel combination
    if c_parallel <= 0:
        raise ValueError(f"the coil's own capacitance {coil_capacitance * 1e12:.3g} pF exceeds "
                         f"the parallel capacitance the match needs")
    return Match(series=1.0 / (w * reactance), parallel=c_parallel)


def input_impedance(inductance: float, resistance: float, match: Match, *,
                    coil_capacitance: float = 0.0, f: float = F_NFC) -> complex:
    """The impedance a coax sees at a pad: C1 in series with C2 ∥ Ca ∥ (R + jωL)."""
    w = omega(f)
    coil = complex(resistance, w * inductance)
    y = 1.0 / coil + complex(0, w * (match.parallel + coil_capacitance))
    return 1.0 / y + complex(0, -1.0 / (w * match.series))


@dataclass(frozen=True, slots=True)
class LNetwork:
    """Two elements that turn a resistive load into a target impedance.

    ``shunt_at_load``: the shunt element sits across the load (then the series one leads
    to the target); otherwise the series element is next to the load. ``series`` is a
    reactance (Ω, positive: an inductor), ``shunt`` a susceptance (S, positive: a
    capacitor)."""

    shunt_at_load: bool
    series: float
    shunt: float
    f: float = F_NFC

    def parts(self) -> tuple[str, str]:
        """The two elements as parts, e.g. ('series 277 pF', 'shunt 0.52 µH')."""
        w = omega(self.f)
        series = (f"series {self.series / w * 1e6:.3g} µH" if self.series > 0 else
                  f"series {-1 / (w * self.series) * 1e12:.3g} pF")
        shunt = (f"shunt {self.shunt / w * 1e12:.3g} pF" if self.shunt > 0 else
                 f"shunt {-1 / (w * self.shunt) * 1e6:.3g} µH")
        return series, shunt

    @property
    def capacitors_only(self) -> bool:
        return self.series < 0 and self.shunt > 0

    def impedance(self, load: float) -> complex:
        if self.shunt_at_load:
            return 1 / (1 / load + 1j * self.shunt) + 1j * self.series
        return 1 / (1 / (load + 1j * self.series) + 1j * self.shunt)


def l_networks(target: complex, load: float, f: float = F_NFC) -> list[LNetwork]:
    """Every L network (series + shunt reactance) that presents ``target`` when terminated
    by the resistance ``load``; capacitor-only solutions first."""
    solutions = []
    g = 1 / load
    if target.real <= load:  # shunt across the load lowers its resistance to target.real
        for sign in (1, -1):
            b = sign * math.sqrt(max(0.0, g / target.real - g * g))
            z1 = 1 / complex(g, b)
            solutions.append(LNetwork(True, target.imag - z1.imag, b, f))
    y_target = 1 / target
    if load <= 1 / y_target.real:  # series next to the load, shunt across the target side
        for sign in (1, -1):
            x = sign * math.sqrt(max(0.0, load / y_target.real - load * load))
            y1 = 1 / complex(load, x)
            solutions.append(LNetwork(False, x, y_target.imag - y1.imag, f))
    return sorted(solutions, key=lambda n: not n.capacitors_only)


def reader_match(rmatch: float, l0: float, c0: float, *, z0: float = 50.0,
                 f: float = F_NFC) -> list[LNetwork]:
    """The 50 Ω rework of a symmetric reader (per half of the differential circuit): the
    networks between the EMC filter (L0, C0 in each leg) and a 1:1 balun whose balanced side
    sees ``z0``, that make the driver see ``rmatch`` (differential)."""
    target = emc_transformed_impedance(rmatch, l0, c0, f).conjugate() / 2
    return l_networks(target, z0 / 2, f)


def return_loss_db(z: complex, z0: float = 50.0) -> float:
    gamma = abs((z - z0) / (z + z0))
    return math.inf if gamma == 0 else -20 * math.log10(gamma)


E12 = (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2)
E24 = (1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7,
       5.1, 5.6, 6.2, 6.8, 7.5, 8.2, 9.1)


def fit_capacitance(value: float, tolerance: float = 0.01) -> tuple[float, ...]:
    """One E24 capacitor, or two in parallel, within ``tolerance`` of ``value`` (the fewest
    parts; the closest pair if none is that close)."""
    single = nearest_standard(value)
    if abs(single / value - 1) <= tolerance:
        return (single,)
    best: tuple[float, float] | None = None
    for big in {nearest_standard(value * k) for k in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95)}:
        if big >= value:
            continue
        rest = nearest_standard(value - big)
        if best is None or abs(big + rest - value) < abs(sum(best) - value):
            best = (big, rest)
    return best if best is not None else (single,)


def nearest_standard(value: float, series: Sequence[float] = E24) -> float:
    """The nearest value of a standard series (E24 by default)."""
    if value <= 0:
        raise ValueError(f"no standard part for {value!r}")
    decade = 10 ** math.floor(math.log10(value))
    candidates = [v * decade * scale for v in series for scale in (0.1, 1, 10)]
    return min(candidates, key=lambda c: abs(math.log(c / value)))


# ------------------------------------------------------------------ fields


def field_on_axis(current: float, a: float, b: float, distance: float, turns: int = 1) -> float:
    """H (A/m) on the axis of an ``a`` × ``b`` loop at ``distance`` (Finkenzeller 4.1.1.1)."""
    ha, hb = a / 2, b / 2
    root = math.sqrt(ha * ha + hb * hb + distance * distance)
    return (turns * current * a * b / (4 * math.pi * root)
            * (1 / (ha * ha + distance * distance) + 1 / (hb * hb + distance * distance)))


def field_beside_wire(current: float, distance: float) -> float:
    """H (A/m) at ``distance`` from a long straight conductor: I / (2π r); circles the wire,
    so it is horizontal above the wire - what an upright tag (a lying ship) couples to."""
    return current / (2 * math.pi * distance)


# ------------------------------------------------------------------ the table's pads


@dataclass(frozen=True, slots=True)
class PadType:
    """A reference antenna: outer size, turns, trace, how far apart the turns are."""

    name: str
    zones: str
    outer_a: float
    outer_b: float
    turns: int
    width: float
    pitch: float
    """Centre-to-centre distance of neighbouring turns."""
    note: str = ""

    @property
    def spread(self) -> bool:
        """Turns far apart: the N^1.8 formula does not hold, integrate instead."""
        return self.pitch > 4 * self.width

    def path(self) -> list[Point]:
        return spiral_path(self.outer_a, self.outer_b, self.turns, self.pitch)

    def length(self) -> float:
        path = self.path()
        return sum(math.dist(p, q) for p, q in zip(path, path[1:], strict=False))


PAD_TYPES = (
    PadType("star pad", "star zones", 70e-3, 70e-3, 3, 1.0e-3, 2.0e-3,
            "two stars side by side, standing: tags flat on the pad"),
    PadType("ship pad", "ship zones", 120e-3, 100e-3, 3, 1.5e-3, 18e-3,
            "turns 18 mm apart so that an upright tag of a lying ship is near a conductor"),
    PadType("token pad", "token zones", 50e-3, 50e-3, 3, 1.0e-3, 2.0e-3,
            "one flat tag under the turn token"),
    PadType("bank compartment", "bank zones", 80e-3, 60e-3, 3, 1.0e-3, 2.0e-3,
            "3 (5) standing pieces side by side"),
)

TARGET_Q = 25.0
"""ISO 15693's 26 kbit/s replies need some bandwidth: Q 20-30 (hardware/README.md)."""
PIN_DIODE_RESISTANCE = 1.0
"""Forward resistance of the pad's PIN diode at ~15 mA bias, Ω (BAP64-02 class: measure)."""
BIAS_CHOKE = 10e-6
"""The pad's bias choke across C1, H: C1 is enlarged to keep the same series reactance."""
DESIGN_POWER = 0.5
"""RF power into a pad the component ratings are sized for, W (measure the reader's)."""


@dataclass(frozen=True, slots=True)
class PadDesign:
    pad: PadType
    inductance: float
    """Integrated over the conductors (:func:`polyline_inductance`)."""
    formula_inductance: float
    """NXP's N^1.8 formula, for comparison (meaningless for spread turns)."""
    coil_resistance: float
    damping: float
    c1: float
    c2: float
    c1_parts: tuple[float, ...]
    c2_parts: tuple[float, ...]
    z_with_parts: complex
    coil_voltage: float
    damping_power: float

    @property
    def quality(self) -> float:
        return quality(self.inductance, self.coil_resistance + self.damping
                       + PIN_DIODE_RESISTANCE)


@functools.cache
def design_pad(pad: PadType, *, target_q: float = TARGET_Q, f: float = F_NFC) -> PadDesign:
    radius = strip_radius(pad.width)
    inductance = polyline_inductance(pad.path(), radius)
    formula = pcb_coil_inductance(pad.outer_a, pad.outer_b, pad.turns, pad.width,
                                  pad.pitch - pad.width)
    coil_resistance = trace_resistance(pad.length(), pad.width, f=f)
    damping = max(0.0, damping_resistor(inductance, coil_resistance + PIN_DIODE_RESISTANCE,
                                        target_q, f=f))
    total = coil_resistance + PIN_DIODE_RESISTANCE + damping
    match = match_to_50_ohm(inductance, total, f=f)
    # The bias choke across C1 cancels part of its reactance: a bigger C1 makes up for it.
    choke = 1.0 / (omega(f) ** 2 * BIAS_CHOKE)
    c1 = match.series + choke
    c1_parts, c2_parts = fit_capacitance(c1), fit_capacitance(match.parallel)
    used = Match(series=sum(c1_parts) - choke, parallel=sum(c2_parts))
    z = input_impedance(inductance, total, used, f=f)
    current = math.sqrt(DESIGN_POWER / total)
    return PadDesign(pad, inductance, formula, coil_resistance, damping, match.series,
                     match.parallel, c1_parts, c2_parts, z, current * omega(f) * inductance,
                     current * current * damping)


def _pf(parts: tuple[float, ...]) -> str:
    return " + ".join(f"{part * 1e12:.3g}" for part in parts) + " pF"


def design_table() -> str:
    """The Markdown table of every reference pad type (hardware/rf-design.md, section 3)."""
    rows = ["| pad | outer size | turns × trace, pitch | L integrated (N^1.8 formula) | "
            "R coil (est.) | R damping | Q | C1 exact → parts | C2 exact → parts | "
            f"Z with those parts | coil V at {DESIGN_POWER:g} W | damping P |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for pad in PAD_TYPES:
        d = design_pad(pad)
        z = d.z_with_parts
        formula = "n/a: spread turns" if pad.spread else f"{d.formula_inductance * 1e6:.2f} µH"
        rows.append(
            f"| {pad.name} | {pad.outer_a * 1e3:.0f} × {pad.outer_b * 1e3:.0f} mm | "
            f"{pad.turns} × {pad.width * 1e3:.1f} mm, {pad.pitch * 1e3:.0f} mm | "
            f"{d.inductance * 1e6:.2f} µH ({formula}) | "
            f"{d.coil_resistance:.2f} Ω | {d.damping:.1f} Ω | {d.quality:.0f} | "
            f"{d.c1 * 1e12:.1f} pF + choke → {_pf(d.c1_parts)} | "
            f"{d.c2 * 1e12:.1f} pF → {_pf(d.c2_parts)} | "
            f"{z.real:.1f} {'+' if z.imag >= 0 else '−'} j{abs(z.imag):.1f} Ω "
            f"(return loss {return_loss_db(z):.0f} dB) | {d.coil_voltage:.0f} V rms | "
            f"{d.damping_power:.2f} W |")
    return "\n".join(rows)


RING_RADIUS = 19e-3
"""Mean radius of the copper annuli of a 16-pixel WS2812B ring (44.5 mm outside)."""
RING_CLEARANCE = 10e-3
"""Closed copper must stay at least this far outside every antenna's outline."""


def ring_figures() -> list[tuple[str, float]]:
    """(placement, k) of a closed LED-ring annulus and the star pad's coil."""
    star = PAD_TYPES[0]
    coil, radius = star.path(), strip_radius(star.width)
    half = star.outer_a / 2
    placements = [
        ("centred under the star pad, 3 mm below", (0.0, 0.0)),
        ("beside the pad, 10 mm clear of its outline", (half + RING_CLEARANCE + RING_RADIUS, 0)),
        ("beside the pad, 25 mm clear of its outline", (half + 25e-3 + RING_RADIUS, 0.0)),
    ]
    return [(label, coupling(coil, radius, circle_path(RING_RADIUS, -3e-3, centre=centre,
                                                       sides=32), 1.5e-3, step=3e-3))
            for label, centre in placements]


def ring_table() -> str:
    rows = ["| closed ring annulus | coupling k | pad inductance drop k² | resonance shift | "
            f"vs. bandwidth at Q {TARGET_Q:g} |", "|---|---|---|---|---|"]
    bandwidth = 1 / TARGET_Q
    for label, k in ring_figures():
        drop = shorted_turn_detuning(k)
        shift = 1 / math.sqrt(1 - drop) - 1
        rows.append(f"| {label} | {abs(k):.3f} | {drop:.2%} | +{shift * F_NFC / 1e3:.0f} kHz | "
                    f"{shift / bandwidth:.0%} of it |")
    return "\n".join(rows)


def pad_current(pad: PadType, power: float = DESIGN_POWER) -> float:
    d = design_pad(pad)
    return math.sqrt(power / (d.coil_resistance + d.damping + PIN_DIODE_RESISTANCE))


def tag_table() -> str:
    """Coupling of stacked tags and the fields tags see, for two inlay sizes."""
    ship, star = PAD_TYPES[1], PAD_TYPES[0]
    ship_current, star_current = pad_current(ship), pad_current(star)
    inner = star.outer_a - star.turns * star.pitch
    rows = ["| inlay | k of two stacked tags 4 mm / 8 mm apart | upright tag (lying ship): "
            "horizontal H at its centre above a ship-pad conductor | flat tag (star): "
            "vertical H 3 mm / 30 mm above the star pad's centre |",
            "|---|---|---|---|"]
    for diameter in (12e-3, 20e-3):
        # The inlay's coil runs about 85 % of its diameter; centre height of an upright tag:
        # its radius plus a 3 mm table top.
        loop = diameter / 2 * 0.85
        ks = [coupling(circle_path(loop, 0.0, sides=24), 1e-4,
                       circle_path(loop, gap, sides=24), 1e-4, step=1e-3)
              for gap in (4e-3, 8e-3)]
        height = diameter / 2 + 3e-3
        upright = field_beside_wire(ship_current, height)
        flat = [field_on_axis(star_current, inner, inner, h, star.turns) for h in (3e-3, 30e-3)]
        rows.append(f"| Ø {diameter * 1e3:.0f} mm | {ks[0]:.2f} / {ks[1]:.2f} | "
                    f"{upright:.1f} A/m at {height * 1e3:.0f} mm | "
                    f"{flat[0]:.1f} / {flat[1]:.1f} A/m |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m homeworlds.tools.rf", description=(
        "Without a command: the design tables of hardware/rf-design.md. 'reader': the 50 ohm "
        "rework of a PN5180 module from its EMC filter. 'antenna': a measured coil's "
        "equivalent circuit, damping and match."))
    sub = parser.add_subparsers(dest="command")
    reader = sub.add_parser("reader", help="L networks for the reader's 50 ohm rework")
    reader.add_argument("--l0", type=float, required=True, help="EMC inductor of one leg, nH")
    reader.add_argument("--c0", type=float, required=True, help="EMC capacitor of one leg, pF")
    reader.add_argument("--rmatch", type=float, required=True,
                        help="differential load the driver should see, ohm (AN11740)")
    antenna = sub.add_parser("antenna", help="from a network-analyser measurement of a coil")
    antenna.add_argument("--la", type=float, required=True, help="inductance at 1 MHz, µH")
    antenna.add_argument("--rs", type=float, required=True, help="resistance at 1 MHz, ohm")
    antenna.add_argument("--rp", type=float, required=True,
                         help="parallel resistance at self-resonance, ohm")
    antenna.add_argument("--fres", type=float, required=True, help="self-resonance, MHz")
    antenna.add_argument("--q", type=float, default=TARGET_Q, help="target Q")
    args = parser.parse_args(argv)
    if args.command == "reader":
        for network in reader_match(args.rmatch, args.l0 * 1e-9, args.c0 * 1e-12):
            where = "across the load" if network.shunt_at_load else "at the EMC filter output"
            series, shunt = network.parts()
            print(f"per TX leg: {series}, {shunt} ({where})"
                  + ("  <- capacitors only" if network.capacitors_only else ""))
        return 0
    if args.command == "antenna":
        coil = antenna_from_measurement(args.la * 1e-6, args.rs, args.rp, args.fres * 1e6)
        damping = damping_resistor(coil.inductance, coil.resistance + PIN_DIODE_RESISTANCE,
                                   args.q)
        total = coil.resistance + PIN_DIODE_RESISTANCE + max(0.0, damping)
        match = match_to_50_ohm(coil.inductance, total, coil_capacitance=coil.capacitance)
        print(f"Ra = {coil.resistance:.3f} ohm, Ca = {coil.capacitance * 1e12:.2f} pF, "
              f"Q = {coil.quality:.1f}; RQ = {damping:.2f} ohm for Q {args.q:g} "
              f"(with {PIN_DIODE_RESISTANCE:g} ohm of PIN diode); C1 = "
              f"{(match.series + 1 / (omega() ** 2 * BIAS_CHOKE)) * 1e12:.1f} pF "
              f"(with the bias choke), C2 = {match.parallel * 1e12:.1f} pF")
        return 0
    print(design_table())
    print()
    print(ring_table())
    print()
    print(tag_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


"""The antenna calculator against a published worked example and independent checks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from homeworlds.tools import rf

DOC = Path(__file__).resolve().parents[2] / "hardware" / "rf-design.md"


# ---------------------------------------------------------------- NXP AN145715 worked example
#
# NXP AN145715 "PN544 Antenna Design Guide", Rev. 1.5 (28 August 2009), section 4.1 and the
# calculation sheet that goes with it. Its example antenna, measured with a network analyser:
# La = 1.260 µH and Rs = 1.200 Ω at 1 MHz, Rp = 1.329 kΩ at the self-resonance fra =
# 41.66 MHz. The sheet prints: Rp(13.56 MHz) = 2.329 kΩ, Ra = 6.147 Ω, Ca = 1.158E-11 F,
# Qa = 17.463, and for a target Q of 30, RQ = -1.284 Ω (each of the two damping resistors;
# negative: none needed). Its tuned antenna (step 3): La = 1.809 µH, Rs = 1.410 Ω,
# Rp = 2.461 kΩ at fra = 41.36 MHz -> Rp(13.56 MHz) = 4.298 kΩ, Ra = 6.938 Ω,
# Ca = 8.186E-12 F, Qa = 22.216. EMC filter: L0 = 560 nH, fr0 = 15.5 MHz -> C0 calculated
# 1.883E-10 F; with C0 = 180 pF chosen, f_res EMC = 15.85 MHz; with Rmatch = 80 Ω the
# transformed impedance is Rtr = 178.5 Ω, Xtr = -52.36 Ω.


def test_antenna_equivalent_circuit_of_the_an145715_example():
    antenna = rf.antenna_from_measurement(1.260e-6, 1.200, 1.329e3, 41.66e6)
    assert antenna.parallel_resistance == pytest.approx(2.329e3, abs=0.5)
    assert antenna.resistance == pytest.approx(6.147, abs=0.0005)
    assert antenna.capacitance == pytest.approx(1.158e-11, abs=0.0005e-11)
    assert antenna.quality == pytest.approx(17.463, abs=0.0005)
    assert rf.damping_resistor(1.260e-6, antenna.resistance, 30, resistors=2) == \
        pytest.approx(-1.284, abs=0.0005)


def test_the_tuned_antenna_of_the_an145715_example():
    antenna = rf.antenna_from_measurement(1.809e-6, 1.410, 2.461e3, 41.36e6)
    assert antenna.parallel_resistance == pytest.approx(4.298e3, abs=0.5)
    # The sheet computes from unrounded measurements; from its 4-digit printed inputs the
    # last printed digit of Ca, Ra and Qa can differ by 1-2.
    assert antenna.capacitance == pytest.approx(8.186e-12, abs=0.002e-12)
    assert antenna.resistance == pytest.approx(6.938, abs=0.002)
    assert antenna.quality == pytest.approx(22.216, abs=0.005)


def test_emc_filter_of_the_an145715_example():
    assert rf.emc_capacitor(560e-9, 15.5e6) == pytest.approx(1.883e-10, abs=0.0005e-10)
    assert rf.resonance(560e-9, 180e-12) == pytest.approx(15.85e6, abs=0.005e6)
    z = rf.emc_transformed_impedance(80, 560e-9, 180e-12)
    assert z.real == pytest.approx(178.5, abs=0.05)
    assert z.imag == pytest.approx(-52.36, abs=0.005)


# ---------------------------------------------------------------- inductance


@pytest.mark.parametrize(("a", "b", "radius"), [
    (0.100, 0.100, 0.5e-3), (0.070, 0.050, 0.3e-3), (0.120, 0.100, 0.4e-3), (0.05, 0.02, 0.2e-3)])
def test_the_loop_formula_agrees_with_the_neumann_integral(a, b, radius):
    formula = rf.loop_inductance(a, b, radius)
    integral = rf.polyline_inductance(rf.rectangle_path(a, b), radius)
    assert integral == pytest.approx(formula, rel=0.002)


def test_a_circular_loop_integrates_to_the_textbook_value():
    # A circle of radius R, wire radius a, high frequency: L = μ0 R (ln(8R/a) - 2).
    big, wire = 22e-3, 0.5e-3
    expected = rf.MU0 * big * (math.log(8 * big / wire) - 2)
    assert rf.polyline_inductance(rf.circle_path(big, sides=360), wire, step=0.5e-3) == \
        pytest.approx(expected, rel=0.005)


def test_a_square_loop_of_10_cm_is_about_360_nh():
    # Any inductance table: a 10 cm square of 1 mm wire is a few hundred nH.
    assert rf.loop_inductance(0.1, 0.1, 0.5e-3) == pytest.approx(362e-9, rel=0.01)
    assert rf.loop_inductance(0.1, 0.1, 0.5e-3, uniform_current=True) > \
        rf.loop_inductance(0.1, 0.1, 0.5e-3)


def test_a_loop_thinner_than_its_wire_is_refused():
    with pytest.raises(ValueError, match="not a loop"):
        rf.loop_inductance(1e-3, 1e-3, 1e-3)


# ---------------------------------------------------------------- matching and damping


@pytest.mark.parametrize(("inductance", "resistance"),
                         [(1.0e-6, 3.0), (1.57e-6, 5.3), (0.5e-6, 1.0)])
def test_the_match_makes_exactly_50_ohm(inductance, resistance):
    match = rf.match_to_50_ohm(inductance, resistance)
    z = rf.input_impedance(inductance, resistance, match)
    assert z.real == pytest.approx(50.0, abs=1e-6) and z.imag == pytest.approx(0.0, abs=1e-6)
    # With Q >> 1 the two capacitors together resonate the coil (NXP's approximation).
    together = match.series + match.parallel
    assert together == pytest.approx(1 / (rf.omega() ** 2 * inductance), rel=0.05)
    # ... and C1 is about 1 / (ω sqrt(Rp · 50)), Rp the coil's parallel resistance.
    rp = (rf.omega() * inductance) ** 2 / resistance
    assert match.series == pytest.approx(1 / (rf.omega() * math.sqrt(rp * 50)), rel=0.05)


def test_the_coils_own_capacitance_comes_off_c2():
    bare = rf.match_to_50_ohm(1e-6, 3.0)
    with_ca = rf.match_to_50_ohm(1e-6, 3.0, coil_capacitance=5e-12)
    assert bare.parallel - with_ca.parallel == pytest.approx(5e-12)
    z = rf.input_impedance(1e-6, 3.0, with_ca, coil_capacitance=5e-12)
    assert abs(z - 50) < 1e-6


def test_an_unmatchable_coil_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="cannot be matched to 50 Ω"):
        rf.match_to_50_ohm(0.1e-6, 20.0)


def test_damping_brings_the_pad_to_its_target_q():
    for pad in rf.PAD_TYPES:
        design = rf.design_pad(pad)
        assert design.quality == pytest.approx(rf.TARGET_Q, rel=1e-6)
        assert abs(design.z_with_parts - 50) < 10  # standard parts: within 10 Ω
        assert rf.return_loss_db(design.z_with_parts) > 20


@pytest.mark.parametrize("value", [27.3e-12, 59.2e-12, 96.5e-12, 104.8e-12, 1.0e-9])
def test_capacitors_are_fitted_within_one_percent(value):
    parts = rf.fit_capacitance(value)
    assert 1 <= len(parts) <= 2
    assert sum(parts) == pytest.approx(value, rel=0.01)


# ---------------------------------------------------------------- fields and closed copper


def test_field_at_the_centre_of_a_square_loop():
    # Biot-Savart: H = 2 sqrt(2) I / (π a) at the centre of a square of side a.
    assert rf.field_on_axis(1.0, 0.1, 0.1, 0.0) == pytest.approx(2 * math.sqrt(2) / (math.pi * 0.1))
    assert rf.field_on_axis(1.0, 0.1, 0.1, 0.05) < rf.field_on_axis(1.0, 0.1, 0.1, 0.0)


def test_a_closed_ring_under_a_star_pad_detunes_it_and_one_beside_it_does_not():
    (_, under), (_, beside), (_, far) = rf.ring_figures()
    assert abs(under) > 0.15          # a shorted turn right where the stars stand
    assert abs(beside) < 0.04         # the placement rule: 10 mm clear of the outline
    assert abs(far) < abs(beside)
    assert rf.shorted_turn_detuning(under) > 0.03 > 0.002 > rf.shorted_turn_detuning(beside)


# ---------------------------------------------------------------- the design document


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_design_document_quotes_the_calculator(doc):
    """hardware/rf-design.md shows what `python -m homeworlds.tools.rf` computes, digit for
    digit."""
    for table in (rf.design_table(), rf.ring_table(), rf.tag_table()):
        assert table in doc, f"hardware/rf-design.md is out of date; paste:\n{table}"


def test_the_design_document_marks_what_needs_the_bench(doc):
    assert "needs bench measurement" in doc.lower() or "bench:" in doc.lower()
    assert "homeworlds pad-test" in doc


# ---------------------------------------------------------------- L networks, reader rework


@pytest.mark.parametrize(("target", "load"), [
    (complex(89.2, 26.2), 25.0), (complex(10, -5), 50.0), (complex(50, 0), 12.5),
    (complex(200, 80), 50.0)])
def test_every_l_network_presents_the_target(target, load):
    networks = rf.l_networks(target, load)
    assert networks
    for network in networks:
        assert abs(network.impedance(load) - target) < 1e-9


def test_the_reader_rework_makes_the_driver_see_rmatch():
    l0, c0, rmatch = 560e-9, 180e-12, 80.0
    w = rf.omega()
    for network in rf.reader_match(rmatch, l0, c0):
        z_a = network.impedance(25.0)                       # half of the balanced 50 Ω
        z_c0 = 1 / complex(0, w * c0)
        seen = complex(0, w * l0) + 1 / (1 / z_c0 + 1 / z_a)  # through the EMC filter
        assert abs(seen - rmatch / 2) < 1e-9
    parts = [network.parts() for network in rf.reader_match(rmatch, l0, c0)]
    assert ("series 0.498 µH", "shunt 170 pF") in parts

"""``homeworlds bringup-timing``: the firmware's timing bench on the simulated board
measures the costs the board was built with, and the command writes them as a costs
file the timing model reads (issue 25, item 6)."""

from __future__ import annotations

import pytest

from homeworlds import cli
from homeworlds.bringup.timing import TimingError, measured_costs, read_lines, simulated_lines
from homeworlds.table.board import describe
from homeworlds.table.layout import builtin_layout
from homeworlds.table.scancosts import load_costs


@pytest.fixture(scope="module")
def lines():
    return simulated_lines("standard-2p")


def test_the_bench_measures_the_costs_the_simulated_board_has(lines):
    run = read_lines(lines)
    likely = load_costs().band("likely")
    frame = run.measured["command_frame_us"].likely
    # The frame's overhead plus its 6 bytes at 7 MHz (6.9 us).
    assert likely["command_frame_us"] <= frame <= likely["command_frame_us"] + 10
    assert (
        likely["register_read_us"]
        <= run.measured["register_read_us"].likely
        <= likely["register_read_us"] + 10
    )
    assert run.measured["bus_lock_us"].likely == pytest.approx(likely["bus_lock_us"], abs=2)
    assert run.measured["clock_read_us"].likely == pytest.approx(likely["clock_read_us"], abs=1)
    assert run.measured["pin_read_us"].likely == pytest.approx(likely["pin_read_us"], abs=1)
    # The relay sweep finds the simulated relay's operate + bounce time (hardware/parts.toml).
    relay = describe(builtin_layout("standard-2p")).mux.relay
    assert abs(run.measured["relay_settle_us"].likely - relay.settle_us) <= 300
    # What CPython cannot show on a simulated board is said, not made up.
    assert set(run.unmeasured) == {"zone_us", "gc_pause_us", "gc_every_ms"}
    assert "no gc" in run.unmeasured["gc_pause_us"]


def test_another_pad_can_be_measured_and_a_pad_without_its_tag_says_so():
    run = read_lines(simulated_lines("standard-2p", zone=1))
    assert "zone 1 channel 1" in run.board and "relay_settle_us" in run.measured
    empty = read_lines(simulated_lines("standard-2p", tag=False))
    assert "relay_settle_us" not in empty.measured
    assert "put one tag on the pad" in empty.unmeasured["relay_settle_us"]
    assert "put one tag on the pad" in empty.unmeasured["field_settle_us"]


def test_the_command_writes_a_costs_file_the_timing_model_reads(tmp_path, capsys, lines):
    out = tmp_path / "measured.toml"
    assert cli.main(["bringup-timing", "--simulate", "standard-2p", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "TIMING END" in printed and "written: " in printed
    costs = load_costs(out)
    reference = load_costs()
    assert costs.costs["command_frame_us"].source.startswith(
        "measured by homeworlds bringup-timing"
    )
    assert "not measured on this board" in costs.costs["gc_pause_us"].assumed
    assert costs.band("likely")["gc_pause_us"] == reference.band("likely")["gc_pause_us"]
    assert costs.band("likely")["command_frame_us"] != reference.band("likely")["command_frame_us"]


def test_saved_console_output_is_read_and_a_cut_run_refused(tmp_path, capsys, lines):
    saved = tmp_path / "console.txt"
    saved.write_text("Auto-reload is off.\ncode.py output:\n" + "\n".join(lines) + "\n")
    assert (
        cli.main(["bringup-timing", "--from-file", str(saved), "-o", str(tmp_path / "a.toml")]) == 0
    )
    saved.write_text("\n".join(lines[:5]) + "\n")
    assert (
        cli.main(["bringup-timing", "--from-file", str(saved), "-o", str(tmp_path / "b.toml")]) == 1
    )
    assert "did not finish" in capsys.readouterr().err
    assert not (tmp_path / "b.toml").exists()


def test_garbled_lines_are_named():
    with pytest.raises(TimingError, match="line 2: figures are not numbers"):
        read_lines(["TIMING BOARD x", "TIMING clock_read_us a b c 5", "TIMING END"])
    with pytest.raises(TimingError, match="unknown cost 'spi_us'"):
        read_lines(["TIMING spi_us 1 2 3 4", "TIMING END"])
    run = read_lines(["TIMING clock_read_us 10 12 20 100", "TIMING END"])
    costs = measured_costs(run, load_costs(), "today")
    assert (costs.costs["clock_read_us"].low, costs.costs["clock_read_us"].high) == (10, 20)

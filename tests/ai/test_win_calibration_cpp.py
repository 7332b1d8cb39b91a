"""benchmarks/win_calibration.py scores the C++ engine's ``rate_position`` beside the
model (docs/analysis.md). The real program is built outside the repository and is not
part of CI: ``fake_rate_position.py`` answers as it does (its rating is the last mover's
view, reached by ``pass`` for seat 1), so the glue is checked without it."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path

import pytest

from homeworlds.ai.analysis import bundled_model, material
from homeworlds.ai.calibration import brier, log_loss, sigmoid
from tests.shared import DATA, REPO

FAKE = Path(__file__).resolve().parent / "fake_rate_position.py"


def _load():
    spec = importlib.util.spec_from_file_location(
        "win_calibration", REPO / "benchmarks" / "win_calibration.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load()


@pytest.fixture
def engine(tmp_path, monkeypatch):
    """A build directory whose homeworlds-cli is the fake; returns a function setting its
    plan and giving the program."""
    program = tmp_path / "homeworlds-cli"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)

    def plan(step: str = "") -> Path:
        monkeypatch.setenv("FAKE_RATE_PLAN", step)
        return bench.cpp_program(tmp_path)
    return plan


def _positions(name: str = "3426"):
    (_, states), = bench.positions(DATA, [name])
    return states


def test_the_rating_is_seat_zeros_view_whoever_is_to_move(engine):
    program = engine()
    states = _positions()[:6]
    assert {s.to_move for s in states} == {0, 1}
    for state in states:
        pips = material(state)
        # The program rates for the last mover (+7 its bias): seat 0 is the last mover
        # after the "pass" that hands the move to seat 1, else its view is the negation.
        last_mover_bias = 7 if state.to_move == 1 else -7
        assert bench.cpp_rating(program, state) == 100 * (pips[0] - pips[1]) + last_mover_bias


def test_the_program_is_fed_the_position_then_pass_for_seat_one():
    first, second = _positions()[:2]
    assert first.to_move == 0 and second.to_move == 1
    assert bench.rate_position_input(first) == (
        "jeep (0, b2y3) g3-\nDanner (1, y1g1) -r3\n\nrate_position\n")
    assert bench.rate_position_input(second).endswith("\n\npass\nrate_position\n")


def test_a_program_that_fails_or_answers_text_is_reported(engine):
    state = _positions()[0]
    with pytest.raises(bench.CppEngineError, match="exited with status 3.*assertion failed"):
        bench.cpp_rating(engine("exit"), state)
    with pytest.raises(bench.CppEngineError, match="not a number"):
        bench.cpp_rating(engine("garbage"), state)


def test_held_out_positions_are_scored_by_rate_position_beside_model_and_material(engine):
    labels = bench.result_games(DATA)
    names = ["3426", "35994"]
    # Probability = sigmoid(rating / 100): the fake's rating is 100 x pips +- its bias of 7.
    cpp = bench.CppBaseline(engine(), phases={p: (0.0, 1.0, 0.0) for p, _ in bench.PHASES})
    figures = bench.report(bundled_model(), DATA, names, labels, cpp)
    without = bench.report(bundled_model(), DATA, names, labels)
    assert not cpp.failures
    states = [(s, labels[n]) for n in names for s in _positions(n)]
    forecasts = [sigmoid(material(s)[0] - material(s)[1] + (0.07 if s.to_move else -0.07))
                 for s, _ in states]
    ys = [y for _, y in states]
    assert figures["all"]["positions"] == without["all"]["positions"] == len(states)
    assert figures["all"]["brier_cpp"] == round(brier(forecasts, ys), 4)
    assert figures["all"]["log_loss_cpp"] == round(log_loss(forecasts, ys), 4)
    assert figures["all"]["brier"] == without["all"]["brier"]
    assert bench.beats_baseline(figures, "cpp") == [
        p for p, f in figures.items()
        if not (f["brier"] < f["brier_cpp"] and f["log_loss"] < f["log_loss_cpp"])]


def test_positions_it_cannot_rate_are_left_out_of_every_column(engine):
    labels = bench.result_games(DATA)
    cpp = bench.CppBaseline(engine("garbage"), phases={p: (0.0, 1.0, 0.0)
                                                       for p, _ in bench.PHASES})
    assert bench.report(bundled_model(), DATA, ["3426"], labels, cpp) == {}
    name, ply, reason = cpp.failures[0]
    assert len(cpp.failures) == len(_positions()) and name == "3426" and ply > 0
    assert "not a number" in reason


def test_fitting_gives_each_phase_a_logistic_on_the_rating_and_the_turn(engine):
    labels = bench.result_games(DATA)
    cpp = bench.CppBaseline(engine())
    cpp.fit(DATA, ["3426", "6980", "28841", "35994"], labels)
    assert set(cpp.phases) == {"opening", "middle game"}  # no game here reaches turn 35
    assert all(len(w) == 3 for w in cpp.phases.values())


def test_without_a_build_it_says_it_is_skipped_and_how_to_build_one(monkeypatch, capsys):
    monkeypatch.delenv("QUUX_DIR", raising=False)
    assert bench.main(["--shared", str(DATA)]) in (0, 1)
    err = capsys.readouterr().err
    assert "rate_position is skipped: no build given" in err
    assert 'make -C /tmp/hw-cpp homeworlds-cli CXXFLAGS="-std=c++14 -include utility"' in err


def test_a_missing_build_is_named(tmp_path, capsys):
    assert bench.main(["--shared", str(DATA), "--cpp-engine", str(tmp_path)]) == 2
    assert f"--cpp-engine {tmp_path}: no executable homeworlds-cli there" \
        in capsys.readouterr().err

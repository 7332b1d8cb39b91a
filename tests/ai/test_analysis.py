"""The calibrated win probability (homeworlds.ai.analysis, docs/analysis.md)."""

from __future__ import annotations

import json
import math
import random

import pytest

from homeworlds.ai.analysis import (
    FEATURES,
    PHASES,
    WinModel,
    bundled_model,
    features,
    phase_of,
    win_probability,
)
from homeworlds.ai.calibration import brier, fit_logistic, log_loss, predict, sigmoid
from homeworlds.cli import main
from tests.ai.helpers import position
from tests.shared import DATA, REPO, shared_path


def test_fit_recovers_the_coefficients_of_a_known_logistic_law():
    rng = random.Random(4)
    truth = (0.5, 2.0, -1.0)
    rows, labels = [], []
    for _ in range(4000):
        x = (rng.gauss(0, 1), rng.gauss(0, 1))
        rows.append(x)
        labels.append(1 if rng.random() < predict(truth, x) else 0)
    got = fit_logistic(rows, labels, ridge=0.0)
    for want, have in zip(truth, got, strict=True):
        assert have == pytest.approx(want, abs=0.15)


def test_scores_of_known_forecasts():
    assert brier([0.5, 0.5], [1, 0]) == 0.25
    assert log_loss([0.5, 0.5], [1, 0]) == pytest.approx(math.log(2))
    assert brier([1.0, 0.0], [1, 0]) == 0.0
    # A certain forecast that is wrong is bounded, not infinite.
    assert math.isfinite(log_loss([1.0], [0]))
    assert sigmoid(-800) == 0.0 and sigmoid(800) == 1.0
    with pytest.raises(ValueError, match="2 forecasts but 1 outcomes"):
        brier([0.1, 0.2], [1])


def test_bundled_model_has_every_phase_and_says_how_it_was_made():
    model = bundled_model()
    assert model.features == FEATURES
    assert {p for p, _ in PHASES} <= set(model.phases) and set(model.baseline) == set(
        model.phases)
    assert "win_calibration.py --write" in model.provenance["command"]
    assert 0.4 < model.first_player_rate < 0.6
    # The evaluation pushes toward the side it favours in every phase; a win in one does
    # too once such wins are common enough to be learnt (hardly any in the opening).
    for phase, _ in PHASES:
        weights = dict(zip(FEATURES, model.phases[phase][1:], strict=True))
        assert weights["evaluation"] > 0
        assert phase == "opening" or weights["win_in_one"] > 0


def test_a_broken_model_file_is_refused_with_the_reason():
    data = bundled_model().to_json()
    del data["phases"]["endgame"]
    with pytest.raises(ValueError, match="no weights for the endgame"):
        WinModel.from_json(data)
    with pytest.raises(ValueError, match="not a win model"):
        WinModel.from_json({"features": 3})
    assert WinModel.from_json(json.loads(json.dumps(bundled_model().to_json()))) == \
        WinModel.from_json(bundled_model().to_json())


AHEAD = """
    Alice (0, g1b3) g3y3r3y1-
    Bob (1, r2y1) -g1
    Far (b2) r3-
"""
BEHIND = """
    Alice (0, r2y1) g1-
    Bob (1, g1b3) -g3y3r3y1
    Far (b2) -r3
"""


def test_the_side_far_ahead_is_favoured_whoever_is_to_move():
    for to_move in (0, 1):
        state = position(AHEAD, to_move=to_move)
        assert win_probability(state) > 0.8
        assert win_probability(position(BEHIND, to_move=to_move)) < 0.2


def test_a_win_in_one_for_the_player_to_move_counts():
    # Bob's one-star home holds three green pieces; Alice has yellow at home and a g1 one
    # jump away: moving it in makes four greens, and the catastrophe takes Bob's home.
    state = position("""
        Alice (0, y2b1) g1r3-
        Bob (1, g3) -g2g1
    """, to_move=0)
    values = features(state)
    assert values["win_in_one"] == 1.0
    assert win_probability(state) > bundled_model().baseline_probability(state)


def test_decided_and_setup_positions():
    state = position(AHEAD, to_move=0)
    assert phase_of(state) == "opening"
    from homeworlds.rules import GameState, preset
    fresh = GameState(preset("sdg"))
    assert win_probability(fresh) == bundled_model().first_player_rate
    with pytest.raises(ValueError, match="setup"):
        features(fresh)


def test_analyse_json_gives_every_turn_of_sdg_and_cooked_games(capsys):
    sdg = DATA / "games" / "sdg" / "3426.raw"
    cooked = DATA / "games" / "cooked" / "3426.cooked"
    assert main(["analyse", "--json", str(sdg), str(cooked)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    by_sdg, by_cooked = (json.loads(line) for line in lines)
    assert by_sdg["first"] == "jeep" and by_cooked["first"] == "Jeep"
    # SDG: setups are turns 1 and 2; the cooked game starts after them.
    assert [t["turn"] for t in by_sdg["turns"]][:3] == [1, 2, 3]
    assert len(by_sdg["turns"]) == len(by_cooked["turns"]) + 2
    for a, b in zip(by_sdg["turns"][2:], by_cooked["turns"], strict=True):
        assert a["first_wins"] == b["first_wins"]
        assert 0.0 <= a["first_wins"] <= 1.0
    # jeep won on the board (expected.tsv): the last turn is certain.
    assert by_sdg["turns"][-1]["first_wins"] == 1.0
    assert by_sdg["turns"][-1]["phase"] == "over"


def test_analyse_names_an_unreadable_file(tmp_path, capsys):
    bad = tmp_path / "bad.raw"
    bad.write_text("Homeworlds Online (SDG# 1)\nParticipants: a (S), b (N)\n\n1) a: Jump\n")
    assert main(["analyse", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.raw" in err and "homeworlds analyse" in err


def test_calibration_beats_material_on_a_sample_of_held_out_games():
    """The figures of docs/analysis.md, on every 25th game (the full run is make bench)."""
    shared = shared_path("games", "expected.tsv").parents[1]
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "win_calibration", REPO / "benchmarks" / "win_calibration.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    labels = bench.result_games(shared)
    _, held = bench.split(labels, 25)
    figures = bench.report(bundled_model(), shared, held, labels)
    assert figures["all"]["positions"] > 300
    assert figures["all"]["brier"] < figures["all"]["brier_material"]
    assert figures["all"]["log_loss"] < figures["all"]["log_loss_material"]


def test_analyse_threats_name_the_win_that_was_played(capsys):
    sdg = DATA / "games" / "sdg" / "3426.raw"
    assert main(["analyse", "--json", "--threats", "--forced-time", "0.2", str(sdg)]) == 0
    game = json.loads(capsys.readouterr().out)
    before_last = game["turns"][-2]
    wins = [t for t in before_last["threats"] if t["kind"] == "win-in-one"]
    assert wins and wins[0]["words"].startswith("jeep can win this turn: Sacrifice G3")
    assert game["turns"][-1]["threats"] == []  # the game is over

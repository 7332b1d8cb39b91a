"""benchmarks/strength.py: what it plays and how it reports, on tiny runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from homeworlds.ai import LEVELS, GreedyPlayer
from homeworlds.ai.match import (
    BASELINES,
    make_player,
    match_opening,
    opened_state,
    player_names,
    register_player,
)

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


strength = _load("strength")


def test_a_tiny_run_reports_every_outcome_and_both_sides_think_times():
    won = strength.measure(2, pairings=[("level1", "random")], workers=1)
    won = won["pairings"]["level1 vs random"]
    # The random mover leaves its home empty within its first turns (docs: 2.5 turns).
    assert (won["games"], won["win"], won["loss"], won["draw"], won["unfinished"]) == \
        (2, 2, 0, 0, 0)
    # Game 0 moving first, game 1 second (the same opening).
    assert won["by_seat"] == [{"win": 1, "loss": 0, "unfinished": 0}] * 2
    report = strength.measure(2, pairings=[("greedy", "level1")], max_turns=2, workers=1)
    capped = report["pairings"]["greedy vs level1"]
    assert (capped["games"], capped["unfinished"], capped["mean_turns"]) == (2, 2, 2.0)
    # Two turns a game, one each: both sides' think times are counted.
    assert capped["player_seconds"]["moves"] == 2 == capped["opponent_seconds"]["moves"]
    times = capped["player_seconds"]
    assert 0 <= times["p50"] <= times["p99"] <= times["max"]
    lines = strength.report_lines(report)
    assert lines[0].startswith("2 games per pairing, looney rules, cap 2 turns (")
    assert lines[1].startswith("  greedy vs level1: 0 won, 0 lost, 0 drawn, 2 unfinished "
                               "of 2; 2.0 turns mean; think greedy p50 ")
    assert "; level1 p50 " in lines[1]
    assert lines[1].endswith("; moving first: 0 won, 0 lost, 1 unfinished; moving second: "
                             "0 won, 0 lost, 1 unfinished")


def test_the_default_pairings_cover_every_level_and_both_baselines():
    levels = [f"level{n}" for n in sorted(LEVELS)]
    quick = strength.default_pairings()
    for level in levels:
        assert {(level, base) for base in BASELINES} <= set(quick)
    assert all((high, low) in quick for low, high in zip(levels, levels[1:], strict=False))
    every = strength.default_pairings(all_lower=True)
    assert len(every) == len(quick) + (len(levels) - 1) * (len(levels) - 2) // 2
    assert (levels[-1], levels[0]) in every
    assert (levels[-1], "legacy3") in quick  # the top level against the old level 3
    assert not any(name.startswith("legacy") for name, _ in quick)


def test_both_seats_play_each_opening_and_later_openings_vary():
    assert opened_state(0).to_move == 0
    first = [s.stars for s in opened_state(0).systems]
    assert [s.stars for s in opened_state(1).systems] == first  # same opening, other seat
    seeded = {tuple(str(h) for h in match_opening(n)) for n in range(6, 16)}
    assert len(seeded) >= 5  # beyond the six standard openings, seeded varied ones


def test_players_are_chosen_by_name_and_new_ones_can_be_registered():
    assert {"random", "greedy", *(f"level{n}" for n in LEVELS)} <= set(player_names())
    assert make_player(f"level{max(LEVELS)}", 1).level == max(LEVELS)
    register_player("greedy-fast", lambda seed, names: GreedyPlayer(seed, names, budget=0.1))
    assert "greedy-fast" in player_names()
    assert make_player("greedy-fast", 3).budget == 0.1


def test_make_bench_runs_it():
    run_all = _load("run_all")
    assert "strength.py" not in run_all.SKIP and "quux_match.py" not in run_all.SKIP
    assert callable(strength.run)


def test_a_legacy_player_where_the_players_module_keeps_one(monkeypatch):
    from homeworlds.ai import players

    class Legacy:
        def __init__(self, level, seed=None, names=None):
            self.level, self.seed = level, seed

    monkeypatch.setattr(players, "LegacyPlayer", Legacy, raising=False)
    legacy = [f"legacy{n}" for n, s in sorted(LEVELS.items())
              if isinstance(s, players.LevelSettings)]
    assert legacy and set(legacy) <= set(player_names())
    made = make_player(legacy[-1], 5)
    assert isinstance(made, Legacy) and made.seed == 5
    monkeypatch.delattr(players, "LegacyPlayer")
    assert not any(name.startswith("legacy") for name in player_names())


def test_first_plays_the_games_from_that_index(capsys):
    seen = []
    strength.measure(2, pairings=[("greedy", "random")], max_turns=1, workers=1,
                     on_game=seen.append, first=5)
    assert [(g.index, g.seat) for g in seen] == [(5, 1), (6, 0)]
    assert strength.main(["--player", "greedy", "--opponent", "random", "--games", "1",
                          "--first", "3", "--max-turns", "1", "--workers", "1",
                          "--progress"]) == 0
    assert "game 3 (seat 1)" in capsys.readouterr().out


def test_games_recorded_to_jsonl_replay_to_their_outcome(tmp_path, capsys):
    from homeworlds.notation import parse_cooked_turn

    record = tmp_path / "games.jsonl"
    assert strength.main(["--player", "level1", "--opponent", "random", "--games", "2",
                          "--workers", "1", "--max-turns", "40", "--jsonl", str(record)]) == 0
    assert "level1 vs random: 2 won" in capsys.readouterr().out
    games = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [(g["index"], g["seat"], g["player"], g["opponent"]) for g in games] == \
        [(0, 0, "level1", "random"), (1, 1, "level1", "random")]
    for game in games:
        assert len(game["turn_log"]) == game["turns"]
        assert len(game["times"]) + len(game["opponent_times"]) == game["turns"]
        state = opened_state(game["index"])
        for text in game["turn_log"]:
            state.apply_turn(parse_cooked_turn(text))
        assert game["outcome"] == "win" and game["seat"] in state.result.winners


def test_games_in_processes_come_back_in_the_order_they_were_listed():
    from homeworlds.ai.match import play_games, play_match_job

    jobs = [(i, "random", "looney", 1, 1, "greedy") for i in range(4)]
    told = []
    games = play_games(play_match_job, jobs, workers=2, on_game=told.append)
    assert [(g.index, g.seat, g.player, g.turns) for g in games] == \
        [(0, 0, "greedy", 1), (1, 1, "greedy", 1), (2, 0, "greedy", 1), (3, 1, "greedy", 1)]
    assert told == games

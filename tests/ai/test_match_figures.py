"""The match figures both strength benchmarks report (``homeworlds.ai.match``): one
summary, one wording."""

from __future__ import annotations

from dataclasses import dataclass

from homeworlds.ai.match import match_figures, outcome_text, seats_text, think_time_text


@dataclass
class _Game:
    outcome: str
    seat: int
    turns: int
    times: tuple[float, ...]
    theirs: tuple[float, ...]


GAMES = [_Game("win", 0, 40, (0.1, 0.3), (1.0,)), _Game("loss", 1, 60, (0.2,), (2.0, 4.0)),
         _Game("unfinished", 0, 150, (0.5,), ()), _Game("reference-illegal", 1, 7, (), (9.0,))]


def test_one_summary_counts_outcomes_seats_and_both_sides_think_times():
    figures = match_figures(GAMES, lambda g: g.theirs, others=("reference-illegal",))
    assert (figures["games"], figures["win"], figures["loss"], figures["draw"],
            figures["unfinished"], figures["reference-illegal"]) == (4, 1, 1, 0, 1, 1)
    assert figures["mean_turns"] == (40 + 60 + 150) / 3  # a fault is not a game's length
    assert figures["player_seconds"]["moves"] == 4 and figures["player_seconds"]["max"] == 0.5
    assert figures["opponent_seconds"]["moves"] == 4 and figures["opponent_seconds"]["max"] == 9.0
    assert outcome_text(figures) == "1 won, 1 lost, 0 drawn, 1 unfinished"
    assert think_time_text(figures["player_seconds"]) == \
        "p50 0.300 s, p99 0.500 s, max 0.50 s (4 turns)"
    assert seats_text(figures["by_seat"]) == ("moving first: 1 won, 0 lost, 1 unfinished; "
                                              "moving second: 0 won, 1 lost, 0 unfinished")


def test_a_side_without_turns_says_so():
    assert think_time_text(match_figures([], lambda g: ())["player_seconds"]) == "no turns"

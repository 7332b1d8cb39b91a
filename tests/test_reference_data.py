"""The engine against the reference slice in tests/data: runs everywhere, always.

The same checks run on the whole of ../shared when it is there (tests/rules,
tests/successors); this slice keeps a few of each kind in the repository so that
they can never be skipped away: SDG transcripts with the archive's expected results,
the C++ engine's successor counts (a perft file) and win-in-one positions.
"""

from __future__ import annotations

import json

import pytest

from homeworlds.notation.cooked import read_cooked_file
from homeworlds.notation.sdg import read_sdg_file
from homeworlds.replay import cooked_disagreements, load_expected, replay_game, sdg_disagreements
from homeworlds.rules import (
    AmbiguousAction,
    IllegalAction,
    count_successors,
    find_winning_turn,
    match_partial_turn,
)
from tests import shared
from tests.legality.positions import replay_cooked_positions
from tests.positions import position_file
from tests.shared import DATA

GAMES = DATA / "games"
WIN_IN_ONE = DATA / "positions" / "win-in-one"
BRANCHING = json.loads((GAMES / "branching-factors.json").read_text())


def test_the_slice_is_complete():
    assert sorted(p.stem for p in (GAMES / "cooked").glob("*.cooked")) == sorted(BRANCHING)
    assert set(load_expected(GAMES / "expected.tsv")) == set(BRANCHING)
    assert len(list((GAMES / "sdg").glob("*.raw"))) == 5
    names = [p.name for p in WIN_IN_ONE.glob("*.txt")]
    assert sum(n.startswith("win-") for n in names) == 5
    assert sum(n.startswith("nowin-") for n in names) == 3


def test_sdg_slice_agrees_with_the_archive_results():
    assert list(sdg_disagreements(DATA, sorted(BRANCHING, key=int))) == []


def test_cooked_slice_replays_under_strict():
    assert dict(cooked_disagreements(DATA)) == {}


def test_four_player_game_replays_to_the_recorded_winner():
    game = read_sdg_file(GAMES / "sdg" / "777.raw")
    result = replay_game(game)
    assert len(game.players) == 4 and result.legal
    assert game.players[result.board_winner].lower() == game.winner.lower()


@pytest.mark.parametrize("game", sorted(BRANCHING, key=int))
def test_branching_factors_of_the_slice(game):
    """Successors before every turn, as the C++ engine counted them (strict rules)."""
    want = BRANCHING[game]
    got = [count_successors(state)
           for _, state, _ in replay_cooked_positions(GAMES / "cooked" / f"{game}.cooked")]
    assert got == want[:len(got)]
    assert len(got) == len(want)


@pytest.mark.parametrize("path", sorted(WIN_IN_ONE.glob("*.txt")), ids=lambda p: p.stem)
def test_win_in_one_positions_of_the_slice(path):
    state = position_file(path, rules="strict")
    turn = find_winning_turn(state)
    assert (turn is not None) == path.name.startswith("win-")
    if turn is not None:
        after = state.copy()
        after.apply_turn(turn)
        assert after.result is not None and after.result.winners == (0,)
    for verdict, text in read_cooked_file(path).samples:
        if verdict == "LEGAL":
            state.copy().apply_turn(match_partial_turn(state, text))
        elif verdict == "ILLEGAL":
            with pytest.raises(IllegalAction):
                match_partial_turn(state, text)
        else:
            with pytest.raises(AmbiguousAction):
                match_partial_turn(state, text)


def test_missing_shared_data_skips_for_users_and_fails_in_ci(monkeypatch):
    monkeypatch.setattr(shared, "SHARED", DATA / "no-such-directory")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        shared.shared_path("games")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        shared.shared_path("games")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        shared.shared_path("games")

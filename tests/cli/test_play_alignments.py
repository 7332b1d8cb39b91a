"""`homeworlds play` under good-evil: the deal is made, kept with the game in the store and
its SDG export, survives a restart and is revealed at the end (the table part runs in
tests/integration)."""

from __future__ import annotations

import pytest

from homeworlds.notation.sdg import read_sdg
from homeworlds.rules import GameState, deal_alignments, preset
from homeworlds.runtime import record, terminal
from homeworlds.runtime.config import ConfigError, config_from_mapping
from homeworlds.store import GameRecorder
from homeworlds.store.export import record_sdg
from tests.store.helpers import OPENING, turns_of


def _config(tmp_path, **table):
    return config_from_mapping({"table": {"players": ["Ann", "Bob"], **table}}, "t.toml",
                               base=tmp_path)


def test_the_deal_is_seeded_and_kept_with_the_game(tmp_path):
    config = _config(tmp_path, rules="good-evil", alignment_seed=5)
    dealt = record.deal_alignments_for(config)
    assert dealt == deal_alignments(2, 5)
    recorder = GameRecorder(tmp_path / "games.sqlite", table="t", layout="standard-2p")
    recorder.open()
    recorder.start_game(config.rules, config.players, alignments=dealt)
    state = GameState(preset("good-evil"), alignments=dealt)
    turn = turns_of(OPENING)[0]
    state.push(turn)
    recorder.turn(1, 0, turn, state, config.players, {})
    recorder.close()
    # A restart reads the deal back from the store, whatever the seed says now.
    again = GameRecorder(tmp_path / "games.sqlite", table="t", layout="standard-2p")
    again.open()
    assert again.resume_point().game.alignments == dealt
    again.close()
    game = read_sdg(record_sdg(config.players, [(0, turn)], rules="good-evil",
                               alignments=dealt))
    assert game.rules == "good-evil" and game.alignments == dealt
    assert terminal.reveal_alignments(config.players, dealt) == (
        f"Alignments revealed: Ann {dealt[0].capitalize()}, Bob {dealt[1].capitalize()}")


def test_no_alignments_outside_good_evil_and_a_random_deal_without_seed(tmp_path):
    assert record.deal_alignments_for(_config(tmp_path, rules="looney")) is None
    deals = {record.deal_alignments_for(_config(tmp_path, rules="good-evil")) for _ in range(30)}
    assert len(deals) == 2, "unseeded deals differ from game to game"


def test_alignment_seed_must_be_an_integer(tmp_path):
    with pytest.raises(ConfigError, match="table.alignment_seed: wrong type str"):
        _config(tmp_path, rules="good-evil", alignment_seed="five")

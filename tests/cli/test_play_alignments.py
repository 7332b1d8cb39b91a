"""`homeworlds play` under good-evil: the deal is made, kept in the record, survives a restart
and is revealed at the end (the table part runs in tests/integration)."""

from __future__ import annotations

import pytest

from homeworlds.commands import play
from homeworlds.config import ConfigError, config_from_mapping
from homeworlds.notation.sdg import read_sdg_file
from homeworlds.rules.alignments import deal_alignments


def _config(tmp_path, **table):
    return config_from_mapping({"table": {"players": ["Ann", "Bob"], **table}}, "t.toml",
                               base=tmp_path)


def test_the_deal_is_seeded_kept_in_the_record_and_reused(tmp_path):
    config = _config(tmp_path, rules="good-evil", alignment_seed=5)
    record = tmp_path / "game.raw"
    dealt = play.table_alignments(config, record)
    assert dealt == deal_alignments(2, 5)
    play.write_record(record, [], config.players, "good-evil", dealt)
    game = read_sdg_file(record)
    assert game.rules == "good-evil" and game.turns == ()
    # A restart with another seed keeps the game's deal.
    other = _config(tmp_path, rules="good-evil", alignment_seed=6)
    assert play.table_alignments(other, record) == dealt
    assert play.reveal_alignments(config.players, dealt) == (
        f"Alignments revealed: Ann {dealt[0].capitalize()}, Bob {dealt[1].capitalize()}")


def test_no_alignments_outside_good_evil_and_a_random_deal_without_seed(tmp_path):
    assert play.table_alignments(_config(tmp_path, rules="looney"), tmp_path / "r.raw") is None
    deals = {play.table_alignments(_config(tmp_path, rules="good-evil"), tmp_path / "r.raw")
             for _ in range(30)}
    assert len(deals) == 2, "unseeded deals differ from game to game"


def test_alignment_seed_must_be_an_integer(tmp_path):
    with pytest.raises(ConfigError, match="table.alignment_seed: wrong type str"):
        _config(tmp_path, rules="good-evil", alignment_seed="five")

"""A turn played while the host is down (it died after the hand-over, before it wrote the
turn) is recovered from the table on restart — also when the turn removed a system, which
used to leave the restarted host waiting forever for "lay out Altair" (game 608 turns 12,
20 and 22: a fleet leaves a system, which fades)."""

from __future__ import annotations

import sqlite3
import time

import pytest

from homeworlds.notation import read_sdg_file
from homeworlds.rules import GameState, preset
from homeworlds.rules.inference import board_key
from tests.integration.play_host import SETTLE_S, PlayHost, turns_in

from ..store.helpers import wait_for


def _wait_for(predicate, timeout=20.0, what="the host to catch up"):
    wait_for(predicate, timeout, what)


def _stored_turns(store):
    if not store.exists():
        return []
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute("SELECT number, seat, sdg, position FROM turns ORDER BY game_id, "
                          "number").fetchall()


@pytest.mark.parametrize("lost_turn", [12, 20, 22])
def test_a_turn_played_while_the_host_was_down_is_recovered(tmp_path, shared_dir, sim_table,
                                                           lost_turn):
    game = read_sdg_file(shared_dir / "games" / "sdg" / "608.raw")
    sim = sim_table(players=game.players)
    record = tmp_path / "game.raw"
    driver = sim.driver()
    host = PlayHost(sim.config, record, store=None)
    try:
        for k, turn in enumerate(game.turns[:lost_turn - 1], start=1):
            time.sleep(SETTLE_S)  # let the host see the pieces before the token moves
            driver.play_turn(turn.actions)
            _wait_for(lambda n=k: turns_in(record) == n, what=f"turn {k}")
    finally:
        host.close()
    # The host is down: the players play the next turn and hand over.
    driver.play_turn(game.turns[lost_turn - 1].actions)
    host = PlayHost(sim.config, record, store=None)
    try:
        _wait_for(lambda: turns_in(record) == lost_turn, what="the recovered turn")
        # ... and the game goes on.
        time.sleep(SETTLE_S)
        driver.play_turn(game.turns[lost_turn].actions)
        _wait_for(lambda: turns_in(record) == lost_turn + 1, what="the next turn")
    finally:
        host.close()
    recorded = read_sdg_file(record)
    expected = GameState(preset("looney"))
    got = GameState(preset("looney"))
    for number, (mine, theirs) in enumerate(zip(recorded.turns, game.turns, strict=False), 1):
        expected.push(theirs.actions)
        got.push(mine.actions)
        assert board_key(got) == board_key(expected), f"turn {number} differs"
    stored = _stored_turns(tmp_path / "games.sqlite")
    assert [n for n, *_ in stored] == list(range(1, lost_turn + 2))

"""`homeworlds play` under good-evil on the simulated table: the alignment deal is written to
the game store before the first turn and a restarted host keeps it."""

from __future__ import annotations

from homeworlds.notation import read_sdg_file
from homeworlds.rules import deal_alignments
from tests.integration.play_host import PlayHost, play_turns, turns_in
from tests.store.helpers import wait_for


def test_good_evil_deal_survives_a_restart_before_the_first_turn(tmp_path, sim_table):
    sim = sim_table(rules="good-evil", table="alignment_seed = 11\n")
    record = tmp_path / "game.raw"
    dealt = deal_alignments(2, 11)
    store = tmp_path / "games.sqlite"
    host = PlayHost(sim.config, record)
    try:
        wait_for(lambda: _stored_deal(store) is not None)
    finally:
        host.close()
    assert _stored_deal(store) == dealt
    # Restart with another seed: the recorded deal stands.
    sim.config.write_text(sim.config.read_text().replace("alignment_seed = 11",
                                                         "alignment_seed = 12"))
    host = PlayHost(sim.config, record)
    try:
        play_turns(sim.driver(alignments=dealt), ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G2"],
                   lambda n: turns_in(record) == n)
    finally:
        host.close()
    game = read_sdg_file(record)
    assert game.players == ("Ann", "Bob") and game.rules == "good-evil"
    assert game.alignments == dealt
    assert _stored_deal(store) == dealt


def _stored_deal(path):
    """The alignments of the latest game in the store at ``path`` (None: no game yet)."""
    from homeworlds.store import GameStore, StoreError

    if not path.exists():
        return None
    try:
        store = GameStore.open(path)
    except StoreError:
        return None  # still being created by the host
    try:
        games = store.games()  # the table's (its name is the layout's and the machine's)
        return games[-1].alignments if games else None
    finally:
        store.close()

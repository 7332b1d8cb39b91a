"""`homeworlds play` under good-evil on the simulated table: the alignment deal is written to
the game store before the first turn and a restarted host keeps it."""

from __future__ import annotations

import time

from homeworlds.notation import read_sdg_file
from homeworlds.rules import GameState, deal_alignments, preset
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tests.integration.play_host import PlayHost, sdg_turn, turns_in
from tests.store.helpers import wait_for

LAYOUT = builtin_layout("standard-2p")


def test_good_evil_deal_survives_a_restart_before_the_first_turn(tmp_path):
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    record = tmp_path / "game.raw"
    dealt = deal_alignments(2, 11)
    with PtyMcu(table, scan_time=0) as mcu:
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "good-evil"\nplayers = ["Ann", "Bob"]\n'
            f'alignment_seed = 11\n[serial]\nport = "{mcu.device_path}"\n'
            '[pixels]\nsink = "memory"\n')
        store = tmp_path / "games.sqlite"
        host = PlayHost(config, record)
        try:
            wait_for(lambda: _stored_deal(store) is not None)
        finally:
            host.close()
        assert _stored_deal(store) == dealt
        # Restart with another seed: the recorded deal stands.
        config.write_text(config.read_text().replace("alignment_seed = 11",
                                                     "alignment_seed = 12"))
        driver = TableDriver(table, GameState(preset("good-evil"), alignments=dealt))
        host = PlayHost(config, record)
        try:
            for k, text in enumerate(["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G2"]):
                time.sleep(0.3)
                driver.play_turn(sdg_turn(text, ("Ann", "Bob")[k % 2]))
                wait_for(lambda n=k + 1: turns_in(record) == n)
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
        game = store.latest_game("standard-2p")
        return None if game is None else game.alignments
    finally:
        store.close()

"""Attract mode in ``homeworlds play``: the display process replays the store's games while
the simulated table (over a pty) is idle, the live page links to the switch, and a piece
placed on the table stops the replays; the LEDs stay the table's unless attract_leds."""

from __future__ import annotations

import json
import threading
import time
from urllib.request import urlopen

import pytest

pytest.importorskip("starlette")

from homeworlds.rules import PIECES  # noqa: E402
from homeworlds.sim import PtyMcu, VirtualTable, make_registry  # noqa: E402
from tests.event.helpers import TWO_PLAYER_GAMES  # noqa: E402
from tests.event.tables import played_store  # noqa: E402
from tests.integration.test_store_lifecycle import LAYOUT  # noqa: E402
from tests.web.server import free_port  # noqa: E402

IDLE_S = 10  # the least [display] attract_after_s allows


class _DisplayHost:
    """``play``'s table loop on a thread, with the web display it starts."""

    def __init__(self, config_path, record, store, port):
        from homeworlds.commands import play
        from homeworlds.config import load_config

        self.stop = threading.Event()
        config = load_config(config_path)
        output = config.pixels.open_output(config.layout.pixel_count)
        self.thread = threading.Thread(target=lambda: play.serve(
            config, output, record, self.stop, store_path=store, listen=("127.0.0.1", port)))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(15)


def _state(url: str) -> dict:
    return json.loads(urlopen(url + "/attract/state?have=", timeout=10).read())


def _wait(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_play_replays_the_archive_when_idle_and_stops_when_a_piece_is_placed(tmp_path):
    store = tmp_path / "games.sqlite"
    played_store(store, TWO_PLAYER_GAMES[0], LAYOUT.name)  # a finished game to replay
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    port = free_port()
    with PtyMcu(table, scan_time=0) as mcu:
        config = tmp_path / "table.toml"
        config.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[pixels]\nsink = "memory"\n'
            f'[display]\nenabled = true\nlisten = "127.0.0.1"\nport = {port}\n'
            f'attract_after_s = {IDLE_S}\n')
        host = _DisplayHost(config, tmp_path / "game-record.raw", store, port)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait(lambda: _up(url), 30, "the display")
            live = urlopen(url + "/", timeout=10).read().decode()
            assert 'src="/static/attract-switch.js"' in live
            switch = urlopen(url + "/static/attract-switch.js", timeout=10).read().decode()
            assert "/attract/state" in switch
            assert _state(url)["active"] is False  # a new table: idle, not yet long enough
            started = _wait(lambda: (s := _state(url))["active"] and s["key"] and s, IDLE_S + 20,
                            "the replays to start")
            assert "<svg" in started["svg"] and started["caption"]
            page = urlopen(url + "/attract", timeout=10).read().decode()
            assert 'location.replace("/")' in page or '"/"' in page
            # A piece placed on the table: the replays stop at once.
            uid = table.take_from_bank(PIECES[0])
            table.place(uid, LAYOUT.slots[0].star_zone)
            stopped = _wait(lambda: not (s := _state(url))["active"] and s, 5,
                            "the replays to stop")
            assert stopped["key"] is None
        finally:
            host.close()


def _up(url: str) -> bool:
    try:
        urlopen(url + "/attract/state", timeout=2).read()
        return True
    except OSError:
        return False

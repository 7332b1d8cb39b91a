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
from homeworlds.sim import make_registry  # noqa: E402
from tests.event.helpers import TWO_PLAYER_GAMES  # noqa: E402
from tests.event.tables import played_store  # noqa: E402
from tests.integration.play_host import LAYOUT, simulated_table  # noqa: E402
from tests.web.server import free_port  # noqa: E402

IDLE_S = 10  # the least [display] attract_after_s allows


class _DisplayHost:
    """``play``'s table loop on a thread, with the web display it starts."""

    def __init__(self, config_path, record, store, port):
        from homeworlds.runtime.config import load_config
        from homeworlds.runtime.table import serve

        self.stop = threading.Event()
        config = load_config(config_path)
        output = config.pixels.open_output(config.layout.pixel_count)
        self.thread = threading.Thread(target=lambda: serve(
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


def test_play_replays_the_archive_when_idle_and_stops_when_a_piece_is_placed(tmp_path, page):
    store = tmp_path / "games.sqlite"
    played_store(store, TWO_PLAYER_GAMES[0], LAYOUT.name)  # a finished game to replay
    port = free_port()
    with simulated_table(tmp_path, sections=f'[display]\nenabled = true\nlisten = "127.0.0.1"\n'
                         f'port = {port}\nattract_after_s = {IDLE_S}\n') as sim:
        table, config = sim.table, sim.config
        host = _DisplayHost(config, tmp_path / "game-record.raw", store, port)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait(lambda: _up(url), 30, "the display")
            time.sleep(0.5)
            assert host.thread.is_alive(), "the table loop stopped"
            live = urlopen(url + "/", timeout=10).read().decode()
            assert 'src="/static/attract-switch.js"' in live
            switch = urlopen(url + "/static/attract-switch.js", timeout=10).read().decode()
            assert "/attract/state" in switch
            assert _state(url)["active"] is False  # a new table: idle, not yet long enough
            page.goto(url + "/")  # a spectator's screen shows the live page
            page.wait_for_selector('body[data-connected="true"]')
            started = _wait(lambda: (s := _state(url))["active"] and s["key"] and s, IDLE_S + 20,
                            "the replays to start")
            assert "<svg" in started["svg"] and started["caption"]
            # The screen gives way to the replays by itself.
            page.wait_for_url(url + "/attract", timeout=10_000)
            page.wait_for_selector('body[data-active="yes"]')
            page.wait_for_selector("#map svg")
            assert page.locator("#caption").text_content()
            # A piece placed on the table: the replays stop at once, the live page is back.
            uid = table.take_from_bank(PIECES[0])
            table.place(uid, LAYOUT.slots[0].star_zone)
            stopped = _wait(lambda: not (s := _state(url))["active"] and s, 20,
                            "the replays to stop")
            assert stopped["key"] is None
            page.wait_for_url(url + "/", timeout=20_000)
            page.wait_for_selector('body[data-connected="true"]')
        finally:
            host.close()


def _up(url: str) -> bool:
    try:
        urlopen(url + "/attract/state", timeout=2).read()
        return True
    except OSError:
        return False


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class _Display:
    """What ``attract_table`` needs of the display: the pipe's piece-placed notice."""

    def __init__(self):
        self.server = self
        self.notices = 0

    def activity(self):
        self.notices += 1


@pytest.mark.parametrize("attract_leds", [False, True])
def test_the_leds_replay_only_with_attract_leds(tmp_path, attract_leds):
    from homeworlds.link import SnapshotReceived, ZoneChanged
    from homeworlds.pixels import MemorySink, PixelOutput
    from homeworlds.rules import preset
    from homeworlds.runtime.config import load_config
    from homeworlds.runtime.table import attract_table
    from homeworlds.session import new_session
    from homeworlds.web.attract import AttractTable

    store = tmp_path / "games.sqlite"
    played_store(store, TWO_PLAYER_GAMES[0], LAYOUT.name)
    make_registry(LAYOUT, 2).save(tmp_path / "registry.toml")
    (tmp_path / "table.toml").write_text(
        '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
        '[serial]\nport = "/dev/null"\n[pixels]\nsink = "memory"\n'
        f'[display]\nattract_after_s = {IDLE_S}\nattract_leds = {str(attract_leds).lower()}\n')
    config = load_config(tmp_path / "table.toml")
    clock = _Clock()
    sink = MemorySink(LAYOUT.pixel_count, clock=clock)
    session = new_session(LAYOUT, config.registry, preset("looney"), ("Ann", "Bob"),
                          output=PixelOutput(sink, max_fps=None, clock=clock), clock=clock,
                          settle_s=0.0)
    session.watch.link_up = True
    display = _Display()
    table = attract_table(config, session, display, store)
    assert isinstance(table, AttractTable)
    table.handle(SnapshotReceived({z: frozenset() for z in range(LAYOUT.zone_count)}, (),
                                  at=0))
    table.tick()
    own = sink.last
    clock.now += IDLE_S + 5  # idle long enough: replaying
    table.tick()
    assert table.mode.active
    if attract_leds:
        assert sink.last != own  # the replayed position on the LEDs
    else:
        assert sink.last == session.render() == own  # the LEDs are the table's own
    table.handle(ZoneChanged(LAYOUT.slots[0].star_zone, frozenset({"04AA"}), at=0))
    assert display.notices == 1  # the display process hears of the piece at once
    table.tick()
    assert not table.mode.active
    assert sink.last == session.render()

"""`homeworlds play` on the simulated table with an [event] section: every committed turn
and the result reach the hub through a real broker, across a broker restart."""

from __future__ import annotations

import json
import time
from urllib.request import urlopen

import pytest

from homeworlds.event.hub import HubIngest
from homeworlds.event.hub_client import HubClient
from homeworlds.event.rounds import EventBook
from homeworlds.event.settings import parse_broker_url
from homeworlds.rules import GameState, preset
from homeworlds.sim import TableDriver
from homeworlds.store import GameStore
from homeworlds.web.hub import HubPages, build_app
from tests.event.helpers import store_rows, wait_for
from tests.event.tables import key_file
from tests.integration.play_host import LAYOUT, simulated_table
from tests.integration.test_store_lifecycle import _Host, _play, _query
from tests.store.helpers import OPENING
from tests.web.server import LiveServer


class SnapshotStream:
    """A live page's server-sent events, read as the browser's EventSource does."""

    def __init__(self, url: str):
        self.response = urlopen(url, timeout=20)

    def next_snapshot(self, wanted, limit: int = 200) -> dict:
        kind = None
        for _ in range(limit * 4):
            line = self.response.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "snapshot":
                data = json.loads(line[6:])
                if wanted(data):
                    return data
        raise AssertionError("the stream sent no such snapshot")

    def close(self) -> None:
        self.response.close()


@pytest.fixture
def event_table(tmp_path, broker):
    key = key_file(tmp_path, "table-1")
    with simulated_table(tmp_path, sections=f'[event]\nbroker = "{broker.url}"\n'
                         f'event = "club"\ntable = "table-1"\nkey_file = "{key}"\n') as sim:
        yield sim.table, sim.config


def test_play_publishes_turns_and_result_to_the_hub(tmp_path, broker, event_table):
    table, config = event_table
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(hub_store, "club")
    client = HubClient(parse_broker_url(broker.url), "club", ingest)
    client.start()
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        wait_for(lambda: ingest.committed == 2, 20, "turns 1-2 at the hub")
        broker.kill()                       # the broker dies between turns
        _play(driver, store, OPENING[:4], first=3)
        time.sleep(0.3)
        broker.start()
        host.commands.put("resign Bob\n")
        wait_for(lambda: _query(store, "SELECT status FROM games") == [("resigned",)], 20,
                 "the resignation in the table's store")
        wait_for(lambda: store_rows(tmp_path / "hub.sqlite", "table-1") == store_rows(store),
                 30, "the hub's copy to equal the table's store")
    finally:
        host.close()
        client.stop()
        hub_store.close()
    turns, result = store_rows(store)[next(iter(store_rows(store)))]
    assert [sdg for _, _, sdg, _ in turns] == OPENING[:4]
    assert result[0] == "resigned"
    assert not ingest.problems
    # The table's sensor link is in its retained state (the hub's card shows a table
    # without sensors).
    assert ingest.tables["table-1"].snapshot["link_up"] is True
    assert next(r for r in ingest.overview() if r["table"] == "table-1")["link_up"] is True


def _hints(ingest, table="table-1"):
    return ((ingest.tables.get(table) and ingest.tables[table].snapshot) or {}).get("hints") or {}


def test_the_hub_sees_the_live_table_a_lifted_ship_and_the_turns_start(tmp_path, broker,
                                                                       event_table):
    """The retained state carries the live feed's hints and turn start (play without the
    web display: the feed of its own), not only what the store holds."""
    table, config = event_table
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(hub_store, "club")
    client = HubClient(parse_broker_url(broker.url), "club", ingest)
    client.start()
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = _Host(config, record, store)
    pages = HubPages(ingest, tmp_path / "hub.sqlite", EventBook(hub_store, "swiss"),
                     admin_token="organiser-token", event="club")
    web = LiveServer(build_app(pages)).start()
    try:
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        wait_for(lambda: ingest.committed == 2, 20, "turns 1-2 at the hub")
        # The hub's full live view of the table is the spectator display's live page.
        live = urlopen(f"{web.url}/tables/table-1/live", timeout=10).read().decode()
        assert 'data-events="/tables/table-1/live/events"' in live
        assert '<section id="map"' in live and "/static/live.js" in live
        stream = SnapshotStream(f"{web.url}/tables/table-1/live/events")
        first = stream.next_snapshot(lambda s: s["game"]["turn_number"] == 3)
        assert first["turn_log"] == OPENING[:2] and "<svg" in first["svg"]
        assert first["hints"]["lifted"] is None
        # Ann lifts the g3 of her home: the LEDs show where it may go, and so does the hub.
        zone = LAYOUT.slots[driver.slot("Ann")].ship_zone(0)
        uid = next(u for u in table.tags_on(zone)
                   if table.registry.lookup(u).piece.to_text() == "g3")
        table.lift(uid)
        wait_for(lambda: _hints(ingest).get("lifted") == {"seat": 0, "piece": "g3",
                                                          "from": "Ann"},
                 20, "the lifted ship in the hub's copy of the table")
        snapshot = ingest.tables["table-1"].snapshot
        assert snapshot["link_up"] is True
        assert snapshot["hints"]["may_discover"] is True
        assert snapshot["game"]["turns"] == 2
        started = snapshot["game"]["turn_started_at"]
        assert isinstance(started, float) and abs(time.time() - started) < 60
        # ... and so does the hub's live page, through its stream.
        shown = stream.next_snapshot(lambda s: s["hints"]["lifted"] is not None)
        assert shown["hints"]["lifted"] == {"seat": 0, "piece": "g3", "from": "Ann"}
        assert shown["link_up"] is True
        stream.close()
        table.place(uid, zone)  # put back: the hint goes out again
        wait_for(lambda: _hints(ingest).get("lifted", "?") is None, 20,
                 "the ship put back in the hub's copy")
    finally:
        web.stop()
        host.close()
        client.stop()
        hub_store.close()
    assert not ingest.problems

"""Tables publish through a real mosquitto broker to one hub; faults on the way."""

from __future__ import annotations

import re
import time

import pytest

from homeworlds.event.hub import HubIngest
from homeworlds.event.hub_client import HubClient
from homeworlds.event.settings import parse_broker_url
from homeworlds.store import GameStore
from tests.event.helpers import TWO_PLAYER_GAMES, TableProcess, store_rows, wait_for
from tests.event.proxy import CuttableLink

EVENT = "club-test"


@pytest.fixture
def hub(tmp_path, broker):
    store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(store, EVENT)
    client = HubClient(parse_broker_url(broker.url), EVENT, ingest)
    client.start()
    yield ingest
    client.stop()
    store.close()


def hub_matches(hub_path, tables) -> bool:
    for t in tables:
        want = store_rows(t.store)
        have = store_rows(hub_path, t.table)
        if not want or have != want:
            return False
    return True


def test_one_table_reaches_the_hub_turn_by_turn(tmp_path, broker, hub):
    table = TableProcess(tmp_path, broker.url, EVENT, "t1", TWO_PLAYER_GAMES[0],
                         interval=0.02, turns=8)
    table.start()
    try:
        wait_for(lambda: hub_matches(tmp_path / "hub.sqlite", [table])
                 and len(next(iter(store_rows(table.store).values()))[0]) == 8, 30,
                 "the hub to hold the table's 8 turns")
        row = next(r for r in hub.overview() if r["table"] == "t1")
        assert row["online"] is True
        assert row["game"]["turns"] == 8
        assert hub.problems == type(hub.problems)()
    finally:
        table.stop()
    wait_for(lambda: next(r for r in hub.overview() if r["table"] == "t1")["online"] is False,
             10, "the hub to see the table go offline")


def test_eight_tables_survive_broker_kill_table_kill9_and_an_offline_table(tmp_path, broker,
                                                                          hub):
    links = {}
    tables = []
    for k in range(8):
        name = f"t{k + 1}"
        url = broker.url
        if k == 7:
            links[name] = CuttableLink(broker.port)
            url = f"mqtt://127.0.0.1:{links[name].port}"
        game = TWO_PLAYER_GAMES[k % len(TWO_PLAYER_GAMES)]
        tables.append(TableProcess(tmp_path, url, EVENT, name, game, interval=0.15,
                                   turns=16))
    for t in tables:
        t.start()
    try:
        wait_for(lambda: hub.committed >= 16, 30, "the first turns at the hub")
        links["t8"].cut()                    # table 8 loses its network, keeps playing
        time.sleep(0.5)
        broker.kill()                        # the broker dies mid-event...
        time.sleep(0.8)
        tables[2].kill9()                    # ...and table 3's host is killed meanwhile
        broker.start()                       # the broker comes back on the same port
        time.sleep(0.5)
        tables[2].start()                    # table 3's host restarts on its store
        time.sleep(1.0)
        # Table 8 played on while cut off: its store is ahead of the hub's.
        played = len(next(iter(store_rows(tables[7].store).values()))[0])
        seen = sum(len(turns) for turns, _ in store_rows(tmp_path / "hub.sqlite", "t8")
                   .values())
        assert played > seen, (played, seen)
        links["t8"].restore()                # table 8's network is back
        wait_for(lambda: all(t.finished() for t in tables), 60, "every table to finish")
        wait_for(lambda: hub_matches(tmp_path / "hub.sqlite", tables), 30,
                 "the hub's store to equal every table's store")
    finally:
        for t in tables:
            t.stop()
        for link in links.values():
            link.close()
    starts = re.findall(r"table t3: (\d+) of 16 turns played", tables[2].output())
    assert len(starts) == 2 and int(starts[1]) > 0, f"table 3 did not resume: {starts}"
    starts = re.findall(r"table t3: (\d+) of 16 turns played", tables[2].output())
    assert len(starts) == 2 and int(starts[1]) > 0, f"table 3 did not resume: {starts}"
    for t in tables:
        want = store_rows(t.store)
        assert len(want) == 1
        turns, _ = next(iter(want.values()))
        assert [n for n, *_ in turns] == list(range(1, 17)), t.table
        assert store_rows(tmp_path / "hub.sqlite", t.table) == want
    assert not hub.problems, list(hub.problems)

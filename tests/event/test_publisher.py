"""The table's publisher: the live feed's clocks and hints ride on the retained state."""

from __future__ import annotations

from homeworlds.event.hub import HubIngest
from homeworlds.event.hub_client import HubClient
from homeworlds.event.publisher import EventPublisher
from homeworlds.event.settings import EventSettings, parse_broker_url
from homeworlds.store import GameStore, StoredResult
from homeworlds.store.outbox import Cursor, Outbox
from tests.event.helpers import TWO_PLAYER_GAMES, store_rows, wait_for
from tests.event.tables import key_file, played_store


def test_live_clocks_reach_the_hubs_card(tmp_path, broker):
    table_store = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[0], "t1", turns=5,
                               finish=False)
    event = EventSettings.from_mapping({"broker": broker.url, "event": "club", "table": "t1",
                                        "key_file": key_file(tmp_path, "t1")},
                                       source="t", base=tmp_path, default_table="t1")
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(hub_store, "club")
    hub = HubClient(parse_broker_url(broker.url), "club", ingest)
    hub.start()
    publisher = EventPublisher(event, table_store, "t1", poll_s=0.1)
    publisher.start()
    try:
        wait_for(lambda: ingest.committed == 5, 20, "the five turns")
        uid = hub_store.games()[0].uid
        clocks = {"seats": [{"remaining_ms": 125_000, "running": True, "flagged": False},
                            {"remaining_ms": 59_000, "running": False, "flagged": False}],
                  "paused": None}
        publisher.offer_snapshot({"type": "snapshot", "game": {"uid": uid,
                                                               "turn_started_at": 1.5},
                                  "clocks": clocks, "hints": {"lifted": None},
                                  "link_up": True})
        row = wait_for(lambda: next((r for r in ingest.overview()
                                     if r["table"] == "t1" and r["clocks"]), None), 10,
                       "the clocks at the hub")
        assert row["clocks"] == clocks and row["link_up"] is True
        snapshot = ingest.tables["t1"].snapshot
        assert snapshot["game"]["turns"] == 5 and snapshot["game"]["turn_started_at"] == 1.5
        assert snapshot["hints"] == {"lifted": None}
    finally:
        publisher.stop()
        hub.stop()
        hub_store.close()


def test_a_hub_that_joins_late_catches_up_from_the_retained_state(tmp_path, broker):
    """Everything was acknowledged before this hub existed: the table's retained state
    shows it is behind, it asks, and the table sends the game again with its result."""
    table_store = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[1], "t1", turns=6,
                               finish=False)
    event = EventSettings.from_mapping({"broker": broker.url, "event": "club", "table": "t1",
                                        "key_file": key_file(tmp_path, "t1",
                                                             tmp_path / "late-hub.sqlite")},
                                       source="t", base=tmp_path, default_table="t1")
    publisher = EventPublisher(event, table_store, "t1", poll_s=0.1)
    publisher.start()
    try:
        store = GameStore.open(table_store)
        outbox = Outbox(store, "t1", "club")
        wait_for(lambda: list(outbox.cursors().values()) == [Cursor(6, False)], 10,
                 "the broker's acknowledgement of six turns")
        game = store.games("t1")[0]
        store.finish_game(game.uid, StoredResult("resigned", (0,), 1, "2026-11-25T18:00:00",
                                                 6))
        publisher.wake()
        wait_for(lambda: list(outbox.cursors().values()) == [Cursor(6, True)], 10,
                 "the broker's acknowledgement of the result")
        store.close()
        hub_store = GameStore.open(tmp_path / "late-hub.sqlite")
        ingest = HubIngest(hub_store, "club")
        hub = HubClient(parse_broker_url(broker.url), "club", ingest, client_id="late-hub")
        hub.start()
        try:
            wait_for(lambda: store_rows(tmp_path / "late-hub.sqlite", "t1")
                     == store_rows(table_store), 20, "the late hub to catch up")
        finally:
            hub.stop()
            hub_store.close()
    finally:
        publisher.stop()


def test_the_table_acts_only_on_requests_the_hub_signed(tmp_path, caplog):
    """A forged request would make the table send a whole game again (an amplifier for
    whoever can write its request topic): only the hub's signed ones count, each once."""
    import json
    from types import SimpleNamespace

    from homeworlds.event.identity import HubIdentities
    from homeworlds.event.topics import table_topic

    event = EventSettings.from_mapping({"broker": "mqtt://127.0.0.1:1", "event": "club",
                                        "table": "t1", "key_file": key_file(tmp_path, "t1")},
                                       source="t", base=tmp_path, default_table="t1")
    publisher = EventPublisher(event, tmp_path / "t1.sqlite", "t1")
    topic = table_topic("club", "t1", "request")
    body = json.dumps({"game_uid": "abc", "from": 3}).encode()
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    signed = HubIdentities(hub_store).sign_for("t1", topic, body)
    hub_store.close()

    def deliver(payload, on=topic):
        publisher._on_message(None, None, SimpleNamespace(topic=on, payload=payload))
        queued = []
        while not publisher._events.empty():
            queued.append(publisher._events.get())
        return queued

    assert deliver(body) == []                                   # unsigned
    assert "ignored a request on" in caplog.text and "not signed" in caplog.text
    assert deliver(signed, table_topic("club", "t2", "request")) == []  # moved
    assert deliver(signed) == [("request", "abc", 3)]
    assert deliver(signed) == []                                 # replayed

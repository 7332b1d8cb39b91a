"""TLS with the event's own CA, and username/password from a file: the table and the hub
connect; a wrong password is refused with a clear fault that never shows a password."""

from __future__ import annotations

import logging

from homeworlds.event.hub import HubIngest
from homeworlds.event.hub_client import HubClient
from homeworlds.event.publisher import EventPublisher
from homeworlds.event.settings import EventSettings
from homeworlds.store import GameStore
from homeworlds.store.outbox import Outbox
from tests.event.helpers import TWO_PLAYER_GAMES, store_rows, wait_for
from tests.event.tables import key_file, played_store


def settings(tmp_path, broker, password: str) -> EventSettings:
    (tmp_path / "table.pw").write_text(password + "\n")
    data = {"broker": broker.url.replace("127.0.0.1", "localhost"), "event": "club",
            "table": "t1", "username": "table", "password_file": "table.pw",
            "ca_file": str(broker.ca_file), "key_file": key_file(tmp_path, "t1")}
    return EventSettings.from_mapping(data, source="table.toml", base=tmp_path,
                                      default_table="t1")


def test_tls_and_password_carry_a_game_to_the_hub(tmp_path, secure_broker):
    table_store = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[2], "t1", turns=10,
                               finish=False)
    event = settings(tmp_path, secure_broker, "s3cret-pw")
    assert event.broker.tls
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(hub_store, "club")
    hub = HubClient(event.broker, "club", ingest, username="hub", password="hub-pw",
                    ca_file=secure_broker.ca_file)
    hub.start()
    publisher = EventPublisher(event, table_store, "t1", poll_s=0.1)
    publisher.start()
    try:
        wait_for(lambda: store_rows(tmp_path / "hub.sqlite", "t1") == store_rows(table_store),
                 20, "the game at the hub over TLS")
    finally:
        publisher.stop()
        hub.stop()
        hub_store.close()


def test_a_wrong_password_is_a_clear_fault_without_the_password(tmp_path, secure_broker,
                                                                 caplog):
    table_store = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[2], "t1", turns=3)
    event = settings(tmp_path, secure_broker, "wrong-guess-pw")
    caplog.set_level(logging.DEBUG)
    publisher = EventPublisher(event, table_store, "t1", poll_s=0.1)
    publisher.start()
    try:
        wait_for(lambda: publisher.fault and "refused" in publisher.fault, 15,
                 "the broker's refusal")
    finally:
        publisher.stop()
    assert "Not authorized" in publisher.fault or "Bad user name" in publisher.fault
    assert "wrong-guess-pw" not in caplog.text and "wrong-guess-pw" not in publisher.fault
    assert "localhost" in publisher.fault
    # Nothing was acknowledged: the outbox still holds every turn.
    store = GameStore.open(table_store)
    try:
        assert Outbox(store, "t1", "club").cursors() == {}
    finally:
        store.close()


def test_games_from_before_the_event_stay_private(tmp_path, broker):
    """A table's store from home play joins an event: its finished games are not published,
    the game in progress and the next ones are."""
    from homeworlds.event.settings import parse_broker_url
    from homeworlds.store import GameRecorder
    from tests.event.tables import played_store

    table_store = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[0], "t1")  # finished
    played_store(table_store, TWO_PLAYER_GAMES[1], "t1", turns=4, finish=False)  # in progress
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
        wait_for(lambda: ingest.committed == 4, 20, "the game in progress at the hub")
        rec = GameRecorder(table_store, table="t1", layout="simulated")
        rec.open()
        assert rec.store.games()[0].finished
        publisher.stop()
        played_store(table_store, TWO_PLAYER_GAMES[2], "t1", turns=3, finish=False)
        publisher = EventPublisher(event, table_store, "t1", poll_s=0.1)
        publisher.start()
        wait_for(lambda: ingest.committed == 7, 20, "the next game at the hub")
        rec.close()
    finally:
        publisher.stop()
        hub.stop()
    assert [g.turns for g in hub_store.games()] == [4, 3]
    hub_store.close()

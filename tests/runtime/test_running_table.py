"""The running table as ``build_table`` assembles it: every listener hears of the table's
events in stage order, the game store first, whatever the order they were added in."""

from __future__ import annotations

import sqlite3
import threading
import time

from homeworlds.feed import TurnEvent
from homeworlds.rules import GameState, preset
from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import build_table
from homeworlds.session import Channel, Signal, Stage
from homeworlds.sim import PtyMcu, TableDriver, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from homeworlds.web.live import attach_feed
from tests.store.helpers import OPENING, turns_of

LAYOUT = builtin_layout("standard-2p")


def test_listeners_are_told_stage_by_stage_whatever_order_they_listened_in():
    channel: Channel[int] = Channel("committed")
    told = []
    channel.listen(Stage.ANNOUNCE, lambda n: told.append(("announce", n)))
    channel.listen(Stage.FEED, lambda n: told.append(("feed", n)))
    channel.listen(Stage.STORE, lambda n: told.append(("store", n)))
    channel.listen(Stage.FEED, lambda n: told.append(("feed, second", n)))
    channel.emit(7)
    assert told == [("store", 7), ("feed", 7), ("feed, second", 7), ("announce", 7)]
    assert channel.stages() == [Stage.STORE, Stage.FEED, Stage.FEED, Stage.ANNOUNCE]


def test_held_events_reach_nobody_and_a_signal_calls_without_arguments():
    channel: Channel[str] = Channel("handover")
    told = []
    channel.listen(Stage.STORE, told.append)
    with channel.held():
        channel.emit("journalled already")
    channel.emit("seen now")
    assert told == ["seen now"]
    ticks = Signal("tick")
    ticks.listen(Stage.FEED, lambda: told.append("tick"))
    ticks.emit()
    assert told == ["seen now", "tick"]


def _stored_turns(store) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0]


def test_every_listener_finds_the_turn_in_the_store_when_it_is_told(tmp_path):
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    table = VirtualTable(LAYOUT, registry)
    store = tmp_path / "games.sqlite"
    with PtyMcu(table, scan_time=0) as mcu:
        path = tmp_path / "table.toml"
        path.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n')
        config = load_config(path)
        running = build_table(config, None, tmp_path / "game-record.raw", store_path=store)
        session = running.session
        assert session.events.committed.stages()[0] == Stage.STORE
        seen: list[tuple[str, int, int]] = []

        def told(stage: str):
            return lambda _: seen.append((stage, len(session.tracker.record),
                                          _stored_turns(store)))

        for stage in (Stage.ANNOUNCE, Stage.PUBLISH, Stage.CONTROL, Stage.RECORD):
            session.events.committed.listen(stage, told(stage.name))

        def feed_sink(event) -> None:
            if isinstance(event, TurnEvent):
                seen.append(("feed", event.number, _stored_turns(store)))

        attach_feed(session, table="t1", rules_name="looney", sinks=[feed_sink])
        stop = threading.Event()
        loop = threading.Thread(target=running.run, args=(stop,))
        loop.start()
        try:
            driver = TableDriver(table, GameState(preset("looney")))
            for number, turn in enumerate(turns_of(OPENING[:3]), start=1):
                time.sleep(0.2)
                driver.play_turn(turn)
                deadline = time.monotonic() + 20
                while len(session.log.commits) < number:
                    assert time.monotonic() < deadline, f"turn {number} was not committed"
                    time.sleep(0.02)
        finally:
            stop.set()
            loop.join(10)
            running.close()
    stages = ["RECORD", "CONTROL", "feed", "PUBLISH", "ANNOUNCE"]
    assert [stage for stage, _, _ in seen] == stages * 3
    assert all(stored == number for _, number, stored in seen), seen

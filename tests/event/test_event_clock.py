"""The event's time control: the hub's admin sets it, the broker keeps it (retained), every
table's publisher receives it and the table's next game uses it; a game in progress keeps
its own. Real mosquitto, real publisher, a real TableSession over the simulated table."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from homeworlds.clock import ClockSpec  # noqa: E402
from homeworlds.event.event_clock import EventClockFollower  # noqa: E402
from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.hub_client import HubClient  # noqa: E402
from homeworlds.event.mqtt import make_client  # noqa: E402
from homeworlds.event.publisher import EventPublisher  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.event.settings import EventSettings, parse_broker_url  # noqa: E402
from homeworlds.event.topics import event_config_topic  # noqa: E402
from homeworlds.link import SnapshotReceived  # noqa: E402
from homeworlds.session import Stage  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402
from tests.event.helpers import wait_for  # noqa: E402
from tests.event.hub_sign_in import sign_in  # noqa: E402
from tests.event.tables import key_file  # noqa: E402
from tests.event.test_play_publishes import event_table  # noqa: E402, F401
from tests.test_session_clocks import LAYOUT, SETUP, Table  # noqa: E402

EVENT = "club"
TOKEN = "organiser-token-123"
TABLE_OWN = ClockSpec.from_dict({"mode": "sudden-death", "initial_s": 60})
FISCHER = ClockSpec.from_dict({"mode": "fischer", "initial_s": 300, "increment_s": 5})


@pytest.fixture
def hub(tmp_path, broker):
    store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(store, EVENT)
    client = HubClient(parse_broker_url(broker.url), EVENT, ingest)
    client.start()
    pages = HubPages(ingest, tmp_path / "hub.sqlite", EventBook(store, "round-robin"),
                     admin_token=TOKEN, event=EVENT, clock_control=client)
    web = TestClient(build_app(pages), raise_server_exceptions=False)
    wait_for(lambda: client.connected, 10, "the hub's connection")
    yield web, client, ingest
    client.stop()
    store.close()


class TableHost:
    """A table session as `homeworlds play` wires it: the publisher hands the event's
    clock to the follower, the session's tick (the table's loop) applies it."""

    def __init__(self, tmp_path, broker, name="t1", *, from_event=True):
        self.table = Table(mode="sudden-death", initial_s=60)
        self.session = self.table.session
        self.follower = EventClockFollower(self.session.clock_spec, from_event=from_event,
                                           table=name)
        self.session.events.tick.listen(Stage.CONTROL,
                                        lambda: self.follower.apply(self.session))
        self.offers: list[ClockSpec | None] = []

        def offer(spec):
            self.offers.append(spec)
            self.follower.offer(spec)

        path = tmp_path / f"{name}.sqlite"
        GameStore.open(path).close()
        settings = EventSettings.from_mapping({"broker": broker.url, "event": EVENT,
                                               "table": name,
                                               "key_file": key_file(tmp_path, name)},
                                              source="t", base=tmp_path, default_table=name)
        self.publisher = EventPublisher(settings, path, name, poll_s=0.1,
                                        on_event_clock=offer)
        self.publisher.start()
        wait_for(lambda: self.publisher.connected, 10, f"table {name}'s connection")

    def loop_until(self, condition, what: str):
        """Run the table's loop (ticks, no time passing) until ``condition``."""
        return wait_for(lambda: (self.session.tick(), condition())[1], 10, what)

    def stop(self):
        self.publisher.stop()


@pytest.fixture
def table_host(tmp_path, broker):
    hosts: list[TableHost] = []

    def make(name="t1", **options):
        hosts.append(TableHost(tmp_path, broker, name, **options))
        return hosts[-1]
    yield make
    for host in hosts:
        host.stop()


def clear_the_table(t: Table) -> None:
    """Every piece lifted off after the game: the table starts a new game."""
    t.session.handle(SnapshotReceived({z: frozenset() for z in LAYOUT.all_zones},
                                      at=t.clock.now))
    t.session.tick()


def test_the_hubs_clock_applies_to_the_next_game_not_the_one_in_progress(hub, table_host,
                                                                        broker, tmp_path):
    web, control, _ = hub
    host = table_host()
    t = host.table
    for text in SETUP:
        t.play(text)
    t.play("Build G1 Ann", think=20)  # Bob to move, his 60 s running

    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "fischer",
                                       "initial_s": "300", "increment_s": "5",
                                       "delay_s": "", "on_flag": "loss"},
                 follow_redirects=False)
    assert r.status_code == 303, r.text
    host.loop_until(lambda: host.session.clock_spec == FISCHER, "the event's clock at t1")
    sign_in(web, TOKEN)  # the admin page shows the clock form to the organiser
    assert "fischer 300 s + 5 s" in web.get("/admin").text

    # The game in progress keeps the time control it began with: Bob flags at 60 s.
    assert host.session.game_clock_spec == TABLE_OWN
    t.wait(40)
    assert t.remaining(1) == 20_000
    t.wait(21)
    assert t.flags == [1] and host.session.tracker.ended_by == "flag"

    clear_the_table(t)
    assert host.session.tracker.state.in_setup and host.session.tracker.record == []
    assert host.session.game_clock_spec == FISCHER
    assert (t.remaining(0), t.remaining(1)) == (300_000, 300_000)

    # A table that starts later gets it from the broker (retained), and so does a hub.
    late = table_host("t2")
    late.loop_until(lambda: late.session.clock_spec == FISCHER, "the retained clock at t2")
    assert late.offers == [FISCHER]
    other_store = GameStore.open(tmp_path / "hub-2.sqlite")
    other = HubClient(parse_broker_url(broker.url), EVENT, HubIngest(other_store, EVENT),
                      client_id="hw-hub-second")
    other.start()
    try:
        wait_for(lambda: other.event_clock == FISCHER, 10, "the retained clock at a new hub")
    finally:
        other.stop()
        other_store.close()

    # Cleared: each table plays its own [clock] again, from its next game.
    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "table"},
                 follow_redirects=False)
    assert r.status_code == 303
    host.loop_until(lambda: host.session.clock_spec == TABLE_OWN, "t1's own clock again")
    assert host.session.game_clock_spec == FISCHER  # the game just begun keeps Fischer
    assert control.event_clock is None
    assert "each table its own [clock]" in web.get("/admin").text


def test_the_admin_needs_the_token_and_a_bad_clock_is_refused(hub, table_host):
    web, control, _ = hub
    host = table_host()
    form = {"mode": "sudden-death", "initial_s": "120"}
    assert web.post("/admin/clock", data=form, follow_redirects=False).status_code == 403
    assert web.post("/admin/clock", data={**form, "token": "guess"},
                    follow_redirects=False).status_code == 403
    assert web.post("/admin/clock", json={"mode": "sudden-death", "initial_s": 120},
                    headers={"authorization": "Bearer guess"}).status_code == 403
    assert web.post("/admin/clock", data={**form, "token": TOKEN},
                    headers={"origin": "https://evil.example"},
                    follow_redirects=False).status_code == 403

    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "fischer", "initial_s": "300"})
    assert r.status_code == 400
    assert "the clock form: increment_s: missing" in r.text
    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "sudden-death",
                                       "initial_s": "ten minutes"})
    assert r.status_code == 400 and "initial_s" in r.text and "not a number" in r.text
    r = web.post("/admin/clock", content=b"{", headers={"authorization": f"Bearer {TOKEN}",
                                                        "content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.text
    assert control.event_clock is None

    # The form's boxes the chosen mode does not use are left out.
    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "sudden-death",
                                       "initial_s": "120", "increment_s": "5",
                                       "delay_s": "3"}, follow_redirects=False)
    assert r.status_code == 303
    sudden = ClockSpec.from_dict({"mode": "sudden-death", "initial_s": 120})
    host.loop_until(lambda: host.session.clock_spec == sudden, "the form's clock at t1")

    # Nothing of the refused requests reached the broker: the tables received only the
    # form's clock and then the API's (Bearer token, JSON ClockSpec).
    delay = {"mode": "delay", "initial_s": 900.0, "delay_s": 10.0, "on_flag": "none",
             "timed_setup": False}
    r = web.post("/admin/clock", json=delay, headers={"authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and r.json() == {"clock": delay}
    spec = ClockSpec.from_dict(delay)
    host.loop_until(lambda: host.session.clock_spec == spec, "the API's clock at t1")
    assert host.offers == [sudden, spec]


def test_a_bad_clock_message_is_logged_and_ignored(hub, table_host, broker, caplog):
    _, control, ingest = hub
    host = table_host()
    topic = event_config_topic(EVENT, "clock")
    raw = make_client(parse_broker_url(broker.url), "someone-else")
    raw.connect(parse_broker_url(broker.url).host, parse_broker_url(broker.url).port)
    raw.loop_start()
    caplog.set_level(logging.WARNING)
    try:
        for payload in (b"{not json", b'{"mode": "fischer", "initial_s": 300}',
                        b'{"mode": "sudden-death", "initial_s": 60, "bonus": 1}'):
            raw.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
        wait_for(lambda: sum("bonus" in r.getMessage() for r in caplog.records) >= 2, 10,
                 "the third bad message at the table and at the hub")
        table_lines = [r.getMessage() for r in caplog.records
                       if r.getMessage().startswith("table t1: ignored the event's time "
                                                    f"control on {topic}")]
        assert len(table_lines) == 3
        assert "not JSON text" in table_lines[0]
        assert "increment_s: missing" in table_lines[1]
        assert "bonus: unknown key" in table_lines[2]
        host.session.tick()
        assert host.offers == [] and host.session.clock_spec == TABLE_OWN
        assert control.event_clock is None
        assert any("bonus: unknown key" in p for p in ingest.problems)

        # The publisher lives on: the next good message applies.
        raw.publish(topic, b'{"mode": "sudden-death", "initial_s": 120}', qos=1,
                    retain=True).wait_for_publish(5)
        wanted = ClockSpec.from_dict({"mode": "sudden-death", "initial_s": 120})
        host.loop_until(lambda: host.session.clock_spec == wanted, "the good clock at t1")
    finally:
        raw.disconnect()
        raw.loop_stop()


def test_a_table_with_from_event_false_keeps_its_own_clock(hub, table_host, capsys):
    web, _, _ = hub
    host = table_host(from_event=False)
    said: list[str] = []
    host.follower._say = said.append
    r = web.post("/admin/clock", data={"token": TOKEN, "mode": "fischer",
                                       "initial_s": "300", "increment_s": "5"},
                 follow_redirects=False)
    assert r.status_code == 303
    host.loop_until(lambda: host.follower.event_spec == FISCHER, "the event's clock at t1")
    assert host.session.clock_spec == TABLE_OWN
    assert said and "from_event = false keeps this table's own" in said[-1]


def test_a_three_seat_table_ignores_an_event_clock_whose_flag_ends_the_game():
    """With three or more players a flag fall cannot end the game (docs/clocks.md)."""
    t = Table(mode="sudden-death", initial_s=60, on_flag="none")
    said: list[str] = []
    follower = EventClockFollower(t.session.clock_spec, seats=3, table="t3", say=said.append)
    follower.offer(FISCHER)
    assert follower.apply(t.session) is False
    assert t.session.clock_spec.on_flag == "none" and follower.event_spec is None
    assert "seats 3" in said[0] and "on_flag \"none\"" in said[0]


def test_play_takes_the_event_clock_for_its_next_game(tmp_path, broker,
                                                     event_table):  # noqa: F811
    """`homeworlds play` with [event] and no [clock]: the hub's retained clock, set before
    the table starts, does not change the game the table began; the next game is timed."""
    import json

    from homeworlds.rules import GameState, preset
    from homeworlds.sim import TableDriver
    from tests.integration.test_store_lifecycle import _clear, _Host, _play, _query
    from tests.store.helpers import OPENING

    table, config = event_table
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    client = HubClient(parse_broker_url(broker.url), "club", HubIngest(hub_store, "club"))
    client.start()
    store, record = tmp_path / "games.sqlite", tmp_path / "game-record.raw"
    host = None
    try:
        wait_for(lambda: client.connected, 10, "the hub's connection")
        client.set_event_clock(FISCHER)
        host = _Host(config, record, store)
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:2])
        host.commands.put("resign Bob\n")
        wait_for(lambda: _query(store, "SELECT status FROM games") == [("resigned",)], 20,
                 "the resignation")
        _clear(table)
        driver = TableDriver(table, GameState(preset("looney")))
        _play(driver, store, OPENING[:1], game_id=2)  # the new game is stored with its turn
    finally:
        if host is not None:
            host.close()
        client.stop()
        hub_store.close()
    clocks = _query(store, "SELECT clock FROM games ORDER BY id")
    assert clocks[0] == (None,)  # the game the table began untimed stays untimed
    assert json.loads(clocks[1][0]) == FISCHER.to_dict()


def test_a_hub_without_its_broker_says_the_clock_was_not_set(tmp_path):
    store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(store, EVENT)
    offline = HubClient(parse_broker_url("mqtt://127.0.0.1:9"), EVENT, ingest)  # not started
    pages = HubPages(ingest, tmp_path / "hub.sqlite", EventBook(store, "round-robin"),
                     admin_token=TOKEN, event=EVENT, clock_control=offline)
    web = TestClient(build_app(pages), raise_server_exceptions=False)
    try:
        r = web.post("/admin/clock", data={"token": TOKEN, "mode": "sudden-death",
                                           "initial_s": "600"})
        assert r.status_code == 503
        assert "not connected to the broker" in r.text and "was not set" in r.text
        assert offline.event_clock is None
    finally:
        store.close()

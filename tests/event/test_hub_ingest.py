"""The hub's record without a broker: order, duplicates, gaps, bad messages (every message
signed with the table's key, as a table sends it)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homeworlds.event.hub import HubIngest
from homeworlds.event.topics import table_topic
from homeworlds.store import GameStore
from tests.event.helpers import TWO_PLAYER_GAMES, store_rows
from tests.event.tables import TableSigner, issue, messages, played_store

EVENT = "club"


@pytest.fixture
def table_store(tmp_path):
    return played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[1], "t1")


@pytest.fixture
def sign(tmp_path):
    """t1's key, issued in the hub's store, and a signer with it."""
    return TableSigner(issue(tmp_path / "hub.sqlite", "t1"))


def make_hub(tmp_path):
    requests = []
    store = GameStore.open(tmp_path / "hub.sqlite")
    now = [0.0]
    hub = HubIngest(store, EVENT, request=lambda *a: requests.append(a), clock=lambda: now[0])
    return hub, requests, now


def resign(sign, topic: str, payload: bytes) -> tuple[str, bytes]:
    """A message's payload (without its signature) changed and signed again by the table."""
    return topic, sign(topic, payload.split(b"\n", 1)[1])


def body(payload: bytes) -> dict:
    return json.loads(payload.split(b"\n", 1)[1])


def test_shuffled_and_repeated_messages_give_the_tables_record(tmp_path, table_store, sign):
    hub, requests, now = make_hub(tmp_path)
    # Sent twice (after a reconnect the table sends again, under new sequence numbers).
    shuffled = messages(table_store, EVENT, "t1", sign) + messages(table_store, EVENT, "t1",
                                                                    sign)
    random.Random(7).shuffle(shuffled)
    for topic, payload in shuffled:
        now[0] += 5
        hub.handle(topic, payload)
    assert store_rows(tmp_path / "hub.sqlite", "t1") == store_rows(table_store)
    assert hub.duplicates > 0
    assert requests, "a gap asks the table for the missing turns"
    assert all(r[0] == "t1" and r[2] >= 1 for r in requests)
    assert not hub.problems and hub.refused == 0


def test_a_gap_waits_and_asks_for_its_first_missing_turn(tmp_path, table_store, sign):
    hub, requests, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    hub.handle(*msgs[0])
    hub.handle(*msgs[3])
    game = hub.store.games()[0]
    assert game.turns == 1
    uid = game.uid
    assert requests == [("t1", uid, 2)]
    hub.handle(*msgs[1])
    hub.handle(*msgs[2])
    assert hub.store.game(game.id).turns == 4


def snapshot(uid: str, turns, **extra) -> dict:
    return {"type": "snapshot", "table": "t1", "game": {
        "uid": uid, "turns": turns, "turn_number": 6, "players": ["Ann", "Bob"],
        "to_move": 0, "result": None}, **extra}


def test_the_retained_state_reveals_turns_the_hub_never_saw(tmp_path, table_store, sign):
    hub, requests, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    uid = body(msgs[0][1])["game_uid"]
    hub.handle(*msgs[0])
    topic = table_topic(EVENT, "t1", "state")
    hub.handle(topic, sign(topic, snapshot(uid, 5)))
    assert requests == [("t1", uid, 2)]


@pytest.mark.parametrize("payload, problem", [
    (b"\xff\xfe", "not UTF-8"),
    (b"{not json", "not JSON"),
    (b"[1, 2]", "not an object"),
    (b'{"game_uid": "x", "number": "three"}', "game: missing"),
    (b'{"game_uid": "x", "number": 1, "seat": 0, "sdg": "Pass", "committed": "t"}',
     "game: missing"),
])
def test_malformed_messages_are_logged_with_table_and_topic(tmp_path, payload, problem, sign):
    hub, _, _ = make_hub(tmp_path)
    topic = table_topic(EVENT, "t1", "turns")
    hub.handle(topic, sign(topic, payload))
    assert len(hub.problems) == 1
    text = hub.problems[0]
    assert "table t1" in text and topic in text and problem in text
    assert hub.store.games() == [] and hub.refused == 1


def test_an_illegal_turn_is_refused_and_named(tmp_path, table_store, sign):
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    for m in msgs[:4]:
        hub.handle(*m)
    bad = body(msgs[4][1])
    bad["sdg"] = "Build Y3 Nowhere"
    hub.handle(msgs[4][0], sign(msgs[4][0], bad))
    assert "turn 5" in hub.problems[-1] and "not legal" in hub.problems[-1]
    assert hub.store.games()[0].turns == 4
    hub.handle(*msgs[4])  # the genuine turn still goes in
    assert hub.store.games()[0].turns == 5


def test_a_turn_out_of_seat_order_is_refused(tmp_path, table_store, sign):
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    hub.handle(*msgs[0])
    bad = body(msgs[1][1])
    bad["seat"] = 1 - bad["seat"]
    hub.handle(msgs[1][0], sign(msgs[1][0], bad))
    assert "is to move" in hub.problems[-1]


def test_a_game_uid_claimed_by_two_tables_stays_with_the_first(tmp_path, table_store, sign):
    sign2 = TableSigner(issue(tmp_path / "hub.sqlite", "t2"))
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    hub.handle(*msgs[0])
    topic = table_topic(EVENT, "t2", "turns")
    other = body(msgs[1][1])
    other["table"] = "t2"
    hub.handle(topic, sign2(topic, other))
    assert "belongs to table t1" in hub.problems[-1]
    # t1's message moved to t2's topic fails t2's key, and t1's signature on t2's topic
    hub.handle(topic, msgs[1][1])
    assert "table t1's, not table t2's" in hub.problems[-1]


def test_a_hub_restarted_on_its_store_continues(tmp_path, table_store, sign):
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    for m in msgs[:6]:
        hub.handle(*m)
    hub.store.close()
    hub, _, _ = make_hub(tmp_path)
    for m in msgs:
        hub.handle(*m)
    assert hub.refused == 6  # the first six again: replays, refused after the restart too
    assert store_rows(tmp_path / "hub.sqlite", "t1") == store_rows(table_store)


def test_a_different_turn_under_a_stored_number_is_refused_and_named(tmp_path, table_store,
                                                                     sign):
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1", sign)
    for m in msgs[:3]:
        hub.handle(*m)
    other = body(msgs[1][1])
    other["sdg"] = "Pass"
    hub.handle(msgs[1][0], sign(msgs[1][0], other))
    assert "turn 2" in hub.problems[-1] and "never replaced" in hub.problems[-1]
    assert store_rows(tmp_path / "hub.sqlite", "t1") == {
        uid: (turns[:3], None) for uid, (turns, _) in store_rows(table_store).items()}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["turns", "result", "state", "online", "events", "request"]),
       mutate=st.dictionaries(st.sampled_from(["game_uid", "number", "seat", "sdg", "game",
                                               "committed", "position_json", "winners",
                                               "kind", "after_turn", "at", "by_seat",
                                               "online", "handicaps", "players", "rules",
                                               "first_seat", "uid", "started"]),
                              json_values, max_size=4))
def test_garbage_never_stops_the_hub(tmp_path, table_store, sign, kind, mutate):
    hub, _, _ = make_hub(tmp_path)
    msgs = messages(table_store, EVENT, "t1")
    data = json.loads(msgs[0][1])
    header = data["game"]
    for key, value in mutate.items():
        if key in ("handicaps", "players", "rules", "first_seat", "uid", "started"):
            header[key] = value
        else:
            data[key] = value
    topic = table_topic(EVENT, "t1", kind)
    hub.handle(topic, sign(topic, data))
    hub.overview()
    hub.store.close()

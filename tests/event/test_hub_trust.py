"""The hub believes only the table that owns a topic (issue 27): forged, replayed, false and
out-of-range messages are refused and logged with table, topic and reason; a result stands
only when the hub's replay of the turns reaches it or the table declared it; a table's games
at the hub are bounded. No broker here: tests/event/test_event_attack.py is the same through
a real mosquitto."""

from __future__ import annotations

import json

import pytest

from homeworlds.event.hub import MAX_OPEN_GAMES, HubIngest
from homeworlds.event.identity import issue_key, revoke_keys
from homeworlds.event.topics import table_topic
from homeworlds.identity import TableKey, sign
from homeworlds.store import GameStore
from tests.event.helpers import TWO_PLAYER_GAMES, store_rows
from tests.event.tables import TableSigner, issue, messages, played_store

EVENT = "club"
TURNS = table_topic(EVENT, "t1", "turns")
RESULT = table_topic(EVENT, "t1", "result")


@pytest.fixture
def hub(tmp_path):
    """A hub that holds t1's key, its clock driven by the test; t1's signer; t1's game
    (3426, which ends by elimination after 17 turns) played into t1's store."""
    key = issue(tmp_path / "hub.sqlite", "t1")
    now = [0.0]
    store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(store, EVENT, clock=lambda: now[0])
    table = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[1], "t1")
    yield ingest, TableSigner(key), table, now
    store.close()


def body(payload: bytes) -> dict:
    return json.loads(payload.split(b"\n", 1)[1])


def held(ingest) -> list[tuple[int, str]]:
    game = ingest.store.games()[0]
    return [(t.number, t.sdg) for t in ingest.store.turns(game.id)]


def test_a_forged_pass_is_refused_and_the_real_turns_go_on(hub):
    """Defect 1: a forged legal Pass on the table's topic was stored as the next turn, and
    every real turn after it was refused."""
    ingest, signer, table, _ = hub
    msgs = messages(table, EVENT, "t1", signer)
    for m in msgs[:3]:
        ingest.handle(*m)
    forged = body(msgs[3][1])
    forged["sdg"], forged["position_json"] = "Pass", None
    ingest.handle(TURNS, json.dumps(forged).encode())              # unsigned
    guess = TableKey("t1", open_key_id(msgs[0][1]), bytes(32))     # a guessed secret
    ingest.handle(TURNS, sign(guess, TURNS, 10 ** 6, json.dumps(forged).encode()))
    assert ingest.refused == 2
    assert "table t1: refused a message on " + TURNS + ": not signed" in ingest.problems[0]
    assert "does not match key" in ingest.problems[1]
    for m in msgs[3:]:
        ingest.handle(*m)
    assert store_rows(ingest.store.path, "t1") == store_rows(table)
    assert "Pass" not in [sdg for _, sdg in held(ingest)]


def open_key_id(payload: bytes) -> str:
    return payload.split(b" ", 2)[1].decode()


def test_a_forged_or_false_result_does_not_end_a_live_game(hub):
    """Defect 1: a forged opponent-eliminated result ended a live game and the table's next
    turns were refused. Unsigned it is refused; signed by the table but not what the hub's
    replay reaches, it is refused too."""
    ingest, signer, table, _ = hub
    msgs = messages(table, EVENT, "t1", signer)
    for m in msgs[:5]:
        ingest.handle(*m)
    result = body(msgs[-1][1])
    assert result["kind"] == "opponent-eliminated"
    early = dict(result, after_turn=5)
    ingest.handle(RESULT, json.dumps(early).encode())
    ingest.handle(RESULT, signer(RESULT, early))
    assert "not signed" in ingest.problems[0]
    assert "replay of the 5 turns has not ended the game" in ingest.problems[1]
    wrong_winner = dict(result, winners=[1 - result["winners"][0]])
    for m in msgs[5:-1]:
        ingest.handle(*m)
    ingest.handle(RESULT, signer(RESULT, wrong_winner))
    assert f"ends it as opponent-eliminated won by seats {result['winners']}" \
        in ingest.problems[-1]
    assert not ingest.store.games()[0].finished
    ingest.handle(*msgs[-1])
    assert store_rows(ingest.store.path, "t1") == store_rows(table)
    assert ingest.refused == 3


@pytest.mark.parametrize("change, words", [
    ({"winners": [7, -1]}, "winners: [7, -1] is not a list of different seats"),
    ({"by_seat": 42}, "by_seat: 42 is out of range"),
    ({"kind": "<b>bogus</b>"}, "kind: '<b>bogus</b>' is not a way a game ends"),
    ({"winners": [0, 0]}, "not a list of different seats"),
    ({"after_turn": 10 ** 9}, "after_turn: 1000000000 is out of range"),
    ({"at": "yesterday"}, "at: 'yesterday' is not an ISO 8601 time"),
    ({"kind": "resigned", "by_seat": None}, "which seat resigned"),
    ({"kind": "agreed-draw", "by_seat": None}, "a agreed-draw game has no winners"),
    ({"kind": "resigned", "winners": [0], "by_seat": 0}, "seat 0 resigned and is among"),
])
def test_a_result_with_impossible_fields_is_refused(hub, change, words):
    """Defect 1: a result with winners [7, -1], by_seat 42 and kind <b>bogus</b> was
    stored as given."""
    ingest, signer, table, _ = hub
    msgs = messages(table, EVENT, "t1", signer)
    for m in msgs[:4]:
        ingest.handle(*m)
    bad = {**body(msgs[-1][1]), "after_turn": 4, **change}
    if "kind" not in change:
        bad["kind"] = "resigned"
    ingest.handle(RESULT, signer(RESULT, bad))
    assert ingest.refused == 1 and words in ingest.problems[-1], ingest.problems[-1]
    assert "table t1" in ingest.problems[-1] and RESULT in ingest.problems[-1]
    assert not ingest.store.games()[0].finished


def test_a_declared_resignation_signed_by_the_table_ends_the_game(hub):
    ingest, signer, table, _ = hub
    msgs = messages(table, EVENT, "t1", signer)
    for m in msgs[:4]:
        ingest.handle(*m)
    resigned = dict(body(msgs[-1][1]), kind="resigned", after_turn=4, winners=[0], by_seat=1)
    ingest.handle(RESULT, signer(RESULT, resigned))
    result = ingest.store.result(ingest.store.games()[0].id)
    assert (result.kind, result.winners, result.by_seat) == ("resigned", (0,), 1)
    assert ingest.refused == 0
    # ...and the game is then over: a later turn is refused, the result never replaced.
    ingest.handle(*msgs[4])
    ingest.handle(RESULT, signer(RESULT, dict(resigned, winners=[1], by_seat=0)))
    assert "the game is finished" in ingest.problems[-2]
    assert "a result is never replaced" in ingest.problems[-1]


def test_replayed_messages_are_refused_even_after_a_restart(hub, tmp_path):
    ingest, signer, table, now = hub
    msgs = messages(table, EVENT, "t1", signer)
    for m in msgs[:6]:
        ingest.handle(*m)
    ingest.handle(*msgs[2])
    assert "replayed: sequence number 3 was accepted before" in ingest.problems[-1]
    ingest.store.close()
    restarted = HubIngest(GameStore.open(tmp_path / "hub.sqlite"), EVENT)
    for m in msgs[:6]:
        restarted.handle(*m)
    assert restarted.refused == 6 and all("replayed" in p for p in restarted.problems)
    for m in msgs[6:]:
        restarted.handle(*m)
    assert store_rows(tmp_path / "hub.sqlite", "t1") == store_rows(table)
    restarted.store.close()
    ingest.store = GameStore.open(tmp_path / "hub.sqlite")  # for the fixture to close


def test_an_old_retained_state_is_refused_and_the_same_one_again_is_not(hub):
    ingest, signer, table, _ = hub
    topic = table_topic(EVENT, "t1", "state")
    uid = body(messages(table, EVENT, "t1", signer)[0][1])["game_uid"]
    state = {"type": "snapshot", "table": "t1", "game": {"uid": uid, "turns": 0},
             "store_fault": None}
    old = signer(topic, dict(state, store_fault="old"))
    new = signer(topic, dict(state, store_fault="new"))
    ingest.handle(topic, new)
    ingest.handle(topic, new)  # the broker hands a retained message to a new subscription
    ingest.handle(topic, old)
    assert ingest.refused == 1 and "older than the state accepted" in ingest.problems[-1]
    assert ingest.tables["t1"].snapshot["store_fault"] == "new"


def test_the_tables_last_will_is_believed_though_signed_before_it_went_online(hub):
    ingest, signer, _, _ = hub
    topic = table_topic(EVENT, "t1", "online")
    will = signer(topic, {"table": "t1", "online": False})  # set when connecting
    seq = int(will.split(b" ", 3)[2])
    ingest.handle(topic, signer(topic, {"table": "t1", "online": True, "will_seq": seq}))
    assert ingest.tables["t1"].online is True
    ingest.handle(topic, will)
    assert ingest.tables["t1"].online is False and ingest.refused == 0


def test_a_revoked_key_is_refused_at_once_and_a_rotated_one_after_first_use(hub, tmp_path):
    ingest, signer, table, now = hub
    msgs = messages(table, EVENT, "t1", signer)
    ingest.handle(*msgs[0])
    store = GameStore.open(tmp_path / "hub.sqlite")
    new_key = issue_key(store, "t1")        # rotation: the old key stays valid...
    now[0] += 2
    ingest.handle(*msgs[1])
    assert ingest.refused == 0
    rotated = TableSigner(new_key)
    for m in messages(table, EVENT, "t1", rotated)[2:4]:  # ...until the new one is used
        ingest.handle(*m)
    ingest.handle(*msgs[4])
    assert "was retired" in ingest.problems[-1] and "newer key" in ingest.problems[-1]
    assert new_key.key_id in revoke_keys(store, "t1")
    now[0] += 2                             # the hub reads its keys again within a second
    ingest.handle(*messages(table, EVENT, "t1", rotated)[4])
    assert f"key {new_key.key_id} was revoked" in ingest.problems[-1]
    assert ingest.store.games()[0].turns == 4
    store.close()


def test_a_key_of_another_table_or_an_unknown_one_is_refused(hub, tmp_path):
    ingest, _, table, _ = hub
    t2 = TableSigner(issue(tmp_path / "hub.sqlite", "t2"))
    hub[3][0] += 1  # a moment later: the hub reads the keys again for an unknown one
    stranger = TableSigner(TableKey.new("t1"))
    ingest.handle(*messages(table, EVENT, "t1", t2)[0])
    ingest.handle(*messages(table, EVENT, "t1", stranger)[0])
    assert "is table t2's, not table t1's" in ingest.problems[-2]
    assert "unknown key t1." in ingest.problems[-1]
    assert ingest.store.games() == [] and ingest.tables == {}


def test_games_per_table_and_fresh_uids_are_bounded(hub):
    """Defect 3: every turn with a fresh game uid made a game row (10,000 in 2.2 s)."""
    ingest, signer, table, _ = hub
    first = json.loads(messages(table, EVENT, "t1")[0][1])
    for k in range(300):
        uid = f"fresh{k:04d}"
        data = dict(first, game_uid=uid, game=dict(first["game"], uid=uid))
        ingest.handle(TURNS, signer(TURNS, data))
    assert len(ingest.store.games()) == MAX_OPEN_GAMES
    assert ingest.refused == 300 - MAX_OPEN_GAMES
    assert f"at most {MAX_OPEN_GAMES}" in ingest.problems[-1]
    assert len(ingest.problems) <= 200


@pytest.mark.parametrize("change, words", [
    ({"number": 0}, "number: 0 is out of range"),
    ({"number": 10 ** 12}, "is out of range"),
    ({"number": 2.5}, "number: 2.5 has the wrong type"),
    ({"seat": 5}, "seat: 5 is out of range"),
    ({"sdg": "x" * 5000}, "sdg: 5000 characters"),
    ({"committed": "\x1b[2J"}, "committed: contains control characters"),
    ({"game_uid": "../../x"}, "is not a game uid"),
    ({"table": "t2"}, "not the topic's table"),
    ({"elapsed_ms": -4}, "elapsed_ms: -4 is out of range"),
])
def test_a_turn_out_of_range_is_refused_before_the_store(hub, change, words):
    ingest, signer, table, _ = hub
    turn = {**json.loads(messages(table, EVENT, "t1")[0][1]), **change}
    if "game_uid" in change:
        turn["game"] = dict(turn["game"], uid=change["game_uid"])
    ingest.handle(TURNS, signer(TURNS, turn))
    assert ingest.refused == 1 and words in ingest.problems[-1], ingest.problems[-1]
    assert ingest.store.games() == []


def test_states_naming_unknown_games_are_bounded(hub, monkeypatch):
    """A retained state names a game the hub does not hold: it asks for it, but remembers
    at most MAX_ASKED such games and makes no game row for any."""
    from homeworlds.event import hub as hub_module

    monkeypatch.setattr(hub_module, "MAX_ASKED", 40)
    ingest, signer, _, now = hub
    topic = table_topic(EVENT, "t1", "state")
    for k in range(90):
        ingest.handle(topic, signer(topic, {"type": "snapshot", "table": "t1",
                                            "game": {"uid": f"ghost{k}", "turns": 5}}))
    assert ingest.store.games() == [] and len(ingest._asked) == 40
    assert ingest.refused == 0


def test_a_store_fault_while_checking_is_a_problem_not_a_crash(hub, monkeypatch):
    from homeworlds.store import StoreUnavailable

    ingest, signer, table, _ = hub
    msgs = messages(table, EVENT, "t1", signer)

    def broken(key_id):
        raise StoreUnavailable("hub.sqlite", "disk I/O error")

    monkeypatch.setattr(ingest.identities.stored, "seen", broken)
    ingest.handle(*msgs[0])
    assert "could not check a message on" in ingest.problems[-1]
    assert "disk I/O error" in ingest.problems[-1] and ingest.store.games() == []
    monkeypatch.undo()
    for m in msgs:
        ingest.handle(*m)
    assert store_rows(ingest.store.path, "t1") == store_rows(table)

"""The signature state a store keeps (store.identity): sequence numbers reserved by a
table never given twice, even across restarts; the highest number a hub accepted never
lowered; keys retired and revoked."""

from __future__ import annotations

from homeworlds.store import GameStore
from homeworlds.store.identity import StoredIdentity


def test_reserved_numbers_are_never_given_twice_across_reopening(tmp_path):
    path = tmp_path / "t1.sqlite"
    firsts = []
    for _ in range(3):  # three runs of the table host
        store = GameStore.open(path)
        ids = StoredIdentity(store)
        firsts += [ids.reserve("t1.k", 256), ids.reserve("t1.k", 10)]
        store.close()
    assert firsts == [1, 257, 267, 523, 533, 789]
    store = GameStore.open(path)
    assert StoredIdentity(store).reserve("t1.other", 5) == 1  # per key
    store.close()


def test_the_highest_accepted_number_is_never_lowered(tmp_path):
    store = GameStore.open(tmp_path / "hub.sqlite")
    ids = StoredIdentity(store)
    ids.record_seen("t1.k", "stream", 40)
    ids.record_seen("t1.k", "stream", 12)
    ids.record_seen("t1.k", "state", 7)
    store.close()
    store = GameStore.open(tmp_path / "hub.sqlite")
    assert StoredIdentity(store).seen("t1.k") == {"stream": 40, "state": 7}
    store.close()


def test_keys_are_retired_by_a_newer_one_and_revoked_by_table(tmp_path):
    store = GameStore.open(tmp_path / "hub.sqlite")
    ids = StoredIdentity(store)
    ids.add_key("t1.a", "t1", "00" * 32, "2026-12-06T10:00:00.000+00:00")
    ids.add_key("t1.b", "t1", "11" * 32, "2026-12-06T11:00:00.000+00:00")
    ids.add_key("t2.a", "t2", "22" * 32, "2026-12-06T10:00:00.000+00:00")
    assert ids.retire_older(ids.key("t1.b"), "2026-12-06T12:00:00.000+00:00") == ["t1.a"]
    assert ids.key("t1.a").retired and ids.key("t1.b").valid and ids.key("t2.a").valid
    assert ids.revoke("t1", None, "2026-12-06T13:00:00.000+00:00") == ["t1.a", "t1.b"]
    assert [k.key_id for k in ids.keys() if k.valid] == ["t2.a"]
    assert ids.revoke("t1", None, "later") == []
    store.close()


def test_recording_a_number_leaves_every_other_write_durable(tmp_path):
    store = GameStore.open(tmp_path / "hub.sqlite")
    StoredIdentity(store).record_seen("t1.k", "stream", 3)
    assert store._read("PRAGMA synchronous") == [(2,)]  # FULL
    store.close()

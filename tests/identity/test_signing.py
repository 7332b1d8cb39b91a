"""Signed messages (homeworlds.identity): what a receiver holding the key can tell."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from homeworlds.identity import (
    ReplayError,
    ReplayWindow,
    SignatureError,
    Signer,
    TableKey,
    open_signed,
    sign,
)

KEY = TableKey("t4", "t4.k1", bytes(range(32)))
TOPIC = "homeworlds/club/tables/t4/turns"


def test_a_signed_message_opens_to_its_payload():
    data = sign(KEY, TOPIC, 7, b'{"number": 3}')
    message = open_signed(data)
    assert (message.key_id, message.seq) == ("t4.k1", 7)
    assert message.verify(KEY, TOPIC) == b'{"number": 3}'


@pytest.mark.parametrize("change, words", [
    (lambda d: d.replace(b'"number": 3', b'"number": 4'), "does not match"),
    (lambda d: d.replace(b" 7 ", b" 8 "), "does not match"),
    (lambda d: d[:-1] + b"}}", "does not match"),
])
def test_any_change_to_a_signed_message_is_found(change, words):
    data = change(sign(KEY, TOPIC, 7, b'{"number": 3}'))
    with pytest.raises(SignatureError, match=words):
        open_signed(data).verify(KEY, TOPIC)


def test_a_message_moved_to_another_topic_or_table_fails():
    message = open_signed(sign(KEY, TOPIC, 7, b"{}"))
    with pytest.raises(SignatureError, match="moved"):
        message.verify(KEY, TOPIC.replace("/t4/", "/t5/"))
    with pytest.raises(SignatureError, match="moved"):
        message.verify(KEY, TOPIC.replace("/turns", "/result"))
    other_table = TableKey("t5", "t4.k1", KEY.secret)  # same id and secret, another table
    with pytest.raises(SignatureError):
        message.verify(other_table, TOPIC)
    with pytest.raises(SignatureError, match="signed with key t4.k1, not t4.k2"):
        message.verify(TableKey("t4", "t4.k2", KEY.secret), TOPIC)
    forger = TableKey("t4", "t4.k1", bytes(32))  # knows the key id, not the secret
    with pytest.raises(SignatureError, match="does not match"):
        open_signed(sign(forger, TOPIC, 8, b"{}")).verify(KEY, TOPIC)


@pytest.mark.parametrize("data, words", [
    (b'{"type": "turn"}', "not signed"),
    (b"", "not signed"),
    (b"HWS1 t4.k1 0 " + b"0" * 64 + b"\n{}", "malformed"),
    (b"HWS1 t4.k1 -3 " + b"0" * 64 + b"\n{}", "malformed"),
    (b"HWS1 t4.k1 5 " + b"0" * 63 + b"\n{}", "malformed"),
    (b"HWS1 t4/k1 5 " + b"0" * 64 + b"\n{}", "malformed"),
    (b"HWS1 t4.k1 99999999999999999999 " + b"0" * 64 + b"\n{}", "malformed"),
    (b"HWS1 t4.k1 5 " + b"0" * 64 + b"{}", "not signed"),
])
def test_what_is_not_a_signed_message_says_so(data, words):
    with pytest.raises(SignatureError, match=words):
        open_signed(data)


@given(st.binary(max_size=300))
def test_no_bytes_crash_the_reader(data):
    try:
        open_signed(data).verify(KEY, TOPIC)
    except SignatureError:
        pass


def test_a_key_file_round_trips_and_never_shows_its_secret():
    key = TableKey.new("t4")
    assert TableKey.from_text(key.to_text(event="club")) == key
    assert key.secret.hex() not in repr(key)
    for text, words in [("{", "not JSON"), ("[]", "not a JSON object"),
                        ('{"table": "t4", "key_id": "k", "secret": "zz"}', "not hexadecimal"),
                        ('{"table": "t4", "key_id": "k", "secret": "00"}', "at least 16"),
                        ('{"table": "t/4", "key_id": "k", "secret": "' + "00" * 32 + '"}',
                         "table 't/4'"),
                        ('{"table": "t4", "secret": "00"}', "key_id: missing")]:
        with pytest.raises(ValueError, match=words):
            TableKey.from_text(text, source="t4.key")


def test_the_signer_never_repeats_a_number_across_restarts():
    store = {"next": 1}
    reserved = []

    def reserve(count):  # as a store would: persisted before it returns
        first = store["next"]
        store["next"] += count
        reserved.append((first, count))
        return first

    first = Signer(KEY, reserve, block=4)
    seqs = [open_signed(first.sign(TOPIC, b"{}")).seq for _ in range(6)]
    restarted = Signer(KEY, reserve, block=4)  # the host restarted: numbers 7-8 are lost
    seqs += [open_signed(restarted.sign(TOPIC, b"{}")).seq for _ in range(3)]
    assert seqs == [1, 2, 3, 4, 5, 6, 9, 10, 11]
    assert reserved == [(1, 4), (5, 4), (9, 4)]


def test_the_signer_skips_past_a_number_someone_else_signed_and_never_uses_it():
    store = {"next": 1}

    def reserve(count):
        first = store["next"]
        store["next"] += count
        return first

    signer = Signer(KEY, reserve, block=4)
    assert open_signed(signer.sign(TOPIC, b"{}")).seq == 1
    signer.skip_past(100)  # an impostor signed number 100 with this key
    after = [open_signed(signer.sign(TOPIC, b"{}")).seq for _ in range(6)]
    assert after == [101, 102, 103, 104, 105, 106]
    assert store["next"] > 106  # reserved: a restart never signs 2 to 106 again
    signer.skip_past(50)  # below the numbers in use: nothing changes
    assert open_signed(signer.sign(TOPIC, b"{}")).seq == 107


def test_the_window_takes_each_number_once_in_any_order_near_the_top():
    window = ReplayWindow(size=8)
    for seq in (3, 1, 2, 10, 5):
        window.accept(seq)
    for seq in (3, 10, 5):
        with pytest.raises(ReplayError, match="a replay"):
            window.accept(seq)
    with pytest.raises(ReplayError, match="too old"):
        window.accept(2)  # seen, and at 10 - 8 too old to tell
    with pytest.raises(ReplayError, match="too old"):
        window.accept(1)
    window.accept(4)  # within the window, not seen yet
    assert window.highest == 10


def test_a_restarted_window_refuses_everything_up_to_what_was_persisted():
    window = ReplayWindow(highest=50, size=8)
    with pytest.raises(ReplayError, match="used before"):
        window.accept(50)
    with pytest.raises(ReplayError, match="used before"):
        window.accept(45)
    window.accept(52)
    window.accept(51)


def test_the_window_forgets_what_it_can_no_longer_be_asked():
    window = ReplayWindow(size=4)
    for seq in itertools.islice(itertools.count(1), 1000):
        window.accept(seq)
    assert len(window._seen) <= 2 * 4 + 1

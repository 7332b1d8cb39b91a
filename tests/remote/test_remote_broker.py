"""Issue 30: two simulated tables play an archive game against each other through a real
mosquitto; both stores hold the same game turn by turn; a forged turn on the broker is
refused on both sides; a lost link pauses, and a restarted side resumes with both equal."""

from __future__ import annotations

from homeworlds.event.mqtt import make_client
from homeworlds.event.settings import parse_broker_url
from homeworlds.identity import sign
from homeworlds.notation import read_sdg_file
from homeworlds.remote.invitation import Invitation
from homeworlds.remote.messages import TurnMessage, to_payload
from homeworlds.sim import TableDriver
from tests.remote.tables import (
    GAME,
    follow_remote_turn,
    play,
    play_own_turn,
    pump,
    reference_before,
    two_tables,
)


def forge(broker, topic, payload_text, seq=5):
    client = make_client(parse_broker_url(broker.url), "rogue")
    client.connect(broker.host if hasattr(broker, "host") else "127.0.0.1", broker.port)
    client.loop_start()
    attacker_key = Invitation.new().key("host")
    client.publish(topic, sign(attacker_key, topic, seq, payload_text), qos=1).wait_for_publish(5)
    client.publish(topic, payload_text, qos=1).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def test_two_tables_play_an_archive_game_through_the_broker(tmp_path, broker):
    game = read_sdg_file(GAME)
    tables = two_tables(tmp_path, broker.url, game)
    host, guest = tables
    try:
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        play(tables, game, 6)
        notes = list(guest.session.notices) + list(host.session.notices)
        assert any("jeep: waiting for the turn from the other table" in n for n in notes)
        assert not any("the computer (level" in n for n in notes), notes
        # A rogue on the broker sends the host's turn 7 without the invitation.
        fake = TurnMessage(host.game.game_id,
                           7, 0, "Build G1 jeep")
        forge(broker, host.game.topic, to_payload(fake))
        pump(tables, lambda: len([r for r in guest.game.refusals if r.side == "here"]) >= 2
             and len([r for r in host.game.refusals if r.side == "there"]) >= 2,
             "the forged turns refused on both sides")
        reasons = [r.reason for r in host.game.refusals]
        assert any("signed with key" in r for r in reasons), reasons
        assert any("not signed" in r for r in reasons), reasons
        assert guest.game.ready_turn(7) is None
        play(tables, game, len(game.turns), start=6)
        assert host.session.tracker.state.is_over and guest.session.tracker.state.is_over
        assert host.stored_turns() == guest.stored_turns()
        assert len(host.stored_turns()) == len(game.turns)
    finally:
        for table in tables:
            table.close()


def test_a_lost_link_pauses_and_a_restarted_side_resumes_with_both_equal(tmp_path, broker):
    game = read_sdg_file(GAME)
    tables = two_tables(tmp_path, broker.url, game)
    host, guest = tables
    try:
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        play(tables, game, 4)
        # The guest's host loses its link (its process ends): the host pauses.
        guest.disconnect()
        pump(tables, lambda: host.game.paused is not None, "the host pauses")
        assert "waiting for the other table" in host.game.paused
        # The game clocks pause on the host too (a timed game's clocks would not run).
        assert "remote" in host.session.pause_reasons(0.0)
        # The host's player makes turn 5 meanwhile: it waits on the broker for nobody.
        turn = game.turns[4]
        assert turn.seat == 0
        play_own_turn(host, turn.actions, game.turns[5].seat, tables,
                      reference_before(game, 4))
        # The guest's host restarts: a new side from the invitation and its store. Its
        # sequence numbers go on above the old ones and the host accepts them; the host
        # sends the turn the guest missed.
        guest.connect()
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "both tables resume")
        assert "remote" not in host.session.pause_reasons(0.0)
        follow_remote_turn(guest, tables)
        assert host.stored_turns() == guest.stored_turns()
        assert list(host.game.refusals) == [] and list(guest.game.refusals) == []
        play(tables, game, 9, start=5)
    finally:
        for table in tables:
            table.close()


def test_the_other_seats_turn_made_by_hand_before_it_arrived_is_refused(tmp_path, broker):
    """Only the other table plays its seat: a person here who lays out that seat's turn
    before it arrived and hands over is refused, and nothing is committed or sent."""
    game = read_sdg_file(GAME)
    tables = two_tables(tmp_path, broker.url, game)
    host, guest = tables
    try:
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        turn = game.turns[0]
        assert turn.seat == 0  # the host's player moves first; the guest's person plays it
        session = guest.session
        guest.sim.driver = TableDriver(guest.sim.table, reference_before(game, 0), {})
        guest.sim.driver.play_turn(turn.actions, hand_over=False)
        pump(tables, guest.in_step, "the guest sees the pieces")
        guest.sim.driver.hand_over(1)
        pump(tables, lambda: guest.in_step() and session.status.phase == "handover-refused",
             "the hand-over refused")
        assert "jeep's turn is played at the other table" in session.status.message
        pump(tables, lambda: True, "one more pass")
        assert session.tracker.record == [] and host.session.tracker.record == []
        assert guest.stored_turns() == [] and host.game.ready_turn(1) is None
    finally:
        for table in tables:
            table.close()


def test_a_broker_killed_mid_game_loses_nothing_and_a_replayed_turn_is_refused(tmp_path,
                                                                              broker):
    """The broker is killed (SIGKILL, nothing persisted) between turns: both tables pause;
    the host's player moves while it is down; once it is back the turn reaches the guest.
    A rogue who recorded a genuine turn from the broker replays it later: refused on both
    sides."""
    import threading

    game = read_sdg_file(GAME)
    tables = two_tables(tmp_path, broker.url, game)
    host, guest = tables
    recorded: list[bytes] = []
    subscribed = threading.Event()
    rogue = make_client(parse_broker_url(broker.url), "recorder")
    rogue.on_connect = lambda c, *a, **k: c.subscribe(host.game.topic, qos=1)
    rogue.on_subscribe = lambda *a, **k: subscribed.set()
    rogue.on_message = lambda c, u, m: recorded.append(bytes(m.payload))
    rogue.connect("127.0.0.1", broker.port)
    rogue.loop_start()
    try:
        assert subscribed.wait(10)
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        play(tables, game, 4)
        turn_message = next(m for m in recorded if b'"type": "turn"' in m)
        broker.kill()
        pump(tables, lambda: host.game.paused is not None and guest.game.paused is not None,
             "both tables pause")
        assert "link to the broker is lost" in host.game.paused
        assert "remote" in guest.session.pause_reasons(0.0)
        play_own_turn(host, game.turns[4].actions, game.turns[5].seat, tables,
                      reference_before(game, 4))
        broker.start()
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "both tables resume", timeout=60)
        follow_remote_turn(guest, tables)
        assert host.stored_turns() == guest.stored_turns()
        assert len(guest.stored_turns()) == 5
        # The rogue replays the host's genuine first turn (its signature is valid).
        rogue.reconnect()
        rogue.publish(host.game.topic, turn_message, qos=1).wait_for_publish(10)
        pump(tables, lambda: any("replay" in r.reason or "was used before" in r.reason
                                 for r in host.game.refusals if r.side == "there"),
             "the replay refused on both sides")
        play(tables, game, 8, start=5)
    finally:
        rogue.loop_stop()
        rogue.disconnect()
        for table in tables:
            table.close()

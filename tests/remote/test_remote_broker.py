"""Issue 30: two simulated tables play an archive game against each other through a real
mosquitto; both stores hold the same game turn by turn; a forged turn on the broker is
refused on both sides; a lost link pauses, and a restarted side resumes with both equal."""

from __future__ import annotations

from pathlib import Path

from homeworlds.event.mqtt import make_client
from homeworlds.event.settings import parse_broker_url
from homeworlds.identity import sign
from homeworlds.notation import read_sdg_file
from homeworlds.remote.invitation import Invitation
from homeworlds.remote.messages import TurnMessage, to_payload
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState
from tests.remote.tables import RemoteTable, follow_remote_turn, play_own_turn, pump

GAME = Path(__file__).parent.parent / "data" / "games" / "sdg" / "3426.raw"


def two_tables(tmp_path, broker, game):
    invitation = Invitation.new()
    # The guest types the code the host's table showed.
    joined = Invitation.from_code(invitation.code)
    rules = rules_for_game(game, None)
    first = game.turns[0].seat
    host = RemoteTable(tmp_path, "home", invitation, "host", 0, rules, game.players, first,
                       broker.url)
    guest = RemoteTable(tmp_path, "away", joined, "guest", 1, rules, game.players, first,
                        broker.url)
    return host, guest


def reference_before(game, index):
    """The transcript's position before turn ``index`` (its own system names)."""
    state = GameState(rules_for_game(game, None), 2, first_to_move=game.turns[0].seat)
    for turn in game.turns[:index]:
        state.apply_turn(turn.actions)
    return state


def play(tables, game, turns, start=0):
    host, guest = tables
    by_seat = {0: host, 1: guest}
    for index in range(start, turns):
        turn = game.turns[index]
        mover, follower = by_seat[turn.seat], by_seat[1 - turn.seat]
        following = game.turns[index + 1].seat if index + 1 < len(game.turns) \
            else 1 - turn.seat
        play_own_turn(mover, turn.actions, following, tables, reference_before(game, index))
        follow_remote_turn(follower, tables)
        assert host.session.tracker.record == guest.session.tracker.record
        assert host.stored_turns() == guest.stored_turns()
        assert len(host.stored_turns()) == index + 1


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
    tables = two_tables(tmp_path, broker, game)
    host, guest = tables
    try:
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        play(tables, game, 6)
        # A rogue on the broker sends the host's turn 7 without the invitation.
        fake = TurnMessage(host.game_id if hasattr(host, "game_id") else host.game.game_id,
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
    tables = two_tables(tmp_path, broker, game)
    host, guest = tables
    try:
        pump(tables, lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet")
        play(tables, game, 4)
        # The guest's host loses its link (its process ends): the host pauses.
        guest.disconnect()
        pump(tables, lambda: host.game.paused is not None, "the host pauses")
        assert "waiting for the other table" in host.game.paused
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
        follow_remote_turn(guest, tables)
        assert host.stored_turns() == guest.stored_turns()
        assert list(host.game.refusals) == [] and list(guest.game.refusals) == []
        play(tables, game, 9, start=5)
    finally:
        for table in tables:
            table.close()

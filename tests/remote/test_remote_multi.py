"""Three tables, one game, against a real mosquitto (issue 30: "Setup (homeworld choice,
Good/Evil deals for 3+ players across tables) works the same way"): every table plays one
seat of a three-player archive game to the end, a player who leaves resigns at their own
table, and a third side's forged or out-of-turn turn is refused by every other table."""

from __future__ import annotations

import pytest

from homeworlds.identity import sign
from homeworlds.notation import read_sdg_file
from homeworlds.remote.invitation import Invitation, InvitationError
from homeworlds.remote.messages import TurnMessage, to_payload
from homeworlds.replay import rules_for_game
from tests.remote.multi_tables import play_game, tables_for
from tests.remote.tables import pump


def test_a_three_table_code_names_its_tables_and_keeps_the_two_table_codes():
    three = Invitation.new(sides=3)
    assert three.code.startswith("hw3-") and three.roles == ("host", "guest1", "guest2")
    again = Invitation.from_code(three.code.upper().replace("-", " "))
    assert (again.sides, again.game_id) == (3, three.game_id)
    # The same secret as a two-table code is another game, and a count changed by hand
    # fails the check letter.
    two = Invitation(three.secret)
    assert two.code.startswith("hw-") and two.game_id != three.game_id
    assert two.roles == ("host", "guest")
    # A count changed by hand: the check letter (one of 32) catches it, or (one time in
    # 32 for each count) it names another game, whose keys nobody holds.
    caught = 0
    for count in (4, 5, 6):
        try:
            other = Invitation.from_code(f"hw{count}" + three.code[3:])
        except InvitationError as exc:
            assert "mistyped" in str(exc)
            caught += 1
        else:
            assert other.game_id != three.game_id and other.sides == count
    assert caught >= 1
    with pytest.raises(InvitationError, match="3 to 6 tables"):
        Invitation.from_code("hw8" + three.code[3:])
    assert len({three.key(r).secret for r in three.roles}) == 3
    with pytest.raises(ValueError, match="one of host, guest1, guest2"):
        three.key("guest")


@pytest.fixture
def three(tmp_path, broker, shared_dir):
    game = read_sdg_file(shared_dir / "games" / "sdg" / "20650.raw")
    tables = tables_for(tmp_path, broker.url, game.players, rules_for_game(game, None),
                        game.turns[0].seat)
    try:
        pump(tables, lambda: all(t.game.paused is None for t in tables),
             "every table meets the others")
        yield game, tables
    finally:
        for table in tables:
            table.close()


def test_three_tables_play_a_three_player_archive_game_to_the_end(three):
    """SDG 20650, three players: caru stops moving after turn 13 (the transcript passes
    over them: they resigned at their table, and every table lets them leave); the game is
    played to its last turn with every store equal to the transcript, turn by turn."""
    game, tables = three
    play_game(tables, game)
    caru = game.players.index("caru")
    for table in tables:
        assert table.stored_departures() == [(15, "resigned", caru)]
        assert table.session.tracker.state.eliminated[caru]
    assert [n for _, n, _ in tables[0].stored_turns()] == [t.seat for t in game.turns]
    other = next(t for t in tables if caru not in t.seats)
    notes = [n for n in other.session.notices if "caru resigned" in n]
    assert notes and f"(at caru's table ({tables[caru].role}))" in notes[0], notes


def test_a_third_sides_forged_or_out_of_turn_turn_is_refused_by_every_other_table(three):
    game, tables = three
    play_game(tables, game, turns=3)
    host, guest1, guest2 = tables
    mover = host.session.tracker.state.to_move  # caru's turn 4
    thief = next(t for t in tables if mover not in t.seats)
    players = game.players
    # Out of turn: the thief's own seat, but it is not its player's turn.
    thief.game._say(TurnMessage(thief.game.game_id, 4, thief.seat,
                                f"Build G1 {players[thief.seat]}", departures=0))
    # Forged: a turn of the mover's seat sent on the thief's topic, and one on the mover's
    # topic signed with the thief's key.
    thief.game._say(TurnMessage(thief.game.game_id, 4, mover, "Build G1 x", departures=0))
    owner_topic = next(t for t in tables if mover in t.seats).game.topic
    thief.connection.client.publish(owner_topic, sign(
        thief.game.key, owner_topic, 10**6, to_payload(
            TurnMessage(thief.game.game_id, 4, mover, "Build G1 x", departures=0))), qos=1)
    others = [t for t in tables if t is not thief]
    # The mover's own table does not read its own topic: it refuses two, the third table
    # all three.
    wanted = {t.name: 2 if mover in t.seats else 3 for t in others}
    pump(tables, lambda: all(len([r for r in t.game.refusals if r.side == "here"])
                             >= wanted[t.name] for t in others),
         "every other table refuses them")
    for table in others:
        reasons = [r.reason for r in table.game.refusals if r.side == "here"]
        assert any(f"it is not {players[thief.seat]}'s turn" in r for r in reasons), reasons
        assert any(f"turn 4 is for seat {mover} ({players[mover]}); " in r
                   for r in reasons), reasons
        assert any("signed with key" in r for r in reasons) == (mover not in table.seats)
        assert table.game.ready_turn(4) is None
    # The thief hears every refusal told to it, and is paused until it holds turn 4.
    told = [r.reason for r in thief.game.refusals if r.side == "there"]
    pump(tables, lambda: len([r for r in thief.game.refusals if r.side == "there"]) >= 4,
         "the thief hears the refusals")
    assert thief.game.paused is not None and "refused turn 4" in thief.game.paused, told

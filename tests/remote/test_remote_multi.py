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
from homeworlds.rules import GameState
from tests.remote.multi_tables import play_game, tables_for
from tests.remote.tables import follow_remote_turn, play_own_turn, pump


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
    # A count changed by hand, added to a two-table code or taken off a three-table one is
    # always caught (the check letter moves with the count).
    for count in (4, 5, 6):
        with pytest.raises(InvitationError, match="mistyped"):
            Invitation.from_code(f"hw{count}" + three.code[3:])
    for count in (3, 4, 5, 6):
        with pytest.raises(InvitationError, match="mistyped"):
            Invitation.from_code(f"hw{count}" + two.code[2:])
    with pytest.raises(InvitationError, match="mistyped"):
        Invitation.from_code("hw" + three.code[3:])
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
    # The figure (``pytest -s``): a turn's commit at its table to each other table's first
    # guidance step of it (one process, one clock).
    movers = {n: tables[seat] for n, seat, _ in tables[0].stored_turns()}
    waits = sorted(t.first_guidance[n] - movers[n].committed_at[n]
                   for t in tables for n in t.first_guidance if movers[n] is not t)
    print(f"\nthree tables, turn commit -> another table's first guidance step: p50 "
          f"{waits[len(waits) // 2] * 1000:.0f} ms, p95 {waits[int(len(waits) * .95)] * 1000:.0f}"
          f" ms, max {waits[-1] * 1000:.0f} ms over {len(waits)} layouts")
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


def test_a_table_that_was_away_catches_up_on_the_turns_of_both_other_tables(three):
    """The third table's link is closed for two turns, each played by another table; when
    it connects again (a new side, from its store) both tables send their turn again, in
    whatever order they arrive it lays out both, and the game goes on to the end."""
    game, tables = three
    play_game(tables, game, turns=3)
    by_seat = {t.seat: t for t in tables}
    away = by_seat[game.turns[5].seat]
    assert {game.turns[3].seat, game.turns[4].seat} == {0, 1, 2} - {away.seat}
    present = [t for t in tables if t is not away]
    away.disconnect()
    pump(tables, lambda: all(t.game.paused is not None and "waiting for" in t.game.paused
                             for t in present), "the others see the third table leave")
    reference = GameState(rules_for_game(game, None), 3, first_to_move=game.turns[0].seat)
    for turn in game.turns[:3]:
        reference.apply_turn(turn.actions)
    for index in (3, 4):
        turn = game.turns[index]
        before = reference.copy()
        reference.apply_turn(turn.actions)
        mover = by_seat[turn.seat]
        play_own_turn(mover, turn.actions, reference.to_move, present, before)
        follow_remote_turn(next(t for t in present if t is not mover), present)
    assert len(away.session.tracker.record) == 3
    away.connect()
    follow_remote_turn(away, tables)
    follow_remote_turn(away, tables)
    assert {str(t.session.tracker.record) for t in tables} == {
        str(tables[0].session.tracker.record)}
    assert away.stored_turns() == present[0].stored_turns()
    pump(tables, lambda: all(t.game.paused is None for t in tables), "all here again")
    play_game(tables, game, start=5)


def test_a_turn_ahead_of_the_one_before_it_is_kept_until_its_time_not_refused():
    """Three sides joined directly (no broker): the third hears turn 2 before turn 1 (as
    when it comes back and two tables send their turns again): turn 2 is kept, turn 1 laid
    out; a turn far ahead is refused as out of order."""
    from homeworlds.remote.game import MAX_AHEAD

    sides = wired_three()
    host, guest1, guest2 = sides.values()
    assert all(g.paused is None for g in sides.values())
    held = []
    guest2.send = lambda t, d, r: None  # what guest2 says is not needed here
    host.send = lambda t, d, r: held.append((t, d))
    guest1.send = lambda t, d, r: held.append((t, d))
    host._say(TurnMessage(host.game_id, 1, 0, "Homeworld Y1 B2 G3", departures=0))
    guest1._say(TurnMessage(guest1.game_id, 2, 1, "Homeworld Y3 G3 G1", departures=0))
    guest1._say(TurnMessage(guest1.game_id, 2 + MAX_AHEAD, 1, "Pass", departures=0))
    for t, d in reversed(held):  # the far one, turn 2, then turn 1
        guest2.received(t, d)
    guest2.poll()
    refused = [r.reason for r in guest2.refusals if r.side == "here"]
    assert refused == [f"out of order: turn {2 + MAX_AHEAD} arrived, this table holds 0 "
                       "turns and expects turn 1"]
    assert guest2.ready_turn(1) is not None and 2 in guest2._early
    assert guest2.ready_turn(2) is None  # its time comes once turn 1 is committed here


def test_a_table_signing_as_another_is_seen_by_that_table_and_told_to_all(three):
    """Every table derives every table's key from the code, so a third table could sign
    as the host: the host reads its own topic too (the broker echoes its messages), sees
    one it did not send, tells every table and pauses."""
    game, tables = three
    play_game(tables, game, turns=1)
    host, guest1, guest2 = tables
    key = guest2.invitation.key("host")  # the code gives guest2 the host's key too
    forged = TurnMessage(host.game.game_id, 2, host.seat, "Pass", departures=0)
    guest2.connection.client.publish(host.game.topic, sign(
        key, host.game.topic, 10**6, to_payload(forged)), qos=1)
    pump(tables, lambda: host.game.impostor is not None, "the host sees the impostor")
    assert "signed as host that this table did not send (number 1000000)" in \
        host.game.paused
    pump(tables, lambda: all(any("another table of this game signs as it" in n
                                 for n in t.session.notices) for t in tables),
         "every table is told")
    # Its own messages, echoed by the broker all game long, were never taken for one.
    assert [r.reason for r in host.game.refusals if r.side == "here"] == [
        host.game.impostor]


def test_two_tables_play_three_seats_one_of_them_two(tmp_path, broker, shared_dir):
    """A table may play more than one seat: the host plays caru and BloodRumpus (two
    players at one table), the guest plays ajo; SDG 20650 to the end, both stores equal to
    the transcript turn by turn."""
    game = read_sdg_file(shared_dir / "games" / "sdg" / "20650.raw")
    rules = rules_for_game(game, None)
    ajo = game.players.index("ajo")
    home_seats = tuple(s for s in range(3) if s != ajo)
    invitation = Invitation.new()  # two tables: a code as before
    first = game.turns[0].seat
    from tests.remote.tables import RemoteTable

    tables = [RemoteTable(tmp_path, "home", invitation, "host", home_seats[0], rules,
                          game.players, first, broker.url, seats=home_seats),
              RemoteTable(tmp_path, "away", Invitation.from_code(invitation.code), "guest",
                          ajo, rules, game.players, first, broker.url)]
    try:
        pump(tables, lambda: all(t.game.paused is None for t in tables), "both meet")
        assert tables[0].game.peers["guest"].played == (ajo,)
        assert tables[1].game.peers["host"].played == home_seats
        play_game(tables, game)
        assert tables[0].stored_departures() == tables[1].stored_departures() == [
            (15, "resigned", game.players.index("caru"))]
    finally:
        for table in tables:
            table.close()


def wired_three(players=("Ann", "Bob", "Cat")) -> dict:
    """Three sides of a game joined directly (what one says, the two others hear), met."""
    from homeworlds.remote.game import RemoteGame
    from homeworlds.rules import preset
    from homeworlds.session import new_session
    from homeworlds.sim import make_registry
    from homeworlds.table.layout import builtin_layout

    invitation = Invitation.new(sides=3)
    sides = {}
    for seat, role in enumerate(invitation.roles):
        layout = builtin_layout("four-seat")
        session = new_session(layout, make_registry(layout, 3), preset("last-standing"),
                              players)
        numbers = iter(range(1, 10**6, 256))
        sides[role] = RemoteGame(session, invitation, role, seat,
                                 reserve=lambda n, numbers=numbers: next(numbers))
        sides[role].attach()
    for role, game in sides.items():
        game.send = lambda t, d, r, role=role: [g.received(t, d) for other, g in sides.items()
                                                if other != role]
        game.connected(True)
    poll(sides)
    return sides


def poll(sides) -> None:
    for _ in range(4):
        for game in sides.values():
            game.poll()


def test_only_a_seats_own_table_says_its_player_left_or_claims_the_seat():
    from homeworlds.remote.messages import Departure, Hello

    sides = wired_three()
    host, guest1, guest2 = sides.values()
    assert all(g.paused is None for g in sides.values())
    # guest2 says Ann (the host's seat) resigned: refused by the two others.
    guest2._say(Departure(guest2.game_id, "resigned", 0, 0, 0))
    # guest2 claims Bob's seat (guest1's) in its hello: refused too.
    guest2._say(Hello(guest2.game_id, 1, ("Ann", "Bob", "Cat"), "last-standing", 0, (1, 2)))
    poll(sides)
    for game in (host, guest1):
        reasons = [r.reason for r in game.refusals if r.side == "here"]
        assert any("Ann is not played at Cat's table (guest2): only their own table can say "
                   "they resigned" in r for r in reasons), reasons
        assert not game.tracker.state.eliminated[0]
    assert any("guest2 and guest1 both play seat 1 (Bob)" in r.reason
               for r in host.refusals if r.side == "here")
    assert any("both tables play seat 1 (Bob)" in r.reason
               for r in guest1.refusals if r.side == "here")

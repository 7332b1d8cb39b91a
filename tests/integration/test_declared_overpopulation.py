"""An overpopulation declared at the table by the player not to move (003, the
``alternating-setup`` preset): a long press of that player's seat button while the table
shows the overpopulation, then the pieces cleared; the record says ``… by Name`` (issue
28, item 5). Played through the simulated microcontroller's pty."""

from __future__ import annotations

from homeworlds.rules import Build, Catastrophe, Color, Piece, SetupPick, preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.store.records import turn_from_sdg, turn_to_sdg

PLAYERS = ("Ann", "Bob")
P = Piece.from_text
#: Six setup picks, then Ann builds green twice at her home: with its green star and three
#: green ships it is overpopulated (four pieces of one colour) in turn 9.
SETUP = [[SetupPick(P("g1"), "star", "Ann")], [SetupPick(P("y3"), "star", "Bob")],
         [SetupPick(P("b2"), "star", "Ann")], [SetupPick(P("g2"), "star", "Bob")],
         [SetupPick(P("g3"), "ship", "Ann")], [SetupPick(P("y2"), "ship", "Bob")],
         [Build(P("g1"), "Ann")], [Build(P("y1"), "Bob")]]


def _play_turn_9(declare: bool):
    sim = SimulatedTableGame(preset("alternating-setup"), PLAYERS, timeout=30)
    with sim:
        for turn in SETUP:
            sim.driver.play_turn(turn, hand_over=False)
            sim.settle()
            assert sim.hand_over_and_wait(sim.driver.state.to_move), sim.session.status.message
        session = sim.session
        sim.driver.begin_turn()
        sim.driver.act(Build(P("g1"), "Ann"))
        sim.settle()
        heard = None
        if declare:
            bob_button = sim.layout.seats[1].button
            sim.table.long_press(bob_button)
            sim.host.pump(lambda: any("declares" in n for n in session.notices),
                          "hear Bob's declaration")
            heard = [n for n in session.notices if "declares" in n][-1]
            assert session.hint_view().acknowledged_seats == (1,)
        sim.driver.act(Catastrophe("Ann", Color.GREEN, declarer=1 if declare else None))
        sim.driver.end_turn(hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(1), session.status.message
        return session, heard


def test_a_long_press_of_the_player_not_to_move_declares_the_overpopulation():
    """003 (Overpopulation): "This is not a turn action and can be declared by either player
    at any time when the condition is met." """
    session, heard = _play_turn_9(declare=True)
    assert heard == ("Bob declares the overpopulation of Ann (green): clear it; the record "
                     "says by Bob")
    seat, turn = session.tracker.record[-1]
    assert seat == 0 and turn == (Build(P("g1"), "Ann"),
                                  Catastrophe("Ann", Color.GREEN, declarer=1))
    text = turn_to_sdg(turn, PLAYERS)
    assert text.splitlines()[-1] == "Catastrophe Ann Green by Bob"
    assert turn_from_sdg(text, 0, PLAYERS) == turn  # the store reads it back
    # Ann lost her last ship at home: Bob, who declared it, eliminated her.
    assert session.tracker.state.result.winners == (1,)


def test_without_the_long_press_the_mover_declared_it():
    session, _ = _play_turn_9(declare=False)
    _, turn = session.tracker.record[-1]
    assert turn[-1] == Catastrophe("Ann", Color.GREEN)
    assert turn_to_sdg(turn, PLAYERS).splitlines()[-1] == "Catastrophe Ann Green"

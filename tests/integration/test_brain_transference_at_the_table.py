"""Brain Transference at the table (000's novice handicap, issue 28 item 4): nothing on the
table moves — the players change places — so it is asked for by holding both seat buttons
together (or by the admin); the bars confirm it, the record holds it, and from then on each
player plays from the other's side. Played through the simulated microcontroller's pty."""

from __future__ import annotations

import time

import pytest

from homeworlds.notation import parse_sdg_action
from homeworlds.rules import BrainTransference, Build, Piece, preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import ACKNOWLEDGED_S, AdminCommand, ControlError
from homeworlds.store.records import turn_from_sdg, turn_to_sdg

PLAYERS = ("Ann", "Bob")
RULES = preset("looney").with_handicaps(brain_transference=True)
OPENING = ["Homeworld G1 B2 Y3", "Homeworld R1 Y2 G3", "Build Y1 Ann"]


def _play(sim, texts):
    for text in texts:
        seat = sim.driver.state.to_move
        turn = tuple(parse_sdg_action(a.strip(), player=PLAYERS[seat]) for a in text.split(";"))
        sim.driver.play_turn(turn, hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(sim.driver.state.to_move), sim.session.status.message


def _mirrored(state):
    """The position as the table's sides hold it once the players changed places: side s
    has what seat 1 - s owns (the pieces did not move)."""
    mirror = state.copy()
    for system in mirror.systems:
        system.ships.reverse()
        if system.home_of is not None:
            system.home_of = 1 - system.home_of
    mirror.to_move = 1 - mirror.to_move
    return mirror


def test_both_buttons_held_together_play_brain_transference():
    """000 (NOVICE VS. EXPERT): "Brain Transference: The Junior Officer is given one chance,
    at some point during the game, to completely change places with the Senior Officer for
    the remainder of the game." """
    sim = SimulatedTableGame(RULES, PLAYERS, timeout=30)
    with sim:
        _play(sim, OPENING)
        session = sim.session
        for seat in (0, 1):  # Bob, the junior officer, is to move: both hold their buttons
            sim.table.long_press(sim.layout.seats[seat].button)
        sim.host.pump(lambda: len(session.tracker.record) == 4, "commit Brain Transference")
        assert session.tracker.record[-1] == (1, (BrainTransference(),))
        assert session.hint_view().acknowledged_seats == (0, 1)
        assert any("Bob uses Brain Transference: Bob and Ann change places" in n
                   for n in session.notices)
        assert turn_to_sdg((BrainTransference(),), PLAYERS) == "Brain Transference"
        assert turn_from_sdg("Brain Transference", 1, PLAYERS) == (BrainTransference(),)
        # Ann now plays Bob's old pieces from his side of the table (north): she builds at
        # the home named Bob, on the north pads, and hands the token to Bob, now south.
        state = session.tracker.state
        assert state.to_move == 0 and state.system("Bob").home_of == 0
        view = session.hint_view()
        assert view.seat_at_side == (1, 0) and view.active_seat == 0
        from homeworlds.sim import TableDriver

        hands = TableDriver(sim.table, _mirrored(state),
                            session.tracker.slot_of_system(session.observation))
        hands.play_turn((Build(Piece.from_text("g1"), "Bob"),), hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(0), session.status.message  # the token to side 0
        assert session.tracker.record[-1] == (0, (Build(Piece.from_text("g1"), "Bob"),))
        assert session.tracker.state.to_move == 1
        # Bob's turn shows on the south bar, his side now (once the confirmation's blink
        # is over).
        time.sleep(ACKNOWLEDGED_S + 0.1)
        frame = session.lights.render(session.hint_view(), 0.0)
        south, north = sim.layout.seats[0].bar, sim.layout.seats[1].bar
        assert frame[south[0]] != (0, 0, 0) and frame[north[0]] == (0, 0, 0)


def test_brain_transference_is_refused_when_it_is_not_the_juniors_to_play():
    sim = SimulatedTableGame(RULES, PLAYERS, timeout=30)
    with sim:
        _play(sim, OPENING[:2])  # Ann (senior) to move
        with pytest.raises(ControlError, match="only Bob .the junior officer. may use Brain "
                                               "Transference"):
            sim.command(AdminCommand("brain-transference"))
        for seat in (0, 1):
            sim.table.long_press(sim.layout.seats[seat].button)
        session = sim.session
        sim.host.pump(lambda: any(n.startswith("both buttons held:") for n in session.notices),
                      "refuse the gesture")
        assert len(session.tracker.record) == 2
        _play(sim, OPENING[2:])
        assert sim.command(AdminCommand("brain-transference")).startswith(
            "Brain Transference: Bob and Ann change places")
        assert session.tracker.record[-1] == (1, (BrainTransference(),))


def test_without_the_handicap_both_buttons_held_are_two_hint_requests():
    sim = SimulatedTableGame(preset("looney"), PLAYERS, timeout=30)
    assert sim.session.buttons.together_s is None


def test_the_record_says_the_game_had_the_handicap_and_replays_with_it():
    """000 (NOVICE VS. EXPERT): "The Junior Officer is given one chance" — the SDG record
    names the junior and the handicap, so that its ``Brain Transference`` line replays."""
    from homeworlds.notation import read_sdg
    from homeworlds.replay import replay_game
    from homeworlds.store.export import record_sdg

    record = [(0, turn_from_sdg("Homeworld G1 B2 Y3", 0, PLAYERS)),
              (1, turn_from_sdg("Homeworld R1 Y2 G3", 1, PLAYERS)),
              (0, turn_from_sdg("Build Y1 Ann", 0, PLAYERS)), (1, (BrainTransference(),))]
    text = record_sdg(PLAYERS, record, rules="looney", handicaps=RULES.handicaps)
    assert "Handicaps: Bob (junior), brain transference\n" in text
    game = read_sdg(text)
    assert game.handicaps == RULES.handicaps
    result = replay_game(game)
    assert result.legal and result.final_state.brain_transference_used
    # Without the header the same record is illegal: the handicap is not on.
    plain = replay_game(read_sdg(text.replace("Handicaps: Bob (junior), brain transference\n",
                                              "")))
    assert not plain.legal and "not enabled" in plain.error.reason


@pytest.mark.parametrize("header, said", [
    ("Handicaps: Zed (junior), brain transference", "the junior 'zed' is not a player"),
    ("Handicaps: Bob (junior), mind control", "unknown handicap 'mind control'"),
])
def test_a_bad_handicaps_header_names_the_problem(header, said):
    from homeworlds.notation import read_sdg
    from homeworlds.rules import InvalidNotation

    text = ("Homeworlds Online\nRules: looney\n" + header + "\nParticipants: Ann (N), Bob (S)\n"
            "\n1) Ann: Homeworld G1 B2 Y3\n")
    with pytest.raises(InvalidNotation, match=said):
        read_sdg(text)

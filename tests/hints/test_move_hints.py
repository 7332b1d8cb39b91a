"""Lifting a ship: origin spinner, bright and dim connections, empty slots for a new star."""

from __future__ import annotations

from homeworlds.hints import LiftedShip, render
from homeworlds.rules import Build, Piece, Sacrifice

from .helpers import (
    EMPTY_SLOTS,
    GREEN,
    MIDGAME_SLOTS,
    OFF,
    RED,
    SETTINGS,
    WHITE,
    YELLOW,
    lit,
    midgame,
    position,
    ring,
    system,
    view,
)

BRIGHT = (lit(WHITE, SETTINGS.bright),) * 16
DIM = (lit(WHITE, SETTINGS.dim),) * 16
DASHED_BRIGHT = tuple(lit(WHITE, SETTINGS.bright) if i % 2 == 0 else OFF for i in range(16))
DASHED_DIM = tuple(lit(WHITE, SETTINGS.dim) if i % 2 == 0 else OFF for i in range(16))
P = Piece.from_text


def lifted_frame(piece: str, origin_slot: int, now: float = 0.0, state=None, **extra):
    state = state if state is not None else midgame()
    extra.setdefault("active_seat", 0)
    return render(view(game=state, system_at=MIDGAME_SLOTS,
                       lifted=LiftedShip(0, P(piece), origin_slot), **extra), SETTINGS, now)


def idle_frame(state=None):
    return render(view(game=state if state is not None else midgame(),
                       system_at=MIDGAME_SLOTS, active_seat=0), SETTINGS, 0.0)


def test_origin_is_marked_by_a_spinner_in_the_lifted_ships_colour():
    frame = lifted_frame("y1", 3, now=0.0)
    # At the start of the spin the head is at position 0 and the tail fades behind it.
    expected = [OFF] * 16
    expected[0] = YELLOW
    expected[15] = lit(YELLOW, 0.75)
    expected[14] = lit(YELLOW, 0.5)
    expected[13] = lit(YELLOW, 0.25)
    assert ring(frame, 3) == tuple(expected)
    # Half a spin later the head has gone half-way round.
    later = ring(lifted_frame("y1", 3, now=SETTINGS.spin_period / 2), 3)
    assert later[8] == YELLOW and later[0] == OFF and later[7] == lit(YELLOW, 0.75)
    # A green ship spins in green.
    assert ring(lifted_frame("g3", 3), 3)[0] == GREEN


def test_yellow_star_at_origin_lights_connected_systems_brightly():
    # Alice (sizes 1, 2) has a yellow star; Alpha, Gamma (size 3) are connected.
    frame = lifted_frame("g3", 3)
    assert ring(frame, 5) == BRIGHT
    assert ring(frame, 12) == BRIGHT


def test_unconnected_systems_keep_their_idle_rings():
    frame = lifted_frame("g3", 3)
    idle = idle_frame()
    # Beta (size 2) and Bob (sizes 1, 3) share a size with Alice.
    assert ring(frame, 1) == ring(idle, 1)
    assert ring(frame, 10) == ring(idle, 10)


def test_no_yellow_at_origin_lights_connected_systems_dimly():
    # Alpha (g3) holds only seat 0's r1: no yellow star, no yellow ship of the mover.
    frame = lifted_frame("r1", 5)
    assert ring(frame, 3) == DIM      # Alice: sizes 1, 2
    assert ring(frame, 1) == DIM      # Beta: size 2
    assert ring(frame, 10) == ring(idle_frame(), 10)   # Bob shares size 3


def test_own_yellow_ship_at_origin_makes_connections_bright():
    # Gamma (b3) has no yellow star but seat 0's y1 is there.
    frame = lifted_frame("y1", 12)
    assert ring(frame, 3) == BRIGHT and ring(frame, 1) == BRIGHT


def test_opponents_yellow_ship_does_not_give_the_mover_yellow():
    state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                     system("Bob", "r1g3", "", "b3", home_of=1),
                     system("Alpha", "g3", "r1", "y1"),
                     system("Beta", "b2", "b1", ""))
    frame = lifted_frame("r1", 5, state=state)
    assert ring(frame, 3) == DIM and ring(frame, 1) == DIM


def test_empty_slots_light_dashed_when_a_connected_star_size_is_in_the_bank():
    frame = lifted_frame("g3", 3)     # bright: yellow at Alice; large stars are in the bank
    for slot in EMPTY_SLOTS:
        assert ring(frame, slot) == DASHED_BRIGHT, slot
    frame = lifted_frame("r1", 5)     # dim: no yellow at Alpha
    for slot in EMPTY_SLOTS:
        assert ring(frame, slot) == DASHED_DIM, slot


def test_empty_slots_stay_dark_when_no_connected_star_size_is_left_in_the_bank():
    # Every large piece is on the board, so nothing can be discovered from a 1+2 home.
    state = position(system("Alice", "b1y2", "r3r3g3b3", "", home_of=0),
                     system("Bob", "r1g2", "", "y3y3g3b3", home_of=1),
                     system("Gamma", "r2", "r3y3g3b3", ""))
    assert state.bank_count(P("r3")) == state.bank_count(P("y3")) == 0
    assert state.bank_count(P("g3")) == state.bank_count(P("b3")) == 0
    slots = {3: "Alice", 10: "Bob", 12: "Gamma"}
    frame = render(view(game=state, system_at=slots, active_seat=0,
                        lifted=LiftedShip(0, P("r3"), 3)), SETTINGS, 0.0)
    for slot in range(14):
        if slot not in slots:
            assert ring(frame, slot) == (OFF,) * 16, slot
    # From Gamma (size 2) small stars are still in the bank: the empty slots light up.
    frame = render(view(game=state, system_at=slots, active_seat=0,
                        lifted=LiftedShip(0, P("y3"), 12)), SETTINGS, 0.0)
    assert ring(frame, 0) == DASHED_BRIGHT


def test_pending_yellow_sacrifice_makes_connections_bright_without_yellow_at_origin():
    state = midgame()
    turn = state.begin_turn()
    turn.apply(Sacrifice(P("y1"), "Alice"))           # one move action to spend
    frame = render(view(game=turn.state, turn=turn, system_at=MIDGAME_SLOTS, active_seat=0,
                        lifted=LiftedShip(0, P("r1"), 5)), SETTINGS, 0.0)
    assert ring(frame, 3) == BRIGHT and ring(frame, 1) == BRIGHT
    assert ring(frame, 0) == DASHED_BRIGHT


def test_connections_are_dim_once_the_turns_action_is_spent():
    state = midgame()
    turn = state.begin_turn()
    turn.apply(Build(P("g1"), "Alice"))                # the free action: a build
    frame = render(view(turn=turn, system_at=MIDGAME_SLOTS, active_seat=0,
                        lifted=LiftedShip(0, P("y1"), 3)), SETTINGS, 0.0)
    assert ring(frame, 5) == DIM and ring(frame, 12) == DIM
    assert ring(frame, 0) == DASHED_DIM
    # Before the build the same lift is bright.
    frame = render(view(turn=state.begin_turn(), system_at=MIDGAME_SLOTS, active_seat=0,
                        lifted=LiftedShip(0, P("y1"), 3)), SETTINGS, 0.0)
    assert ring(frame, 5) == BRIGHT and ring(frame, 0) == DASHED_BRIGHT


def test_a_move_the_rules_forbid_is_dim_even_with_yellow_at_origin():
    # Under the strict rules emptying your own home mid-turn is suicide: Alice's last ship
    # cannot leave, though Alice has a yellow star.
    for rules, expected in (("strict", DIM), ("looney", BRIGHT)):
        state = position(system("Alice", "b1y2", "g3", "", home_of=0),
                         system("Bob", "r1g3", "", "b3", home_of=1),
                         system("Alpha", "g3", "r1", ""), rules=rules)
        frame = render(view(turn=state.begin_turn(), system_at={3: "Alice", 10: "Bob", 5: "Alpha"},
                            active_seat=0, lifted=LiftedShip(0, P("g3"), 3)), SETTINGS, 0.0)
        assert ring(frame, 5) == expected, rules


def test_a_ship_of_the_player_not_on_turn_gets_only_dim_hints():
    state = midgame()
    frame = render(view(game=state, system_at=MIDGAME_SLOTS, active_seat=1,
                        lifted=LiftedShip(0, P("g3"), 3)), SETTINGS, 0.0)
    assert ring(frame, 5) == DIM
    frame = render(view(turn=state.begin_turn(), system_at=MIDGAME_SLOTS, active_seat=0,
                        lifted=LiftedShip(1, P("b3"), 10)), SETTINGS, 0.0)
    assert ring(frame, 1) == DIM      # Beta (size 2) is connected to Bob (sizes 1, 3)


def test_moves_available_now_overrides_the_rules_question():
    assert ring(lifted_frame("r1", 5, moves_available_now=True), 3) == BRIGHT
    assert ring(lifted_frame("g3", 3, moves_available_now=False), 5) == DIM
    assert ring(lifted_frame("g3", 3, moves_available_now=False), 0) == DASHED_DIM


def test_origin_on_a_slot_without_a_known_system_is_marked_and_nothing_else():
    frame = lifted_frame("r1", 0)     # slot 0 is empty in the mid-game position
    assert ring(frame, 0)[0] == RED
    idle = idle_frame()
    for slot in range(1, 14):
        assert ring(frame, slot) == ring(idle, slot), slot


def test_overpopulation_outranks_a_move_hint():
    # Delta (r3) is connected to Alice but overpopulated in green: it pulses instead.
    frame = lifted_frame("g3", 3, now=SETTINGS.pulse_period / 2)
    assert ring(frame, 8) == (GREEN,) * 16
    assert ring(frame, 5) == BRIGHT


def test_mistake_outranks_a_move_hint_and_the_origin():
    on = lifted_frame("g3", 3, now=0.0, mistake_slots=frozenset({3, 5}))
    assert ring(on, 3) == ring(on, 5) == (RED,) * 16
    off = lifted_frame("g3", 3, now=SETTINGS.blink_period / 2, mistake_slots=frozenset({3, 5}))
    assert ring(off, 3) == ring(off, 5) == (OFF,) * 16
    assert ring(off, 12) == BRIGHT

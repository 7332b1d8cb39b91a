"""Brain Transference (000's novice handicap) in the successor search, the win search and
turn inference.

000 (NOVICE VS. EXPERT): "Brain Transference: The Junior Officer is given one chance, at
some point during the game, to completely change places with the Senior Officer for the
remainder of the game." The engine plays it instead of a turn (``BrainTransference()``:
every ship and home changes seat); catastrophes may follow it, as after a pass. The
generators must list exactly what ``TurnInProgress`` accepts (tests/legality holds them to
it on random positions); these positions show each part on purpose.
"""

from __future__ import annotations

from homeworlds.ai import wins as ai_wins
from homeworlds.notation.cooked import read_cooked
from homeworlds.rules import (
    BrainTransference,
    Catastrophe,
    Color,
    GameState,
    ObservedSystem,
    Pass,
    canonical_key,
    count_successors,
    each_successor,
    find_winning_turn,
    infer_turn,
    preset,
    red_alert,
    successor_keys,
    successors,
)
from tests.successors.oracle import oracle_successor_keys

#: Seat 1 (the junior player) to move. Home1 holds four greens: a catastrophe there takes
#: every ship of seat 1 (no turn of seat 1 wins), but after a Brain Transference Home1 is
#: seat 0's, and the same catastrophe eliminates seat 0.
TRANSFER_AND_BLOW_UP = """
Home0 (0, r1b2) y3-
Home1 (1, g1b3) g1-g2g3
"""

WITH_HANDICAP = preset("looney").with_handicaps(brain_transference=True, junior_seat=1)


def _position(text: str, rules=WITH_HANDICAP, to_move: int = 1) -> GameState:
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, rules, to_move=to_move)


def _transfers(state: GameState) -> list[tuple]:
    return [s.turn for s in successors(state) if s.turn[0] == BrainTransference()]


def test_successors_list_the_transference_and_the_catastrophes_after_it():
    state = _position(TRANSFER_AND_BLOW_UP)
    blow_up = Catastrophe("Home1", Color.GREEN)
    assert sorted(_transfers(state), key=len) == [(BrainTransference(),),
                                                  (BrainTransference(), blow_up)]
    assert [s.turn for s in successors(state, first_kind=BrainTransference)] == \
        _transfers(state)
    keys = {s.key for s in successors(state)}
    assert keys == successor_keys(state)
    assert count_successors(state) == len(keys) == len(list(successors(state)))
    listed = []
    assert each_successor(state, listed.append) == len(keys)
    assert (BrainTransference(), blow_up) in [s.turn for s in listed]
    # The same positions as the slow search through TurnInProgress finds.
    assert {canonical_key(s.apply(state)) for s in successors(state)} == \
        set(oracle_successor_keys(state))


def test_a_transference_and_a_catastrophe_win():
    state = _position(TRANSFER_AND_BLOW_UP)
    turn = find_winning_turn(state)
    assert turn == (BrainTransference(), Catastrophe("Home1", Color.GREEN))
    after = state.copy()
    after.apply_turn(turn)
    assert after.result is not None and after.result.winners == (1,)
    # Red Alert warns seat 0 of it, and the computer's shortcut does not hide it.
    assert red_alert(state, 0) == turn
    assert not ai_wins.home_out_of_reach(state, 0)
    assert ai_wins.immediate_win(state) == turn


def test_nothing_is_listed_when_the_handicap_is_closed():
    without = _position(TRANSFER_AND_BLOW_UP, preset("looney"))
    senior_to_move = _position(TRANSFER_AND_BLOW_UP, to_move=0)
    used = _position(TRANSFER_AND_BLOW_UP)
    used.brain_transference_used = True
    for state in (without, senior_to_move, used):
        assert _transfers(state) == []
        assert list(successors(state, first_kind=BrainTransference)) == []
    assert count_successors(used) == count_successors(without) == \
        count_successors(_position(TRANSFER_AND_BLOW_UP)) - 2
    assert find_winning_turn(without) is None and find_winning_turn(used) is None


def test_a_transference_that_changes_nothing_is_not_a_second_successor():
    """Two mirror-image sides: after the transference the board is the same as after a
    pass, one position, listed once (with the pass, found first)."""
    mirrored = _position("""
        Home0 (0, r1b2) y3-g1
        Home1 (1, r1b2) g1-y3
    """)
    turns = [s.turn for s in successors(mirrored)]
    assert (Pass(),) in turns and (BrainTransference(),) not in turns
    assert count_successors(mirrored) == len(turns) == len(set(successor_keys(mirrored)))


def _observed(before: GameState, after: GameState) -> list[ObservedSystem]:
    names = {s.key for s in before.systems}
    return [ObservedSystem(s.name if s.key in names else None, s.star_pieces,
                           tuple(s.ship_pieces(k) for k in range(after.players)))
            for s in after.systems]


def test_inference_finds_the_transference_and_the_catastrophe_after_it():
    state = _position(TRANSFER_AND_BLOW_UP)
    for turn in ((BrainTransference(),), (BrainTransference(), Catastrophe("Home1", Color.GREEN))):
        after = state.copy()
        after.apply_turn(turn)
        found = infer_turn(state, _observed(state, after))
        assert found.turn == turn, (turn, found)
        assert found.nodes <= 4

"""Win-in-one, seen from the computer opponent.

The rules engine owns the search (``homeworlds.rules.winning.find_winning_turn``);
this module is the one place the opponent asks it (``immediate_win``), after a
cheap proof that the opponent's home is out of reach this turn (most positions).
``scan_for_winning_turn`` is the slow but exact reference the tests hold that
proof to: it looks through every successor.
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.rules import (
    OVERPOPULATION,
    GameState,
    SignatureLayout,
    Turn,
    find_winning_turn,
    layout_for,
    successors,
)


def wins_for_mover(state: GameState, after: GameState) -> bool:
    """Whether ``after`` (the position after a turn from ``state``) is a win for that mover."""
    result = after.result
    return (result is not None and result.kind == "opponent-eliminated"
            and state.to_move in result.winners)


def lost_homes(key: tuple, layout: SignatureLayout) -> list[bool]:
    """Per seat, from a successor's canonical key: has that seat lost its home?

    Lost means gone (``None``), or a signature without a star or without a ship of its
    owner (a key may keep such a home in place)."""
    lost = []
    for seat, sig in enumerate(key[0]):
        if sig is None:
            lost.append(True)
            continue
        info = layout.info(sig)
        lost.append(not info.stars or not info.count[seat])
    return lost


def scan_for_winning_turn(state: GameState, **filters) -> Turn | None:
    """Exact but slow: the first successor whose position has the mover's opponent gone.
    ``filters`` are those of ``successors`` (e.g. only yellow sacrifices)."""
    me = state.to_move
    layout = layout_for(state.players, state.rules.bank_copies(state.players))
    for succ in successors(state, **filters):
        lost = lost_homes(succ.key, layout)
        if lost[me] or not any(lost):
            continue
        after = state.copy()
        after.apply_turn(succ.turn)
        if wins_for_mover(state, after):
            return succ.turn
    return None


def _fleet_by_colour(state: GameState, seat: int) -> tuple[list[int], list[int]]:
    """Per colour: the size of ``seat``'s largest ship (0: none) and how many it has."""
    largest = [0, 0, 0, 0]
    own = [0, 0, 0, 0]
    for s in state.systems:
        fleet = s.ships[seat]
        for k in range(12):
            if fleet[k]:
                own[k // 3] += fleet[k]
                largest[k // 3] = max(largest[k // 3], k % 3 + 1)
    return largest, own


def home_out_of_reach(state: GameState, seat: int) -> bool:
    """A cheap proof that the player to move cannot eliminate ``seat`` this turn.

    During the mover's turn ``seat``'s ships never move, so its home falls only to
    captures and catastrophes there. The counting behind the proof:

    - a turn is one free action or a sacrifice's actions, all of one colour, so at most
      ``max(1, size of the mover's largest ship)`` actions;
    - each action adds at most one piece of one colour to the home (a ship moved in, built
      there, or traded there); captures add nothing, and only red actions capture;
    - without a ship of its own there the mover cannot build, trade or capture there:
      only ships moved in (yellow actions) add pieces, at most as many of a colour as it
      has ships of that colour;
    - a catastrophe of colour c there needs four pieces of c: ``4 - count`` additions;
    - a capture takes one ship no larger than the capturer's largest ship there, and
      needs one of the mover's ships there at the start (it cannot move in and capture
      in one turn: those are actions of two colours).

    The home falls when every star goes (catastrophes of each star colour) or every ship
    of its owner goes (each colour of them by catastrophe, or every ship not already in
    an overpopulated colour by capture). When neither is within the turn's actions, no
    winning turn exists. The bound is optimistic, never pessimistic, so a win is never
    hidden (a test checks it against the exhaustive scan).
    """
    me = state.to_move
    home = state.home_of(seat)
    if home is None or seat == me or state.brain_transference_open():
        # After a Brain Transference ``seat`` would own another home: no proof here.
        return False
    largest, own = _fleet_by_colour(state, me)
    invaders = [k % 3 + 1 for k in range(12) if home.ships[me][k]]
    if invaders:
        # Moves, builds and trades can all add pieces; no cap per colour.
        actions = max(1, *largest)
        cap = [99, 99, 99, 99]
    else:
        # Without a ship there, only ships moved in add pieces: yellow actions only.
        actions = max(1, largest[1])
        cap = own
    counts = [home.count_color(c) for c in range(4)]

    def within_reach(colors: set[int]) -> bool:
        need = 0
        for c in colors:
            deficit = max(0, 4 - counts[c])
            if deficit > cap[c]:
                return False
            need += deficit
        return need <= actions

    if within_reach({i // 3 for i in home.stars}):
        return False
    defenders = [k for k in range(12) for _ in range(home.ships[seat][k])]
    if within_reach({k // 3 for k in defenders}):
        return False
    if invaders:
        to_capture = [k for k in defenders if counts[k // 3] < OVERPOPULATION]
        if all(k % 3 + 1 <= max(invaders) for k in to_capture) \
                and len(to_capture) <= max(1, largest[0]):
            return False
    return True


def home_stars_out_of_reach(state: GameState, seat: int) -> bool:
    """A cheap proof that the player to move cannot destroy a star of ``seat``'s home this
    turn (``find_home_star_turn`` would find nothing; most positions).

    Only a catastrophe destroys a star: some star colour there must reach four pieces.
    With the counting of ``home_out_of_reach``: a turn has at most ``max(1, largest
    ship)`` actions, each adding at most one piece; without a ship of its own in that home
    the mover can only move ships in (yellow actions, at most as many of a colour as it
    has ships of that colour). A loss of the whole home is left to ``home_out_of_reach``.
    """
    me = state.to_move
    home = state.home_of(seat)
    if home is None or seat == me or state.brain_transference_open():
        return False
    largest, own = _fleet_by_colour(state, me)
    inside = any(home.ships[me])
    actions = max(1, *largest) if inside else max(1, largest[1])
    for color in {k // 3 for k in home.stars}:
        need = 4 - home.count_color(color)
        if need <= 0 or need <= actions and (inside or need <= own[color]):
            return False
    return home_out_of_reach(state, seat)


def immediate_win(state: GameState,
                  should_stop: Callable[[], bool] | None = None) -> Turn | None:
    """A turn that wins the game at once for the player to move, or None.

    ``should_stop``: see ``find_winning_turn`` (raises ``SearchInterrupted``)."""
    if state.result is not None or state.in_setup:
        return None
    if state.players == 2 and home_out_of_reach(state, 1 - state.to_move):
        return None
    return find_winning_turn(state, should_stop=should_stop)


def opponent_threatens_win(after: GameState,
                           should_stop: Callable[[], bool] | None = None) -> bool:
    """After one's own turn: can the player now to move win at once? (Red Alert.)"""
    return immediate_win(after, should_stop) is not None

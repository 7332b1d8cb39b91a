"""The variants checked against the rulebooks' own words (../shared/rulebooks/).

Each test quotes the sentence it holds the engine to, with the file and section.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import pytest

from homeworlds.rules import (
    Alignment,
    AlignmentError,
    Build,
    Capture,
    Catastrophe,
    Color,
    GameState,
    Homeworld,
    IllegalAction,
    Pass,
    Piece,
    SetupPick,
    alignments_from_text,
    alignments_to_text,
    deal_alignments,
    preset,
)
from tests.rules.helpers import P, position


class _System(NamedTuple):
    name: str
    home_of: int | None
    stars: tuple[Piece, ...]
    ships: tuple[tuple[Piece, ...], ...]


def _pieces(text: str) -> tuple[Piece, ...]:
    return tuple(Piece.from_text(text[i:i + 2]) for i in range(0, len(text), 2))


def _system(name: str, home_of: int | None, stars: str, *fleets: str) -> _System:
    return _System(name, home_of, _pieces(stars), tuple(_pieces(f) for f in fleets))


# ---------------------------------------------------------------- Good/Evil


def _three_seat_good_evil(alignments: tuple[str, ...]) -> GameState:
    # Seat 0 sits with a large red at seat 1's home and a medium red at seat 2's home;
    # seats 1 and 2 each have a single small ship at home.
    systems = [
        _system("Home0", 0, "r1b2", "g3", "", ""),
        _system("Home1", 1, "y1b3", "r3", "g1", ""),
        _system("Home2", 2, "y2g1", "r2", "", "b1"),
    ]
    return GameState.from_position(systems, preset("good-evil"), to_move=0, players=3,
                                   alignments=alignments)


def test_eliminated_good_players_do_not_share_the_win():
    """002 (Elimination and Winning): "If there are no Evil players left, the game ends
    immediately, and al of the remaining Good players share the win." 004 (Élimination et
    victoire): "tous les joueurs du côté du Bien encore en jeu partagent la victoire"."""
    state = _three_seat_good_evil(("good", "evil", "good"))
    state.apply_turn([Capture(P("b1"), "Home2")])      # Good seat 0 eliminates Good seat 2
    assert state.eliminated == [False, False, True] and state.result is None
    state.apply_turn([Pass()])                         # Evil seat 1 passes
    state.apply_turn([Capture(P("g1"), "Home1")])      # seat 0 eliminates the last Evil
    assert state.result is not None
    assert state.result.winners == (0,)


def test_remaining_good_players_share_the_win():
    """002 (Elimination and Winning): "the remaining Good players share the win"."""
    state = _three_seat_good_evil(("good", "evil", "good"))
    state.apply_turn([Capture(P("g1"), "Home1")])      # Good seat 0 eliminates Evil seat 1
    assert state.result is not None and state.result.winners == (0, 2)


def test_evil_wins_on_eliminating_anyone():
    """002 (Elimination and Winning): "If you are Evil, you win the game immediately.\""""
    state = _three_seat_good_evil(("evil", "good", "good"))
    state.apply_turn([Capture(P("b1"), "Home2")])
    assert state.result is not None and state.result.winners == (0,)


def test_an_elimination_reveals_the_eliminating_and_the_eliminated_alignments():
    """002 (Elimination and Winning): "At the end of your turn, if you've eliminated someone,
    reveal your secret alignment (if you haven't aready); any players that you eliminated
    should aso reveal their aignments (if they haven't already)." 004 (Élimination et
    victoire): "À la fin de votre tour, si vous avez éliminé quelqu’un, révélez votre
    alignement secret (si ce n’était pas déjà fait)". The engine says whose alignment is
    revealed and at the end of which turn; the others stay secret."""
    state = _three_seat_good_evil(("good", "evil", "good"))
    assert state.revealed == [None, None, None] and state.revealed_alignments() == {}
    first = state.ply
    state.push([Capture(P("b1"), "Home2")])            # Good seat 0 eliminates Good seat 2
    assert state.result is None
    assert state.revealed == [first, None, first]
    assert state.revealed_alignments() == {0: Alignment.GOOD, 2: Alignment.GOOD}
    state.push([Pass()])                                # Evil seat 1: still secret
    assert state.revealed == [first, None, first]
    later = state.ply
    state.push([Capture(P("g1"), "Home1")])             # seat 0 (already shown) eliminates 1
    assert state.revealed == [first, later, first]
    assert state.revealed_alignments()[1] == Alignment.EVIL
    assert state.copy().revealed == state.revealed
    state.pop()
    state.pop()
    assert state.revealed == [first, None, first], "undo hides what the undone turn showed"


def test_a_position_with_a_player_out_reveals_their_alignment():
    """002 (Elimination and Winning): "any players that you eliminated should aso reveal
    their aignments" — a position as it stands: who eliminated them is not known, so the
    eliminated player alone is revealed."""
    systems = [
        _system("Home0", 0, "r1b2", "g3", "", ""),
        _system("Home1", 1, "y1b3", "r3", "g1", ""),
        _system("Home2", 2, "y2g1", "r2", "", ""),
    ]
    state = GameState.from_position(systems, preset("good-evil"), to_move=0, players=3,
                                    alignments=("good", "evil", "good"))
    assert state.eliminated == [False, False, True] and state.result is None
    assert state.revealed_alignments() == {2: Alignment.GOOD}
    assert position(OVERPOPULATED, rules="looney").revealed_alignments() == {}


@pytest.mark.parametrize("players, good, evil", [(2, 1, 1), (3, 2, 1), (4, 2, 2), (5, 3, 2),
                                                  (6, 3, 3)])
def test_alignments_are_dealt_as_the_rulebook_says(players, good, evil):
    """002 (Good and Evil): "If there is an even number of players, half of the cards should
    be Good and the other half Evil", "there should be one more Good card than there are Evil
    cards. Mix up the cards and give one to each player.\""""
    deals = {deal_alignments(players, seed) for seed in range(40)}
    for deal in deals:
        assert len(deal) == players
        assert deal.count(Alignment.GOOD) == good and deal.count(Alignment.EVIL) == evil
    assert len(deals) > 1, "the cards are mixed"
    assert deal_alignments(players, 7) == deal_alignments(players, 7), "a seed repeats a deal"


def test_good_evil_without_alignments_is_refused():
    """002 (Good and Evil): "Before the game begins, each player's secret alignment must be
    established." Without it the goal cannot be decided (it used to fall back silently to
    last player standing)."""
    with pytest.raises(AlignmentError, match="need each player's secret alignment"):
        GameState(preset("good-evil"), players=3)
    with pytest.raises(AlignmentError, match="2 Good and 1 Evil"):
        GameState(preset("good-evil"), players=3, alignments=("good", "evil", "evil"))
    with pytest.raises(AlignmentError, match="not an alignment"):
        GameState(preset("good-evil"), players=2, alignments=("good", "neutral"))
    with pytest.raises(AlignmentError, match="no Good/Evil alignments"):
        GameState(preset("last-standing"), players=3, alignments=("good", "evil", "good"))
    state = GameState(preset("good-evil"), players=3, alignments=("Good", "EVIL", "good"))
    assert state.alignments == (Alignment.GOOD, Alignment.EVIL, Alignment.GOOD)
    assert state.copy().alignments == state.alignments
    assert alignments_from_text(" good, evil ,good", 3) == state.alignments
    assert alignments_to_text(state.alignments) == "good,evil,good"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_good_evil_bank_is_a_standard_icehouse_set(players):
    """002 (What You Need): "A standard four-color Icehouse set (for atwo-player game, use
    three pieces of each size/color)"; 004 (Matériel): "Quatre piles Icehouse des quatre
    couleurs de base (bleu, jaune, rouge, vert). À deux joueurs, utilisez trois pièces de
    chaque taille/couleur)." A standard set is four stashes of fifteen, five of each size:
    the bank used to hold players + 1 (seven of each for six players, which no set holds)."""
    rules = preset("good-evil")
    state = GameState(rules, players, alignments=deal_alignments(players, 1))
    assert state.bank == [5] * 12
    assert rules.bank_copies(players) == 5 and rules.bank_pieces(players) == 60
    two = GameState(rules, 2)
    assert two.bank == [3] * 12 and rules.bank_pieces(2) == 36


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_trio_per_player_bank_is_a_named_option(players):
    """000 (HOMEWORLDS FOR MORE THAN TWO): "For each additional player, you need another Trio
    of each color." The presets for SDG's multi-player games keep it, and Good/Evil may
    choose it."""
    trios = replace(preset("good-evil"), bank="trio-per-player")
    state = GameState(trios, players, alignments=deal_alignments(players, 1))
    assert state.bank == [players + 1] * 12
    assert preset("last-standing").bank_copies(players) == players + 1
    assert preset("looney").bank_copies(2) == 3
    with pytest.raises(ValueError, match="unknown bank rule 'huge' for the good-evil rules; "
                       "bank rules: trio-per-player, icehouse-set"):
        replace(preset("good-evil"), bank="huge")


# ---------------------------------------------------------------- alternating setup (003)

OVERPOPULATED = """
    Home (0, g1y2) y3g2-
    Pop (r2) r1r1-r3
    Enemy (1, r1b3) -g3
"""


def _after_alternating_setup() -> GameState:
    state = GameState(preset("alternating-setup"))
    for role, piece in (("star", "y1"), ("star", "b2"), ("star", "b3"), ("star", "r1"),
                        ("ship", "g3"), ("ship", "g3")):
        name = ("Ann", "Bob")[state.to_move]
        state.apply_turn([SetupPick(P(piece), role, name)])
    assert not state.in_setup and state.to_move == 0
    return state


def test_a_seventh_setup_pick_is_refused():
    """003 (Initial Phase (Setup)): "The setup phase consists of 6 alternating choices, with
    each player making 3 selections total (2 stars + 1 ship)." A seventh pick used to be
    taken as a turn: a free ship from the bank every turn."""
    state = _after_alternating_setup()
    before = (state.describe(), state.to_move, state.ply)
    with pytest.raises(IllegalAction, match=r"setup is over: the setup phase consists of 6 "
                       r"alternating choices, each player making 3 \(2 stars \+ 1 ship\)"):
        state.apply_turn([SetupPick(P("r3"), "ship", "Ann")])
    with pytest.raises(IllegalAction, match="setup is over"):
        state.apply_turn([SetupPick(P("r3"), "star", "Ann")])
    assert (state.describe(), state.to_move, state.ply) == before
    assert state.bank_count(P("r3")) == 3
    state.apply_turn([Build(P("g1"), "Ann")])  # a real turn is still fine


def test_a_second_homeworld_or_a_pick_is_refused_after_whole_setup():
    """000 (THE FIRST TURN): "The game begins with a setup round, during which the players
    choose their initial pieces." Setup happens once."""
    state = position("""
        Ann (0, y1b2) g3-
        Bob (1, y3b1) -g3
    """)
    for action in (SetupPick(P("r3"), "ship", "Ann"),
                   Homeworld((P("r1"), P("r2")), P("r3"), "Ann2")):
        with pytest.raises(IllegalAction, match="setup is over: every player has placed a "
                           "homeworld"):
            state.apply_turn([action])
    assert state.bank_count(P("r3")) == 3 and state.system("Ann2") is None


def test_alternating_setup_refuses_a_pass():
    """003 (Normal Turns): "On each turn, the active player must choose exactly one of the
    following:" — a Basic Action or a Sacrifice Action; there is no pass."""
    state = position(OVERPOPULATED, rules="alternating-setup")
    with pytest.raises(IllegalAction, match="do not allow passing"):
        state.apply_turn([Pass()])
    position(OVERPOPULATED, rules="looney").apply_turn([Pass()])  # Looney Labs' rules do


def test_either_player_may_declare_overpopulation_during_the_others_turn():
    """003 (Overpopulation): "Either player may declare "overpopulation" at any time when a
    star system contains 4 or more pieces of the same color" and "This is not a turn action
    and can be declared by either player at any time when the condition is met.\""""
    state = position(OVERPOPULATED, rules="alternating-setup")
    # Seat 0 is to move; seat 1, not to move, declares the red overpopulation at Pop.
    state.apply_turn([Catastrophe("Pop", Color.RED, declarer=1), Build(P("g1"), "Home")])
    assert state.system("Pop") is None, "the red star went, and every ship with it"
    assert state.total_pieces() == [3] * 12
    assert state.to_move == 1


def test_only_the_player_to_move_declares_a_catastrophe_elsewhere():
    """000 (CATASTROPHES): "At any point during your turn, if you notice an Overpopulated star
    system, you have the OPTION to declare a Catastrophe in that system" — your turn only."""
    for rules in ("looney", "sdg", "strict", "good-evil"):
        state = position(OVERPOPULATED, rules=rules)
        with pytest.raises(IllegalAction, match="only the player to move"):
            state.apply_turn([Build(P("g1"), "Home"), Catastrophe("Pop", Color.RED, declarer=1)])
        with pytest.raises(IllegalAction, match="names no declarer"):
            state.copy().apply_turn([Build(P("g1"), "Home"),
                                     Catastrophe("Pop", Color.RED, declarer=0)])
        state.apply_turn([Build(P("g1"), "Home"), Catastrophe("Pop", Color.RED)])


def test_a_declaration_by_the_player_not_to_move_can_end_the_game_for_the_mover():
    """003 (Ending the Game): "A player loses (and their opponent wins) when either:", "They
    control no ships at their home star system", "The game ends immediately when either
    condition is met.\""""
    state = position("""
        Home (0, g1y2) g3g2-g1
        Enemy (1, r1b3) -y3
    """, rules="alternating-setup")
    state.apply_turn([Catastrophe("Home", Color.GREEN, declarer=1)])
    assert state.result is not None
    assert state.result.winners == (1,) and state.result.kind == "opponent-eliminated"


def test_a_declarer_must_be_a_player_of_the_game():
    state = position(OVERPOPULATED, rules="alternating-setup")
    with pytest.raises(IllegalAction, match="no seat 2"):
        state.apply_turn([Catastrophe("Pop", Color.RED, declarer=2), Build(P("g1"), "Home")])


def test_alternating_setup_catastrophes_alone_are_no_turn():
    """003 (Normal Turns): "the active player must choose exactly one of the following:"
    a Basic Action or a Sacrifice Action; an overpopulation "is not a turn action"."""
    from homeworlds.rules import IllegalTurn, successors

    state = position(OVERPOPULATED, rules="alternating-setup")
    with pytest.raises(IllegalTurn, match="do not allow passing"):
        state.copy().apply_turn([Catastrophe("Pop", Color.RED)])
    turns = [s.turn for s in successors(state)]
    assert turns and all(any(not isinstance(a, Catastrophe) for a in t) for t in turns)
    looney = [s.turn for s in successors(position(OVERPOPULATED, rules="looney"))]
    assert (Catastrophe("Pop", Color.RED),) in looney

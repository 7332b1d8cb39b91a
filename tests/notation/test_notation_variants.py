"""SDG notation extended for the variants: Rules/Alignments headers, single setup picks and
catastrophes declared by a player not to move (docs/replay.md)."""

from __future__ import annotations

import pytest

from homeworlds.notation import (
    format_sdg_action,
    parse_sdg_action,
    read_sdg,
    sdg_game,
    write_sdg,
)
from homeworlds.replay import replay_game
from homeworlds.rules import (
    Alignment,
    BrainTransference,
    Build,
    Catastrophe,
    Color,
    Homeworld,
    InvalidNotation,
    Piece,
    SetupPick,
)

THREE = """Homeworlds Online
Rules: good-evil
Participants: Alice (N), Bob (E), Carol (S)
Alignments: Alice (good), Bob (evil), Carol (good)

1) Alice: Homeworld Y1 G2 R3

2) Bob: Homeworld G3 B3 G1

3) Carol: Homeworld Y3 B3 B1
"""


def test_rules_and_alignments_headers_read_and_write_back():
    game = read_sdg(THREE)
    assert game.rules == "good-evil"
    assert game.alignments == (Alignment.GOOD, Alignment.EVIL, Alignment.GOOD)
    assert write_sdg(game) == THREE
    plain = read_sdg(THREE.replace("Rules: good-evil\n", "").replace(
        "Alignments: Alice (good), Bob (evil), Carol (good)\n", ""))
    assert plain.rules is None and plain.alignments is None


def test_alignments_follow_the_setup_order_not_the_header_order():
    game = read_sdg(THREE.replace("Alice (good), Bob (evil), Carol (good)",
                                  "Carol (good), Bob (EVIL), Alice (good)"))
    assert game.alignments == (Alignment.GOOD, Alignment.EVIL, Alignment.GOOD)


@pytest.mark.parametrize(("change", "message"), [
    (("Rules: good-evil", "Rules: chess"), "unknown rules preset 'chess'"),
    (("Bob (evil)", "Bob (neutral)"), "'neutral' is not an alignment"),
    (("Bob (evil)", "Bob (good)"), "3 players are dealt 2 Good and 1 Evil"),
    ((", Carol (good)", ""), "no alignment for Carol"),
    (("Carol (good)", "Dave (good)"), "dave not among the participants"),
    (("Bob (evil)", "Bob evil"), "malformed alignment 'Bob evil'"),
])
def test_bad_variant_headers_name_the_line(change, message):
    with pytest.raises(InvalidNotation) as info:
        read_sdg(THREE.replace(*change), source="game.raw")
    assert message in str(info.value)
    assert info.value.line == (2 if change[0].startswith("Rules") else 4)


def test_single_setup_picks():
    assert parse_sdg_action("Star Y1", player="Alice") == SetupPick(Piece.from_text("y1"),
                                                                     "star", "Alice")
    assert parse_sdg_action("ship g3 Bob") == SetupPick(Piece.from_text("g3"), "ship", "Bob")
    with pytest.raises(InvalidNotation, match="needs the player's name"):
        parse_sdg_action("Star Y1")
    # SDG's single letter S stays Sacrifice.
    assert parse_sdg_action("S Y1 Home").__class__.__name__ == "Sacrifice"


def test_catastrophe_declared_by_a_named_player():
    players = ("Alice", "Bob")
    assert parse_sdg_action("Catastrophe Pop Red by bob", players=players) == Catastrophe(
        "Pop", Color.RED, declarer=1)
    with pytest.raises(InvalidNotation, match="'Carol' in .* is not a player"):
        parse_sdg_action("Catastrophe Pop Red by Carol", players=players)
    with pytest.raises(InvalidNotation, match="no players are known"):
        parse_sdg_action("Catastrophe Pop Red by Bob")
    # The mover naming themselves is their own declaration: one way to write each action.
    assert parse_sdg_action("Catastrophe Pop Red by Alice", players=players,
                            player="alice") == Catastrophe("Pop", Color.RED)


def test_sdg_game_records_rules_and_alignments_and_refuses_a_bad_deal():
    turns = [(Homeworld((Piece.from_text("y1"), Piece.from_text("b2")), Piece.from_text("g3"),
                        "Alice"),),
             (Homeworld((Piece.from_text("r1"), Piece.from_text("b3")), Piece.from_text("g3"),
                        "Bob"),),
             (Build(Piece.from_text("g1"), "Alice"),)]
    game = sdg_game(("Alice", "Bob"), turns, rules="good-evil", alignments=("evil", "good"))
    text = write_sdg(game)
    assert "Rules: good-evil\n" in text and "Alignments: Alice (evil), Bob (good)\n" in text
    assert read_sdg(text).alignments == (Alignment.EVIL, Alignment.GOOD)
    with pytest.raises(ValueError, match="2 players are dealt 1 Good and 1 Evil"):
        sdg_game(("Alice", "Bob"), turns, rules="good-evil", alignments=("evil", "evil"))


ALTERNATING_SETUP = """Homeworlds Online
Rules: alternating-setup
Participants: Ann (N), Bob (S)

1) Ann: Star Y1

2) Bob: Star B2

3) Ann: Star B3

4) Bob: Star R1

5) Ann: Ship G3

6) Bob: Ship G3

7) Ann: Ship R3

8) Bob: Build G1 Bob
"""


def test_a_seventh_setup_pick_in_a_record_does_not_replay():
    """003 (Initial Phase (Setup)): "The setup phase consists of 6 alternating choices, with
    each player making 3 selections total (2 stars + 1 ship)." The record's turn 7 is a
    seventh pick: replay stops there, naming the line and why."""
    result = replay_game(read_sdg(ALTERNATING_SETUP))
    assert not result.legal and result.error is not None
    assert (result.error.turn, result.error.text) == (7, "Ship R3")
    assert "setup is over: the setup phase consists of 6 alternating choices" in \
        result.error.reason
    assert result.turns_replayed == 6
    fixed = replay_game(read_sdg(ALTERNATING_SETUP.replace("7) Ann: Ship R3",
                                                           "7) Ann: Build G1 Ann")))
    assert fixed.legal and fixed.turns_replayed == 8


#: After setup: Alice (Good) brings a large red to Carol's home and takes Carol's only ship.
GOOD_EVIL_GAME = THREE + "".join(
    f"\n{number}) {turn}\n" for number, turn in enumerate([
        "Alice: Build R1 Alice", "Bob: Pass", "Carol: Pass",
        "Alice: Move R3 Alice Carol", "Bob: Pass", "Carol: Pass",
        "Alice: Attack B1 Carol", "Bob: Pass", "Alice: Pass"], start=4))


def test_a_record_replays_to_the_alignments_revealed_at_each_elimination():
    """002 (Elimination and Winning): "At the end of your turn, if you've eliminated someone,
    reveal your secret alignment (if you haven't aready); any players that you eliminated
    should aso reveal their aignments (if they haven't already)." SDG has no notation for a
    reveal (the archive has no Good/Evil game): the ``Alignments:`` header and the turns say
    it, and replay gives it (record index 9 is turn 10)."""
    result = replay_game(read_sdg(GOOD_EVIL_GAME))
    assert result.legal and result.final_state.result is None
    state = result.final_state
    assert state.eliminated == [False, False, True]
    assert state.revealed == [9, None, 9]
    assert state.revealed_alignments() == {0: Alignment.GOOD, 2: Alignment.GOOD}


DECLARED_BY_BOB = ALTERNATING_SETUP.split("7) Ann: Ship R3")[0] + """7) Ann: Build G1 Ann

8) Bob: Build G1 Bob

9) Ann: Build G1 Ann

10) Bob: Build G2 Bob

11) Ann: Build G2 Ann
Catastrophe Ann Green by Bob
"""


def test_an_overpopulation_declared_by_the_player_not_to_move_is_recorded_by_name():
    """003 (Overpopulation): "This is not a turn action and can be declared by either player
    at any time when the condition is met." Bob declares the green overpopulation at Ann's
    home during Ann's turn: the record says so (``… by Bob``), reads and writes back the same,
    and replays to the end of the game (003, Ending the Game: "The game ends immediately
    when either condition is met.")."""
    game = read_sdg(DECLARED_BY_BOB)
    declared = Catastrophe("Ann", Color.GREEN, declarer=1)
    assert game.turns[10].actions == (Build(Piece.from_text("g2"), "Ann"), declared)
    assert write_sdg(game) == DECLARED_BY_BOB
    rebuilt = sdg_game(game.players, [t.actions for t in game.turns], rules="alternating-setup")
    written = write_sdg(rebuilt)
    assert "\n11) Ann: Build G2 Ann\nCatastrophe Ann Green by Bob\n" in written
    assert [t.actions for t in read_sdg(written).turns] == [t.actions for t in game.turns]
    result = replay_game(game)
    assert result.legal, result.error
    assert (result.board_end, result.end_turn, result.board_winners) == (
        "opponent-eliminated", 11, (1,))
    # Under Looney Labs' rules only the player to move declares: the line is refused.
    setup = [(Homeworld((Piece.from_text("y1"), Piece.from_text("b3")), Piece.from_text("g3"),
                        "Ann"),),
             (Homeworld((Piece.from_text("b2"), Piece.from_text("r1")), Piece.from_text("g3"),
                        "Bob"),)]
    looney = sdg_game(game.players, setup + [t.actions for t in game.turns[6:]], rules="looney")
    refused = replay_game(read_sdg(write_sdg(looney)))
    assert refused.error is not None and refused.error.turn == 7
    assert refused.error.text == "Catastrophe Ann Green by Bob"
    assert "only the player to move may declare a catastrophe under the looney rules" in \
        refused.error.reason


def test_brain_transference_has_an_sdg_line():
    """000 (NOVICE VS. EXPERT): "Brain Transference: The Junior Officer is given one chance,
    at some point during the game, to completely change places with the Senior Officer for
    the remainder of the game." Its turn is written ``Brain Transference`` (it used to have
    no SDG text at all: a record with it could not be written)."""
    assert format_sdg_action(BrainTransference()) == "Brain Transference"
    assert parse_sdg_action("Brain Transference") == BrainTransference()
    assert parse_sdg_action("brain transference", strict=True) == BrainTransference()
    with pytest.raises(InvalidNotation, match="expected 'Brain Transference'"):
        parse_sdg_action("Brain Surgery")
    turns = [(Homeworld((Piece.from_text("y1"), Piece.from_text("b2")), Piece.from_text("g3"),
                        "Ann"),),
             (Homeworld((Piece.from_text("r1"), Piece.from_text("b3")), Piece.from_text("y3"),
                        "Bob"),),
             (Build(Piece.from_text("g1"), "Ann"),),
             (BrainTransference(), Catastrophe("Ann", Color.GREEN))]
    text = write_sdg(sdg_game(("Ann", "Bob"), turns))
    assert "\n4) Bob: Brain Transference\nCatastrophe Ann Green\n" in text
    assert [t.actions for t in read_sdg(text).turns] == turns


def test_the_game_header_names_the_stored_game_and_reads_back():
    named = THREE.replace("Participants:", "Game: 3f9a0c1e2b4d4f6a8c7e5d3b1a092e4f\n"
                          "Participants:")
    game = read_sdg(named)
    assert game.game == "3f9a0c1e2b4d4f6a8c7e5d3b1a092e4f"
    assert write_sdg(game) == named
    assert read_sdg(THREE).game is None


@pytest.mark.parametrize("value", ["", "a b", "x" * 65, "<script>", "g1;rm"])
def test_a_malformed_game_header_names_its_line(value):
    with pytest.raises(InvalidNotation, match="malformed game uid") as info:
        read_sdg(THREE.replace("Participants:", f"Game: {value}\nParticipants:"),
                 source="game.raw")
    assert info.value.line == 3
    with pytest.raises(InvalidNotation, match="cannot be written"):
        write_sdg(sdg_game(["Alice", "Bob"], [], game=value))

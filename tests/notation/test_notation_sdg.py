"""SDG transcripts: reading the archive's forms, writing, errors."""

from __future__ import annotations

import pytest

from homeworlds.notation import (
    SdgGame,
    SdgTurn,
    format_sdg_action,
    parse_sdg_action,
    read_sdg,
    read_sdg_file,
    sdg_game,
    write_sdg,
)
from homeworlds.rules import (
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Homeworld,
    InvalidNotation,
    Move,
    Pass,
    Piece,
    Sacrifice,
    Trade,
)

P = Piece.from_text

TWO_PLAYER = """\
Homeworlds Online (SDG# 1001)
Variants: "Unrated, Hard time"
Started: 2005.10.16, Ended: 2005.10.23
Participants: MrStickman (S), Evilaxe (N)
Winner: MrStickman

1) Evilaxe: Homeworld Y2 B1 G3
\tMrStickman: Hiya. Let me try:
Build G1 Mrstickman

2) MrStickman: Homeworld B3 G2 Y3 *

3) Evilaxe: Build G1 Evilaxe

4) MrStickman:
Build Y1 Mrstickman

5) Evilaxe: Discover G1 Evilaxe B1 Lorem

6) MrStickman: Sacrifice Y3 Mrstickman

Move Y1 Mrstickman Lorem
Pass
\tEvilaxe: Bold.
\tMrStickman: we'll see

7) Evilaxe: A Y1 Lorem
C Lorem y

8) MrStickman: Pass
"""


def test_header_fields():
    game = read_sdg(TWO_PLAYER, source="1001.raw")
    assert game.number == 1001
    assert game.variants == ("Unrated", "Hard time")
    assert game.participants == (("MrStickman", "S"), ("Evilaxe", "N"))
    assert game.winner == "MrStickman"
    assert game.started == "2005.10.16, Ended: 2005.10.23"
    assert game.source == "1001.raw"


def test_players_are_in_setup_order_not_participants_order():
    game = read_sdg(TWO_PLAYER)
    assert game.players == ("Evilaxe", "MrStickman")
    assert [t.seat for t in game.turns] == [0, 1, 0, 1, 0, 1, 0, 1]
    assert game.seat_letters() == {"N": 0, "S": 1}


def test_turn_actions_texts_and_lines():
    game = read_sdg(TWO_PLAYER)
    turns = game.turns
    assert turns[0].actions == (Homeworld((P("y2"), P("b1")), P("g3"), "Evilaxe"),)
    assert turns[1].actions == (Homeworld((P("b3"), P("g2")), P("y3"), "MrStickman"),)
    assert turns[3].actions == (Build(P("y1"), "Mrstickman"),)  # action on the next line
    assert turns[4].actions == (Discover(P("g1"), "Evilaxe", P("b1"), "Lorem"),)
    assert turns[5].actions == (Sacrifice(P("y3"), "Mrstickman"),
                                Move(P("y1"), "Mrstickman", "Lorem"), Pass())
    assert turns[5].texts == ("Sacrifice Y3 Mrstickman", "Move Y1 Mrstickman Lorem", "Pass")
    assert turns[6].actions == (Capture(P("y1"), "Lorem"), Catastrophe("Lorem", Color.YELLOW))
    assert turns[7].actions == (Pass(),)
    assert [t.number for t in turns] == list(range(1, 9))
    assert [t.line for t in turns] == [7, 11, 13, 15, 18, 20, 27, 30]


def test_comment_continuation_lines_that_look_like_moves_stay_in_the_comment():
    game = read_sdg(TWO_PLAYER)
    assert game.turns[0].comments == ("MrStickman: Hiya. Let me try:\nBuild G1 Mrstickman",)
    assert game.turns[0].actions == (Homeworld((P("y2"), P("b1")), P("g3"), "Evilaxe"),)
    assert game.turns[5].comments == ("Evilaxe: Bold.", "MrStickman: we'll see")


def test_crlf_and_unicode_line_separators_inside_comments():
    text = TWO_PLAYER.replace("Hiya.", "Hiya.\u0085\u2028 odd").replace("\n", "\r\n")
    game = read_sdg(text)
    assert game.turns[0].comments[0].startswith("MrStickman: Hiya.\u0085\u2028 odd")
    assert game.turns[7].line == 30  # only "\n" ends a line


@pytest.mark.parametrize("keyword", ["Build", "B", "build", "Construct", "Con", "Bu", "Buil"])
def test_build_keywords(keyword):
    assert parse_sdg_action(f"{keyword} G1 Home") == Build(P("g1"), "Home")


@pytest.mark.parametrize(("text", "expected"), [
    ("M R3 Edora Camelot", Move(P("r3"), "Edora", "Camelot")),
    ("Move G1 Wil Y3", Move(P("g1"), "Wil", "Y3")),  # a system named like a piece
    ("D G2 Beta B3 Magna", Discover(P("g2"), "Beta", P("b3"), "Magna")),
    ("Disco G1 Slothbear Y3 Crichton", Discover(P("g1"), "Slothbear", P("y3"), "Crichton")),
    ("Discover B2 Wil Y3 Y3", Discover(P("b2"), "Wil", P("y3"), "Y3")),
    ("T B1 G1 Bologna", Trade(P("b1"), P("g1"), "Bologna")),
    ("Tr B2 Y2 Britz", Trade(P("b2"), P("y2"), "Britz")),
    ("S G3 Wmreed", Sacrifice(P("g3"), "Wmreed")),
    ("Sac R3 Potato", Sacrifice(P("r3"), "Potato")),
    ("Catastrophe Lorem G", Catastrophe("Lorem", Color.GREEN)),
    ("C Layana Yellow", Catastrophe("Layana", Color.YELLOW)),
    ("Cat Sole y", Catastrophe("Sole", Color.YELLOW)),
    ("Catastrophe Blue Red", Catastrophe("Blue", Color.RED)),  # a system named like a colour
    ("A Y1 Apex", Capture(P("y1"), "Apex")),
    ("Attack G3 G2", Capture(P("g3"), "G2")),
    ("P", Pass()),
    ("pass", Pass()),
])
def test_keyword_forms(text, expected):
    assert parse_sdg_action(text) == expected


def test_homeworld_forms():
    assert parse_sdg_action("Hom B1 R2 G3", player="Zoltar") == Homeworld(
        (P("b1"), P("r2")), P("g3"), "Zoltar")
    assert parse_sdg_action("H Y3 B2 G3 Dlwillson") == Homeworld(
        (P("y3"), P("b2")), P("g3"), "Dlwillson")
    # Single-star (handicap) homeworld: "-" for the missing star.
    assert parse_sdg_action("Homeworld B2 - G3 *", player="Layana") == Homeworld(
        (P("b2"),), P("g3"), "Layana")
    with pytest.raises(InvalidNotation, match="needs the player's name"):
        parse_sdg_action("Homeworld B2 R1 G3 *")


def test_attack_owner_from_seat_letter_or_word():
    seats = {"S": 2, "W": 3, "N": 0, "E": 1}
    assert parse_sdg_action("Attack G1N Ipsum", seats=seats) == Capture(P("g1"), "Ipsum", 0)
    assert parse_sdg_action("A Y2w Gamma", seats=seats) == Capture(P("y2"), "Gamma", 3)
    assert parse_sdg_action("Attack G3 Silenttitan North", seats=seats) == Capture(
        P("g3"), "Silenttitan", 0)
    assert parse_sdg_action("Attack B2 Silenttitan E", seats=seats) == Capture(
        P("b2"), "Silenttitan", 1)
    # A misspelt seat word is one of the trailing words SDG ignored.
    assert parse_sdg_action("Attack G2 Guntz1092 Notrh", seats=seats) == Capture(
        P("g2"), "Guntz1092", None)


def test_attack_seat_errors():
    with pytest.raises(InvalidNotation, match="no seats are known"):
        parse_sdg_action("Attack G1N Ipsum")
    with pytest.raises(InvalidNotation, match="no player sits at 'E'"):
        parse_sdg_action("Attack G1E Ipsum", seats={"N": 0, "S": 1})


def test_trailing_words_are_ignored_as_sdg_did():
    assert parse_sdg_action("Build B1 Snow (s)") == Build(P("b1"), "Snow")
    assert parse_sdg_action("Discover G1 Fuguru B1 Centauri Prime") == Discover(
        P("g1"), "Fuguru", P("b1"), "Centauri")
    assert parse_sdg_action("Move R1 Toni Yolanda *") == Move(P("r1"), "Toni", "Yolanda")
    assert parse_sdg_action("Pass Catastrophe Tvgide2 G") == Pass()
    assert parse_sdg_action("Build G3!!! R2") == Build(P("g3"), "R2")  # first two letters
    assert parse_sdg_action("Build Y21 Galactiphage") == Build(P("y2"), "Galactiphage")


def test_strict_mode_rejects_what_sdg_ignored():
    with pytest.raises(InvalidNotation, match="unexpected words '\\(s\\)'"):
        parse_sdg_action("Build B1 Snow (s)", strict=True)
    with pytest.raises(InvalidNotation, match="not a piece"):
        parse_sdg_action("Build Y21 Galactiphage", strict=True)
    assert parse_sdg_action("Move R1 Toni Yolanda *", strict=True) == Move(
        P("r1"), "Toni", "Yolanda")
    assert parse_sdg_action("H Y3 B2 G3 Dlwillson", player="dlwillson", strict=True) == Homeworld(
        (P("y3"), P("b2")), P("g3"), "dlwillson")


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty action"),
    ("Fly G1 Home", "unknown action 'Fly'"),
    ("Bx G1 Home", "unknown action 'Bx'"),
    ("Builds G1 Home", "unknown action 'Builds'"),
    ("Build G1", "build needs 2 words"),
    ("Build X1 Home", "ship 'X1' is not a piece"),
    ("Discover G1 Home Q3 New", "star 'Q3' is not a piece"),
    ("Catastrophe Home Purple", "'Purple' is not a colour"),
    ("Homeworld - - G3", "homeworld without a star"),
])
def test_malformed_actions(text, message):
    with pytest.raises(InvalidNotation, match=message):
        parse_sdg_action(text, player="Someone")


def _error(text: str) -> InvalidNotation:
    with pytest.raises(InvalidNotation) as caught:
        read_sdg(text, source="game.raw")
    return caught.value


def test_errors_name_source_line_and_text():
    error = _error(TWO_PLAYER.replace("Build G1 Evilaxe", "Build G9 Evilaxe"))
    assert error.source == "game.raw"
    assert error.line == 13
    assert error.text == "Build G9 Evilaxe"
    assert str(error).startswith("game.raw:13: ship 'G9' is not a piece")


@pytest.mark.parametrize(("change", "line", "message"), [
    (("Homeworlds Online (SDG# 1001)", "Chess Online"), 1, "expected the title"),
    (("Winner: MrStickman", "Winner MrStickman"), 5, "malformed header line"),
    (("Winner: MrStickman", "Loser: MrStickman"), 5, "unknown header 'Loser'"),
    (("Participants: MrStickman (S), Evilaxe (N)", "Participants: MrStickman, Evilaxe (N)"), 4,
     "malformed participant 'MrStickman'"),
    (("3) Evilaxe: Build", "4) Evilaxe: Build"), 13, "turn number 4 where turn 3"),
    (("3) Evilaxe: Build", "3) Nobody: Build"), 13, "'Nobody' is not a participant"),
    (("8) MrStickman: Pass", "8) MrStickman:"), 30, "turn 8 of MrStickman has no action"),
    (("\n1) Evilaxe", "\nhello\n1) Evilaxe"), 7, "expected turn 1"),
])
def test_malformed_transcripts(change, line, message):
    error = _error(TWO_PLAYER.replace(*change))
    assert error.line == line
    assert message in str(error)


def test_missing_participants_header():
    error = _error(TWO_PLAYER.replace("Participants: MrStickman (S), Evilaxe (N)\n", ""))
    assert "missing 'Participants:'" in str(error)


def test_strict_reading_rejects_ignored_words_with_the_line():
    text = TWO_PLAYER.replace("Build G1 Evilaxe", "Build G1 Evilaxe (n)")
    assert read_sdg(text).turns[2].actions == (Build(P("g1"), "Evilaxe"),)
    with pytest.raises(InvalidNotation, match=r"^x.raw:13: unexpected words '\(n\)'"):
        read_sdg(text, source="x.raw", strict=True)


def test_header_may_run_into_the_first_turn():
    game = read_sdg(TWO_PLAYER.replace("Winner: MrStickman\n\n", "Winner: MrStickman\n"))
    assert game.winner == "MrStickman"
    assert len(game.turns) == 8


def test_missing_winner_is_none():
    assert read_sdg(TWO_PLAYER.replace("Winner: MrStickman\n", "")).winner is None


FOUR_PLAYER = """\
Homeworlds Online (SDG# 8000)
Variants: "Sinister"
Started: 2007.6.27, Ended: 2007.7.22
Participants: alice (S), bob (W), carol (N), dave (E)
Winner: alice

1) carol: Homeworld B3 R1 G3

2) dave: Homeworld R3 B2 G3

3) Alice: Homeworld R3 G2 Y3 *

4) bob: Homeworld B1 Y2 G3

5) carol: Attack G3E Dave

6) dave: Attack R1E Dave
"""


def test_four_players_seats_and_owner_resolution():
    game = read_sdg(FOUR_PLAYER)
    # Names are matched without regard to case and kept as written in the turn header.
    assert game.players == ("carol", "dave", "Alice", "bob")
    assert game.seat_letters() == {"S": 2, "W": 3, "N": 0, "E": 1}
    assert game.turns[2].actions[0].name == "Alice"
    assert game.turns[4].actions == (Capture(P("g3"), "Dave", 1),)
    # Naming your own seat (three archive games do) is read as naming no owner.
    assert game.turns[5].actions == (Capture(P("r1"), "Dave", None),)


def test_participant_who_never_set_up_follows_the_others():
    text = FOUR_PLAYER.replace("4) bob: Homeworld B1 Y2 G3", "4) bob: Pass")
    game = read_sdg(text)
    assert game.players == ("carol", "dave", "Alice", "bob")
    text = FOUR_PLAYER.replace("1) carol: Homeworld B3 R1 G3", "1) carol: Pass").replace(
        "4) bob: Homeworld B1 Y2 G3", "4) bob: Homeworld B1 Y2 G3\n\n5) carol: Homeworld B3 R1 G3"
    ).replace("5) carol: Attack", "6) carol: Attack").replace("6) dave: Attack", "7) dave: Attack")
    assert read_sdg(text).players == ("dave", "Alice", "bob", "carol")


# ----------------------------------------------------------------------------------- writer


def test_write_two_player_game():
    game = sdg_game(
        ["Ann", "Ben"],
        [(Homeworld((P("y2"), P("b1")), P("g3"), "Ann"),),
         (Homeworld((P("b3"),), P("y3"), "Ben"),),
         (Sacrifice(P("y2"), "Ann"), Discover(P("g3"), "Ann", P("b1"), "B1"), Pass()),
         (Capture(P("g3"), "B1", 0), Catastrophe("B1", Color.GREEN))],
        number=7, winner="Ben")
    text = write_sdg(game)
    assert text == (
        "Homeworlds Online (SDG# 7)\n"
        "Participants: Ben (S), Ann (N)\n"
        "Winner: Ben\n"
        "\n"
        "1) Ann: Homeworld Y2 B1 G3\n"
        "\n"
        "2) Ben: Homeworld B3 - Y3\n"
        "\n"
        "3) Ann: Sacrifice Y2 Ann\n"
        "Discover G3 Ann B1 B1\n"
        "Pass\n"
        "\n"
        "4) Ben: Attack G3 B1\n"
        "Catastrophe B1 Green\n")
    again = read_sdg(text)
    assert again.players == ("Ann", "Ben")
    assert [t.actions for t in again.turns[:3]] == [t.actions for t in game.turns[:3]]
    # With two players the owner is implied: written without a seat letter.
    assert again.turns[3].actions == (Capture(P("g3"), "B1", None),
                                      Catastrophe("B1", Color.GREEN))


def test_write_three_player_captures_carry_the_owner_seat_letter():
    game = sdg_game(
        ["Ann", "Ben", "Cy"],
        [(Homeworld((P("y2"), P("b1")), P("g3"), "Ann"),),
         (Homeworld((P("y1"), P("b2")), P("g3"), "Ben"),),
         (Homeworld((P("r1"), P("b2")), P("y3"), "Cy"),),
         (Capture(P("g3"), "Cy", 2),)])
    text = write_sdg(game)
    assert "Participants: Cy (S), Ann (N), Ben (E)\n" in text
    assert "4) Ann: Attack G3S Cy\n" in text
    assert read_sdg(text).turns[3].actions == (Capture(P("g3"), "Cy", 2),)


def test_write_header_fields():
    game = sdg_game(("Ann", "Ben"), [(Pass(),)], number=12, winner="Ann",
                    variants=["Unrated", "Hard time"], started="2024.5.1")
    text = write_sdg(game)
    assert text.startswith('Homeworlds Online (SDG# 12)\nVariants: "Unrated, Hard time"\n'
                           "Started: 2024.5.1\nParticipants: Ben (S), Ann (N)\nWinner: Ann\n")
    again = read_sdg(text)
    assert (again.number, again.variants, again.started, again.winner) == (
        12, ("Unrated", "Hard time"), "2024.5.1", "Ann")


def test_write_keeps_comments_readable():
    game = read_sdg(TWO_PLAYER)
    text = write_sdg(game)
    assert "\tMrStickman: Hiya. Let me try:\nBuild G1 Mrstickman\n" in text
    again = read_sdg(text)
    assert [t.comments for t in again.turns] == [t.comments for t in game.turns]
    assert [t.actions for t in again.turns] == [t.actions for t in game.turns]
    assert SdgGame.from_text(game.to_text()).players == game.players


def test_write_rejects_what_sdg_cannot_say():
    def one_turn(*actions, players=("Ann", "Ben")):
        return sdg_game(players, [actions])

    with pytest.raises(InvalidNotation, match="system name 'Big Red'"):
        write_sdg(one_turn(Build(P("g1"), "Big Red")))
    with pytest.raises(InvalidNotation, match="names a home after its player"):
        write_sdg(one_turn(Homeworld((P("g1"), P("b2")), P("y3"), "Elsewhere")))
    with pytest.raises(InvalidNotation, match="player name 'A B'"):
        write_sdg(one_turn(Pass(), players=("A B", "C")))
    with pytest.raises(InvalidNotation, match="seats 2 to 6 players, not 7"):
        one_turn(Pass(), players=("A", "B", "C", "D", "E", "F", "G"))
    with pytest.raises(InvalidNotation, match="variant 'A, B'"):
        write_sdg(sdg_game(("Ann", "Ben"), [(Pass(),)], variants=["A, B"]))
    game = one_turn(Pass())
    bad = SdgTurn(1, "Ann", 0, (Pass(),), ("Pass",), comments=("hi\n2) Ben: Pass",))
    with pytest.raises(InvalidNotation, match="SDG would misread"):
        write_sdg(SdgGame(None, (), game.participants, None, game.players, (bad,)))


def test_format_action_canonical_text():
    assert format_sdg_action(Trade(P("b1"), P("g1"), "Bologna")) == "Trade B1 G1 Bologna"
    assert format_sdg_action(Move(P("r3"), "A", "B")) == "Move R3 A B"
    assert format_sdg_action(Capture(P("r3"), "A", 1), seat_letters={1: "W"}) == "Attack R3W A"
    assert format_sdg_action(Capture(P("r3"), "A", 1)) == "Attack R3 A"
    assert format_sdg_action(Catastrophe("A", Color.BLUE)) == "Catastrophe A Blue"


def test_read_sdg_file(tmp_path):
    path = tmp_path / "1001.raw"
    path.write_text(TWO_PLAYER, encoding="utf-8")
    game = read_sdg_file(path)
    assert game.source == str(path)
    assert len(game.turns) == 8
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(InvalidNotation, match="not UTF-8"):
        read_sdg_file(path)

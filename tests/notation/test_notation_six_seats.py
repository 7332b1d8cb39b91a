"""SDG text for games of five and six players (issue 28, item 6): the archive's seat
letters are N, E, S, W; our extension adds NE, SE, SW and NW so that a capture can name
its owner at the six-seat table."""

from __future__ import annotations

from homeworlds.notation import read_sdg, sdg_game, write_sdg
from homeworlds.rules import Capture, Homeworld, Pass, Piece

P = Piece.from_text
SIX = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")


def test_a_six_player_game_writes_its_seats_and_captures_and_reads_back():
    """002 (What You Need): "A standard four-color Icehouse set (for atwo-player game, use
    three pieces of each size/color)" — the original rules seat up to six."""
    turns = [(Homeworld((P("g1"), P("b2")), P("y3"), name),) for name in SIX]
    turns.append((Capture(P("r1"), "Bob", 4),))  # Ann takes Eve's ship at Bob's home
    game = sdg_game(SIX, turns)
    assert dict(game.participants) == {"Ann": "N", "Bob": "NE", "Cat": "SE", "Dan": "S",
                                       "Eve": "SW", "Fay": "NW"}
    text = write_sdg(game)
    assert "Participants: Dan (S), Eve (SW), Fay (NW), Ann (N), Bob (NE), Cat (SE)" in text
    assert "7) Ann: Attack R1SW Bob" in text
    again = read_sdg(text)
    assert again.players == SIX and again.turns[6].actions == (Capture(P("r1"), "Bob", 4),)


def test_five_players_have_five_seats():
    game = sdg_game(SIX[:5], [(Pass(),)])
    assert sorted(letter for _, letter in game.participants) == ["N", "NE", "NW", "SE", "SW"]
    assert set(read_sdg(write_sdg(game)).players) == set(SIX[:5])

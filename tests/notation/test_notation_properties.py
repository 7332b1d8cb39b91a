"""Property tests: whatever the writers produce, the readers read back unchanged."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from homeworlds.notation import (
    CookedGame,
    CookedSystem,
    SdgGame,
    SdgTurn,
    format_sdg_action,
    parse_sdg_action,
    read_cooked,
    read_sdg,
    write_cooked,
    write_sdg,
)
from homeworlds.notation.cooked import format_pieces, parse_pieces
from homeworlds.notation.sdg import SEAT_LETTERS
from homeworlds.rules import (
    PIECES,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Homeworld,
    Move,
    Pass,
    Piece,
    Sacrifice,
    Trade,
)

pieces = st.sampled_from(PIECES)
colors = st.sampled_from(list(Color))
# Any one word: letters of every script, digits, punctuation, and names that look like
# pieces, colours, seats or keywords.
words = st.one_of(
    st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=10),
    st.sampled_from(["G3", "y1", "Blue", "r", "N", "North", "Pass", "Build", "*", "-", "at",
                     "from", "to", "LEGAL", "Mrstickman"]),
)
system_names = words.filter(lambda w: not re.search(r"[();]", w) and not w.startswith("#"))
player_names = words.filter(lambda w: not re.search(r"[:(),]", w))


def free_actions(owners: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.builds(Build, pieces, system_names),
        st.builds(Move, pieces, system_names, system_names),
        st.builds(Discover, pieces, system_names, pieces, system_names),
        st.builds(Trade, pieces, pieces, system_names),
        st.builds(Capture, pieces, system_names, owners),
        st.builds(Sacrifice, pieces, system_names),
        st.builds(Catastrophe, system_names, colors),
    )


comment_lines = st.text(st.characters(blacklist_characters="\t\r\n",
                                      blacklist_categories=("Cs",)), max_size=20)
comments = st.lists(comment_lines, min_size=1, max_size=3).map("\n".join).filter(
    lambda c: not any(re.fullmatch(r"(\d+)\) (\S+):(.*)", line) for line in c.split("\n")))


@st.composite
def sdg_games(draw) -> SdgGame:
    players = tuple(draw(st.lists(player_names, min_size=2, max_size=4,
                                  unique_by=str.lower)))
    letters = draw(st.permutations(SEAT_LETTERS[:len(players)] if len(players) < 4
                                   else SEAT_LETTERS))
    participants = tuple(zip(players, letters, strict=False))
    turns = []
    for seat, player in enumerate(players):
        stars = tuple(draw(st.lists(pieces, min_size=1, max_size=2)))
        turns.append((seat, (Homeworld(stars, draw(pieces), player),)))
    for _ in range(draw(st.integers(0, 8))):
        seat = draw(st.integers(0, len(players) - 1))
        others = [s for s in range(len(players)) if s != seat]
        owner = st.just(None) if len(players) == 2 else st.sampled_from([None, *others])
        actions = draw(st.lists(st.one_of(free_actions(owner), st.just(Pass())),
                                min_size=1, max_size=5))
        turns.append((seat, tuple(actions)))
    built = tuple(
        SdgTurn(i + 1, players[seat], seat, actions, (), 0,
                tuple(c.rstrip() for c in draw(st.lists(comments, max_size=2))))
        for i, (seat, actions) in enumerate(turns))
    winner = draw(st.one_of(st.none(), st.sampled_from(players)))
    number = draw(st.one_of(st.none(), st.integers(1, 10**6)))
    return SdgGame(number, (), participants, winner, players, built)


@settings(max_examples=150, deadline=None)
@given(sdg_games())
def test_sdg_games_round_trip(game):
    again = read_sdg(write_sdg(game))
    assert again.players == game.players
    assert again.participants == game.participants
    assert (again.number, again.winner) == (game.number, game.winner)
    assert [(t.seat, t.actions, t.comments) for t in again.turns] == [
        (t.seat, t.actions, t.comments) for t in game.turns]


@given(st.one_of(free_actions(st.just(None)), st.just(Pass())))
def test_single_sdg_action_round_trip(action):
    assert parse_sdg_action(format_sdg_action(action), strict=True) == action


@given(pieces, st.sampled_from(["N", "S", "E", "W"]), system_names)
def test_sdg_capture_with_seat_round_trip(piece, letter, system):
    seats = {"N": 0, "E": 1, "S": 2, "W": 3}
    capture = Capture(piece, system, seats[letter])
    text = format_sdg_action(capture, seat_letters={v: k for k, v in seats.items()})
    assert parse_sdg_action(text, seats=seats, strict=True) == capture


@st.composite
def cooked_games(draw) -> CookedGame:
    names = draw(st.lists(system_names, min_size=2, max_size=6, unique_by=str.lower))
    ship_lists = st.lists(pieces, max_size=6).map(tuple)
    systems = tuple(
        CookedSystem(name, i if i < 2 else None, tuple(draw(st.lists(pieces, min_size=1,
                                                                       max_size=2))),
                     (draw(ship_lists), draw(ship_lists)))
        for i, name in enumerate(names))
    turns = tuple(draw(st.lists(
        st.one_of(st.just((Pass(),)),
                  st.lists(free_actions(st.just(None)), min_size=1, max_size=5).map(tuple)),
        max_size=6)))
    sample_text = st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1,
                          max_size=20)
    samples = tuple(draw(st.lists(st.tuples(st.sampled_from(["LEGAL", "ILLEGAL", "AMBIG"]),
                                            sample_text), max_size=3)))
    commands = tuple(draw(st.lists(st.sampled_from(["count_moves", "quit"]), max_size=2)))
    return CookedGame(systems, turns, samples, commands)


@settings(max_examples=150, deadline=None)
@given(cooked_games())
def test_cooked_games_round_trip(game):
    assert read_cooked(write_cooked(game)) == game


@given(pieces)
def test_piece_text_round_trip(piece):
    assert Piece.from_text(piece.to_text()) == piece
    assert Piece.from_text(piece.to_text().upper()) == piece
    assert Piece.from_text(piece.to_text()[::-1]) == piece


@given(colors)
def test_color_text_round_trip(color):
    assert Color.from_text(color.to_text()) == color
    assert Color.from_text(color.letter.upper()) == color
    assert parse_sdg_action(f"Catastrophe X {color.name.capitalize()}") == Catastrophe("X", color)


@given(st.lists(pieces, max_size=12))
def test_packed_pieces_round_trip(piece_list):
    assert parse_pieces(format_pieces(piece_list)) == tuple(piece_list)


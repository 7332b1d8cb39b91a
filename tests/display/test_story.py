"""What a turn did, told for spectators (display.story) and marked on the map (display.svg),
on real archive games: catastrophes say what was lost and in which colour, captures whose
ship, sacrifices the actions they paid for, the end why in the rulebook's terms."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from homeworlds.display.steps import load_game_file
from homeworlds.display.story import tell_turn
from homeworlds.display.svg import Overlay, render_snapshot_svg, render_svg
from homeworlds.notation import read_sdg
from homeworlds.notation.textfile import read_notation_text
from homeworlds.store.records import cooked_position, position_to_json, turn_to_sdg

NS = "{http://www.w3.org/2000/svg}"
DATA = Path(__file__).resolve().parents[1] / "data" / "games" / "sdg"
DEMO = Path(__file__).resolve().parents[2] / "host" / "homeworlds" / "data" / "demo-game.raw"


def _story(path: Path, number: int):
    game = load_game_file(path)
    turn = read_sdg(read_notation_text(path), source=str(path)).turns[number - 1]
    return game, turn, tell_turn(game.steps[number - 1].state, turn.actions, turn.seat,
                                 game.players)


def test_a_catastrophe_says_what_was_lost_in_which_colour_and_whose():
    _, _, story = _story(DEMO, 31)  # SDG 608, turn 31
    assert story.caption == (
        "Aaron sacrificed a medium yellow at Emerald: moved a large yellow from Emerald to "
        "Droplet, moved a large yellow from Droplet to MatrixFrog's home, caused a yellow "
        "catastrophe: MatrixFrog's home lost its yellow star and 3 ships (1 of Aaron's, 2 of "
        "MatrixFrog's)")
    kinds = {(m.system.casefold(), m.kind) for m in story.marks}
    assert {("emerald", "sacrificed"), ("droplet", "moved-to"), ("droplet", "moved-from"),
            ("matrixfrog", "moved-to"), ("matrixfrog", "catastrophe")} <= kinds
    assert story.ending is None


def test_the_end_says_why_in_the_rulebooks_terms():
    _, _, story = _story(DEMO, 50)
    assert story.ending == "Aaron has no ship at their homeworld"
    assert story.caption.startswith("MatrixFrog sacrificed a large red at Blue: captured "
                                    "Aaron's small blue at Aaron's home")
    assert ("Blue", "its star went back to the bank as the last ship left") in story.gone
    _, _, story = _story(DATA / "28841.raw", 25)
    assert story.ending == "Felix's homeworld lost both its stars"


def test_the_map_marks_the_systems_and_pieces_the_turn_touched():
    game, turn, story = _story(DEMO, 31)
    svg = render_svg(game.steps[31].state, players=game.players, overlay=Overlay(story=story))
    root = ET.fromstring(svg)
    marked = {g.get("data-system").casefold(): set(g.get("data-marks").split())
              for g in root.iter(NS + "g") if "touched" in g.get("class", "").split()
              and g.get("data-system")}
    assert marked == {"emerald": {"sacrificed", "moved-from"},
                      "droplet": {"moved-to", "moved-from"},
                      "matrixfrog": {"moved-to", "catastrophe"}}
    notes = [t.text for t in root.iter(NS + "text") if "turn-note" in t.get("class", "")]
    assert sorted(notes) == ["arrived, left", "catastrophe, arrived", "sacrificed, left"]
    # The ship that arrived at Droplet and left again is not ringed there; at the home the
    # catastrophe took the yellow ships, so nothing is ringed either.
    # No story, no marks.
    plain = render_svg(game.steps[31].state, players=game.players)
    assert "touched" not in plain and "turn-note" not in plain


def test_a_snapshot_with_its_last_turn_draws_the_story_and_not_during_the_next_turn():
    game = load_game_file(DEMO)
    turns = read_sdg(read_notation_text(DEMO), source=str(DEMO)).turns
    k = 41
    snapshot = {"game": {"rules": "sdg", "players": list(game.players), "to_move": 1},
                "position": cooked_position(position_to_json(game.steps[k].state)),
                "last_turn": {"number": k, "seat": turns[k - 1].seat,
                              "sdg": turn_to_sdg(turns[k - 1].actions, game.players),
                              "before": cooked_position(position_to_json(
                                  game.steps[k - 1].state))}}
    svg = render_snapshot_svg(snapshot)
    assert "red catastrophe: lost 4 ships" in svg and "turn-note" in svg
    assert "turn-note" not in render_snapshot_svg({**snapshot, "turn_in_progress": ["build"]})
    assert "turn-note" not in render_snapshot_svg({**snapshot, "last_turn": {"seat": 9}})


@pytest.mark.parametrize("path", sorted(DATA.glob("*.raw")) + [DEMO], ids=lambda p: p.name)
def test_every_turn_of_the_slice_is_told(path):
    game = load_game_file(path)
    turns = read_sdg(read_notation_text(path), source=str(path)).turns
    for k in range(1, len(game.steps)):
        turn = turns[k - 1]
        story = tell_turn(game.steps[k - 1].state, turn.actions, turn.seat, game.players)
        assert not story.failed, f"{path.name} turn {k}"
        assert story.caption.startswith(game.players[turn.seat] + " "), story.caption
        if game.steps[k].state.result is not None and game.steps[k].state.result.winners:
            assert story.ending, f"{path.name}: the last turn does not say why it ended"

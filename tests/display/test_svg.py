"""The SVG star map shows exactly the engine's position: systems, stars, ships by owner,
homes, connections by the size rule, the bank; names cannot inject markup."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from homeworlds.display.steps import load_game_file
from homeworlds.display.svg import (
    Overlay,
    render_cooked_svg,
    render_snapshot_svg,
    render_svg,
    state_from_cooked,
)
from homeworlds.notation import CookedSystem, parse_cooked_turn, read_cooked_file, write_position
from homeworlds.rules import PIECES, GameState, Piece, preset
from tests.display.svg_check import NS, assert_svg_shows, drawn_position, parse
from tests.shared import DATA, shared_path

SDG_SLICE = sorted((DATA / "games" / "sdg").glob("*.raw"))
COOKED_SLICE = sorted((DATA / "games" / "cooked").glob("*.cooked"))


def positions_of_sdg(path: Path):
    """Every position of a transcript, after each turn, as the engine plays it."""
    game = load_game_file(path)
    return [(step.number, step.state, game.players) for step in game.steps]


@pytest.mark.parametrize("path", SDG_SLICE, ids=lambda p: p.name)
def test_every_position_of_the_archive_slice_is_drawn_as_the_engine_has_it(path):
    seen = 0
    for k, state, players in positions_of_sdg(path):
        assert_svg_shows(render_svg(state, players=players), state, f"{path.name} turn {k}")
        assert_svg_shows(render_svg(state, players=players, portrait=True), state,
                         f"{path.name} turn {k}, portrait")
        seen += 1
    assert seen > 15
    assert load_game_file(path).error is None


@pytest.mark.parametrize("path", COOKED_SLICE, ids=lambda p: p.name)
def test_a_cooked_position_text_is_drawn_as_the_engine_reads_it(path):
    game = read_cooked_file(path, named=True)
    state = GameState.from_position(game.systems, preset("sdg"))
    for k, turn in enumerate(game.turns[:30]):
        text = write_position(_cooked_systems(state))
        svg = render_cooked_svg(text, rules="sdg", to_move=state.to_move)
        assert_svg_shows(svg, state, f"{path.name} after {k} turns")
        if state.is_over:
            break
        state.apply_turn(turn)


def _cooked_systems(state: GameState):
    return [CookedSystem(s.name, s.home_of, s.star_pieces,
                         (s.ship_pieces(0), s.ship_pieces(1))) for s in state.systems]


def test_a_sample_of_the_full_archive_is_drawn_as_the_engine_has_it():
    files = sorted(shared_path("games", "sdg").glob("*.raw"))
    rng = random.Random(13)
    checked = 0
    for path in rng.sample(files, min(12, len(files))):
        positions = positions_of_sdg(path)
        for k, state, players in positions[:: max(1, len(positions) // 8)]:
            assert_svg_shows(render_svg(state, players=players), state, f"{path.name} turn {k}")
            checked += 1
    assert checked >= 40


def test_connections_follow_the_size_rule_including_binary_stars():
    # 000_*.txt: "A Binary Star ... is only connected to a star if it's of the size not
    # included in the Binary Star."
    text = ("Ann (0, g1b2) y3-\nBob (1, r1y2) -g3\nSmall (b1) g1-\nLarge (r3) -y1\n"
            "Medium (y2) r1-\n")
    root = parse(render_cooked_svg(text))
    drawn = drawn_position(root)["connections"]
    pairs = {tuple(sorted(p)) for p in drawn}
    assert pairs == {("ann", "large"), ("bob", "large"), ("large", "small"),
                     ("large", "medium"), ("medium", "small")}


def test_a_captured_ship_is_drawn_in_the_captors_band():
    text = "Ann (0, g1b2) y3r3-\nBob (1, r1y2) -g3\nMid (y1) r2-g2\n"
    state = state_from_cooked(text)
    before = drawn_position(parse(render_svg(state)))["systems"]
    assert before["mid"]["ships"] == {0: {"r2": 1}, 1: {"g2": 1}}
    state.apply_turn(parse_cooked_turn("capture g2 at Mid"))
    after = drawn_position(parse(render_svg(state)))["systems"]
    assert after["mid"]["ships"] == {0: {"r2": 1, "g2": 1}}


def test_names_cannot_inject_markup_and_control_characters_are_shown():
    evil = '<script>alert("x")</script>&\x1b[31m'
    state = GameState.from_position(
        [CookedSystem("Home", 0, (Piece.from_text("g1"), Piece.from_text("b2")),
                      ((Piece.from_text("y3"),), ())),
         CookedSystem("Other", 1, (Piece.from_text("r1"), Piece.from_text("y2")),
                      ((), (Piece.from_text("g3"),)))], preset("sdg"))
    state.systems[0].name = evil
    svg = render_svg(state, players=[evil, "Bob"],
                     overlay=Overlay(caption=evil, mistakes=(("slot <1>", evil),),
                                     guidance=evil, result=evil, title=evil))
    root = ET.fromstring(svg)  # well-formed XML: nothing unescaped
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert "<script" not in svg and "\x1b" not in svg
    system = next(g for g in root.iter(NS + "g") if g.get("data-system") == evil.replace(
        "\x1b", "\\x1b"))
    assert system.get("data-home-of") == "0"


def test_the_drawing_scales_it_has_a_viewbox_and_no_pixel_size():
    root = parse(render_svg(GameState(preset("sdg"))))
    assert root.get("viewBox")
    assert root.get("width") is None and root.get("height") is None
    texts = [t.text for t in root.iter(NS + "text")]
    assert "Setting up: no homeworld yet" in texts


def test_the_overlay_marks_destinations_origin_overpopulation_red_alert_and_mistakes():
    text = ("Ann (0, g1b2) y3g2g3-\nBob (1, r1y2) -g3\nSmall (g1) g1g2-g3\nLarge (r3) -y1\n")
    hints = {"lifted": {"seat": 0, "piece": "y3", "system": "Ann"},
             "legal_destinations": ["Large", {"system": None, "new": True}],
             "overpopulated": [], "red_alert_seat": 1,
             "mistakes": [{"slot": "slot 4", "text": "a ship is missing"}],
             "guidance": {"text": "Put the green 3 back on Ann"}}
    overlay = Overlay.from_feed(hints, result={"text": "Ann wins"}, caption="turn 7")
    root = parse(render_cooked_svg(text, players=["Ann", "Bob"], overlay=overlay))
    systems = {g.get("data-system"): g.get("class").split() for g in root.iter(NS + "g")
               if "system" in g.get("class", "").split()}
    assert "destination" in systems["Large"] and "destination" not in systems["Small"]
    assert "origin" in systems["Ann"]
    assert "overpopulated" not in systems["Ann"]  # three greens only
    assert "overpopulated" in systems["Small"]  # four: the star and three ships
    assert "red-alert" in systems["Bob"]
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    for words in ("RED ALERT: Bob", "Mistake at slot 4: a ship is missing",
                  "Put the green 3 back on Ann", "Ann wins", "turn 7", "or a new system"):
        assert words in texts
    overpop = next(g for g in root.iter(NS + "g") if g.get("class") == "overpopulation")
    assert overpop.get("data-colors") == "green"


def test_the_feed_bank_replaces_the_worked_out_one():
    text = "Ann (0, g1b2) y3-\nBob (1, r1y2) -g3\n"
    bank = {p: 1 for p in ("r1", "r2", "r3", "y1", "y2", "y3", "g1", "g2", "g3", "b1", "b2",
                           "b3")}
    drawn = drawn_position(parse(render_cooked_svg(text, bank=bank)))
    assert set(drawn["bank"].values()) == {1}


def test_systems_get_unique_element_ids_even_when_names_slug_alike():
    state = GameState.from_position(
        [CookedSystem("A-b", 0, (Piece.from_text("g1"),), ((Piece.from_text("y3"),), ())),
         CookedSystem("A_b", 1, (Piece.from_text("r2"),), ((), (Piece.from_text("g3"),))),
         CookedSystem("Ωmega", None, (Piece.from_text("b3"),), ((Piece.from_text("g2"),), ()))],
        preset("sdg"))
    root = parse(render_svg(state))
    ids = [g.get("id") for g in root.iter(NS + "g") if g.get("data-system")]
    assert len(ids) == len(set(ids)) == 3
    assert all(i.startswith("system-") for i in ids)


def test_a_feed_snapshot_is_drawn_with_its_bank_players_hints_and_result():
    position = "Ann (0, g1b2) y3-\nBob (1, r1y2) -g3\nSmall (b1) g1-\n"
    bank = {p.to_text(): 2 for p in PIECES}
    snapshot = {"type": "snapshot", "table": "t", "seq": 4, "at": 0.0,
                "game": {"uid": "u", "rules": "no-such-preset", "players": ["Ann", "Bob"],
                         "first_seat": 0, "to_move": 1, "turn_number": 3,
                         "turn_started_at": None, "in_setup": False,
                         "result": {"kind": "resigned", "winners": [0], "text": "Ann wins"}},
                "position": position, "bank": bank, "turn_log": [],
                "hints": {"lifted": {"seat": 1, "piece": "g3", "from": "Bob"},
                          "legal_destinations": ["Small"], "may_discover": True,
                          "overpopulated": [], "red_alert_seat": None, "mistakes": [],
                          "message": "", "guidance": {"step": 1, "text": "Put b1 back"}},
                "clocks": None, "link_up": True}
    root = parse(render_snapshot_svg(snapshot))
    assert root.get("data-to-move") == "1"
    drawn = drawn_position(root)
    assert set(drawn["bank"].values()) == {2}
    assert drawn["systems"]["small"]["ships"] == {0: {"g1": 1}}
    classes = {g.get("data-system"): g.get("class").split() for g in root.iter(NS + "g")
               if g.get("data-system")}
    assert "destination" in classes["Small"] and "origin" in classes["Bob"]
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    for words in ("Ann wins", "Put b1 back", "or a new system", "Ann", "Bob"):
        assert words in texts
    empty = dict(snapshot, position="", game=dict(snapshot["game"], in_setup=True, result=None))
    assert "Setting up" in render_snapshot_svg(empty)

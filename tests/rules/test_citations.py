"""The rule behind a refusal, in the rulebook's words (homeworlds.rules.citations)."""

from __future__ import annotations

import re

import pytest

from homeworlds.rules import (
    Build,
    Capture,
    Catastrophe,
    Color,
    IllegalAction,
    Move,
    Pass,
    Piece,
    Trade,
)
from homeworlds.rules.citations import CITATIONS, citation_for, cite, rule_of
from tests.positions import position
from tests.shared import REPO

P = Piece.from_text
#: Ann (seat 0) to move: a g1 and a y2 at home, a b3 at Far; Ben has an r2 at Far.
POSITION = """
    Ann (0, y1b2) g1y2-
    Ben (1, r1g3) -g2
    Far (b3) b3-r2
"""


def _refusal(actions, rules: str = "looney", text: str = POSITION) -> IllegalAction:
    tip = position(text, rules=rules).begin_turn()
    with pytest.raises(IllegalAction) as caught:
        for action in actions:
            tip.apply(action)
        tip.finish()
    return caught.value


@pytest.mark.parametrize(("actions", "rule"), [
    ((Build(P("g2"), "Ann"),), "build-smallest"),
    ((Build(P("b1"), "Ann"),), "build-colour"),
    ((Build(P("y1"), "Far"),), "technology"),  # no green at Far
    ((Trade(P("g1"), P("g1"), "Ann"),), "trade"),
    ((Trade(P("g1"), P("b2"), "Ann"),), "trade"),
    ((Capture(P("r2"), "Far"),), "technology"),  # no red at Far
    ((Move(P("g1"), "Ann", "Ben"),), "connection"),
    ((Build(P("g1"), "Ann"), Build(P("g2"), "Ann")), "one-action"),
    ((Catastrophe("Ann", Color.GREEN),), "catastrophe"),
    ((Build(P("g1"), "Nowhere"),), None),  # a name that does not exist: no rule
])
def test_each_refusal_names_its_rule(actions, rule):
    assert rule_of(_refusal(actions)) == rule


def test_capture_of_a_larger_ship_and_pass_under_the_specification():
    text = """
        Ann (0, y1r2) g1-
        Ben (1, r1g3) -g2
        Far (b1) r1-g3
    """
    error = _refusal((Capture(P("g3"), "Far"),), text=text)
    citation = cite(error, "looney")
    assert citation is not None and citation.rule == "capture"
    assert citation.text() == ("“You can only attack a ship if it’s smaller or the same size "
                               "as the biggest ship YOU have in that system.” — Looney Labs' "
                               "rules, RED")
    passed = _refusal((Pass(),), rules="alternating-setup", text=text)
    assert cite(passed, "alternating-setup").rule == "pass"
    assert cite(passed, "alternating-setup").book == "the formal specification"


def test_the_presets_own_rulebook_comes_first():
    assert citation_for("setup", "alternating-setup").file.startswith("003_")
    assert citation_for("setup", "sdg").file.startswith("000_")
    assert citation_for("catastrophe-timing", "good-evil").file.startswith("002_")
    assert citation_for("catastrophe-timing", "looney").file.startswith("000_")
    # No sentence in the preset's books: the rule's first sentence, naming its book.
    assert citation_for("home", "strict").book == "the Good/Evil rules"


def test_every_sentence_is_quoted_in_docs_rules_md_with_its_file_and_section():
    """docs/rules.md's quotations are checked against the rulebooks word for word
    (test_rulebook_quotes.py); these must be the same quotations."""
    docs = re.sub(r"\s+", " ", (REPO / "docs" / "rules.md").read_text(encoding="utf-8"))
    for rule, citations in CITATIONS.items():
        for c in citations:
            assert c.rule == rule
            cited = f'"{c.quote}" — {c.file}, *{c.section}*'
            assert cited in docs, f"{rule}: {cited} is not in docs/rules.md"


def _observed(state, change):
    """The position's systems as the table would see them, with ``change`` (name ->
    (stars, ships by seat) as text, e.g. ("b2y1", ("g1g2", ""))) applied; a None name in
    ``change`` adds a new system."""
    from homeworlds.rules import ObservedSystem

    def parse_pieces(text):
        return tuple(Piece.from_text(text[k:k + 2]) for k in range(0, len(text), 2))

    out = []
    for s in state.systems:
        if s.name in change:
            stars, ships = change[s.name]
            if stars is None:
                continue  # gone
            out.append(ObservedSystem(s.name, parse_pieces(stars),
                                      tuple(parse_pieces(f) for f in ships)))
        else:
            out.append(ObservedSystem(s.name, s.star_pieces,
                                      tuple(s.ship_pieces(k) for k in range(2))))
    if None in change:
        stars, ships = change[None]
        out.append(ObservedSystem(None, parse_pieces(stars),
                                  tuple(parse_pieces(f) for f in ships)))
    return out


@pytest.mark.parametrize(("change", "guessed", "rule"), [
    ({"Ann": ("y1b2", ("g1y2g2", ""))}, "build g2 at Ann", "build-smallest"),
    ({"Ann": ("y1b2", ("g1y2b1", ""))}, "build b1 at Ann", "build-colour"),
    ({"Ann": ("y1b2", ("y2g1", "")), "Ben": ("r1g3", ("", "g2"))}, None, None),
    ({"Ann": ("y1b2", ("y2", "")), "Ben": ("r1g3", ("g1", "g2"))}, "move g1 from Ann to Ben",
     "connection"),
    ({"Ann": ("y1b2", ("g1", "")), None: ("r2", ("y2", ""))}, None, "connection"),
    ({"Far": ("b3", ("b3r2", ""))}, "capture r2 at Far", "technology"),
    # Ben's greens (the g3 star and a g2) cleared: only two green pieces, no overpopulation.
    ({"Ben": ("r1", ("", ""))}, "catastrophe green at Ben", "catastrophe"),
])
def test_the_action_the_table_shows_and_the_rule_it_breaks(change, guessed, rule):
    from homeworlds.rules.diagnosis import diagnose, guessed_action

    state = position(POSITION, rules="looney")
    observed = _observed(state, change)
    action = guessed_action(state.begin_turn(), observed)
    if guessed is not None:
        assert str(action) == guessed
    refusal = diagnose(state.begin_turn(), observed)
    assert (None if refusal is None else rule_of(refusal)) == rule


@pytest.mark.parametrize(("actions", "rule", "section"), [
    ((Build(P("g2"), "Ann"),), "build-smallest", "Free Actions"),
    ((Build(P("b1"), "Ann"),), "build-colour", "Free Actions"),
    ((Build(P("y1"), "Far"),), "technology", "Free Actions"),
    ((Trade(P("g1"), P("b2"), "Ann"),), "trade", "Free Actions"),
    ((Move(P("g1"), "Ann", "Ben"),), "connection", "Star-Systems and Star ships"),
    ((Build(P("g1"), "Ann"), Build(P("g2"), "Ann")), "one-action", "Play"),
    # (Good/Evil: catastrophes come after the turn's action)
    ((Build(P("g1"), "Ann"), Catastrophe("Ann", Color.GREEN)), "catastrophe",
     "Overpopulation and Catastrophes"),
])
def test_a_good_evil_game_quotes_the_good_evil_rulebook(actions, rule, section):
    """Under the Good/Evil rules a refusal quotes John & Gina's rulebook (002), not Looney
    Labs' wording naming that other book."""
    citation = cite(_refusal(actions, rules="good-evil"), "good-evil")
    assert citation is not None and citation.rule == rule
    assert citation.file == "002_97f4ce8dbb4cee45.txt" and citation.section == section
    assert citation.book == "the Good/Evil rules"
    # The two-player presets keep Looney Labs' sentence (or BGA's for connections).
    assert citation_for(rule, "looney").file != citation.file


def test_every_rule_the_good_evil_rulebook_states_is_quoted_from_it():
    """Every rule with a sentence of the Good/Evil rulebook gives it to a good-evil game;
    the rules that book does not state (no pass: it allows one) fall back, naming theirs."""
    for rule in CITATIONS:
        citation = citation_for(rule, "good-evil")
        assert citation.file == "002_97f4ce8dbb4cee45.txt" or rule == "pass", rule

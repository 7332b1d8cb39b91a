"""The table feed and the live map carry any number of seats (issue 28, item 6): the
snapshot's ``systems`` hold every seat's ships, and the map draws them where the cooked
``position`` (two seats) cannot."""

from __future__ import annotations

import pytest

from homeworlds.feed import FeedError, FeedProducer, event_from_json
from homeworlds.rules import preset
from homeworlds.session import new_session
from homeworlds.sim import make_registry
from homeworlds.store.records import turn_from_sdg
from homeworlds.table.layout import builtin_layout
from homeworlds.web.app import draw_map

FIVE = ("Alice", "Bob", "Carol", "Dave", "Erin")


def _snapshot(players, layout_name, turns):
    layout = builtin_layout(layout_name)
    n = len(players)
    session = new_session(layout, make_registry(layout, n), preset("last-standing"), players)
    session.tracker.resume([(k % n, turn_from_sdg(text, k % n, players))
                            for k, text in enumerate(turns)])
    return FeedProducer(session, table="t", rules_name="last-standing").snapshot()


def test_a_five_seat_snapshot_carries_every_seat_and_the_map_draws_it():
    """002 (What You Need): "A standard four-color Icehouse set (for atwo-player game, use
    three pieces of each size/color)" — the rules are for two to six; five sit at the
    six-seat table, and the display shows all five."""
    snapshot = _snapshot(FIVE, "six-seat", [
        "Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B1 B2", "Homeworld R2 B3 Y2",
        "Homeworld G1 Y3 R1", "Build R1 Alice"])
    assert snapshot.position == ""  # the cooked text holds two seats
    homes = {s["home_of"]: s for s in snapshot.systems}
    assert sorted(homes) == [0, 1, 2, 3, 4]
    assert homes[0]["ships"] == [["r1", "r3"], [], [], [], []]
    assert homes[4]["ships"][4] == ["r1"] and homes[4]["stars"] == ["g1", "y3"]
    again = event_from_json(snapshot.to_json())
    assert again.systems == snapshot.systems
    svg = draw_map(again)
    assert svg.startswith("<svg") and "cannot be drawn" not in svg
    for name in FIVE:
        assert name in svg


@pytest.mark.parametrize("systems, said", [
    ("many", "is not a list"),
    ([{"name": "", "home_of": None, "stars": ["r1"], "ships": [[], []]}], "name"),
    ([{"name": "A", "home_of": 9, "stars": ["r1"], "ships": [[], []]}], "home_of"),
    ([{"name": "A", "home_of": None, "stars": ["x9"], "ships": [[], []]}], "stars"),
    ([{"name": "A", "home_of": None, "stars": ["r1"], "ships": [["r1"]]}], "ships"),
])
def test_bad_systems_in_a_snapshot_are_refused_by_field(systems, said):
    data = _snapshot(("Alice", "Bob", "Carol"), "four-seat", [
        "Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B1 B2"]).to_json()
    data["systems"] = systems
    with pytest.raises(FeedError, match=f"snapshot.systems.*{said}"):
        event_from_json(data)

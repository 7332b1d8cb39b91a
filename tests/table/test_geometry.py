"""The geometry checker (issue 25, item 3): today's standard-2p as the README described
it is refused (120 mm ship pads in 120 mm columns, the LED ring under the star pad), the
reference geometries pass, and the drawings in docs/images are what the checker draws."""

from __future__ import annotations

import tomllib

import pytest

from homeworlds.table.geometry import GEOMETRY_DIR, IMAGES, GeometryError, check, load_geometry, svg


def _data(name):
    return tomllib.loads((GEOMETRY_DIR / f"{name}.toml").read_text(encoding="utf-8"))


def test_the_old_standard_2p_is_refused():
    """hardware/README.md before the fix: slot columns 120 mm wide and 300 mm deep,
    ship pads 120 x 100 mm, the 16-pixel ring under the star pad."""
    data = _data("standard-2p")
    data["map"]["pitch"] = [120, 300]
    data["map"]["ring_offset"] = [0, 0]
    problems = check(load_geometry("standard-2p", data=data))
    gaps = [p for p in problems if "S0 south ships" in p and "S1 south ships" in p]
    assert gaps and "are 0.0 mm apart: at least 15 mm between pads" in gaps[0]
    rings = [p for p in problems if p.startswith("the LED ring of S0 lies under zone 0 (S0 star)")]
    assert rings and "10 mm clear" in rings[0]
    # 14 columns of ship pads touching their neighbours (6 gaps a row, two pads each) ...
    assert len([p for p in problems if "ships" in p and "mm apart" in p]) >= 24
    # ... and all 14 rings under their star pads.
    assert len([p for p in problems if "lies under" in p]) == 14


@pytest.mark.parametrize("name", ["standard-2p", "four-seat"])
def test_the_reference_geometries_keep_every_rule(name):
    geometry = load_geometry(name)
    assert check(geometry) == []
    assert len(geometry.pads) == geometry.layout.zone_count
    assert {pad.zone for pad in geometry.pads} == set(range(geometry.layout.zone_count))


def test_a_ring_too_close_is_named_with_its_distance():
    data = _data("standard-2p")
    data["map"]["ring_offset"] = [62, 0]  # 4.75 mm from the star pad's edge
    problems = check(load_geometry("standard-2p", data=data))
    assert any("the LED ring of S0 is 4.8 mm from zone 0 (S0 star)" in p for p in problems), (
        problems
    )


@pytest.mark.parametrize("name", ["standard-2p", "four-seat"])
def test_the_drawing_in_the_docs_is_the_checkers(name):
    drawn = svg(load_geometry(name))
    assert (IMAGES / f"geometry-{name}.svg").read_text(encoding="utf-8") == drawn, (
        "run python -m homeworlds.table.geometry"
    )
    assert drawn.count("<rect") == load_geometry(name).layout.zone_count + 1  # pads and the top
    assert drawn.count("<circle") == len(load_geometry(name).layout.slots)


def test_a_broken_file_names_the_key():
    data = _data("four-seat")
    data["map"]["pitch"] = [370]
    with pytest.raises(GeometryError, match="map: pitch: expected \\[x, y\\]"):
        load_geometry("four-seat", data=data)
    with pytest.raises(GeometryError, match="this file is for 'four-seat', not 'standard-2p'"):
        load_geometry("standard-2p", data=_data("four-seat"))

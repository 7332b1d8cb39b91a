"""Read an SVG star map back (xml.etree) and compare it with the engine's position."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from homeworlds.rules import PIECES, GameState

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def drawn_position(root: ET.Element) -> dict:
    """What the drawing shows: each system's stars, home and ships per owner; the
    connections; the bank."""
    systems = {}
    for group in root.iter(NS + "g"):
        if "system" not in group.get("class", "").split():
            continue
        name = group.get("data-system")
        stars = Counter(p.get("data-piece") for p in group.iter(NS + "g")
                        if p.get("data-role") == "star")
        ships: dict[int, Counter] = {}
        for p in group.iter(NS + "g"):
            if p.get("data-role") == "ship":
                ships.setdefault(int(p.get("data-owner")), Counter())[p.get("data-piece")] += 1
        home = group.get("data-home-of")
        systems[name.casefold()] = {"name": name, "stars": stars, "ships": ships,
                                    "home_of": None if home is None else int(home)}
    connections = {frozenset((line.get("data-a").casefold(), line.get("data-b").casefold()))
                   for line in root.iter(NS + "line")
                   if "connection" in line.get("class", "").split()}
    bank = {g.get("data-piece"): int(g.get("data-count")) for g in root.iter(NS + "g")
            if "bank-piece" in g.get("class", "").split()}
    return {"systems": systems, "connections": connections, "bank": bank}


def engine_position(state: GameState) -> dict:
    systems = {}
    for s in state.systems:
        ships = {seat: Counter(p.to_text() for p in s.ship_pieces(seat))
                 for seat in range(state.players) if any(s.ships[seat])}
        systems[s.key] = {"name": s.name, "stars": Counter(p.to_text() for p in s.star_pieces),
                          "ships": ships, "home_of": s.home_of}
    connections = {frozenset((a.key, b.key)) for i, a in enumerate(state.systems)
                   for b in state.systems[i + 1:] if a.connected_to(b)}
    bank = {PIECES[i].to_text(): n for i, n in enumerate(state.bank)}
    return {"systems": systems, "connections": connections, "bank": bank}


def assert_svg_shows(svg: str, state: GameState, where: str = "") -> None:
    drawn, want = drawn_position(parse(svg)), engine_position(state)
    for part in ("systems", "connections", "bank"):
        assert drawn[part] == want[part], f"{where}: the drawing's {part} differ from the engine's"

"""Fixtures of the simulator tests: the reference two-player layout and its tags."""

from __future__ import annotations

import pytest

from homeworlds.sim import VirtualTable, make_registry
from homeworlds.table.layout import Layout, Reader, builtin_layout


@pytest.fixture(scope="session")
def layout() -> Layout:
    return builtin_layout("standard-2p")


@pytest.fixture(scope="session")
def registry(layout):
    return make_registry(layout)


@pytest.fixture
def table(layout, registry) -> VirtualTable:
    return VirtualTable(layout, registry)


@pytest.fixture(scope="session")
def trayless_layout(layout) -> Layout:
    """standard-2p without its bank tray: the tray's reader (reader 3) keeps only the turn
    tokens it serves (channels 12-13); its tray channels are unconnected."""
    return Layout(name="no-tray", seats=layout.seats, slots=layout.slots, bank=(),
                  strip=layout.strip, readers=(*layout.readers[:3], tokens_only(layout.readers[3],
                                                                                layout)))


def tokens_only(reader: Reader, layout: Layout) -> Reader:
    """``reader`` with every channel but the turn tokens' unconnected."""
    tokens = {seat.token_zone for seat in layout.seats}
    zones = tuple(zone if zone in tokens else None for zone in reader.zones)
    return Reader(reader.index, reader.chip, reader.channels, zones, reader.label, reader.pins)

"""Fixtures of the simulator tests: the reference two-player layout and its tags."""

from __future__ import annotations

import pytest

from homeworlds.sim import VirtualTable, make_registry
from homeworlds.table.layout import Layout, builtin_layout


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
    """standard-2p without its bank tray and the tray's reader (reader 3)."""
    return Layout(name="no-tray", seats=layout.seats, slots=layout.slots, bank=(),
                  strip=layout.strip, readers=layout.readers[:3])

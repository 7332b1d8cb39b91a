"""Fixtures of the store tests."""

from __future__ import annotations

import pytest

from homeworlds.store import GameStore


@pytest.fixture
def store(tmp_path):
    """A new game store file (``store.path``), closed when the test ends."""
    opened = GameStore.open(tmp_path / "games.sqlite")
    yield opened
    opened.close()

"""Shared fixtures: where the reference material in ../shared lives."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "games").is_dir():
        pytest.skip("../shared (the game archive) is not present in this checkout")
    return SHARED

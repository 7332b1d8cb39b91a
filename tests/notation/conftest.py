"""Fixtures for the notation tests: the shared archive, read once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeworlds.notation import read_cooked_file, read_sdg_file
from tests.shared import SHARED, shared_missing


def _files(pattern: str) -> list[Path]:
    files = sorted(SHARED.glob(pattern))
    if not files:
        shared_missing(f"../shared/{pattern}")
    return files


@pytest.fixture(scope="session")
def sdg_games():
    """Every SDG archive game, by game number."""
    return {int(path.stem): read_sdg_file(path) for path in _files("games/sdg/*.raw")}


@pytest.fixture(scope="session")
def cooked_paths():
    return _files("games/cooked/*.cooked")


@pytest.fixture(scope="session")
def cooked_games(cooked_paths):
    return {int(path.stem): read_cooked_file(path) for path in cooked_paths}


@pytest.fixture(scope="session")
def position_paths():
    return _files("positions/*/*.txt")

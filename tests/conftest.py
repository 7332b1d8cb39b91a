"""Shared fixtures: where the reference material in ../shared lives (see tests/shared.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared import REPO, SHARED, shared_path

__all__ = ["REPO", "SHARED"]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared with its game archive: skipped when absent, a failure under CI."""
    shared_path("games")
    return SHARED

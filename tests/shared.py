"""Where the reference material lives, and what a test does when it is missing.

``../shared`` (the full game archive, the rulebooks, the C++ engine's positions)
sits beside the repository on the developers' machines and in CI, not in a
user's clone. A test that needs it skips when it is absent — but fails when the
``CI`` environment variable is set, so that the data cannot vanish from CI
silently. ``tests/data`` holds a small slice that every run uses.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = REPO / "tests" / "data"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def shared_missing(what: str) -> NoReturn:
    """Skip (a user's clone) or fail (CI) because ``what`` in ../shared is absent."""
    message = f"{what} is not present in this checkout ({SHARED})"
    if in_ci():
        pytest.fail(f"{message}, but CI is set: the reference data must be there", pytrace=False)
    pytest.skip(message)


def shared_path(*parts: str) -> Path:
    """``../shared/<parts>``, or skip/fail as ``shared_missing`` says."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        shared_missing(f"../shared/{'/'.join(parts)}")
    return path

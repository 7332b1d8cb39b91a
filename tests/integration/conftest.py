"""Fixtures of the integration tests."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

from tests.integration.play_host import simulated_table


@pytest.fixture
def sim_table(tmp_path):
    """``sim_table(**options)``: a ``SimulatedTable`` in ``tmp_path`` (``simulated_table``'s
    options), its pty closed when the test ends."""
    with ExitStack() as stack:
        yield lambda **options: stack.enter_context(simulated_table(tmp_path, **options))

"""A finished successor search leaves nothing for the cyclic garbage collector.

The computer opponent runs thousands of searches a move; when each left a few hundred
objects in reference cycles, the collector ran hundreds of times a move and its full
collections held a 1.8 s move up to 3.9 s (docs/computer-opponent.md, *Time*)."""

from __future__ import annotations

import gc

import pytest

from homeworlds.rules import (
    Sacrifice,
    count_successors,
    each_successor,
    find_winning_turn,
    successor_keys,
    successors,
)
from tests.ai.helpers import random_positions


@pytest.fixture
def collector_paused():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _searches(state) -> None:
    list(successors(state))
    list(successors(state, first_kind=Sacrifice))
    count_successors(state)
    successor_keys(state)
    each_successor(state, lambda succ: None)
    find_winning_turn(state)
    # A search abandoned half-way (the opponent stops at its deadline) is closed too.
    lazy = successors(state)
    next(lazy, None)
    lazy.close()


def test_successor_searches_leave_no_reference_cycles(collector_paused):
    for state in random_positions(6, seed=11):
        _searches(state)
    assert gc.collect() == 0


def test_a_closed_search_cannot_be_run_again():
    from homeworlds.rules.successors import SuccessorSearch

    state = random_positions(1, seed=3)[0]
    search = SuccessorSearch(state)
    search.run()
    found = len(search.results)
    search.close()
    assert found > 0 and len(search.results) == found
    with pytest.raises(RuntimeError, match="closed"):
        search.run()

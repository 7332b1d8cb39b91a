"""Per-zone debounce with scripted reads."""

from __future__ import annotations

import pytest

from tablefw.debounce import ZoneDebouncer

A = "E004015000000001"
B = "E004015000000002"


def run(debouncer: ZoneDebouncer, script: list[list[str]]) -> list[tuple[str, ...]]:
    """Feed each scan of ``script``; return the present set after each."""
    states = []
    for seen in script:
        debouncer.update(seen)
        states.append(debouncer.present)
    return states


def test_tag_needs_on_sightings_to_count():
    states = run(ZoneDebouncer(on=2, off=3), [[A], [A], [A]])
    assert states == [(), (A,), (A,)]


def test_on_one_reports_at_once():
    assert run(ZoneDebouncer(on=1, off=1), [[A], [], [B]]) == [(A,), (), (B,)]


def test_single_missed_reads_do_not_remove_a_tag():
    script = [[A], [A], [], [A], [], [], [A], [], [A]]
    states = run(ZoneDebouncer(on=2, off=3), script)
    assert all(state == (A,) for state in states[1:])


def test_tag_is_gone_after_off_consecutive_misses():
    states = run(ZoneDebouncer(on=2, off=3), [[A], [A], [], [], [], []])
    assert states == [(), (A,), (A,), (A,), (), ()]


def test_recent_sightings_add_up_despite_a_miss_between():
    # seen, missed, seen: two sightings without three misses in a row.
    assert run(ZoneDebouncer(on=2, off=3), [[A], [], [A]])[-1] == (A,)


def test_a_tag_swept_across_the_pad_is_forgotten():
    # seen once, then three misses: the candidate is dropped, and one more
    # sighting later starts again from zero.
    debouncer = ZoneDebouncer(on=2, off=3)
    states = run(debouncer, [[A], [], [], [], [A]])
    assert states == [(), (), (), (), ()]
    assert debouncer.candidates() == (A,)


def test_update_reports_changes_only():
    debouncer = ZoneDebouncer(on=2, off=2)
    changes = [debouncer.update(seen) for seen in [[A], [A], [A, B], [A, B], [B], [B], [B]]]
    assert changes == [False, True, False, True, False, True, False]
    assert debouncer.present == (B,)


def test_present_is_sorted():
    debouncer = ZoneDebouncer(on=1, off=1)
    debouncer.update([B, A])
    assert debouncer.present == (A, B)


@pytest.mark.parametrize("off", [1, 2, 5])
def test_off_counts_consecutive_misses(off):
    debouncer = ZoneDebouncer(on=1, off=off)
    debouncer.update([A])
    for _ in range(off - 1):
        debouncer.update([])
        assert debouncer.present == (A,)
    debouncer.update([])
    assert debouncer.present == ()


def test_several_counts_present_and_candidate_tags_together():
    debouncer = ZoneDebouncer(on=2, off=3)
    answers = []
    for seen in [[A], [A], [A, B], [A], [], [], [], []]:
        debouncer.update(seen)
        answers.append((debouncer.several(),
                        len(debouncer.present) + len(debouncer.candidates()) >= 2))
    assert [mine for mine, _ in answers] == [reference for _, reference in answers]
    assert [mine for mine, _ in answers] == [False, False, True, True, True, False, False, False]

"""docs/hardware.md shows only what the programs printed: its doctor, pad-test and
bringup-timing samples are made by tests/bringup/doc_samples.py, and here the programs
run again on the simulated table and must print the same (issue 25, item 7)."""

from __future__ import annotations

from .doc_samples import document_samples, normalised, samples


def test_the_documented_samples_are_what_the_programs_print():
    shown = document_samples()
    assert set(shown) == {"doctor", "pad-test", "bringup-timing"}
    printed = samples()
    for name, text in printed.items():
        assert normalised(shown[name]) == normalised(text), (
            f"docs/hardware.md's {name} sample is not what the program prints now; "
            "run python -m tests.bringup.doc_samples")


def test_the_comparison_sees_a_changed_line():
    shown = document_samples()["doctor"]
    edited = shown.replace("FAIL  reader 2", "ok    reader 2")
    assert normalised(edited) != normalised(shown)

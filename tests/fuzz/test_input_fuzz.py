"""Seeded mutation fuzz of every input surface through the real code (short form; the long
form is `make fuzz`, benchmarks/input_fuzz.py): transcripts, cooked games and configuration
files through the `homeworlds` command, corrupted serial streams through the link and the
session. Exit status 0, 1 or 2 with a message, never a traceback, never a committed turn
changed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homeworlds.link import ReaderFault
from homeworlds.session import SESSION_LOG_LIMIT

from . import harness

SHORT = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SDG_SEEDS = harness.seed_files("sdg", 6)
COOKED_SEEDS = harness.seed_files("cooked", 6)
CONFIG_SEED = harness.EXAMPLE_CONFIG.read_bytes()


@settings(SHORT, max_examples=200)
@given(seed=st.sampled_from(SDG_SEEDS), steps=harness.mutations)
def test_mutated_transcripts_through_replay(seed, steps):
    with harness.workdir() as work:
        harness.fuzz_transcript(seed, steps, Path(work))


@SHORT
@given(seed=st.sampled_from(COOKED_SEEDS), steps=harness.mutations)
def test_mutated_cooked_games_through_replay_wins_successors(seed, steps):
    with harness.workdir() as work:
        harness.fuzz_cooked(seed, steps, Path(work))


@SHORT
@given(steps=harness.mutations)
def test_mutated_configurations_through_the_loader_and_play(steps):
    with harness.workdir() as work:
        harness.fuzz_config(CONFIG_SEED, steps, Path(work))


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(damage=harness.line_damage)
def test_corrupted_serial_streams_never_change_committed_turns(damage):
    harness.fuzz_serial(damage)


def test_mutation_reaches_the_checks():
    """The mutations are not all rejected at the first line: some mutated transcripts
    still read and replay (exit 0), others are refused (exit 2)."""
    codes = set()
    with harness.workdir() as work:
        for k in range(40):
            steps = [("flip", 1000 + 37 * k, 48 + k % 10, b"")]
            path = Path(work) / "g.raw"
            path.write_bytes(harness.mutate(SDG_SEEDS[0], steps))
            codes.add(harness.run_command(["replay", str(path)]).code)
    assert codes == {0, 2}


def test_reader_fault_flood_keeps_a_bounded_log():
    table = harness.CommittedTable(turns=4)
    for k in range(SESSION_LOG_LIMIT * 20):
        table.session.handle(ReaderFault(0, "TIMEOUT", f"no answer {k}", at=0.0))
    log = table.session.log
    assert len(log.reader_faults) == SESSION_LOG_LIMIT
    assert log.totals["reader_faults"] == SESSION_LOG_LIMIT * 20
    assert log.reader_faults[-1].text == f"no answer {SESSION_LOG_LIMIT * 20 - 1}"
    table.check()


def test_a_few_mutated_files_through_the_installed_command(tmp_path):
    for k, seed in enumerate(SDG_SEEDS[:2] + COOKED_SEEDS[:1]):
        path = tmp_path / f"f{k}"
        path.write_bytes(harness.mutate(seed, [("insert", 40 + k, 0, b"\xff9" + b"9" * 5000),
                                               ("insert", 90, 0, b"\x1b[2J")]))
        done = subprocess.run([sys.executable, "-m", "homeworlds", "replay", str(path)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 2)
        assert "Traceback" not in done.stderr and "\x1b" not in done.stdout + done.stderr
        assert done.returncode == 0 or done.stderr.startswith("homeworlds replay: ")

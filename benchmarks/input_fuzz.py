"""`make fuzz`: the long form of the input fuzz suite (tests/fuzz/ is the short one).

Mutated SDG transcripts, cooked games and configuration files go through the real
`homeworlds` command in-process; corrupted serial streams (random bytes, truncated lines,
bad CRCs, glued lines, reader-fault floods) through the link and the session of a game with
committed turns. Prints the inputs tried per surface, the crashes (a traceback, an exit
status other than 0/1/2, exit 2 without a message, a control character printed, a committed
turn changed: there must be none), and the peak memory; then memory for the oversized and
streaming cases: a 100 MB transcript given to `replay`, a long `successors` listing.

    python benchmarks/input_fuzz.py [--examples N] [--seed S]
"""

from __future__ import annotations

import argparse
import logging
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness lives with the tests

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.fuzz import harness  # noqa: E402

crashes: list[str] = []


def _guarded(run):
    def attempt(*args):
        try:
            run(*args)
        except Exception as exc:  # every escape is a finding, counted; the run goes on
            crashes.append(f"{type(exc).__name__}: {str(exc)[:300]}")
    return attempt


def _surface(name: str, strategy_kwargs: dict, body, examples: int, seed_value: int) -> float:
    t0 = time.perf_counter()
    run = _guarded(body)

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(**strategy_kwargs)
    def fuzz(**kwargs):
        run(*kwargs.values())

    fuzz()
    return time.perf_counter() - t0


def _peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _child_peak(argv: list[str]) -> tuple[int, float, float, str]:
    """(exit status, seconds, peak RSS in MB, first stderr line) of a command run alone."""
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(p.returncode, time.perf_counter() - t, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "
             "(p.stderr.splitlines() or [''])[0][:120], sep='\\t')")
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True,
                         text=True, check=True).stdout.rstrip("\n").split("\t")
    return int(out[0]), float(out[1]), float(out[2]), out[3]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1500, help="inputs per surface")
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the link reports every resync; the counts are enough
    sdg = harness.seed_files("sdg", 40, args.seed)
    cooked = harness.seed_files("cooked", 40, args.seed)
    config = harness.EXAMPLE_CONFIG.read_bytes()
    with tempfile.TemporaryDirectory(prefix="homeworlds-fuzz-") as work:
        work = Path(work)
        surfaces = [
            ("sdg transcripts", {"seed_text": st.sampled_from(sdg), "steps": harness.mutations},
             lambda s, m: harness.fuzz_transcript(s, m, work)),
            ("cooked games", {"seed_text": st.sampled_from(cooked), "steps": harness.mutations},
             lambda s, m: harness.fuzz_cooked(s, m, work)),
            ("configurations", {"steps": harness.mutations},
             lambda m: harness.fuzz_config(config, m, work)),
            ("serial streams", {"damage": harness.line_damage}, harness.fuzz_serial),
        ]
        for name, strategies, body, in surfaces:
            seconds = _surface(name, strategies, body, args.examples, args.seed)
            print(f"{name}: {args.examples} inputs in {seconds:.0f} s", flush=True)
        # A few mutated files through the installed command, as a user runs it.
        for k, text in enumerate(sdg[:5]):
            path = work / f"sub{k}.raw"
            path.write_bytes(harness.mutate(text, [("grow_number_field", k, k, b""),
                                                   ("after_word", k, 0, b"\x1b[2J")]))
            done = subprocess.run([sys.executable, "-m", "homeworlds", "replay", str(path)],
                                  capture_output=True, text=True)
            harness.tried["sdg replay (subprocess)"] += 1
            if done.returncode not in (0, 2) or "Traceback" in done.stderr:
                crashes.append(f"subprocess replay {path.name}: {done.stderr[:300]}")

        print("inputs tried per surface:")
        for surface, count in sorted(harness.tried.items()):
            print(f"  {surface:32} {count:7d}")
        print(f"crashes: {len(crashes)} (must be 0)")
        for crash in crashes[:10]:
            print(f"  {crash}")
        print(f"peak memory of the fuzz process: {_peak_rss_mb():.0f} MB (RSS)")

        big = work / "huge.raw"
        turns = (b"\n%d) Aaron: Pass\n\n%d) Bob: Pass\n")
        with open(big, "wb") as fh:
            fh.write(b"Homeworlds Online (SDG# 1)\nParticipants: Aaron (S), Bob (N)\n\n"
                     b"1) Aaron: Homeworld Y1 B2 G3\n\n2) Bob: Homeworld R1 Y2 G3\n")
            k = 3
            while fh.tell() < 100 << 20:
                fh.write(b"".join(turns % (n, n + 1) for n in range(k, k + 20000, 2)))
                k += 20000
        code, seconds, peak, first = _child_peak([sys.executable, "-m", "homeworlds",
                                                  "replay", str(big)])
        print(f"replay of a {big.stat().st_size / 2**20:.0f} MB transcript: exit {code} in "
              f"{seconds:.2f} s, peak {peak:.0f} MB: {first}")
        perf = harness.SHARED / "positions" / "perf" / "perf-33332-moves.txt"
        if perf.exists():
            code, seconds, peak, _ = _child_peak([sys.executable, "-m", "homeworlds",
                                                  "successors", str(perf)])
            print(f"successors listing of {perf.name} (33,332 turns): exit {code} in "
                  f"{seconds:.1f} s, peak {peak:.0f} MB")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())

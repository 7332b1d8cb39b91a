"""`make bench` loads each benchmark script as a module: one defining a dataclass (as
hints_bench.py does) must load and run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

RUN_ALL = Path(__file__).resolve().parent.parent / "benchmarks" / "run_all.py"


def test_a_benchmark_with_a_dataclass_loads_and_runs(tmp_path):
    spec = importlib.util.spec_from_file_location("run_all_under_test", RUN_ALL)
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    script = tmp_path / "dataclass_bench_probe.py"
    script.write_text("from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\n"
                      "class Case:\n    n: int\n\n\ndef run():\n    return {'n': Case(3).n}\n")
    assert run_all.load(script).run() == {"n": 3}

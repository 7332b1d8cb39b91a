"""`make bench`: run every benchmark in this folder and print its figures."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Benchmarks that must run in a process of their own: pixels_output sets up its own
#: environment, and table_bench reports the demo's peak memory, which in this process would
#: (event_bench and event_attack start brokers, hubs and table processes of their own).
AS_SCRIPT = {"pixels_output.py", "table_bench.py", "event_bench.py", "display_bench.py",
             "event_attack.py", "remote_bench.py"}
#: Not figures of their own: the full archive check (`make corpus`) and the long input fuzz
#: (`make fuzz`; kill_fuzz has a short form here and its long one there).
SKIP = {"run_all.py", "corpus_check.py", "input_fuzz.py"}


def load(path: Path):
    """Import a benchmark script as a module, registered first as an import would be
    (dataclasses look their module up in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    status = 0
    for path in sorted(HERE.glob("*.py")):
        if path.name in SKIP or path.name.startswith("_"):
            continue
        print(f"== {path.stem}", flush=True)
        t0 = time.perf_counter()
        if path.name in AS_SCRIPT:
            status |= subprocess.call([sys.executable, str(path)])
        else:
            try:
                module = load(path)
                if hasattr(module, "run"):
                    for key, value in module.run().items():
                        print(f"  {key}: {value}")
                else:
                    status |= subprocess.call([sys.executable, str(path)])
            except Exception:
                # One broken benchmark must not hide the figures of the others; the run
                # still ends in failure.
                traceback.print_exc()
                print(f"  {path.stem} FAILED (above); going on", flush=True)
                status |= 1
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

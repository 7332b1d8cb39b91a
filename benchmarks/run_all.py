"""`make bench`: run every benchmark in this folder and print its figures."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Benchmarks that must run in a process of their own (they set up their own environment).
AS_SCRIPT = {"pixels_output.py"}
#: Not figures of their own: the full archive check (`make corpus`) and the long input fuzz
#: (`make fuzz`; kill_fuzz has a short form here and its long one there).
SKIP = {"run_all.py", "corpus_check.py", "input_fuzz.py"}


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
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if hasattr(module, "run"):
                for key, value in module.run().items():
                    print(f"  {key}: {value}")
            else:
                status |= subprocess.call([sys.executable, str(path)])
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

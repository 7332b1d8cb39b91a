"""The Makefile finds Python quietly, even on a machine with pyenv shims."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SHIM = """#!/bin/sh
echo "pyenv: $(basename "$0"): command not found" >&2
echo "The \\`$(basename "$0")' command exists in these Python versions:" >&2
exit 127
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_python_probe_prints_nothing_with_pyenv_shims(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3.13", "python3.12"):  # shims of versions that are not installed
        shim = bin_dir / name
        shim.write_text(SHIM)
        shim.chmod(0o755)
    (bin_dir / "python3.11").symlink_to(sys.executable)
    work = tmp_path / "checkout"
    work.mkdir()
    shutil.copy(REPO / "Makefile", work / "Makefile")
    (work / "pyproject.toml").write_text("")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHON", None)
    done = subprocess.run(["make", "-n", ".venv/.installed"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "python3.11 -m venv .venv" in done.stdout

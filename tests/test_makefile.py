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


def _fake_bin(tmp_path, uid: str):
    """``id`` answering ``uid``, and a ``sudo`` and ``apt-get`` that only log their call."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    scripts = {"id": f"#!/bin/sh\necho {uid}\n",
               "sudo": f'#!/bin/sh\necho "sudo $*" >> {log}\n',
               "apt-get": f'#!/bin/sh\necho "apt-get $*" >> {log}\n'}
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(0o755)
    return bin_dir, log


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("uid, ci, expect", [
    ("1000", "", "print"),
    ("1000", "true", "sudo"),
    ("0", "", "apt-get"),
])
def test_make_browser_installs_chromium_only_as_root_or_in_ci(tmp_path, uid, ci, expect):
    bin_dir, log = _fake_bin(tmp_path, uid)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", CI=ci)
    done = subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "browser",
                           f"CHROMIUM={tmp_path / 'no-chromium'}"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = log.read_text() if log.exists() else ""
    if expect == "print":
        assert calls == ""
        assert "apt-get install -y --no-install-recommends chromium" in done.stdout
    elif expect == "sudo":
        assert calls.startswith("sudo sh -c apt-get update && apt-get install -y "
                                "--no-install-recommends chromium")
    else:
        assert calls.splitlines() == ["apt-get update",
                                      "apt-get install -y --no-install-recommends chromium"]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_browser_does_nothing_when_chromium_is_there(tmp_path):
    bin_dir, log = _fake_bin(tmp_path, "0")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "browser",
                           f"CHROMIUM={sys.executable}"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "" and not log.exists()

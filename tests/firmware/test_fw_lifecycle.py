"""boot.py and code.py on CPython with fake system modules: production and development
mode, autoreload off, the watchdog, restart with an ERR line on any failure."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tablefw import bootmode, lifecycle
from tablefw import protocol as p
from tablefw.app import main

from .board_fakes import FakeBoard, RecordingPort, StopTest, SystemReset
from .fakes import TickingClock

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
PN532_CONFIG = {
    "reader": "pn532",
    "readers": [{"tx": "GP0", "rx": "GP1", "zones": [0]}, {"tx": "GP4", "rx": "GP5", "zones": [1]}],
    "buttons": ["GP14", "GP15"],
    "settings": {"debounce_on": 1, "snap_ms": 0, "hb_ms": 100},
}


def lines_sent(fake: FakeBoard) -> list:
    data = b"".join(entry[1] for entry in fake.of("usb_cdc.data.write"))
    return p.Decoder(accept=p.FROM_MCU).feed(data)


def run_firmware(fake: FakeBoard, config=PN532_CONFIG, **kwargs):
    clock = TickingClock()
    log: list[str] = []
    sleeps: list[float] = []
    lifecycle.run(fake, lambda: dict(config), main, log=log.append, sleep=sleeps.append,
                  main_options={"clock": clock, "sleep": clock.sleep}, **kwargs)
    return log, sleeps


# ---------------------------------------------------------------- boot.py


def test_boot_without_jumper_is_production_mode_read_only_to_the_host():
    fake = FakeBoard()
    fake.digitalio = fake.boot_digitalio
    log: list[str] = []
    assert bootmode.boot(fake, "GP28", log=log.append) == bootmode.PRODUCTION
    assert fake.history == [("usb_cdc.enable", True, True), ("digitalio.deinit", "GP28"),
                            ("storage.remount", "/", False)]
    assert "read-only to the host" in log[0]


def test_boot_with_the_jumper_to_ground_is_development_mode():
    fake = FakeBoard(grounded={"GP28"})
    fake.digitalio = fake.boot_digitalio
    assert bootmode.boot(fake, "GP28", log=lambda text: None) == bootmode.DEVELOPMENT
    assert fake.of("storage.remount") == []
    assert fake.of("usb_cdc.enable") == [("usb_cdc.enable", True, True)]


def test_boot_py_reads_the_jumper_pin_from_table_config(monkeypatch):
    fake = FakeBoard(grounded={"GP9"})
    config = ModuleType("table_config")
    config.DEV_JUMPER = "GP9"
    install(monkeypatch, fake, config, digitalio=fake.boot_digitalio)
    runpy.run_path(str(FIRMWARE / "boot.py"), run_name="__main__")
    assert fake.of("storage.remount") == []  # GP9 grounded: development mode
    config.DEV_JUMPER = "GP8"
    fake.history.clear()
    runpy.run_path(str(FIRMWARE / "boot.py"), run_name="__main__")
    assert fake.of("storage.remount") == [("storage.remount", "/", False)]


# ---------------------------------------------------------------- code.py


def test_autoreload_goes_off_and_the_watchdog_is_armed_and_fed():
    port = RecordingPort([], fail_read_after=200, failure=ValueError("bad byte"))
    fake = FakeBoard(port=port)
    port.history = fake.history
    with pytest.raises(SystemReset):
        run_firmware(fake)
    assert fake.history[0] == ("supervisor.runtime.autoreload", False)
    assert fake.dog.timeout == lifecycle.WATCHDOG_TIMEOUT_S <= 8.3  # the RP2040's limit
    assert fake.dog.mode == "RESET"
    assert fake.dog.feeds >= 200  # once per loop (and per reader at start-up)


def test_an_exception_in_the_loop_is_reported_then_the_board_resets():
    port = RecordingPort([], fail_read_after=150, failure=ValueError("bad byte"))
    fake = FakeBoard(port=port)
    port.history = fake.history
    port.incoming += p.Encoder().encode(p.Sync())
    with pytest.raises(SystemReset):
        log, sleeps = run_firmware(fake)
    messages = [m for m in lines_sent(fake) if not isinstance(m, p.SequenceGap)]
    assert isinstance(messages[0], p.Hello)
    err = messages[-1]
    assert err == p.ErrorReport(None, "RESTART", "restarting the board: ValueError: bad byte")
    assert [type(m) for m in lines_sent(fake)].count(p.SequenceGap) == 0  # numbered in sequence
    # The ERR line left before the reset, and the reason is kept for the next boot.
    kinds = [entry[0] for entry in fake.history]
    assert kinds[-1] == "microcontroller.reset"
    assert kinds[-2] == "usb_cdc.data.write"
    assert bytes(fake.microcontroller.nvm[:3]) == b"HWR"


def test_the_next_boot_tells_the_host_why_after_its_hello():
    first = FakeBoard(port=RecordingPort([], fail_read_after=50, failure=MemoryError("heap")))
    first.usb_cdc.data.history = first.history
    first.usb_cdc.data.connected = False  # nobody listening at the moment of the crash
    with pytest.raises(SystemReset):
        run_firmware(first)
    assert first.of("usb_cdc.data.write") == []

    port = RecordingPort([], fail_read_after=300, failure=StopTest())
    second = FakeBoard(port=port)
    port.history = second.history
    second.microcontroller.nvm[:] = first.microcontroller.nvm  # flash survives the reset
    port.incoming += p.Encoder().encode(p.Sync())
    with pytest.raises(StopTest):
        run_firmware(second)
    messages = [m for m in lines_sent(second) if not isinstance(m, p.SequenceGap)]
    hello = next(i for i, m in enumerate(messages) if isinstance(m, p.Hello))
    assert messages[hello + 1] == p.ErrorReport(None, "RESTARTED", "MemoryError: heap")
    assert sum(isinstance(m, p.ErrorReport) for m in messages) == 1  # said once
    assert bytes(second.microcontroller.nvm[:3]) != b"HWR"  # and forgotten


def test_a_watchdog_reset_is_reported_after_hello():
    port = RecordingPort([], fail_read_after=300, failure=StopTest())
    fake = FakeBoard(port=port, reset_reason="WATCHDOG")
    port.history = fake.history
    port.incoming += p.Encoder().encode(p.Sync())
    with pytest.raises(StopTest):
        run_firmware(fake)
    errors = [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)]
    assert errors[0].code == "RESTARTED" and "watchdog" in errors[0].text


def test_a_wrong_config_is_repeated_not_reset_in_a_loop():
    fake = FakeBoard()
    config = dict(PN532_CONFIG, readers=[{"tx": "GP0", "rx": "GP0", "zones": [0]}])
    sleeps: list[float] = []

    def sleep(seconds):
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise StopTest

    with pytest.raises(StopTest):
        lifecycle.run(fake, lambda: config, main, log=lambda text: None, sleep=sleep)
    errors = [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)]
    assert len(errors) == 3 and errors[0].code == "CONFIG"
    assert "readers[0].rx: pin GP0 is already used by readers[0].tx" in errors[0].text
    assert fake.of("microcontroller.reset") == []
    assert fake.dog.feeds >= 3 and sleeps == [lifecycle.CONFIG_ERROR_REPEAT_S] * 3


def test_a_missing_table_config_is_a_config_error():
    fake = FakeBoard()

    def load():
        raise ImportError("no module named 'table_config'")

    def sleep(seconds):
        raise StopTest

    with pytest.raises(StopTest):
        lifecycle.run(fake, load, main, log=lambda text: None, sleep=sleep)
    errors = [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)]
    assert errors == [p.ErrorReport(None, "CONFIG",
                                    "table_config.py: ImportError: no module named 'table_config'")]


def test_ctrl_c_in_the_console_stops_without_a_reset():
    port = RecordingPort([], fail_read_after=20, failure=KeyboardInterrupt())
    fake = FakeBoard(port=port)
    port.history = fake.history
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        lifecycle.run(fake, lambda: PN532_CONFIG, main, log=log.append,
                      main_options={"clock": TickingClock(), "sleep": lambda ms: None})
    assert fake.of("watchdog.deinit") and fake.of("microcontroller.reset") == []
    assert "cannot be stopped on this board" in log[-1]


def install(monkeypatch, fake: FakeBoard, table_config: ModuleType, digitalio=None) -> None:
    modules = {"board": fake.board, "busio": fake.busio, "digitalio": digitalio or fake.digitalio,
               "microcontroller": fake.microcontroller, "supervisor": fake.supervisor,
               "storage": fake.storage, "usb_cdc": fake.usb_cdc, "watchdog": fake.watchdog,
               "table_config": table_config}
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


def test_code_py_runs_the_scanner_under_the_lifecycle(monkeypatch):
    port = RecordingPort([], fail_read_after=40, failure=OSError(5, "Input/output error"))
    fake = FakeBoard(port=port)
    port.history = fake.history
    config = ModuleType("table_config")
    config.CONFIG = PN532_CONFIG
    install(monkeypatch, fake, config)
    monkeypatch.setattr("tablefw.app.monotonic_ms", TickingClock())
    monkeypatch.setattr("tablefw.app.sleep_ms", lambda ms: None)
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    with pytest.raises(SystemReset):
        runpy.run_path(str(FIRMWARE / "code.py"), run_name="__main__")
    assert fake.history[0] == ("supervisor.runtime.autoreload", False)
    assert fake.dog.mode == "RESET" and fake.dog.feeds >= 40
    errors = [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)]
    assert errors[-1].code == "RESTART" and "Input/output error" in errors[-1].text


def test_a_board_without_watchdog_still_scans_and_restarts_on_failure():
    port = RecordingPort([], fail_read_after=60, failure=ValueError("bad byte"))
    fake = FakeBoard(port=port)
    port.history = fake.history

    class NoWatchdog(type(fake.microcontroller)):
        @property
        def watchdog(self):
            raise NotImplementedError("no watchdog on this port")

        @watchdog.setter
        def watchdog(self, value):
            pass

    fake.microcontroller.__class__ = NoWatchdog
    with pytest.raises(SystemReset):
        log, _ = run_firmware(fake)
    errors = [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)]
    assert errors[-1].code == "RESTART"


def test_garbage_in_nvm_is_not_a_reason_and_does_not_stop_the_boot():
    port = RecordingPort([], fail_read_after=200, failure=StopTest())
    fake = FakeBoard(port=port)
    port.history = fake.history
    fake.microcontroller.nvm[:8] = b"HWR\x04\xff\xfe\x00\x80"
    port.incoming += p.Encoder().encode(p.Sync())
    with pytest.raises(StopTest):
        run_firmware(fake)
    assert [m for m in lines_sent(fake) if isinstance(m, p.ErrorReport)] == []
    assert any(isinstance(m, p.Hello) for m in lines_sent(fake))


def test_a_non_ascii_exception_text_is_kept_as_printable_ascii():
    port = RecordingPort([], fail_read_after=30,
                         failure=ValueError("Zone \u00e9\u00e9 \u2192 " + "x" * 300))
    fake = FakeBoard(port=port)
    port.history = fake.history
    with pytest.raises(SystemReset):
        run_firmware(fake)
    assert lifecycle.take_restart_reason(fake).startswith("ValueError: Zone ?? ? xxx")

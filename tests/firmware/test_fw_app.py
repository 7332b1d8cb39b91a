"""Board assembly (config), the main loop with fake board modules, mux and buttons."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

from tablefw import protocol as p
from tablefw.app import UsbDataLink, main
from tablefw.buttons import ButtonBank
from tablefw.config import ConfigError, build
from tablefw.readers.mux import GpioMux
from tablefw.readers.pn532 import PN532
from tablefw.readers.pn5180 import PN5180

from .fakes import (
    FakeClock,
    FakePin,
    FakeUsbPort,
    LatchedBoards,
    TickingClock,
    decoded_select,
    make_board,
    make_digitalio,
)
from .pn532_emulator import FakeUart, Pn532Chip, Target
from .pn5180_emulator import FakeSpiBus, Pn5180Chip

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
T1 = "E004015000000011"
T2 = "E004015000000022"


# The cheap prototype: PN532 boards on the two UARTs, ISO 14443A tags.
PN532_EXAMPLE = {
    "reader": "pn532",
    "readers": [
        {"tx": "GP0", "rx": "GP1", "zones": [0]},
        {"tx": "GP4", "rx": "GP5", "zones": [1]},
    ],
    "buttons": ["GP14", "GP15"],
}


def reference_config() -> dict:
    """The shipped table_config.py (generated from hardware/layouts/standard-2p.toml)."""
    spec = importlib.util.spec_from_file_location("table_config", FIRMWARE / "table_config.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return copy.deepcopy(module.CONFIG), copy.deepcopy(PN532_EXAMPLE)


def fake_busio(spi_bus=None, uarts=None):
    def make_uart(tx, rx, baudrate=9600, timeout=1):
        return uarts[tx]

    return SimpleNamespace(SPI=lambda clock, MOSI=None, MISO=None: spi_bus, UART=make_uart)


# ---------------------------------------------------------------- config


def test_reference_config_builds_four_pn5180_readers():
    config, _ = reference_config()
    digitalio = make_digitalio()
    readers, buttons, settings, zone_count = build(config, make_board(), fake_busio(FakeSpiBus()),
                                                   digitalio)
    assert len(readers) == 4 and all(isinstance(r, PN5180) for r in readers)
    assert zone_count == 56
    assert sorted(zone for r in readers for zone in r.zones) == list(range(56))
    # the map readers serve only system pads; the bank tray's reader also serves both turn
    # tokens, on its channels 12-13 (docs/firmware.md, "Measured scan speed")
    assert readers[0].zones == tuple(range(0, 15))
    assert readers[1].zones == tuple(range(15, 30))
    assert readers[2].zones == tuple(range(30, 42))
    assert readers[3].zones == (*range(44, 56), 42, 43)
    # Each board latches its own channel from the shared select lines: a switch per reader.
    assert readers[0].mux is not readers[3].mux and readers[0].mux.channels == 16
    assert readers[0].mux.pins == readers[3].mux.pins  # the same four select outputs
    assert [r.mux.strobe.outputs for r in readers] == [4] * 4
    assert [r.mux.output for r in readers] == [0, 1, 2, 3]
    assert [r.irq.pin for r in readers] == ["GP0", "GP1", "GP7", "GP8"]  # IRQ inputs
    assert len(buttons) == 2 and all(b.pull == "UP" for b in buttons)
    assert digitalio.registry["GP17"].value is True  # chip selects idle high (decoder off)
    assert digitalio.registry["GP22"].value is False  # latch strobe idle: every board holds
    assert all(digitalio.registry[f"GP{n}"].direction == "input" for n in (2, 3, 4, 5))  # BUSY
    assert settings.snap_ms == 5000


def test_pn532_example_config_builds():
    _, config = reference_config()
    chips = {"GP0": Pn532Chip(), "GP4": Pn532Chip()}
    uarts = {name: FakeUart(chip) for name, chip in chips.items()}
    readers, buttons, _, zone_count = build(config, make_board(), fake_busio(uarts=uarts),
                                            make_digitalio())
    assert [type(r) for r in readers] == [PN532, PN532]
    assert zone_count == 2 and len(buttons) == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c.update(colour="red"), "config: unknown key 'colour'"),
        (lambda c: c.update(reader="rc522"), "reader: expected 'pn5180' or 'pn532'"),
        (lambda c: c["readers"][2].pop("busy"), "readers[2]: missing key 'busy'"),
        (lambda c: c["readers"][1].update(cs="GP99"), "readers[1].cs: with 'mux_latch' the "
                                                      "multiplexer's latch is strobed on the "
                                                      "decoder output"),
        (lambda c: c["readers"][1].update(irq="GP17"), "readers[1].irq: pin GP17 is already used "
                                                       "by nss_decoder.enable"),
        (lambda c: c.pop("nss_decoder"), "mux_latch: the latch decoder's address lines are the "
                                         "NSS decoder's"),
        (lambda c: c["readers"][3].update(zones=[1]), "readers[3].zones: zone 1 is already served "
                                                      "by readers[0]"),
        (lambda c: c["readers"][0].update(zones=list(range(100, 117))), "17 zones but the mux has "
                                                                        "16 channels"),
        (lambda c: c.pop("mux"), "readers[0]: 15 zones need 'mux' select pins"),
        (lambda c: c.update(zones=10), "zones: 10 is less than"),
        (lambda c: c.update(settings={"debounce_on": 0}), "settings: setting debounce_on: 0 is "
                                                          "outside 1..20"),
        (lambda c: c.update(settings={"speed": 1}), "settings: unknown setting 'speed'"),
        (lambda c: c.update(timing={"timeout": 5}), "timing: unknown key 'timeout'"),
        (lambda c: c["readers"][0].update(colour=1), "readers[0]: unknown key 'colour'"),
        (lambda c: c.update(buttons=["GP10"]), "buttons[0]: pin GP10 is already used by mux[0]"),
        (lambda c: c["readers"][1].update(cs=0), "readers[1].cs: decoder output 0 is already "
                                                 "used by readers[0].cs"),
        (lambda c: c["readers"][1].update(channels=[0, 1]), "readers[1].channels: expected one mux "
                                                            "channel per zone"),
        (lambda c: c["readers"][3].update(channels=list(range(3, 17))), "readers[3].channels: "
                                                                        "channel 16 is not 0..15"),
    ],
)
def test_config_mistakes_name_the_key(change, message):
    config, _ = reference_config()
    change(config)
    with pytest.raises(ConfigError) as caught:
        build(config, make_board(), fake_busio(FakeSpiBus()), make_digitalio())
    assert message in str(caught.value)


# ---------------------------------------------------------------- main loop


def test_main_scans_real_drivers_over_fake_spi_and_talks_over_usb():
    config, _ = reference_config()
    config["readers"] = config["readers"][:2]
    for entry in config["readers"]:
        del entry["irq"]  # these fake inputs do not follow the chips (tests of the IRQ pin:
        # test_fw_scan_pipeline.py)
    config["zones"] = 43
    config["slow_zones"] = [1, 2]  # visited every few rounds, like the bank tray
    config["settings"] = {"debounce_on": 1, "snap_ms": 0}
    digitalio = make_digitalio()
    bus = FakeSpiBus()

    # The reference wiring: chip selects through the 74HC139, each multiplexer board latching
    # the shared select lines when the 74HC238 on the same address lines strobes its LE.
    address, enable = config["nss_decoder"]["address"], config["nss_decoder"]["enable"]
    boards = LatchedBoards(digitalio, config["mux"], address, config["mux_latch"])
    chips = [Pn5180Chip({0: [T1]}, mux_pins=boards.pins(0)),
             Pn5180Chip({3: [T2]}, mux_pins=boards.pins(1))]
    bus.attach(decoded_select(digitalio, address, enable, 0), chips[0])
    bus.attach(decoded_select(digitalio, address, enable, 1), chips[1])
    port = FakeUsbPort()
    port.incoming += p.Encoder().encode(p.Ping(9))
    clock = bus.clock  # simulated time: SPI frames and the air interface move it
    loops = []
    log = []

    def stop():
        loops.append(1)
        return len(loops) > 200

    scanner = main(config, make_board(), fake_busio(bus), digitalio, SimpleNamespace(data=port),
                   clock=clock, sleep=clock.sleep, stop=stop, log=log.append)
    messages = p.Decoder(accept=p.FROM_MCU).feed(bytes(port.outgoing))
    assert p.Pong(9) in messages
    snapshot = [m for m in messages if isinstance(m, p.Snapshot)][0]
    assert snapshot.zones[0] == (T1,) and snapshot.zones[18] == (T2,)
    assert sum(len(zone) for zone in snapshot.zones) == 2
    assert "ready, chip firmware 3.6" in log[0]
    assert scanner.reader_errors == [0, 0]
    assert chips[0].violations == [] and chips[1].violations == []
    assert sorted(scanner.slow) == [1, 2]


def test_the_bank_tray_in_the_shipped_config_is_scanned_at_the_lower_rate():
    """The generated config names the bank compartments, which main() hands to the scanner."""
    from homeworlds.table.fwconfig import firmware_config
    from homeworlds.table.layout import builtin_layout
    from tablefw.config import slow_zones

    layout = builtin_layout("standard-2p")
    config = firmware_config(layout)
    bank = sorted(compartment.zone for compartment in layout.bank)
    assert config["slow_zones"] == bank
    assert slow_zones(config) == tuple(bank)
    assert slow_zones({"zones": 56}) == ()
    with pytest.raises(ConfigError, match="slow_zones: zone 60 is beyond the 56 zones"):
        slow_zones(dict(config, slow_zones=[60]))


def test_main_keeps_scanning_without_a_host():
    _, config = reference_config()
    chips = {"GP0": Pn532Chip({0: [Target(bytes.fromhex("04A1B2C3D4E5F6"))]}), "GP4": Pn532Chip()}
    uarts = {name: FakeUart(chip) for name, chip in chips.items()}
    port = FakeUsbPort(connected=False)
    clock = TickingClock()
    loops = []

    def stop():
        loops.append(1)
        return len(loops) > 30

    scanner = main(config, make_board(), fake_busio(uarts=uarts), make_digitalio(),
                   SimpleNamespace(data=port),
                   clock=clock, sleep=clock.sleep, stop=stop, log=lambda text: None)
    assert port.outgoing == b""  # nobody listening: nothing written
    assert scanner.scans >= 20
    assert scanner.snapshot()[0] == ("0004A1B2C3D4E5F6",)
    assert scanner.tx_dropped == 0


def test_missing_data_channel_explains_boot_py():
    with pytest.raises(RuntimeError, match="copy boot.py"):
        UsbDataLink(None)


def test_full_usb_buffer_raises_so_the_scanner_counts_it():
    class Full(FakeUsbPort):
        def write(self, data):
            return 3

    link = UsbDataLink(Full())
    with pytest.raises(OSError, match="3 of 10 bytes"):
        link.write(b"0123456789")


# ---------------------------------------------------------------- mux and buttons


def test_mux_drives_binary_select_lines_and_enable():
    pins = [FakePin(), FakePin(), FakePin()]
    enable = FakePin()
    mux = GpioMux(pins, enable=enable)
    assert mux.channels == 8 and enable.value is True  # disabled (active low)
    mux.select(6)
    assert [pin.value for pin in pins] == [False, True, True] and enable.value is False
    mux.release()
    assert enable.value is True
    with pytest.raises(ValueError, match="channel 8 outside 0..7"):
        mux.select(8)


def test_buttons_report_one_press_per_debounced_push():
    pins = [FakePin(True), FakePin(True)]  # pulled up: released
    clock = FakeClock()
    bank = ButtonBank(pins, clock, debounce_ms=30)
    assert bank.poll() == []
    pins[1].value = False  # pressed, contacts bouncing
    assert bank.poll() == []
    clock.advance(10)
    pins[1].value = True
    bank.poll()
    pins[1].value = False
    bank.poll()
    clock.advance(20)
    assert bank.poll() == []  # not yet stable for 30 ms
    clock.advance(15)
    assert bank.poll() == [1]
    clock.advance(100)
    assert bank.poll() == []  # held: still one press
    pins[1].value = True
    clock.advance(40)
    bank.poll()
    clock.advance(40)
    bank.poll()
    pins[1].value = False
    bank.poll()
    clock.advance(40)
    assert bank.poll() == [1]


def test_a_button_held_past_hold_ms_is_reported_once_as_a_long_press():
    pins = [FakePin(True)]
    clock = FakeClock()
    bank = ButtonBank(pins, clock, debounce_ms=30)
    pins[0].value = False
    bank.poll()
    clock.advance(35)
    assert bank.poll() == [0]
    assert bank.holds(800) == []  # a short press so far
    clock.advance(700)
    bank.poll()
    assert bank.holds(800) == []
    clock.advance(100)
    bank.poll()
    assert bank.holds(800) == [0]
    clock.advance(2000)
    bank.poll()
    assert bank.holds(800) == []  # once per press, however long it lasts
    pins[0].value = True  # released and pressed again briefly: no hold
    clock.advance(40)
    bank.poll()
    clock.advance(40)
    bank.poll()
    pins[0].value = False
    bank.poll()
    clock.advance(35)
    assert bank.poll() == [0]
    pins[0].value = True
    bank.poll()
    clock.advance(900)
    bank.poll()
    assert bank.holds(800) == []


def test_the_scanner_reports_a_long_press_as_hold_after_its_btn():
    from tablefw.scan import Scanner
    from tablefw.settings import Settings

    sent = []
    scanner = Scanner([], sent.append, FakeClock(), Settings(), 0, buttons=2)
    scanner.press(1)
    scanner.hold(1)
    decoder = p.Decoder(accept=p.FROM_MCU)
    messages = [m for data in sent for m in decoder.feed(data)]
    kinds = [(type(m).__name__, getattr(m, "button", None), getattr(m, "count", None))
             for m in messages if isinstance(m, p.ButtonPress | p.ButtonHold)]
    assert kinds == [("ButtonPress", 1, 1), ("ButtonHold", 1, 1)]
    assert p.PROTOCOL_VERSION == 2  # HOLD came with protocol 2 (docs/protocol.md)

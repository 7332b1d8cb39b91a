"""The wiring in layout files: parsed strictly, pins that cannot work refused with
file and key, kept by the canonical text; hardware/README.md's tables match it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from homeworlds.table.fwconfig import wiring_table
from homeworlds.table.layout import Layout, LayoutError, builtin_layout, builtin_layout_names

ROOT = Path(__file__).resolve().parents[2]
STANDARD = (ROOT / "hardware" / "layouts" / "standard-2p.toml").read_text(encoding="utf-8")


def mutate(old: str, new: str, text: str = STANDARD) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def refused(text: str) -> str:
    with pytest.raises(LayoutError) as caught:
        Layout.from_toml_text(text, source="table.toml")
    return str(caught.value)


BAD = [
    ("pin used twice", 'irq = "GP1"', 'irq = "GP0"',
     "table.toml: readers[1].irq: pin GP0 is already used by readers[0].irq"),
    ("MCU output facing IRQ", 'irq = "GP7"', 'irq = "GP9"',
     "table.toml: readers[2].irq: pin GP9 is mcu.mux_enable (an MCU output) and readers[2].irq "
     "(driven by the PN5180's IRQ output)"),
    ("latch strobe without its decoder",
     'nss_decoder = { address = ["GP20", "GP21"], enable = "GP17" }\n', "",
     "table.toml: mcu.mux_latch: the latch decoder's address inputs are the NSS decoder's "
     "lines"),
    ("latched multiplexer behind a plain chip select", "nss_output = 2", 'nss = "GP26"',
     "table.toml: readers[2].nss: with mcu.mux_latch this reader's multiplexer latches on the "
     "latch decoder's output of its chip select"),
    ("MCU output facing BUSY", 'mux_select = ["GP10", "GP11", "GP12", "GP13"]',
     'mux_select = ["GP2", "GP11", "GP12", "GP13"]',
     "table.toml: readers[0].busy: pin GP2 is mcu.mux_select[0] (an MCU output) and "
     "readers[0].busy (driven by the PN5180's BUSY output): the MCU and the PN5180 would "
     "drive the same wire against each other"),
    ("reset on a BUSY line", 'reset = "GP6"', 'reset = "GP5"',
     "table.toml: readers[3].busy: pin GP5 is mcu.reset (an MCU output) and readers[3].busy"),
    ("channel beyond the multiplexer", 'mux_select = ["GP10", "GP11", "GP12", "GP13"]',
     'mux_select = ["GP10", "GP11", "GP12"]',
     "table.toml: readers[0].zones[8]: channel 8 is beyond the multiplexer: 3 select lines "
     "(mcu.mux_select) reach channels 0-7"),
    ("pin not on the board", 'busy = "GP3"', 'busy = "GP24"',
     "table.toml: readers[1].busy: raspberry_pi_pico has no pin GP24 on its header"),
    ("SPI pins of two peripherals", 'miso = "GP16"', 'miso = "GP12"',
     "table.toml: mcu.spi: SCK GP18, MOSI GP19, MISO GP12 are not one SPI peripheral"),
    ("button without a pin", 'buttons = ["GP14", "GP15"]', 'buttons = ["GP14"]',
     "table.toml: seats[1].button: button 1 has no pin: mcu.buttons lists 1"),
    ("button on a select line", 'buttons = ["GP14", "GP15"]', 'buttons = ["GP14", "GP13"]',
     "table.toml: mcu.buttons[1]: pin GP13 is already used by mcu.mux_select[3]"),
    ("no busy", 'busy = "GP4"\n', "",
     "table.toml: readers[2].busy: missing (required for a PN5180 reader"),

    ("misspelt key", 'reset = "GP6"', 'rst = "GP6"',
     "table.toml: mcu.rst: unknown key"),
    ("not a pin name", 'busy = "GP5"', "busy = 5",
     "table.toml: readers[3].busy: expected a pin name such as \"GP5\", got 5"),
]


@pytest.mark.parametrize(("old", "new", "expected"), [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_wiring_that_cannot_work_is_refused_naming_file_and_key(old, new, expected):
    message = refused(mutate(old, new))
    assert message.startswith(expected), message


def test_reader_pins_need_the_mcu_table():
    text = STANDARD[:STANDARD.index("[mcu]")] + STANDARD[STANDARD.index("# A batch scans"):]
    assert "readers[0]: reader pins are given but the layout has no [mcu] table" in refused(text)


def test_a_layout_without_any_wiring_still_loads_for_the_host():
    text = re.sub(r'^(nss_output|busy|irq) = .*\n', "", STANDARD, flags=re.M)
    text = text[:text.index("[mcu]")] + text[text.index("# A batch scans"):]
    layout = Layout.from_toml_text(text)
    assert layout.mcu is None and layout.zone_count == 56


def test_decoder_outputs_are_checked():
    four = (ROOT / "hardware" / "layouts" / "four-seat.toml").read_text(encoding="utf-8")
    assert refused(mutate("nss_output = 3", "nss_output = 2", four)).startswith(
        "table.toml: readers[3].nss_output: decoder output 2 already selects readers[2]")
    assert refused(mutate("nss_output = 7", "nss_output = 8", four)).startswith(
        "table.toml: readers[7].nss_output: output 8 is beyond the decoder's 8 outputs")
    assert refused(mutate('enable = "GP17"', 'enable = "GP7"', four)).startswith(
        "table.toml: readers[7].busy: pin GP7 is mcu.nss_decoder.enable (an MCU output)")


def test_a_shared_reset_named_again_by_a_reader_is_one_line():
    text = mutate('busy = "GP5"\n', 'busy = "GP5"\nreset = "GP6"\n')
    assert Layout.from_toml_text(text).readers[3].pins.reset == "GP6"


def test_select_lines_shared_as_a_group_but_not_in_part():
    unlatched = re.sub(r"^mux_latch = .*\n", "", STANDARD, flags=re.M)
    ok = mutate('busy = "GP5"\n', 'busy = "GP5"\nmux_select = ["GP10", "GP11", "GP12", "GP13"]\n',
                unlatched)
    assert Layout.from_toml_text(ok).readers[3].pins.mux_select == ("GP10", "GP11", "GP12", "GP13")
    bad = mutate('busy = "GP5"\n', 'busy = "GP5"\nmux_select = ["GP10", "GP26", "GP27", "GP28"]\n',
                 unlatched)
    assert refused(bad).startswith(
        "table.toml: readers[3].mux_select[0]: pin GP10 is already used by mcu.mux_select[0]")
    latched = mutate('busy = "GP5"\n', 'busy = "GP5"\nmux_select = ["GP26", "GP27"]\n')
    assert refused(latched).startswith(
        "table.toml: readers[3].mux_select: a multiplexer that latches its channel takes the "
        "shared mcu.mux_select lines")


def test_unconnected_channels_are_reachable_with_enough_select_lines():
    text = mutate("zones = [44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 42, 43]",
                  "zones = [44, -1, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 42, 43]")
    reader = Layout.from_toml_text(text).readers[3]
    assert reader.channel_of(45) == 2 and reader.channel_of(43) == 14


@pytest.mark.parametrize("name", builtin_layout_names())
def test_bundled_wiring_survives_the_canonical_text(name):
    layout = builtin_layout(name)
    again = Layout.from_toml_text(layout.to_toml_text())
    assert again.mcu == layout.mcu and again.mcu is not None
    assert [r.pins for r in again.readers] == [r.pins for r in layout.readers]


def readme_table(name: str) -> str:
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- wiring: {re.escape(name)} .*?-->\n(.*?)<!-- end of wiring -->",
                      readme, flags=re.S)
    assert match, f"hardware/README.md has no wiring table for {name}"
    return match.group(1)


@pytest.mark.parametrize("name", builtin_layout_names())
def test_the_readme_wiring_table_is_the_layouts(name):
    assert readme_table(name) == wiring_table(builtin_layout(name))


def test_the_readme_table_names_busy_inputs_and_16_way_select_lines():
    table = readme_table("standard-2p")
    assert "| BUSY 0–3 | GP2, GP3, GP4, GP5 |" in table
    assert "| MUX S0–S3 | GP10, GP11, GP12, GP13 |" in table


def test_pn532_readers_get_a_two_tags_per_pad_warning():
    text = STANDARD
    for index, (busy, irq) in enumerate((("GP2", "GP0"), ("GP3", "GP1"), ("GP4", "GP7"))):
        text = text.replace('chip = "pn5180"\nchannels = 16\nzones', 'chip = "pn532"\n'
                            'channels = 16\nzones', 1)
        text = text.replace(f'nss_output = {index}\nbusy = "{busy}"\nirq = "{irq}"',
                            f'tx = "{busy}"\nrx = "{irq}"')
    layout = Layout.from_toml_text(text)
    assert [reader.chip for reader in layout.readers] == ["pn532"] * 3 + ["pn5180"]
    assert layout.readers[0].pins.tx == "GP2"
    assert layout.warnings[0].startswith("readers[0]: a PN532 reads at most two tags per pad, "
                                         "but zone(s) 1-2, 4-5, 7-8, 10-11, 13-14 (ship pads")
    assert len(layout.warnings) == 3
    assert builtin_layout("standard-2p").warnings == ()

"""A PN532 reads at most two tags per pad: the layout loader refuses pads that need more."""

from __future__ import annotations

import pytest

from homeworlds.table.layout import Layout, LayoutError, builtin_layout

#: UART pins for a PN532 in place of each PN5180's chip select, BUSY and IRQ lines (reader
#: index: decoder output, busy, irq -> tx = the busy pin, rx = the irq pin).
UART_PINS = {0: (0, "GP2", "GP0"), 1: (1, "GP3", "GP1"), 2: (2, "GP4", "GP7"),
             3: (3, "GP5", "GP8")}


def with_chip(chip_of_reader):
    text = builtin_layout("standard-2p").to_toml_text()
    parts = text.split("[[readers]]")
    for index, chip in chip_of_reader.items():
        output, busy, irq = UART_PINS[index]
        part = parts[index + 1].replace('chip = "pn5180"', f'chip = "{chip}"', 1)
        parts[index + 1] = part.replace(f'nss_output = {output}\n', "").replace(
            f'busy = "{busy}"', f'tx = "{busy}"').replace(f'irq = "{irq}"', f'rx = "{irq}"')
    return "[[readers]]".join(parts)


def test_a_bank_tray_on_a_pn532_is_refused_with_the_reason():
    with pytest.raises(LayoutError) as caught:
        Layout.from_toml_text(with_chip({3: "pn532"}), "proto.toml")
    message = str(caught.value)
    assert message.startswith("proto.toml: readers[3].zones[0]: zone 44 is bank compartment r1")
    assert "holds up to 3 pieces" in message and "at most 2 tags per pad" in message


def test_system_pads_on_pn532_readers_are_allowed_for_a_prototype():
    layout = Layout.from_toml_text(with_chip({0: "pn532", 1: "pn532", 2: "pn532"}), "proto.toml")
    assert [reader.chip for reader in layout.readers] == ["pn532", "pn532", "pn532", "pn5180"]

"""Chip selects through a 74HC138 and multiplexers with unconnected channels."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tablefw.chanmap import ChannelMap
from tablefw.chipselect import NssDecoder
from tablefw.config import ConfigError, build
from tablefw.readers.mux import GpioMux

from .fakes import FakePin, make_board, make_digitalio, mux_channel


def decoder_output(decoder: NssDecoder) -> int | None:
    """Which 74HC138 output is low (None: disabled, all high)."""
    if decoder.enable.value:
        return None
    return mux_channel(decoder.address)


def test_decoder_selects_one_output_at_a_time():
    decoder = NssDecoder([FakePin(), FakePin(), FakePin()], FakePin())
    assert decoder.outputs == 8 and decoder_output(decoder) is None
    five, two = decoder.line(5), decoder.line(2)
    assert five.value is True
    five.value = False
    assert decoder_output(decoder) == 5 and five.value is False
    five.value = True
    assert decoder_output(decoder) is None
    two.value = False
    assert decoder_output(decoder) == 2
    with pytest.raises(ValueError, match="no output 8"):
        decoder.line(8)


def test_channel_map_skips_unconnected_channels():
    pins = [FakePin() for _ in range(4)]
    mapped = ChannelMap(GpioMux(pins), [0, 2, 3, 9])
    mapped.select(3)
    assert mux_channel(pins) == 9 and mapped.channel == 9 and mapped.channels == 16


def four_seat_like() -> dict:
    return {
        "reader": "pn5180",
        "spi": {"clock": "GP18", "mosi": "GP19", "miso": "GP16"},
        "reset": "GP8",
        "mux": ["GP10", "GP11", "GP12", "GP13"],
        "nss_decoder": {"address": ["GP20", "GP21", "GP22"], "enable": "GP17"},
        "readers": [
            {"cs": 0, "busy": "GP0", "zones": [0, 1, 2]},
            {"cs": 1, "busy": "GP1", "zones": [3, 4], "channels": [0, 5]},
            {"cs": 2, "busy": "GP2", "zones": [5], "reset": "GP9"},
        ],
    }


def test_build_wires_decoder_chip_selects_own_resets_and_channel_maps():
    digitalio = make_digitalio()
    busio = SimpleNamespace(SPI=lambda clock, MOSI=None, MISO=None: SimpleNamespace())
    readers, _, _, zone_count = build(four_seat_like(), make_board(), busio, digitalio)
    assert zone_count == 6
    enable = digitalio.registry["GP17"]
    assert enable.value is True  # no reader selected at rest
    readers[1].cs.value = False
    assert enable.value is False
    assert [digitalio.registry[p].value for p in ("GP20", "GP21", "GP22")] == [True, False, False]
    readers[1].cs.value = True
    readers[1].mux.select(1)  # the zone on channel 5
    assert mux_channel([digitalio.registry[p] for p in ("GP10", "GP11", "GP12", "GP13")]) == 5
    # Readers on one RST net share one reset line (a pulse re-initialises both).
    assert readers[0].reset_line is readers[1].reset_line
    assert readers[0].reset_line.pin is digitalio.registry["GP8"]
    assert readers[2].reset_line.pin is digitalio.registry["GP9"]
    # A reader with a reset line of its own keeps its name (its ERR lines name the reader,
    # not the pin).
    assert [r.name for r in readers] == ["pn5180#0", "pn5180#1", "pn5180#2"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c.pop("nss_decoder"), "readers[0].cs: decoder output 0 needs 'nss_decoder'"),
    (lambda c: c["readers"][2].update(cs=1), "readers[2].cs: decoder output 1 is already used by "
                                             "readers[1].cs"),
    (lambda c: c["readers"][2].update(cs=8), "readers[2].cs: the decoder has outputs 0..7, not 8"),
    (lambda c: c["nss_decoder"].pop("enable"), "nss_decoder: missing key 'enable'"),
    (lambda c: c["readers"][1].update(channels=[5, 5]), "readers[1].channels: a channel is listed "
                                                        "twice"),
])
def test_decoder_and_channel_mistakes_name_the_key(change, message):
    config = four_seat_like()
    change(config)
    busio = SimpleNamespace(SPI=lambda clock, MOSI=None, MISO=None: SimpleNamespace())
    with pytest.raises(ConfigError) as caught:
        build(config, make_board(), busio, make_digitalio())
    assert message in str(caught.value)

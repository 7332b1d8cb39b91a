"""The strip sinks, run for real on Blinka's OS-agnostic board in a subprocess.

``BLINKA_OS_AGNOSTIC=1`` makes Adafruit-PlatformDetect report the
``OS_AGNOSTIC_BOARD``; ``board`` then loads Blinka's generic board (fake pins
D0..D9, NEOPIXEL, SCK/MOSI/MISO), ``busio.SPI`` its mock SPI port and
``neopixel_write`` its mock backend. Everything above those two mocks is the
real library code; blinka_probe.py records the bytes that reach them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("blinka_probe.py")
SCENARIOS = ("spi_sink", "spi_sink_rgb", "spi_fast_encoder", "neopixel_sink", "missing_pin",
             "missing_spi_driver", "spidev_limit", "output_through_spi",
             "output_blanks_on_exception")
RESET = bytes(64)  # neopixel_spi's 80 us latch gap at 6.4 MHz, before and after the data


def run_probe(names, env_changes) -> dict:
    env = {**os.environ, **env_changes}
    env.pop("HOMEWORLDS_PIXELS", None)
    result = subprocess.run([sys.executable, str(PROBE), *names], capture_output=True, text=True,
                            env=env, timeout=120)
    for line in result.stdout.splitlines():
        if line.startswith("PROBE-RESULT "):
            return json.loads(line.removeprefix("PROBE-RESULT "))
    raise AssertionError(f"probe printed no result (exit {result.returncode}):\n"
                         f"{result.stdout}\n{result.stderr}")


@pytest.fixture(scope="module")
def probe() -> dict:
    results = run_probe(SCENARIOS, {"BLINKA_OS_AGNOSTIC": "1"})

    def get(name: str) -> dict:
        result = results[name]
        assert "error" not in result, result.get("error")
        return result

    return get


def decode_spi(transfer_hex: str) -> bytes:
    """Undo neopixel_spi's encoding: one SPI byte per data bit, 0xF0 = 1, 0xC0 = 0."""
    transfer = bytes.fromhex(transfer_hex)
    assert transfer[:64] == RESET and transfer[-64:] == RESET
    encoded = transfer[64:-64]
    assert len(encoded) % 8 == 0
    bits = {0xF0: "1", 0xC0: "0"}
    data = bytearray()
    for start in range(0, len(encoded), 8):
        data.append(int("".join(bits[value] for value in encoded[start:start + 8]), 2))
    return bytes(data)


def test_the_spi_sink_sends_grb_bit_patterns_through_blinka(probe):
    result = probe("spi_sink")
    assert result["board"] == "OS_AGNOSTIC_BOARD"
    sent = [decode_spi(transfer) for transfer in result["sent"]]
    assert result["after_open"] == 1  # opening writes one blank frame
    assert sent == [
        bytes(9),
        bytes([0, 255, 0, 128, 0, 0, 2, 1, 3]),  # (255,0,0) (0,128,0) (1,2,3) as G R B
        bytes(9),  # close blanks
    ]


def test_the_spi_sink_honours_rgb_order(probe):
    sent = [decode_spi(transfer) for transfer in probe("spi_sink_rgb")["sent"]]
    assert sent[1] == bytes([255, 0, 0, 0, 128, 0, 1, 2, 3])


def test_the_fast_spi_encoder_matches_neopixel_spi_exactly(probe):
    result = probe("spi_fast_encoder")
    assert result["class"] == "neopixel_spi"  # a subclass of the library's driver
    assert result["fast"] == result["upstream"]
    assert len(bytes.fromhex(result["fast"])) == 8 * 120


def test_the_neopixel_sink_writes_grb_bytes_on_its_pin(probe):
    result = probe("neopixel_sink")
    assert result["after_open"] == 1
    assert {write["pin"] for write in result["sent"]} == {6}  # board.NEOPIXEL of that board
    sent = [bytes.fromhex(write["bytes"]) for write in result["sent"]]
    assert sent[0] == bytes(9)
    assert sent[1] == bytes([0, 255, 0, 128, 0, 0, 2, 1, 3])
    # close blanks, then neopixel's own deinit blanks again before releasing the pin
    assert sent[2:] == [bytes(9), bytes(9)]


def test_a_missing_pin_lists_the_board_pins(probe):
    result = probe("missing_pin")
    assert result["sink"] == "neopixel"
    assert result["problem"].startswith("board OS_AGNOSTIC_BOARD has no pin 'D18' (its pins: ")
    assert "NEOPIXEL" in result["problem"] and "MOSI" in result["problem"]
    assert "D18 (PWM0)" in result["remedy"] and "Raspberry Pi 5" in result["remedy"]


def test_a_missing_driver_library_says_what_to_install(probe):
    result = probe("missing_spi_driver")
    assert result["message"] == ("cannot open the 'neopixel-spi' LED sink: module "
                                 "'neopixel_spi' is not installed\n"
                                 "  fix: pip install 'homeworlds-table[pi]'")


def test_a_chain_longer_than_one_spidev_transfer_is_refused(probe):
    result = probe("spidev_limit")
    assert result["165_opened"] is True
    refused = result["166"]
    assert refused["problem"].startswith("166 pixels make a 4112-byte SPI transfer but spidev "
                                         "accepts at most 4096 bytes per transfer")
    assert "enough for 165 pixels" in refused["problem"]
    assert "spidev.bufsiz=65536" in refused["remedy"]


def test_the_output_loop_drives_the_spi_sink(probe):
    result = probe("output_through_spi")
    sent = [decode_spi(transfer) for transfer in result["sent"]]
    assert result["written"] == 1
    # open blank, one corrected frame (brightness 0.5, GRB), close blank
    assert sent == [bytes(6), bytes([50, 100, 0, 0, 0, 0]), bytes(6)]


def test_an_exception_in_the_with_block_leaves_the_strip_dark(probe):
    sent = [bytes.fromhex(write["bytes"]) for write in probe("output_blanks_on_exception")["sent"]]
    assert sent[1] == bytes([8, 9, 7, 5, 6, 4])
    assert sent[-1] == bytes(6)


def on_a_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text().lower()
    except OSError:
        return False


@pytest.mark.skipif(on_a_raspberry_pi(), reason="this checks the error on a machine without LEDs")
def test_without_the_agnostic_board_the_strip_sinks_fail_with_a_fix():
    code = """
import json
from homeworlds.pixels import PixelSinkUnavailable, open_sink
out = {}
for kind in ("neopixel", "neopixel-spi"):
    try:
        open_sink(kind, 10)
        out[kind] = "opened"
    except PixelSinkUnavailable as error:
        out[kind] = {"sink": error.sink, "problem": error.problem, "remedy": error.remedy}
print("PROBE-RESULT " + json.dumps(out))
"""
    env = {key: value for key, value in os.environ.items()
           if key not in ("BLINKA_OS_AGNOSTIC", "HOMEWORLDS_PIXELS")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=120)
    line = next(line for line in result.stdout.splitlines() if line.startswith("PROBE-RESULT "))
    outcome = json.loads(line.removeprefix("PROBE-RESULT "))
    for kind in ("neopixel", "neopixel-spi"):
        error = outcome[kind]
        assert error["sink"] == kind
        assert error["problem"]
        # Whatever this machine lacks (Blinka's board detection, the pins, the driver), the
        # fix names what to do: install the Pi extras, or use a non-hardware sink here.
        assert "homeworlds-table[pi]" in error["remedy"] or "'terminal'" in error["remedy"]

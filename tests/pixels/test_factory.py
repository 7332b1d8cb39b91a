from __future__ import annotations

import io
import subprocess
import sys

import pytest

from homeworlds.pixels import (
    DEFAULT_SINK_KIND,
    ENV_VAR,
    SINK_KINDS,
    MemorySink,
    PixelSettingsError,
    PixelSinkUnavailable,
    TerminalSink,
    UnknownSinkKind,
    default_sink_kind,
    open_sink,
    sink_settings,
)

from .helpers import FakeClock


def test_the_four_kinds_and_the_default():
    assert set(SINK_KINDS) == {"neopixel", "neopixel-spi", "memory", "terminal"}
    assert DEFAULT_SINK_KIND == "neopixel-spi"
    assert ENV_VAR == "HOMEWORLDS_PIXELS"


def test_open_sink_passes_settings_to_the_sink():
    clock = FakeClock(3.0)
    sink = open_sink("memory", 4, clock=clock)
    assert isinstance(sink, MemorySink)
    assert sink.pixel_count == 4
    sink.show(((1, 1, 1),) * 4)
    assert sink.history[0].time == 3.0
    assert isinstance(open_sink("Terminal", 2, stream=io.StringIO()), TerminalSink)


def test_the_environment_picks_the_default_kind(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "memory")
    assert default_sink_kind() == "memory"
    assert isinstance(open_sink(None, 2), MemorySink)
    monkeypatch.setenv(ENV_VAR, " NeoPixel_SPI ")
    assert default_sink_kind() == "neopixel-spi"
    monkeypatch.delenv(ENV_VAR)
    assert default_sink_kind() == "neopixel-spi"
    assert default_sink_kind({ENV_VAR: ""}) == "neopixel-spi"


def test_an_unknown_kind_lists_the_kinds():
    with pytest.raises(UnknownSinkKind) as caught:
        open_sink("ws2801", 3)
    assert str(caught.value) == ("sink: unknown LED sink kind 'ws2801'; the kinds are "
                                 "neopixel-spi, neopixel, memory, terminal")


def test_a_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "lasers")
    with pytest.raises(UnknownSinkKind) as caught:
        open_sink(None, 3)
    assert str(caught.value).startswith("environment variable HOMEWORLDS_PIXELS: sink: "
                                        "unknown LED sink kind 'lasers'; the kinds are ")


def test_a_setting_the_sink_does_not_take_is_refused_with_the_ones_it_does():
    with pytest.raises(PixelSettingsError) as caught:
        open_sink("memory", 3, pin="D18")
    assert str(caught.value) == "pin: the 'memory' sink has no setting 'pin' (it takes: clock)"
    assert sink_settings("neopixel") == ("pin", "order")
    assert sink_settings("neopixel-spi") == ("bus", "order", "frequency")


@pytest.mark.parametrize(("kind", "settings", "key"), [
    ("neopixel", {"order": "GRBW"}, "order"),
    ("neopixel-spi", {"order": "XYZ"}, "order"),
    ("neopixel-spi", {"bus": 2}, "spi_bus"),
    ("neopixel", {"pin": ""}, "pin"),
])
def test_strip_settings_are_checked_before_any_hardware_import(kind, settings, key, monkeypatch):
    monkeypatch.setitem(sys.modules, "board", None)  # reaching the import would fail differently
    with pytest.raises(PixelSettingsError) as caught:
        open_sink(kind, 3, **settings)
    assert caught.value.key == key


@pytest.mark.parametrize("kind", ["neopixel", "neopixel-spi"])
def test_missing_blinka_says_what_to_install(kind, monkeypatch):
    monkeypatch.setitem(sys.modules, "board", None)  # as if Blinka were not installed
    with pytest.raises(PixelSinkUnavailable) as caught:
        open_sink(kind, 3)
    error = caught.value
    assert error.sink == kind
    assert error.problem == "module 'board' is not installed"
    assert error.remedy == "pip install 'homeworlds-table[pi]'"
    assert str(error) == (f"cannot open the {kind!r} LED sink: module 'board' is not installed\n"
                          "  fix: pip install 'homeworlds-table[pi]'")


def test_importing_the_package_imports_no_hardware_module():
    code = ("import sys, homeworlds.pixels, homeworlds.pixels.blinka; "
            "print(sorted(m for m in ('board', 'busio', 'digitalio', 'neopixel', 'neopixel_spi',"
            " 'neopixel_write', 'microcontroller') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"

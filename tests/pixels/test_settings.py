from __future__ import annotations

import io
import sys
import tomllib

import pytest

from homeworlds.pixels import (
    ENV_VAR,
    ColorCorrection,
    MemorySink,
    PixelSettings,
    PixelSettingsError,
    TerminalSink,
    UnknownSinkKind,
)

from .helpers import RED, FakeClock

TABLE = """
[pixels]
sink = "memory"
brightness = 0.5
gamma = 1.0
order = "rgb"
max_fps = 30
max_current_ma = 2000
"""


def test_settings_from_a_toml_table():
    settings = PixelSettings.from_mapping(tomllib.loads(TABLE)["pixels"], source="table.toml",
                                          prefix="pixels.")
    assert settings.sink == "memory"
    assert settings.order == "RGB"
    assert settings.max_fps == 30
    assert settings.correction() == ColorCorrection(brightness=0.5, gamma=1.0,
                                                    max_current_ma=2000)


def test_defaults_suit_undiffused_ws2812b():
    settings = PixelSettings()
    assert (settings.brightness, settings.gamma, settings.order, settings.max_fps) == \
        (0.4, 2.2, "GRB", 60.0)
    assert settings.sink is None


@pytest.mark.parametrize(("table", "message"), [
    ({"brightnes": 0.5}, "table.toml: pixels.brightnes: unknown setting (the settings are "),
    ({"brightness": 2}, "table.toml: pixels.brightness: must be between 0 and 1, not 2"),
    ({"gamma": "2.2"}, "table.toml: pixels.gamma: must be a number, not '2.2'"),
    ({"order": "GRBW"}, "table.toml: pixels.order: must be one of RGB, RBG, GRB, GBR, BRG, BGR"),
    ({"max_fps": 0}, "table.toml: pixels.max_fps: must be a number of frames per second above 0"),
    ({"sink": "dmx"}, "table.toml: pixels.sink: unknown LED sink kind 'dmx'; the kinds are "),
    ({"spi_bus": 3}, "table.toml: pixels.spi_bus: must be 0 or 1, not 3"),
    ({"max_current_ma": -5}, "table.toml: pixels.max_current_ma: must be more than 0, not -5"),
])
def test_bad_settings_name_the_file_and_key(table, message):
    with pytest.raises(PixelSettingsError) as caught:
        PixelSettings.from_mapping(table, source="table.toml", prefix="pixels.")
    assert str(caught.value).startswith(message)


def test_an_unknown_sink_keeps_its_error_type():
    with pytest.raises(UnknownSinkKind):
        PixelSettings.from_mapping({"sink": "dmx"})


def test_mapping_round_trip():
    settings = PixelSettings(sink="terminal", brightness=0.25, max_current_ma=1500)
    assert PixelSettings.from_mapping(settings.to_mapping()) == settings
    assert "max_current_ma" not in PixelSettings().to_mapping()


def test_open_output_wires_sink_correction_and_rate():
    clock = FakeClock()
    settings = PixelSettings(sink="memory", brightness=0.5, gamma=1.0, max_fps=10)
    output = settings.open_output(2, clock=clock, sleep=clock.sleep)
    sink = output.sink
    assert isinstance(sink, MemorySink)
    output.submit((RED, RED))
    clock.advance(0.05)
    output.submit((RED, (0, 0, 0)))  # within 100 ms: held
    sink.assert_frames([((128, 0, 0), (128, 0, 0))])
    output.flush()
    assert clock.slept == [pytest.approx(0.05)]
    output.close()
    assert sink.last == ((0, 0, 0), (0, 0, 0))


def test_open_sink_passes_extra_arguments():
    stream = io.StringIO()
    sink = PixelSettings(sink="terminal").open_sink(3, stream=stream)
    assert isinstance(sink, TerminalSink)
    sink.show((RED, RED, RED))
    assert stream.getvalue().count("\u2588") == 3


def test_the_environment_chooses_when_the_settings_do_not(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "memory")
    assert PixelSettings().sink_kind == "memory"
    assert PixelSettings(sink="terminal").sink_kind == "terminal"
    monkeypatch.delenv(ENV_VAR)
    assert PixelSettings().sink_kind == "neopixel-spi"


def test_strip_arguments_come_from_the_settings():
    settings = PixelSettings(order="rgb", pin="GPIO21", spi_bus=1)
    assert settings.sink_arguments("neopixel") == {"pin": "GPIO21", "order": "RGB"}
    assert settings.sink_arguments("neopixel-spi") == {"bus": 1, "order": "RGB",
                                                       "frequency": 6_400_000}
    assert settings.sink_arguments("memory") == {}


def test_the_default_sink_on_a_machine_without_blinka_fails_loudly(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "board", None)
    with pytest.raises(RuntimeError, match="cannot open the 'neopixel-spi' LED sink"):
        PixelSettings().open_output(10)

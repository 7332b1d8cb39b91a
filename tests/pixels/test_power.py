"""LED power is safe by default: a current cap from the configured supply, chain limits."""

from __future__ import annotations

import pytest

from homeworlds.pixels import ColorCorrection, MemorySink, PixelOutput, PixelSettings
from homeworlds.pixels.limits import (
    PI5_NEOPIXEL_SPI_FAILING_PIXELS,
    board_model,
    chain_advice,
    full_white_current_ma,
)
from homeworlds.pixels.settings import SUPPLY_LOAD_FACTOR
from homeworlds.runtime.config import ConfigError, config_from_mapping
from homeworlds.table.layout import builtin_layout

from .helpers import FakeClock

WHITE = (255, 255, 255)


def _shown_current(settings: PixelSettings, pixels: int) -> float:
    clock = FakeClock()
    sink = MemorySink(pixels, clock=clock)
    output = PixelOutput(sink, settings.correction(), max_fps=None, clock=clock,
                         sleep=clock.sleep)
    output.submit((WHITE,) * pixels)
    # What the strip would draw for what it was actually sent, with the documented figures.
    return ColorCorrection().estimate_current_ma(sink.last)


def test_the_cap_is_on_by_default_and_follows_the_supply():
    settings = PixelSettings()
    assert settings.current_limit is True
    assert settings.current_cap_ma == pytest.approx(1000 * (SUPPLY_LOAD_FACTOR * 10 - 1))
    assert settings.correction().max_current_ma == settings.current_cap_ma
    assert PixelSettings(supply_amps=20).current_cap_ma == pytest.approx(15000)


def test_a_full_white_frame_on_240_pixels_is_scaled_under_the_cap():
    # Without any limit 240 white pixels draw 14.6 A: more than the 10 A supply gives.
    assert full_white_current_ma(240) == pytest.approx(14640)
    settings = PixelSettings(brightness=1.0, gamma=1.0, supply_amps=10)
    drawn = _shown_current(settings, 240)
    assert drawn <= settings.current_cap_ma
    assert drawn > 0.9 * settings.current_cap_ma  # dimmed, not blacked out
    uncapped = PixelSettings(brightness=1.0, gamma=1.0, current_limit=False)
    assert _shown_current(uncapped, 240) == pytest.approx(14640)


def test_an_explicit_max_current_lower_than_the_supply_wins():
    settings = PixelSettings(brightness=1.0, gamma=1.0, supply_amps=10, max_current_ma=3000)
    assert settings.current_cap_ma == 3000
    assert _shown_current(settings, 240) <= 3000
    assert PixelSettings(max_current_ma=50_000).current_cap_ma == pytest.approx(7000)


def test_the_cap_holds_for_many_dim_pixels():
    # 1000 pixels at (1, 1, 1) draw 1235 mA; keeping every lit channel at 1 would break a
    # 1100 mA cap, so the cap wins over keeping them lit.
    correction = ColorCorrection(max_current_ma=1100)
    shown = correction.apply(((1, 1, 1),) * 1000)
    assert ColorCorrection().estimate_current_ma(shown) <= 1100
    # A cap dim pixels fit under keeps them lit.
    assert ColorCorrection(max_current_ma=1300).apply(((1, 1, 1),) * 1000) == ((1, 1, 1),) * 1000


@pytest.mark.parametrize(("values", "message"), [
    ({"supply_amps": 0}, "pixels.supply_amps: must be a number of amperes above 0, not 0"),
    ({"supply_amps": "10A"}, "pixels.supply_amps: must be a number of amperes above 0"),
    ({"reserved_amps": -1}, "pixels.reserved_amps: must be a number of amperes, 0 or more"),
    ({"current_limit": "yes"}, "pixels.current_limit: must be true or false, not 'yes'"),
    ({"supply_amps": 1, "reserved_amps": 1}, "pixels.supply_amps: leaves nothing for the LEDs"),
])
def test_bad_power_settings_name_the_file_and_key(values, message):
    with pytest.raises(ConfigError) as caught:
        config_from_mapping({"pixels": values}, "table.toml")
    assert f"table.toml: {message}" in str(caught.value)


def test_power_settings_from_the_config_file():
    config = config_from_mapping({"pixels": {"supply_amps": 20, "reserved_amps": 2}},
                                 "table.toml")
    assert config.pixels.current_cap_ma == pytest.approx(14000)
    off = config_from_mapping({"pixels": {"current_limit": False}}, "table.toml")
    assert off.pixels.current_cap_ma is None


# ---------------------------------------------------------------- Pi 5 chain length


@pytest.mark.parametrize("layout", ["standard-2p", "four-seat"])
def test_both_reference_chains_are_too_long_for_neopixel_spi_on_a_pi5(layout):
    """Users report Pi 5 SPI chains failing from about 175 pixels: 240 and 352 are past it."""
    pixels = builtin_layout(layout).pixel_count
    assert pixels >= PI5_NEOPIXEL_SPI_FAILING_PIXELS == 175
    advice = chain_advice(pixels, "neopixel-spi", "Raspberry Pi 5 Model B Rev 1.0")
    assert advice is not None
    assert "about 175 pixels" in advice and 'pixels.sink = "neopixel"' in advice
    assert chain_advice(174, "neopixel-spi", "Raspberry Pi 5 Model B Rev 1.0") is None
    warnings = PixelSettings(sink="neopixel-spi").startup_warnings(
        pixels, model="Raspberry Pi 5 Model B Rev 1.0")
    assert warnings == [advice]


@pytest.mark.parametrize(("pixels", "sink", "model"), [
    (174, "neopixel-spi", "Raspberry Pi 5 Model B Rev 1.0"),     # short of the reported failures
    (352, "neopixel", "Raspberry Pi 5 Model B Rev 1.0"),         # PIO backend: no such limit
    (352, "neopixel-spi", "Raspberry Pi 4 Model B Rev 1.5"),     # reported on the Pi 5 only
    (352, "neopixel-spi", None),                                 # not a Pi
])
def test_no_chain_advice_where_nothing_is_known_against_it(pixels, sink, model):
    assert chain_advice(pixels, sink, model) is None


def test_board_model_reads_the_device_tree(tmp_path):
    assert board_model(tmp_path) is None
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert board_model(tmp_path) == "Raspberry Pi 5 Model B Rev 1.0"


def test_play_warns_about_the_pi5_chain_limit_at_start_up(tmp_path, capsys, monkeypatch):
    import argparse
    import sys

    from homeworlds.commands import play
    from homeworlds.sim import make_registry

    layout = builtin_layout("four-seat")
    make_registry(layout, 4).save(tmp_path / "tags.toml")
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlayout = "four-seat"\nregistry = "tags.toml"\nrules = '
                      '"last-standing"\n[serial]\nport = "/dev/homeworlds-table"\n'
                      '[pixels]\nsink = "neopixel-spi"\nsupply_amps = 18\n')
    monkeypatch.setattr("homeworlds.pixels.settings.board_model",
                        lambda: "Raspberry Pi 5 Model B Rev 1.0")
    monkeypatch.setitem(sys.modules, "board", None)  # this machine cannot drive the strip
    code = play.run(argparse.Namespace(config=str(config), record=None))
    err = capsys.readouterr().err
    assert code == 2  # the strip cannot open here; the warning came first
    first = err.splitlines()[0]
    assert first.startswith("homeworlds play: warning: 352 pixels on one neopixel-spi chain "
                            "of a Raspberry Pi 5")
    assert "cannot open the 'neopixel-spi' LED sink" in err


def test_doctor_weighs_an_uncapped_strip_against_what_the_supply_leaves_the_leds():
    from homeworlds.bringup.checks import Status
    from homeworlds.bringup.system import check_power

    # At brightness 0.5, 240 white pixels draw about 7.5 A: under 80 % of the 10 A supply,
    # over the 7 A it leaves once the readers' 1 A is reserved.
    half = PixelSettings(brightness=0.5, gamma=1.0, current_limit=False)
    [check] = check_power(half, 240)
    assert check.status is Status.WARN
    assert "draws 7.5 A, the 10 A supply leaves the LEDs 7.0 A" in check.detail
    [check] = check_power(PixelSettings(brightness=0.3, gamma=1.0, current_limit=False), 240)
    assert check.status is Status.OK and "draws 4.5 A" in check.detail
    [check] = check_power(PixelSettings(), 240)
    assert check.status is Status.OK and "dimmed to at most 7.0 A" in check.detail


def test_doctor_warns_when_the_host_keeps_less_for_the_readers_than_the_layout_budgets():
    from homeworlds.bringup.checks import Status
    from homeworlds.bringup.system import check_power

    led, readers = check_power(PixelSettings(), 240, scanner_amps=1.2)
    assert led.status is Status.OK
    assert readers.status is Status.WARN and "scanner_amps is 1.2 A" in readers.detail
    assert "pixels.reserved_amps = 1.2" in readers.fix
    _, readers = check_power(PixelSettings(reserved_amps=1.2), 240, scanner_amps=1.2)
    assert readers.status is Status.OK

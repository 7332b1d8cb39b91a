"""The configuration file is read strictly, naming file and key in every error."""

from __future__ import annotations

import pytest

from homeworlds.config import ConfigError, load_config


def _write(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_example_config_loads(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "hardware" / "table.example.toml"
    config = load_config(example)
    assert config.rules.name == "looney" and config.rules.handicaps.red_alert
    assert config.port == "/dev/ttyACM1" and config.players == ("South", "North")
    assert config.layout.name == "standard-2p"
    assert config.pixels.brightness == 0.4


@pytest.mark.parametrize("text, where", [
    ("[tabel]\n", "tabel: unknown section"),
    ("[table]\nrulez = 'sdg'\n", "table.rulez: unknown key"),
    ("[table]\nrules = 'chess'\n", "table.rules: unknown preset 'chess'"),
    ("[serial]\nbaudrate = 'fast'\n", "serial.baudrate: wrong type"),
    ("[table]\nplayers = ['only one']\n", "table.players"),
    ("[table]\nlayout = 'nowhere.toml'\n", "table.layout"),
    ("[pixels]\nbrightnes = 1\n", "pixels.brightnes"),
    ("[hints]\ndim = 'x'\n", "hints.dim"),
    ("[table\n", "not valid TOML"),
])
def test_bad_config_names_file_and_key(tmp_path, text, where):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert where in str(err.value) and "table.toml" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_scanner_settings_are_checked_and_kept():
    from homeworlds.config import config_from_mapping

    config = config_from_mapping({"scanner": {"debounce_off": 4, "hb_ms": 500}}, "t.toml")
    assert config.scanner == {"debounce_off": 4, "hb_ms": 500}
    with pytest.raises(ConfigError, match=r"t.toml: scanner.debounce_on: setting debounce_on: 0 is "
                                          r"outside 1..20"):
        config_from_mapping({"scanner": {"debounce_on": 0}}, "t.toml")
    with pytest.raises(ConfigError, match=r"t.toml: scanner.debounce: unknown key"):
        config_from_mapping({"scanner": {"debounce": 2}}, "t.toml")

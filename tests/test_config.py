"""The configuration file is read strictly, naming file and key in every error."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from homeworlds.runtime.config import ConfigError, check_player_name, load_config


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


# --- values: ranges, finite numbers, names the record can write, consistency (issue 10)

@pytest.mark.parametrize("text, where", [
    ("[serial]\nheartbeat_timeout = 0\n", "serial.heartbeat_timeout: 0 is out of range"),
    ("[serial]\nheartbeat_timeout = -2.5\n", "serial.heartbeat_timeout: -2.5 is out of range"),
    ("[serial]\nheartbeat_timeout = nan\n", "serial.heartbeat_timeout: nan is out of range"),
    ("[serial]\nheartbeat_timeout = inf\n", "serial.heartbeat_timeout: inf is out of range"),
    ("[serial]\nheartbeat_timeout = 1e-9\n", "serial.heartbeat_timeout: 1e-09 is out of range"),
    ("[serial]\nbaudrate = 0\n", "serial.baudrate: 0 is out of range"),
    ("[serial]\nbaudrate = -9600\n", "serial.baudrate: -9600 is out of range"),
    ("[serial]\nbaudrate = 4611686018427387904\n", "serial.baudrate: 4611686018427387904"),
    ("[serial]\nbaudrate = 115200.0\n", "serial.baudrate: wrong type float"),
    ("[serial]\nport = ''\n", "serial.port"),
    ("[handicaps]\njunior_seat = 7\n", "handicaps.junior_seat: no seat 7"),
    ("[handicaps]\njunior_seat = -1\n", "handicaps.junior_seat: no seat -1"),
    ("[handicaps]\ntimewarp_turns = -3\n", "handicaps.timewarp_turns: -3 is out of range"),
    ("[handicaps]\ntimewarp_turns = 1000000000\n", "handicaps.timewarp_turns: 1000000000"),
    ("[table]\nrules = 'sinister'\n", "table.rules: the sinister rules are for 3 to 6 players"),
    ("[table]\nlayout = 'four-seat'\nrules = 'last-standing'\n[handicaps]\nred_alert = true\n",
     "handicaps: the novice handicaps are for two players"),
    ("[table]\nplayers = ['Al', 'Al']\n", "table.players[1]: 'Al' is also the name of player 0"),
    ("[table]\nplayers = ['Al', 'aL']\n", "table.players[1]: 'aL' is also the name"),
    ("[table]\nplayers = ['Al Bo', 'Cy']\n", "table.players[0]: 'Al Bo' contains a space"),
    ("[table]\nplayers = ['Al:', 'Cy']\n", "table.players[0]: 'Al:' contains ':'"),
    ("[table]\nplayers = ['Al', 'C(y']\n", "table.players[1]: 'C(y' contains '('"),
    ("[table]\nplayers = ['Al', 'Cy)']\n", "table.players[1]: 'Cy)' contains ')'"),
    ("[table]\nplayers = ['A,l', 'Cy']\n", "table.players[0]: 'A,l' contains ','"),
    ('[table]\nplayers = ["A\\nl", "Cy"]\n', "table.players[0]: 'A\\nl' contains a space or line"),
    ('[table]\nplayers = ["A\\u001b[31ml", "Cy"]\n', "contains a control character"),
    ("[table]\nplayers = ['', 'Cy']\n", "table.players[0]: a name cannot be empty"),
    ("[table]\nplayers = [1, 'Cy']\n", "table.players[0]: 1 is not a string"),
    ("[table]\nplayers = ['#1', 'Cy']\n", "table.players[0]: '#1' starts with '#'"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ("[serial]\nbaudrate = 1" + "0" * 5000 + "\n", "not valid TOML"),
    # found by `make fuzz`: an integer too large to become a float crashed the range checks
    ("[serial]\nheartbeat_timeout = 1" + "0" * 400 + "\n",
     "serial.heartbeat_timeout: 10000000000000000000... is far too large"),
    ("[pixels]\nbrightness = 1" + "0" * 400 + "\n", "pixels.brightness: 1000"),
    ("[hints]\nmax_fps = -1" + "0" * 400 + "\n", "hints.max_fps: -1000"),
])
def test_bad_values_name_file_key_and_fix(tmp_path, text, where):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert where in str(err.value) and "table.toml" in str(err.value)


def test_non_utf8_config_names_the_line(tmp_path):
    path = tmp_path / "table.toml"
    path.write_bytes(b"[table]\nplayers = ['\xff\xfe', 'Cy']\n")
    with pytest.raises(ConfigError,
                       match=r"table.toml:2: not UTF-8 text .* save the file as UTF-8"):
        load_config(path)


def test_huge_config_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "table.toml"
    path.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    with pytest.raises(ConfigError, match="not a configuration file"):
        load_config(path)


def test_four_seat_registry_on_a_two_seat_layout(tmp_path):
    from homeworlds.rules import PIECES
    from homeworlds.table.registry import Registry, TagInfo

    tags = {f"E004{n:012X}": TagInfo.for_piece(piece, letter)
            for n, (piece, letter) in enumerate((p, c) for p in PIECES for c in "abcde")}
    Registry(tags).save(tmp_path / "registry.toml")
    path = _write(tmp_path, "[table]\nregistry = 'registry.toml'\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert "table.registry" in str(err.value) and "'d', 'e'" in str(err.value)
    assert "a 2-seat table plays with 3 copies" in str(err.value)
    four = _write(tmp_path, "[table]\nregistry = 'registry.toml'\nlayout = 'four-seat'\n"
                  "rules = 'last-standing'\n")
    assert load_config(four).registry is not None


@pytest.mark.parametrize("text", [
    "[serial]\nheartbeat_timeout = 0.5\nbaudrate = 300\n",
    "[serial]\nheartbeat_timeout = 120\nbaudrate = 4000000\n",
    "[handicaps]\njunior_seat = 0\ntimewarp_turns = 10\n",
    "[table]\nplayers = ['Zoë', 'Bo_2-x.y']\n",
])
def test_values_at_the_edges_of_their_ranges_load(tmp_path, text):
    load_config(_write(tmp_path, text))


def test_play_exits_2_with_the_message_never_a_traceback(tmp_path, capsys):
    from homeworlds.cli import main

    path = _write(tmp_path, "[serial]\nport = '/dev/null'\nheartbeat_timeout = nan\n")
    assert main(["play", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "table.toml: serial.heartbeat_timeout: nan is out of range" in err
    assert "Traceback" not in err


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.text(st.characters(exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                        min_size=1, max_size=12), min_size=2, max_size=2, unique=True))
def test_every_name_the_configuration_accepts_the_record_can_write(names):
    """What ``check_player_name`` lets through, SDG notation writes and reads back."""
    from homeworlds.notation import read_sdg, sdg_game, write_sdg
    from homeworlds.rules import PIECES, Homeworld

    assume(names[0].casefold() != names[1].casefold())
    if any(check_player_name(n) is not None for n in names):
        return  # refused at load: nothing to write
    home = [Homeworld((PIECES[0], PIECES[4]), PIECES[11], n) for n in names]
    game = read_sdg(write_sdg(sdg_game(names, [[home[0]], [home[1]]])))
    assert game.players == tuple(names)
    assert [t.actions[0].name for t in game.turns] == names
def test_scanner_settings_are_checked_and_kept():
    from homeworlds.runtime.config import config_from_mapping

    config = config_from_mapping({"scanner": {"debounce_off": 4, "hb_ms": 500}}, "t.toml")
    assert config.scanner == {"debounce_off": 4, "hb_ms": 500}
    with pytest.raises(ConfigError, match=r"t.toml: scanner.debounce_on: setting debounce_on: 0 is "
                                          r"outside 1..20"):
        config_from_mapping({"scanner": {"debounce_on": 0}}, "t.toml")
    with pytest.raises(ConfigError, match=r"t.toml: scanner.debounce: unknown key"):
        config_from_mapping({"scanner": {"debounce": 2}}, "t.toml")


@pytest.mark.parametrize("text, where", [
    ("[display]\nattract_after_s = 5\n", "display.attract_after_s: 5 is out of range"),
    ("[display]\nattract_after_s = -1\n", "display.attract_after_s: -1 is out of range"),
    ("[display]\nattract_after_s = nan\n", "display.attract_after_s: nan is out of range"),
    ("[display]\nattract_after_s = 'soon'\n", "display.attract_after_s: wrong type"),
    ("[display]\nattract_leds = 'yes'\n", "display.attract_leds: wrong type"),
    ("[display]\nattract_after = 60\n", "display.attract_after: unknown key"),
])
def test_bad_attract_settings_name_file_and_key(tmp_path, text, where):
    with pytest.raises(ConfigError) as exc:
        load_config(_write(tmp_path, text))
    assert where in str(exc.value) and "table.toml" in str(exc.value)


def test_attract_settings_load_with_their_defaults(tmp_path):
    default = load_config(_write(tmp_path, ""))
    assert (default.attract_after_s, default.attract_leds) == (120.0, False)
    config = load_config(_write(tmp_path, "[display]\nattract_after_s = 300\n"
                                "attract_leds = true\n"))
    assert (config.attract_after_s, config.attract_leds) == (300.0, True)
    assert load_config(_write(tmp_path, "[display]\nattract_after_s = 0\n")).attract_after_s == 0
def test_a_computer_seat_with_its_level_and_time(tmp_path):
    from homeworlds.session import ComputerSeat

    config = load_config(_write(tmp_path, (
        '[table]\nplayers = ["Ann", "Hal"]\n'
        '[seats.1]\ncomputer = true\nlevel = 2\ntime_limit = 4\n'
        '[seats.0]\ncomputer = false\n'
        '[computer]\ntime_limits = {1 = 3.0, 3 = 9}\nhint_level = 2\n'
        '[hints]\nsuggestions = false\n')))
    assert config.computer_seats == {1: ComputerSeat(2, 4.0, None)}
    assert config.time_limits == {1: 3.0, 3: 9.0} and config.hint_level == 2
    assert config.hints.suggestions is False
    plain = load_config(_write(tmp_path, "[table]\n"))
    assert plain.computer_seats == {} and plain.hints.suggestions is True


@pytest.mark.parametrize("text, where", [
    ("[seats.5]\ncomputer = true\n", "seats.5: no seat '5': give a seat index from 0 to 1"),
    ("[seats.north]\ncomputer = true\n", "seats.north: no seat 'north'"),
    ("[seats]\n1 = true\n", "seats.1: must be a table"),
    ("[seats.1]\nlevel = 2\n", "seats.1.level: only a computer seat has a level"),
    ("[seats.1]\ncomputer = true\nlevel = 9\n", "seats.1.level: no level 9: levels are 1, 2, 3"),
    ("[seats.1]\ncomputer = true\ntime_limit = 0\n", "seats.1.time_limit: 0 is out of range"),
    ("[seats.1]\ncomputer = true\ntime_limit = nan\n", "seats.1.time_limit: nan is out of range"),
    ("[seats.1]\ncomputer = true\nspeed = 1\n", "seats.1.speed: unknown key (keys: computer"),
    ("[seats.1]\ncomputer = 'yes'\n", "seats.1.computer: wrong type str"),
    ("[computer]\ntime_limits = {7 = 1.0}\n", "computer.time_limits.7: no level '7'"),
    ("[computer]\ntime_limits = {1 = 'slow'}\n", "computer.time_limits.1: 'slow' is out of range"),
    ("[computer]\ntime_limits = 3\n", "computer.time_limits: wrong type int"),
    ("[computer]\nhint_level = 0\n", "computer.hint_level: no level 0"),
    ("[computer]\nlevel = 2\n", "computer.level: unknown key (keys: time_limits, hint_level)"),
    ("[hints]\nsuggestions = 1\n", "hints.suggestions: must be true or false"),
    ("[table]\nlayout = 'four-seat'\nrules = 'last-standing'\n[seats.2]\ncomputer = true\n",
     "seats.2.computer: the computer plays two-player games only, and the layout seats 4"),
])
def test_bad_computer_settings_name_file_and_key(tmp_path, text, where):
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, text))
    assert where in str(err.value) and "table.toml" in str(err.value)

"""The [clock] section: a time control per table, checked strictly (file and key named)."""

from __future__ import annotations

import pytest

from homeworlds.clock import ClockSpec
from homeworlds.runtime.config import ConfigError, load_config


def _load(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_config(path)


def test_no_clock_section_means_untimed(tmp_path):
    assert not _load(tmp_path, "[table]\nrules = 'looney'\n").clock.timed


def test_a_time_control_is_read(tmp_path):
    config = _load(tmp_path, "[clock]\nmode = 'delay'\ninitial_s = 900\ndelay_s = 5\n"
                   "on_flag = 'none'\ntimed_setup = true\n")
    assert config.clock == ClockSpec("delay", 900.0, 0.0, 5.0, "none", True)


@pytest.mark.parametrize("text, where", [
    ("[clock]\nmode = 'hourglass'\n", "clock.mode: 'hourglass' is not a clock mode"),
    ("[clock]\nmode = 'fischer'\ninitial_s = 300\n", "clock.increment_s: missing"),
    ("[clock]\nmode = 'sudden-death'\n", "clock.initial_s: missing"),
    ("[clock]\nmode = 'sudden-death'\ninitial_s = -1\n", "clock.initial_s: -1 is out of range"),
    ("[clock]\nmode = 'sudden-death'\ninitial_s = '10:00'\n",
     "clock.initial_s: '10:00' is not a number of seconds"),
    ("[clock]\nmode = 'sudden-death'\ninitial_s = 600\ndelay_s = 5\n",
     "clock.delay_s: only mode = \"delay\" uses it"),
    ("[clock]\nmode = 'sudden-death'\ninitial_s = 600\non_flag = 'draw'\n", "clock.on_flag"),
    ("[clock]\nmode = 'sudden-death'\ninitial_s = 600\nincrement = 5\n",
     "clock.increment: unknown key"),
    ("clock = 600\n", "clock: must be a table"),
    ("[table]\nlayout = 'four-seat'\nrules = 'last-standing'\nplayers = ['A', 'B', 'C', 'D']\n"
     "[clock]\nmode = 'sudden-death'\ninitial_s = 600\n",
     "clock.on_flag: the layout seats 4"),
])
def test_bad_clock_names_file_and_key(tmp_path, text, where):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert message.startswith(str(tmp_path / "table.toml") + ": "), message
    assert where in message, message


def test_four_seats_play_with_casual_clocks(tmp_path):
    config = _load(tmp_path, "[table]\nlayout = 'four-seat'\nrules = 'last-standing'\n"
                   "players = ['A', 'B', 'C', 'D']\n[clock]\nmode = 'sudden-death'\n"
                   "initial_s = 600\non_flag = 'none'\n")
    assert config.clock.on_flag == "none"


def test_the_example_configuration_has_a_clock_section():
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "hardware" / "table.example.toml"
    assert load_config(example).clock == ClockSpec()


def test_from_event_says_whether_the_hub_may_set_the_clock(tmp_path):
    assert _load(tmp_path, "[table]\nrules = 'looney'\n").clock_from_event is True
    config = _load(tmp_path, "[clock]\nmode = 'sudden-death'\ninitial_s = 600\n"
                   "from_event = false\n")
    assert config.clock_from_event is False
    assert config.clock == ClockSpec.from_dict({"mode": "sudden-death", "initial_s": 600})
    assert _load(tmp_path, "[clock]\nfrom_event = true\n").clock == ClockSpec()


@pytest.mark.parametrize("value", ["'no'", "0", "[]"])
def test_a_bad_from_event_names_file_and_key(tmp_path, value):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, f"[clock]\nfrom_event = {value}\n")
    text = str(caught.value)
    assert "table.toml: clock.from_event:" in text and "is not true or false" in text


def test_a_misspelt_clock_key_lists_from_event_too(tmp_path):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, "[clock]\nfrom_events = false\n")
    assert "table.toml: clock.from_events: unknown key" in str(caught.value)
    assert str(caught.value).endswith("timed_setup, from_event)")

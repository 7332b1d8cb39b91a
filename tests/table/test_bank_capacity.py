"""The bank tray holds the bank of the preset played, or the table refuses to start
(issue 28, item 7)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from homeworlds.rules import preset
from homeworlds.runtime.config import ConfigError, load_config
from homeworlds.table.layout import BUILTIN_LAYOUTS_DIR, Layout, LayoutError, builtin_layout


def _four_seat_text(capacity: int | None) -> str:
    text = (BUILTIN_LAYOUTS_DIR / "four-seat.toml").read_text()
    line = "capacity = 5\n"
    assert line in text
    return text.replace(line, "" if capacity is None else f"capacity = {capacity}\n")


def test_the_reference_layouts_say_what_their_tray_holds():
    assert builtin_layout("standard-2p").bank_capacity == 3
    assert builtin_layout("four-seat").bank_capacity == 5


def test_good_evil_bank_fits_the_four_seat_tray_at_every_player_count():
    """002 (What You Need): "A standard four-color Icehouse set (for atwo-player game, use
    three pieces of each size/color)" — five of each colour-size, which the four-seat
    tray holds for three and four players."""
    four = builtin_layout("four-seat")
    for players in (3, 4):
        four.check_bank_fits(preset("good-evil"), players)


def test_a_tray_too_small_for_the_preset_is_refused_with_the_reason():
    """000 (HOMEWORLDS FOR MORE THAN TWO): "For each additional player, you need another
    Trio of each color." — four players of last-standing need five of each; a tray of four
    cannot hold them."""
    small = Layout.from_toml_text(_four_seat_text(4), "small-tray.toml")
    with pytest.raises(LayoutError) as err:
        small.check_bank_fits(preset("last-standing"), 4)
    message = str(err.value)
    assert "bank.capacity" in message and "holds 4 pieces of each colour-size" in message
    assert "last-standing rules with 4 players" in message and "5 of each (60 pieces)" in message
    # The Good/Evil bank (a standard set, five of each) does not fit either; three players
    # of last-standing (four of each) do.
    with pytest.raises(LayoutError):
        small.check_bank_fits(preset("good-evil"), 4)
    small.check_bank_fits(preset("last-standing"), 3)
    # The trio-per-player option of Good/Evil needs five for four players, too.
    trios = replace(preset("good-evil"), bank="trio-per-player")
    with pytest.raises(LayoutError, match="good-evil rules with 4 players"):
        small.check_bank_fits(trios, 4)


def test_a_layout_without_capacity_holds_the_two_player_bank():
    layout = Layout.from_toml_text(_four_seat_text(None), "old.toml")
    assert layout.bank_capacity == 3
    with pytest.raises(LayoutError, match="holds 3 pieces"):
        layout.check_bank_fits(preset("sinister"), 3)


@pytest.mark.parametrize("value, said", [
    ("0", "bank.capacity: 0 is out of range 1..15"),
    ("99", "bank.capacity: 99 is out of range 1..15"),
    ("'five'", "bank.capacity: expected an integer"),
    ("true", "bank.capacity: expected an integer"),
])
def test_a_bad_capacity_names_the_key(value, said):
    text = _four_seat_text(5).replace("capacity = 5", f"capacity = {value}")
    with pytest.raises(LayoutError, match=said):
        Layout.from_toml_text(text, "bad.toml")


def test_the_capacity_is_written_back():
    layout = builtin_layout("four-seat")
    again = Layout.from_toml_text(layout.to_toml_text(), "again.toml")
    assert again.bank_capacity == 5 and again == layout


def test_play_refuses_to_start_on_a_tray_too_small(tmp_path):
    (tmp_path / "small.toml").write_text(_four_seat_text(4))
    config = tmp_path / "table.toml"
    config.write_text('[table]\nlayout = "small.toml"\nrules = "last-standing"\n')
    with pytest.raises(ConfigError) as err:
        load_config(config)
    assert "table.layout" in str(err.value) and "holds 4 pieces" in str(err.value)
    config.write_text('[table]\nlayout = "four-seat"\nrules = "good-evil"\n')
    assert load_config(config).layout.bank_capacity == 5


def test_the_simulated_table_refuses_a_tray_too_small():
    from homeworlds.runtime.table_replay import SimulatedTableGame

    with pytest.raises(LayoutError, match="holds 3 pieces"):
        SimulatedTableGame(preset("last-standing"), ("A", "B", "C"),
                           layout_name="standard-2p")

"""``homeworlds enroll`` enrolls the bank of the preset played (issue 28, item 7): a
Good/Evil tray holds a standard Icehouse set, five of each, from three players on; a tray
that cannot hold the bank is refused before anything is read."""

from __future__ import annotations

from homeworlds.cli import main
from homeworlds.sim import PtyMcu, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from homeworlds.table.registry import Registry


def test_a_good_evil_tray_of_three_players_enrolls_five_of_each(tmp_path, capsys):
    """002 (What You Need): "A standard four-color Icehouse set (for atwo-player game, use
    three pieces of each size/color)" — five of each for three players, not four."""
    layout = builtin_layout("four-seat")
    table = VirtualTable(layout, make_registry(layout, 3, copies=5), token_seat=0)
    out = tmp_path / "registry.toml"
    with PtyMcu(table, scan_time=0) as mcu:
        status = main(["enroll", "--port", mcu.device_path, "--layout", "four-seat",
                       "--players", "3", "--rules", "good-evil", "--registry", str(out)])
    assert status == 0, capsys.readouterr()
    copies = {info.copy for _, info in Registry.load(out).items() if info.is_piece}
    assert copies == set("abcde")


def test_a_tray_too_small_for_the_bank_is_refused(tmp_path, capsys):
    status = main(["enroll", "--port", "/dev/null", "--layout", "standard-2p", "--players",
                   "3", "--rules", "last-standing", "--registry", str(tmp_path / "r.toml")])
    assert status == 2
    err = capsys.readouterr().err
    assert "the bank tray holds 3 pieces of each colour-size" in err
    assert "last-standing rules with 3 players" in err

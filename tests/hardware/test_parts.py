"""hardware/parts.toml, the netlists, the layouts and the BOM name the same parts, and every
figure the software takes from a datasheet says where it comes from."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from homeworlds.table.board import PARTS_FILE, BoardError, describe, load_parts
from homeworlds.table.layout import builtin_layout
from homeworlds.tools import netlist

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"


def bom_part_numbers() -> set[str]:
    with (HARDWARE / "bom.csv").open(encoding="utf-8") as handle:
        return {row["part_number"] for row in csv.DictReader(handle)}


def test_every_part_names_its_source_and_is_on_the_bom():
    parts = load_parts()
    bom = " ".join(bom_part_numbers())
    for number, spec in parts.items():
        assert spec["source"].strip(), number
        assert isinstance(spec.get("assumed", []), list), number
        assert number in bom or number.split(",")[0] in bom or number.split("/")[0] in bom, \
            f"{number} of {PARTS_FILE.name} is not on bom.csv"


def test_the_multiplexers_relay_and_the_layouts_supplies_have_datasheet_figures():
    parts = load_parts()
    mux = netlist.load(HARDWARE / "netlist" / "mux16.toml")
    relays = {kind for ref, kind in mux.parts.items() if ref.startswith("K")}
    assert relays == {"G6K-2F-RF DC5"} and parts["G6K-2F-RF DC5"]["kind"] == "relay"
    assert parts["G6K-2F-RF DC5"]["assumed"], "the bounce time is an assumption and says so"
    for name in ("standard-2p", "four-seat"):
        layout = builtin_layout(name)
        assert layout.power is not None
        board = describe(layout)
        assert board.supply is not None and board.supply.part in bom_part_numbers()
        assert board.problems() == []


def test_a_parts_file_without_sources_is_refused(tmp_path):
    bad = tmp_path / "parts.toml"
    bad.write_text('format = 1\n[parts."X"]\nkind = "relay"\n', encoding="utf-8")
    with pytest.raises(BoardError, match="names the source"):
        load_parts(bad)

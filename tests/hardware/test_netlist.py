"""The boards' netlists pass the electrical rules check; the checker catches real mistakes;
the bill of materials covers every part."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import pytest

from homeworlds.table.layout import ZoneKind, builtin_layout
from homeworlds.tools import netlist, rf

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
NETLISTS = sorted((HARDWARE / "netlist").glob("*.toml"))
BOM = HARDWARE / "bom.csv"
BOM_COLUMNS = ["section", "designators", "part_number", "maker", "description",
               "qty_standard_2p", "qty_four_seat", "status"]


def raw(name: str) -> dict:
    return tomllib.loads((HARDWARE / "netlist" / name).read_text(encoding="utf-8"))


def test_there_are_the_three_boards():
    assert [path.name for path in NETLISTS] == ["mux16.toml", "pad.toml", "reader-50ohm.toml"]


@pytest.mark.parametrize("path", NETLISTS, ids=lambda p: p.name)
def test_every_netlist_is_erc_clean(path):
    board = netlist.load(path)
    assert netlist.check(board) == []
    for part_type in board.types.values():
        assert part_type.maker and part_type.description, part_type.name


def test_the_command_reports_clean_boards(capsys):
    assert netlist.main([str(path) for path in NETLISTS]) == 0
    assert capsys.readouterr().out.count("ERC clean") == 3


# ---------------------------------------------------------------- the checker catches mistakes


def _problems(data: dict) -> list[str]:
    return netlist.check(netlist.from_mapping(data, "mux16.toml"))


def test_a_floating_decoder_input_is_caught():
    data = raw("mux16.toml")
    del data["nets"]["S3"]
    problems = _problems(data)
    assert "mux16.toml: U1.A3 (pin 22): floating input; connect it or list it in no_connect" \
        in problems
    assert "mux16.toml: J18.S3 (pin 6): unconnected pin; connect it or list it in no_connect" \
        in problems


def test_an_undriven_input_is_caught():
    data = raw("mux16.toml")
    data["nets"]["S0"] = ["U1.A0", "U1.A1"]
    data["nets"]["S1"] = ["J18.S1", "J18.S0"]
    problems = _problems(data)
    assert "mux16.toml: nets.S0: inputs U1.A0, U1.A1 have nothing to drive them" in problems


def test_a_pin_on_two_nets_is_caught():
    data = raw("mux16.toml")
    data["nets"]["S2"].append("U1.A1")
    assert "mux16.toml: nets.S2: U1.A1 is already on net S1" in _problems(data)


def test_outputs_driving_each_other_are_caught():
    data = raw("mux16.toml")
    data["nets"]["SEL0"] = ["U1.Y0", "U1.Y1", "U2.1B"]
    del data["nets"]["SEL1"]
    problems = _problems(data)
    assert "mux16.toml: nets.SEL0: outputs U1.Y0, U1.Y1 drive against each other" in problems


def test_unknown_pins_parts_and_lonely_nets_are_caught():
    data = raw("pad.toml")
    data["nets"]["ODD"] = ["D1.X"]
    data["nets"]["LOOP"].append("Q9.1")
    data["parts"]["Z1"] = "NO_SUCH_TYPE"
    problems = netlist.check(netlist.from_mapping(data, "pad.toml"))
    assert "pad.toml: nets.ODD: D1 (BAP64-02,115) has no pin 'X'" in problems
    assert "pad.toml: nets.ODD: a net with one connection connects nothing" in problems
    assert "pad.toml: nets.LOOP: no part 'Q9'" in problems
    assert "pad.toml: parts.Z1: unknown part type 'NO_SUCH_TYPE'" in problems


def test_a_supply_pin_without_a_supply_is_caught():
    data = raw("mux16.toml")
    data["nets"]["+5V"] = [m for m in data["nets"]["+5V"] if m != "J18.VCC"]
    data["no_connect"] = [*data["no_connect"], "J18.VCC"]
    assert "mux16.toml: nets.+5V: supply pins but no supply (power_out) on the net" in \
        _problems(data)


def test_no_connect_after_a_table_is_refused():
    data = raw("pad.toml")
    data["nets"]["no_connect"] = []
    with pytest.raises(netlist.NetlistError, match="no_connect is a top-level key"):
        netlist.from_mapping(data, "pad.toml")


# ---------------------------------------------------------------- what the multiplexer does


def test_each_select_code_connects_exactly_its_channel():
    board = netlist.load(HARDWARE / "netlist" / "mux16.toml")
    net_of = {member: net for net, members in board.nets.items() for member in members}
    for channel in range(16):
        driver = net_of[f"U1.Y{channel}"]                  # decoder output for this code
        uln_input = next(m for m in board.nets[driver] if not m.startswith("U1."))
        uln, pin = uln_input.split(".")
        coil_net = net_of[f"{uln}.{pin.replace('B', 'C')}"]
        relays = {m.split(".")[0] for m in board.nets[coil_net] if m.startswith("K")}
        assert len(relays) == 1
        relay = relays.pop()
        assert net_of[f"{relay}.COM1"] == "RF_COMMON"
        assert net_of[f"{relay}.NO1"] == net_of[f"J{channel + 1}.SIG"]
        assert net_of[f"{relay}.NC2"] == "GND"            # an idle channel's coax is grounded
    # The common line carries the reader's RF (DC-blocked) and the PIN-diode bias.
    assert {"C1.2", "L1.2"} <= set(board.nets["RF_COMMON"])


def test_the_pad_loop_closes_only_through_the_pin_diode():
    board = netlist.load(HARDWARE / "netlist" / "pad.toml")
    loop = board.nets["LOOP"]
    assert sorted(loop) == ["ANT1.START", "D1.K"]       # the coil's only way back to C2
    assert "RQ1.2" in board.nets["ANODE"] and "D1.A" in board.nets["ANODE"]
    assert {"C1A.1", "L1.1"} <= set(board.nets["COAX"])   # the bias choke bridges C1


# ---------------------------------------------------------------- bill of materials


@pytest.fixture(scope="module")
def bom() -> list[dict[str, str]]:
    with BOM.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == BOM_COLUMNS
        return list(reader)


def test_bom_rows_are_complete(bom):
    for number, row in enumerate(bom, start=2):
        for column in ("section", "part_number", "maker", "description", "status"):
            assert row[column].strip(), f"bom.csv line {number}: empty {column}"
        q2, q4 = int(row["qty_standard_2p"]), int(row["qty_four_seat"])
        assert q2 >= 0 and q4 >= 0 and q2 + q4 > 0, f"bom.csv line {number}"


def test_every_netlist_part_is_in_the_bom(bom):
    listed = " ".join(row["part_number"] + " " + row["description"] for row in bom)
    for path in NETLISTS:
        for part_type in netlist.load(path).types.values():
            if part_type.maker == "this design" or part_type.name.startswith(
                    ("PN5180_MODULE", "SMA_JACK", "HEADER_", "C_C0G", "TRIMMER", "1008CS",
                     "RC2512FK")):
                continue  # generic families, listed by their concrete part numbers
            assert part_type.name in listed, f"{path.name}: {part_type.name} not in bom.csv"


def _pads(name: str) -> dict[str, int]:
    layout = builtin_layout(name)
    kinds = [layout.zone_role(zone).kind for zone in layout.all_zones]
    return {"star pad": kinds.count(ZoneKind.STAR), "ship pad": kinds.count(ZoneKind.SHIPS),
            "token pad": kinds.count(ZoneKind.TOKEN),
            "bank compartment": kinds.count(ZoneKind.BANK)}


def test_bom_counts_follow_the_layouts(bom):
    two, four = _pads("standard-2p"), _pads("four-seat")
    for pad in rf.PAD_TYPES:
        coil = next(r for r in bom if r["section"] == f"pad: {pad.name}"
                    and r["designators"] == "ANT1")
        assert int(coil["qty_standard_2p"]) == two[pad.name]
        assert int(coil["qty_four_seat"]) == four[pad.name]
    relays = next(r for r in bom if r["part_number"] == "G6K-2F-RF DC5")
    assert int(relays["qty_standard_2p"]) == sum(two.values()) == 56
    assert int(relays["qty_four_seat"]) == sum(four.values()) == 116
    readers = next(r for r in bom if r["designators"] == "MOD1")
    assert int(readers["qty_standard_2p"]) == len(builtin_layout("standard-2p").readers)
    assert int(readers["qty_four_seat"]) == len(builtin_layout("four-seat").readers)


def test_bom_capacitors_are_the_calculators_fitted_parts(bom):
    for pad in rf.PAD_TYPES:
        design = rf.design_pad(pad)
        rows = [r for r in bom if r["section"] == f"pad: {pad.name}"]
        for designator, parts in (("C1", design.c1_parts), ("C2", design.c2_parts)):
            listed = [r["description"].split(" pF")[0] for r in rows
                      if r["designators"].startswith(designator)]
            assert listed == [f"{part * 1e12:.3g}" for part in parts], (pad.name, designator)

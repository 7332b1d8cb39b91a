"""hardware/scan-costs.toml: every cost of the timing model has low/likely/high figures
and a source, agrees with the parts' datasheet figures, and a broken file is refused
with the key named (issue 25, item 5)."""

from __future__ import annotations

import tomllib

import pytest

from homeworlds.table.board import describe
from homeworlds.table.layout import builtin_layout
from homeworlds.table.scancosts import (
    BANDS,
    COST_KEYS,
    COSTS_FILE,
    CostsError,
    costs_text,
    load_costs,
    parse_costs,
)
from tablefw.readers.pn5180 import POWER_UP_US


def test_every_cost_has_three_figures_in_order_and_a_source():
    costs = load_costs()
    assert set(costs.costs) == set(COST_KEYS)
    for key, cost in costs.costs.items():
        assert cost.source, key
        figures = [cost.value(band) for band in BANDS]
        if key == "gc_every_ms":
            figures.reverse()  # an interval: the longer, the cheaper
        assert figures == sorted(figures), key
    assert costs.band("likely")["command_frame_us"] == 70


def test_settles_agree_with_the_parts_and_the_driver():
    costs = load_costs()
    relay = describe(builtin_layout("standard-2p")).mux.relay
    assert costs.costs["relay_settle_us"].likely == relay.settle_us
    assert costs.costs["field_settle_us"].likely == POWER_UP_US


def test_the_text_form_reads_back_the_same():
    costs = load_costs()
    again = parse_costs(tomllib.loads(costs_text(costs, "a header\nof two lines")), "written")
    for band in BANDS:
        assert again.band(band) == costs.band(band)
    assert again.costs["gc_pause_us"].assumed == costs.costs["gc_pause_us"].assumed


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["costs"].pop("clock_read_us"), "costs.clock_read_us is missing"),
        (lambda d: d["costs"]["command_frame_us"].update(low=200), "not in order of cost"),
        (
            lambda d: d["costs"]["pin_read_us"].update(high="fast"),
            "costs.pin_read_us.high: expected a positive number",
        ),
        (lambda d: d["costs"]["zone_us"].pop("source"), "costs.zone_us.source"),
        (lambda d: d["costs"].update(spi_us={}), "unknown cost 'spi_us'"),
    ],
)
def test_a_broken_file_is_refused_naming_the_key(edit, message):
    data = tomllib.loads(COSTS_FILE.read_text(encoding="utf-8"))
    edit(data)
    with pytest.raises(CostsError, match=message):
        parse_costs(data, "my-costs.toml")


def test_an_unknown_band_is_refused():
    with pytest.raises(CostsError, match="no band 'typical'"):
        load_costs().band("typical")

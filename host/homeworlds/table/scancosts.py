"""The scanner board's per-operation costs with their uncertainty: hardware/scan-costs.toml.

Each cost (an SPI command frame, a register read, a clock reading, a GC pause, a relay
settle, a field settle, ...) has a *low*, *likely* and *high* figure and a source, or says
what is assumed. The timing model (:mod:`homeworlds.sim.scan_timing`) charges one band
of them to the simulated board; ``homeworlds bringup-timing`` measures them on a real
board and writes a file of the same form (:func:`costs_text`), which then replaces the
assumptions.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from homeworlds.table.board import HARDWARE_DIR

COSTS_FILE = HARDWARE_DIR / "scan-costs.toml"
BANDS = ("low", "likely", "high")

#: Every key a costs file must give, and what it is.
COST_KEYS: dict[str, str] = {
    "command_frame_us": "one PN5180 command frame (BUSY check, CS, SPI write), bus held",
    "register_read_us": "one register read: command frame and answer frame",
    "bus_lock_us": "taking the SPI bus after a wait (try_lock + configure)",
    "clock_read_us": "one ticks_us() reading",
    "pin_read_us": "one digital input reading (the IRQ pin)",
    "zone_us": "the scan core's bookkeeping per pad scanned",
    "gc_pause_us": "one garbage collection",
    "gc_every_ms": "scanning time between two garbage collections",
    "relay_settle_us": "a multiplexer relay's operate + bounce time (or its release time)",
    "field_settle_us": "from the field reaching a pad until its tags answer",
}


class CostsError(ValueError):
    """A costs file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Cost:
    key: str
    low: float
    likely: float
    high: float
    source: str
    assumed: str = ""

    def value(self, band: str) -> float:
        return {"low": self.low, "likely": self.likely, "high": self.high}[band]


@dataclass(frozen=True, slots=True)
class ScanCosts:
    name: str
    costs: dict[str, Cost]
    path: Path | None = None

    def band(self, band: str) -> dict[str, float]:
        """Every cost's figure in ``band`` (low, likely or high)."""
        if band not in BANDS:
            raise CostsError(f"no band {band!r}: expected one of {', '.join(BANDS)}")
        return {key: cost.value(band) for key, cost in self.costs.items()}


def load_costs(path: Path | str | None = None) -> ScanCosts:
    """Read a costs file (default: hardware/scan-costs.toml)."""
    path = Path(path) if path is not None else COSTS_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CostsError(f"{path}: cannot read it ({error.strerror or error})") from None
    except tomllib.TOMLDecodeError as error:
        raise CostsError(f"{path}: not TOML: {error}") from None
    return parse_costs(data, str(path), path)


def parse_costs(data: dict, where: str, path: Path | None = None) -> ScanCosts:
    if data.get("format") != 1:
        raise CostsError(f"{where}: format: expected 1, got {data.get('format')!r}")
    table = data.get("costs")
    if not isinstance(table, dict):
        raise CostsError(f"{where}: no [costs.*] tables")
    unknown = sorted(set(table) - set(COST_KEYS))
    if unknown:
        raise CostsError(f"{where}: unknown cost {unknown[0]!r} (known: {', '.join(COST_KEYS)})")
    costs: dict[str, Cost] = {}
    for key in COST_KEYS:
        entry = table.get(key)
        if not isinstance(entry, dict):
            raise CostsError(f"{where}: costs.{key} is missing ({COST_KEYS[key]})")
        figures = []
        for band in BANDS:
            value = entry.get(band)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value <= 0
            ):
                raise CostsError(
                    f"{where}: costs.{key}.{band}: expected a positive number, got {value!r}"
                )
            figures.append(float(value))
        source = entry.get("source")
        if not isinstance(source, str) or not source.strip():
            raise CostsError(f"{where}: costs.{key}.source: say where the figures come from")
        assumed = entry.get("assumed", "")
        if not isinstance(assumed, str):
            raise CostsError(f"{where}: costs.{key}.assumed: expected text, got {assumed!r}")
        low, likely, high = figures
        # gc_every_ms is an interval: more time between collections is the cheap side.
        ordered = low >= likely >= high if key == "gc_every_ms" else low <= likely <= high
        if not ordered:
            raise CostsError(
                f"{where}: costs.{key}: low {low:g}, likely {likely:g}, high {high:g} "
                "are not in order of cost"
            )
        costs[key] = Cost(key, low, likely, high, source.strip(), assumed.strip())
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CostsError(f"{where}: name: say which board and firmware these costs are for")
    return ScanCosts(name.strip(), costs, path)


def _toml_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def costs_text(costs: ScanCosts, header: str = "") -> str:
    """``costs`` as a costs file (what :func:`load_costs` reads back)."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    if lines:
        lines.append("")
    lines += ["format = 1", f"name = {_toml_text(costs.name)}"]
    for key in COST_KEYS:
        cost = costs.costs[key]
        lines += ["", f"[costs.{key}]"]
        for band in BANDS:
            lines.append(f"{band} = {round(cost.value(band), 1):g}")
        lines.append(f"source = {_toml_text(cost.source)}")
        if cost.assumed:
            lines.append(f"assumed = {_toml_text(cost.assumed)}")
    return "\n".join(lines) + "\n"

"""The board as built: the layout, the netlists and the parts' datasheet figures, read as one.

A layout file says which pad is on which reader channel and which MCU pin goes to which
signal; the multiplexer's netlist (hardware/netlist/mux16.toml) says what those signals
do on the board; hardware/parts.toml gives the datasheet figures of the parts the netlist
names. :func:`describe` joins them into a :class:`Board`, from which come

- the firmware's configuration (:mod:`homeworlds.table.fwconfig`): the multiplexer enable
  pin, the latch strobe (whether each board holds its own channel: the pipelined scan), the
  relay settle time, how many readers' fields may be on at once;
- the simulated board (:mod:`homeworlds.sim.board`): relays with the datasheet's timing, a
  decoder that stays disabled while its enable is pulled inactive and driven by no pin,
  the supply's budget;
- :meth:`Board.problems`: what cannot work as described (an enable or a latch driven by
  nothing, a latch strobe given for boards whose latch is tied transparent, a supply budget
  smaller than one reader's field).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from homeworlds.table.layout import Layout
from homeworlds.tools import netlist as _netlist

HARDWARE_DIR = Path(__file__).resolve().parents[3] / "hardware"
PARTS_FILE = HARDWARE_DIR / "parts.toml"
MUX_NETLIST = HARDWARE_DIR / "netlist" / "mux16.toml"
#: The reader chip and the tags of the reference design (bom.csv).
READER_PART = "PN5180A0HN/C3"
TAG_PART = "SL2S2602"
#: The multiplexer's control header: which of its pins carries which [mcu] signal.
HEADER_SELECT = ("S0", "S1", "S2", "S3")
HEADER_ENABLE = "EN_N"
HEADER_LATCH = "LE"
SUPPLY_VOLTS = 5.0


class BoardError(ValueError):
    """A parts file or netlist the board cannot be described from; names file and key."""


@dataclass(frozen=True, slots=True)
class Relay:
    """A multiplexer channel's relay: its contacts close ``operate_us + bounce_us`` after
    the coil is driven (bounce: closed but not yet steady) and open ``release_us`` after
    the coil is released."""

    part: str
    operate_us: int
    release_us: int
    bounce_us: int
    coil_amps: float
    source: str
    assumed: tuple[str, ...] = ()

    @property
    def settle_us(self) -> int:
        """How long after switching channels the new channel alone is connected, steady:
        the new relay closed and done bouncing, the old one open."""
        return max(self.operate_us + self.bounce_us, self.release_us)


@dataclass(frozen=True, slots=True)
class ReaderChip:
    part: str
    field_amps: float
    source: str


@dataclass(frozen=True, slots=True)
class Supply:
    part: str
    amps: float
    source: str


@dataclass(frozen=True, slots=True)
class MuxBoard:
    """What the multiplexer's netlist says about its enable and its per-channel load."""

    netlist: str
    enable_pin: str | None
    """The MCU pin driving EN_N (the layout's ``mcu.mux_enable``), or None."""
    enable_pulled: bool | None
    """The level a resistor holds EN_N at when no pin drives it (True: high)."""
    enable_pull_part: str | None
    relay: Relay
    bias_amps: float
    """The selected pad's PIN-diode bias current (R1 of the multiplexer)."""
    latch_wiring: str = "high"
    """Where the decoder's latch enable (``LE`` of the 74HCT4514) goes: ``"high"`` tied to
    the supply (transparent: the board follows the shared select lines), ``"low"`` tied to
    GND (the latch never opens), ``"header"`` to the control header, strobed by the MCU."""
    latch_part: str = "U1.LE"
    latch_pull_part: str | None = None
    latch_pin: str | None = None
    """The MCU pin enabling the latch decoder (the layout's ``mcu.mux_latch``), or None."""

    @property
    def can_enable(self) -> bool:
        """Whether the decoder can ever be enabled (EN_N low)."""
        return self.enable_pin is not None or self.enable_pulled is False

    @property
    def latched(self) -> bool:
        """Whether each board holds its own channel: ``LE`` on the header, strobed."""
        return self.latch_wiring == "header" and self.latch_pin is not None


@dataclass(frozen=True, slots=True)
class Board:
    layout: Layout
    mux: MuxBoard
    reader: ReaderChip
    tag_power_up_us: int
    supply: Supply | None
    scanner_amps: float | None
    """The share of the supply budgeted for the scanner side (``[power] scanner_amps``)."""

    @property
    def multiplexers(self) -> int:
        return sum(1 for reader in self.layout.readers if reader.channels > 1)

    @property
    def irq_readers(self) -> tuple[int, ...]:
        """The readers whose IRQ output goes to an MCU input."""
        return tuple(reader.index for reader in self.layout.readers
                     if reader.pins is not None and reader.pins.irq is not None)

    def transparent(self) -> Board:
        """The same table wired as before issue 25: every multiplexer's ``LE`` tied high
        (each board follows the shared select lines), no latch strobe, no IRQ line."""
        layout = self.layout
        if layout.mcu is not None:
            from dataclasses import replace

            readers = tuple(replace(reader, pins=replace(reader.pins, irq=None))
                            if reader.pins is not None else reader for reader in layout.readers)
            layout = Layout.from_toml_text(replace(
                layout, mcu=replace(layout.mcu, mux_latch=None), readers=readers).to_toml_text())
        mux = _replace(self.mux, latch_wiring="high", latch_pull_part=None, latch_pin=None)
        return _replace(self, layout=layout, mux=mux)

    @property
    def idle_amps(self) -> float:
        """What the multiplexers draw while scanning, fields off: one relay coil and one
        pad bias each (every multiplexer is enabled together: one shared EN_N)."""
        return self.multiplexers * (self.mux.relay.coil_amps + self.mux.bias_amps)

    def scanner_draw(self, fields: int) -> float:
        """The scanner side's current with ``fields`` readers' fields on."""
        return self.idle_amps + fields * self.reader.field_amps

    @property
    def fields_at_once(self) -> int:
        """How many readers' fields the budget allows on at once (at least 1, at most
        every reader). Without a ``[power]`` budget: 1, one reader after another."""
        readers = len(self.layout.readers)
        if self.scanner_amps is None:
            return 1
        spare = self.scanner_amps - self.idle_amps
        fit = math.floor(spare / self.reader.field_amps + 1e-9)
        return max(1, min(readers, fit))

    def problems(self) -> list[tuple[str, str]]:
        """(layout key, reason) of everything that cannot work as described."""
        found: list[tuple[str, str]] = []
        if self.multiplexers and not self.mux.can_enable:
            pull = (f" (pulled {'up' if self.mux.enable_pulled else 'down'} by "
                    f"{self.mux.enable_pull_part})" if self.mux.enable_pull_part else "")
            found.append(("mcu.mux_enable",
                          f"missing: {HEADER_ENABLE} of the multiplexers{pull} in "
                          f"{self.mux.netlist} is driven by no pin, so the decoder stays "
                          "disabled, no relay closes and every pad reads empty; give the MCU "
                          "pin that drives it low"))
        found += self._latch_problems()
        if self.scanner_amps is not None and \
                self.scanner_draw(1) > self.scanner_amps + 1e-9:
            found.append(("power.scanner_amps",
                          f"{self.scanner_amps:g} A cannot feed even one reader: one field "
                          f"({self.reader.field_amps * 1000:g} mA, {self.reader.part}) plus "
                          f"{self.multiplexers} multiplexers' relay and bias "
                          f"({self.idle_amps * 1000:.0f} mA) need "
                          f"{self.scanner_draw(1):.2f} A"))
        if self.supply is not None and self.scanner_amps is not None and \
                self.scanner_amps >= self.supply.amps:
            found.append(("power.scanner_amps",
                          f"{self.scanner_amps:g} A is the whole of {self.supply.part} "
                          f"({self.supply.amps:g} A): nothing is left for the LEDs"))
        return found


    def _latch_problems(self) -> list[tuple[str, str]]:
        mux = self.mux
        if not self.multiplexers:
            return []
        if mux.latch_wiring == "low":
            return [("mcu.mux_latch", f"{mux.latch_part} of {mux.netlist} is tied to GND: the "
                     "latch never takes a channel, no relay closes and every pad reads empty; "
                     f"tie it high or bring it to the control header ({HEADER_LATCH})")]
        if mux.latch_wiring == "header" and mux.latch_pin is None:
            pull = f", pulled down by {mux.latch_pull_part}" if mux.latch_pull_part else ""
            return [("mcu.mux_latch",
                     f"missing: {HEADER_LATCH} of the multiplexers ({mux.latch_part}{pull}, in "
                     f"{mux.netlist}) is driven by no pin, so the latch never takes a channel, "
                     "no relay closes and every pad reads empty; give the MCU pin that enables "
                     "the latch decoder")]
        if mux.latch_wiring == "high" and mux.latch_pin is not None:
            return [("mcu.mux_latch",
                     f"{mux.latch_part} of {mux.netlist} is tied high: the latch is transparent, "
                     "every multiplexer follows the shared select lines and cannot hold a "
                     "channel of its own, so the scan must not be pipelined; bring "
                     f"{HEADER_LATCH} to the control header or drop mcu.mux_latch")]
        return []


def _replace(value, **changes):
    from dataclasses import replace

    return replace(value, **changes)


def load_parts(path: Path = PARTS_FILE) -> dict[str, dict]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BoardError(f"{path}: {error}") from None
    parts = data.get("parts")
    if data.get("format") != 1 or not isinstance(parts, dict):
        raise BoardError(f"{path}: expected format = 1 and a [parts.\"NUMBER\"] table per part")
    for number, spec in parts.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("source"), str) \
                or not spec["source"].strip():
            raise BoardError(f"{path}: parts.{number!r}.source: every part names the source "
                             "of its figures")
    return parts


def _figure(parts: dict[str, dict], number: str, key: str, path: Path) -> float:
    spec = parts.get(number)
    if spec is None:
        raise BoardError(f"{path}: no part {number!r} (a netlist or layout names it)")
    value = spec.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BoardError(f"{path}: parts.{number!r}.{key}: expected a number >= 0, got {value!r}")
    return float(value)


def _relay(parts: dict[str, dict], netlist: _netlist.Netlist, path: Path) -> Relay:
    relays = sorted({kind for ref, kind in netlist.parts.items()
                     if ref.startswith("K") and parts.get(kind, {}).get("kind") == "relay"})
    if len(relays) != 1:
        raise BoardError(f"{netlist.source}: expected one relay part number among the K parts "
                         f"(with kind = \"relay\" in {path}), found {relays or 'none'}")
    number = relays[0]
    spec = parts[number]
    return Relay(number,
                 round(_figure(parts, number, "operate_ms", path) * 1000),
                 round(_figure(parts, number, "release_ms", path) * 1000),
                 round(_figure(parts, number, "bounce_ms", path) * 1000),
                 _figure(parts, number, "coil_ma", path) / 1000, spec["source"],
                 tuple(spec.get("assumed", ())))


def _enable_pull(netlist: _netlist.Netlist) -> tuple[bool | None, str | None]:
    """The level a resistor holds the header's EN_N net at, and that resistor."""
    header = f"{_header(netlist)}.{HEADER_ENABLE}"
    nets = netlist.nets
    net = next((name for name, members in nets.items() if header in members), None)
    if net is None:
        return None, None
    power = {member: name for name, members in nets.items()
             if name in ("+5V", "+3V3", "GND") for member in members}
    for member in nets[net]:
        ref, _, pin = member.partition(".")
        if not ref.startswith("R"):
            continue
        other = f"{ref}.{'1' if pin == '2' else '2'}"
        if other in power:
            return power[other] != "GND", ref
    return None, None


def _latch_wiring(netlist: _netlist.Netlist) -> tuple[str, str, str | None]:
    """(where the decoder's LE goes: "high", "low" or "header"; the decoder pin; the
    resistor holding it while the header is undriven)."""
    decoder = next((ref for ref, kind in sorted(netlist.parts.items())
                    if ref.startswith("U") and netlist.types.get(kind) is not None
                    and netlist.types[kind].pin(HEADER_LATCH) is not None), None)
    if decoder is None:
        return "high", "LE", None  # no latch at all: it follows the select lines
    pin = f"{decoder}.{HEADER_LATCH}"
    nets = netlist.nets
    net = next((name for name, members in nets.items() if pin in members), None)
    if net is None:
        raise BoardError(f"{netlist.source}: {pin} is on no net (tie it high or bring it to "
                         "the control header)")
    if net in ("+5V", "+3V3"):
        return "high", pin, None
    if net == "GND":
        return "low", pin, None
    header = f"{_header(netlist)}.{HEADER_LATCH}"
    if header not in nets[net]:
        raise BoardError(f"{netlist.source}: {pin} (net {net}) is neither tied to a supply nor "
                         f"on the control header's {HEADER_LATCH}")
    pull = None
    for member in nets[net]:
        if member.startswith("R"):
            pull = member.partition(".")[0]
    return "header", pin, pull


def _header(netlist: _netlist.Netlist) -> str:
    for ref, kind in netlist.parts.items():
        spec = netlist.types.get(kind)
        if ref.startswith("J") and spec is not None and spec.pin(HEADER_ENABLE) is not None:
            return ref
    raise BoardError(f"{netlist.source}: no header with an {HEADER_ENABLE} pin (the control cable)")


def _bias_amps(parts: dict[str, dict], netlist: _netlist.Netlist, path: Path) -> float:
    resistor = netlist.parts.get("R1")
    diode = "BAP64-02,115"
    if resistor is None:
        return 0.0
    ohms = _figure(parts, resistor, "ohms", path)
    drop = _figure(parts, diode, "forward_v", path)
    return (SUPPLY_VOLTS - drop) / ohms


def describe(layout: Layout, parts_file: Path = PARTS_FILE,
             mux_netlist: Path = MUX_NETLIST) -> Board:
    """The board ``layout`` describes, built from the reference multiplexer and parts."""
    parts = load_parts(parts_file)
    try:
        mux_net = _netlist.load(mux_netlist)
    except _netlist.NetlistError as error:
        raise BoardError(str(error)) from None
    pulled, pull_part = _enable_pull(mux_net)
    mcu = layout.mcu
    latch_wiring, latch_part, latch_pull = _latch_wiring(mux_net)
    mux = MuxBoard(mux_net.name or mux_netlist.stem, mcu.mux_enable if mcu is not None else None,
                   pulled, pull_part, _relay(parts, mux_net, parts_file),
                   _bias_amps(parts, mux_net, parts_file), latch_wiring, latch_part, latch_pull,
                   mcu.mux_latch if mcu is not None else None)
    reader = ReaderChip(READER_PART, _figure(parts, READER_PART, "field_ma", parts_file) / 1000,
                        parts[READER_PART]["source"])
    power_up = round(_figure(parts, TAG_PART, "power_up_us", parts_file))
    supply = None
    scanner_amps = None
    if layout.power is not None:
        number = layout.power.supply
        if number not in parts or parts[number].get("kind") != "supply":
            known = sorted(k for k, v in parts.items() if v.get("kind") == "supply")
            raise BoardError(f"layout {layout.name!r}: power.supply: {number!r} is not a supply "
                             f"in {parts_file} (known: {', '.join(known)})")
        supply = Supply(number, _figure(parts, number, "amps", parts_file), parts[number]["source"])
        scanner_amps = layout.power.scanner_amps
    return Board(layout, mux, reader, power_up, supply, scanner_amps)

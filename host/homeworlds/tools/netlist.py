"""Textual netlists of the table's boards, and an electrical rules check (ERC).

A netlist file (``hardware/netlist/*.toml``) names part *types* (maker, part
number, every pin with its number, name and electrical kind), the *parts* on
the board, and the *nets*, each a list of ``PART.PIN`` (pin by name or
number)::

    format = 1
    name = "pad"

    [types.BAP64-02]
    maker = "Nexperia"
    description = "silicon PIN diode, SOD523"
    pins = ["1 K passive", "2 A passive"]

    [parts]
    D1 = "BAP64-02"

    [nets]
    LOOP_A = ["D1.K", "L1.1"]

    no_connect = ["K3.NC2"]

Pin kinds: ``in`` (a logic input), ``out`` (push-pull output), ``oc`` (open
collector / drain: several may share a net), ``bidi``, ``passive``,
``power_in`` (a supply pin of a part) and ``power_out`` (where supply comes
from: a connector pin or a regulator output).

:func:`check` reports every violation of these rules: unknown parts, types or
pins; a pin on two nets; a pin on no net and not declared ``no_connect`` (a
floating input is the classic); a net with one connection; a logic input
with nothing to drive it; two push-pull outputs on one net; a supply pin on
a net without a supply. ``python -m homeworlds.tools.netlist FILE...`` prints the
result (exit status 1 on any violation).
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

KINDS = ("in", "out", "oc", "bidi", "passive", "power_in", "power_out")
DRIVERS = {"out", "oc", "bidi", "passive", "power_out"}


class NetlistError(ValueError):
    """A netlist file that cannot be read at all (not TOML, wrong shape)."""


@dataclass(frozen=True, slots=True)
class Pin:
    number: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class PartType:
    name: str
    maker: str
    description: str
    pins: tuple[Pin, ...]

    def pin(self, key: str) -> Pin | None:
        for pin in self.pins:
            if key in (pin.number, pin.name):
                return pin
        return None


@dataclass(frozen=True, slots=True)
class Netlist:
    name: str
    types: dict[str, PartType]
    parts: dict[str, str]
    nets: dict[str, tuple[str, ...]]
    no_connect: tuple[str, ...]
    source: str = "<netlist>"


def load(path: str | Path) -> Netlist:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise NetlistError(f"{path}: {error}") from None
    return from_mapping(data, str(path))


def from_mapping(data: dict, source: str = "<netlist>") -> Netlist:
    def need(mapping: dict, key: str, kind: type, where: str):
        value = mapping.get(key)
        if not isinstance(value, kind):
            raise NetlistError(f"{source}: {where}{key}: expected {kind.__name__}")
        return value

    if data.get("format") != 1:
        raise NetlistError(f"{source}: format: must be 1")
    unknown = sorted(set(data) - {"format", "name", "description", "types", "parts", "nets",
                                  "no_connect"})
    if unknown:
        raise NetlistError(f"{source}: {unknown[0]}: unknown key")
    if "no_connect" in data.get("nets", {}):
        raise NetlistError(f"{source}: nets.no_connect: no_connect is a top-level key; put it "
                           "before the first [table] (TOML puts it in [nets] otherwise)")
    types = {}
    for type_name, spec in need(data, "types", dict, "").items():
        pins = []
        for text in need(spec, "pins", list, f"types.{type_name}."):
            fields = str(text).split()
            if len(fields) != 3 or fields[2] not in KINDS:
                raise NetlistError(f"{source}: types.{type_name}.pins: {text!r} is not "
                                   f"'NUMBER NAME KIND' with KIND one of {', '.join(KINDS)}")
            pins.append(Pin(*fields))
        types[type_name] = PartType(type_name, str(spec.get("maker", "")),
                                    str(spec.get("description", "")), tuple(pins))
    parts = {str(k): str(v) for k, v in need(data, "parts", dict, "").items()}
    nets = {str(k): tuple(str(m) for m in v) for k, v in need(data, "nets", dict, "").items()}
    no_connect = tuple(str(m) for m in data.get("no_connect", []))
    return Netlist(str(data.get("name", "")), types, parts, nets, no_connect, source)


def check(netlist: Netlist) -> list[str]:
    """Every rule violation, as ``file: where: what``; empty when the netlist is clean."""
    problems: list[str] = []
    _check_types(netlist, problems)
    seen = _check_nets(netlist, problems)
    _check_unconnected(netlist, seen, problems)
    return problems


def _resolve(netlist: Netlist, member: str, where: str,
             problems: list[str]) -> tuple[str, Pin] | None:
    """The part and pin ``PART.PIN`` names, or None (with the problem noted)."""
    src = netlist.source
    part, dot, pin_key = member.partition(".")
    if not dot:
        problems.append(f"{src}: {where}: {member!r} is not PART.PIN")
        return None
    if part not in netlist.parts:
        problems.append(f"{src}: {where}: no part {part!r}")
        return None
    part_type = netlist.types.get(netlist.parts[part])
    if part_type is None:
        return None  # reported once per part by _check_types
    pin = part_type.pin(pin_key)
    if pin is None:
        problems.append(f"{src}: {where}: {part} ({part_type.name}) has no pin {pin_key!r}")
        return None
    return part, pin


def _check_types(netlist: Netlist, problems: list[str]) -> None:
    """Parts of unknown types; part types that number or name a pin twice."""
    src = netlist.source
    for part, type_name in netlist.parts.items():
        if type_name not in netlist.types:
            problems.append(f"{src}: parts.{part}: unknown part type {type_name!r}")
    for type_name, part_type in netlist.types.items():
        for key in ("number", "name"):
            values = [getattr(pin, key) for pin in part_type.pins]
            doubles = sorted({v for v in values if values.count(v) > 1})
            if doubles:
                problems.append(f"{src}: types.{type_name}: pin {key} {doubles[0]} twice")


def _check_nets(netlist: Netlist, problems: list[str]) -> dict[tuple[str, str], str]:
    """Each net's electrical sense; returns the net of every connected (part, pin number)."""
    src = netlist.source
    seen: dict[tuple[str, str], str] = {}
    for net, members in netlist.nets.items():
        where = f"nets.{net}"
        resolved = [r for r in (_resolve(netlist, m, where, problems) for m in members)
                    if r is not None]
        for part, pin in resolved:
            key = (part, pin.number)
            if key in seen and seen[key] != net:
                problems.append(f"{src}: {where}: {part}.{pin.name} is already on net "
                                f"{seen[key]}")
            seen[key] = net
        if len(members) < 2:
            problems.append(f"{src}: {where}: a net with one connection connects nothing")
        _check_drive(f"{src}: {where}", resolved, problems)
    return seen


def _check_drive(where: str, resolved: list[tuple[str, Pin]], problems: list[str]) -> None:
    """Inputs with no driver, outputs driving each other, supply pins with no supply."""
    kinds = [pin.kind for _, pin in resolved]
    if "in" in kinds and not DRIVERS & set(kinds):
        inputs = ", ".join(f"{p}.{pin.name}" for p, pin in resolved if pin.kind == "in")
        problems.append(f"{where}: inputs {inputs} have nothing to drive them")
    if kinds.count("out") > 1:
        outs = ", ".join(f"{p}.{pin.name}" for p, pin in resolved if pin.kind == "out")
        problems.append(f"{where}: outputs {outs} drive against each other")
    if "power_in" in kinds and "power_out" not in kinds:
        problems.append(f"{where}: supply pins but no supply (power_out) on the net")


def _check_unconnected(netlist: Netlist, seen: dict[tuple[str, str], str],
                       problems: list[str]) -> None:
    """no_connect pins that are on a net; pins on no net and not declared no_connect."""
    src = netlist.source
    unconnected: set[tuple[str, str]] = set()
    for member in netlist.no_connect:
        found = _resolve(netlist, member, "no_connect", problems)
        if found is not None:
            part, pin = found
            if (part, pin.number) in seen:
                problems.append(f"{src}: no_connect: {part}.{pin.name} is on net "
                                f"{seen[(part, pin.number)]}")
            unconnected.add((part, pin.number))
    for part, type_name in netlist.parts.items():
        part_type = netlist.types.get(type_name)
        if part_type is None:
            continue
        for pin in part_type.pins:
            if (part, pin.number) not in seen and (part, pin.number) not in unconnected:
                what = "floating input" if pin.kind in ("in", "power_in") else "unconnected pin"
                problems.append(f"{src}: {part}.{pin.name} (pin {pin.number}): {what}; "
                                "connect it or list it in no_connect")


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    status = 0
    for path in paths:
        try:
            netlist = load(path)
        except NetlistError as error:
            print(error, file=sys.stderr)
            status = 1
            continue
        problems = check(netlist)
        for problem in problems:
            print(problem)
        if problems:
            status = 1
        else:
            print(f"{path}: {len(netlist.parts)} parts, {len(netlist.nets)} nets: ERC clean")
    return status


if __name__ == "__main__":
    sys.exit(main())

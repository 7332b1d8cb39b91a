"""The firmware's configuration, generated from a layout file.

The layout file is the one source of truth for the table's wiring: which pad
is on which reader channel (``[[readers]] zones``) and which board pin goes to
which reader signal (``[mcu]`` and the readers' pin keys). This module turns it
into what the board reads: ``table_config.py`` with a ``CONFIG`` dict in the
format ``firmware/tablefw/config.py`` documents. It is Python rather than a
data file because CircuitPython imports it with no parser of ours, code.py
and the tests already load it that way, and a builder can read the comments
next to each reader.

It also renders the wiring table of hardware/README.md, which a test compares
with the README so that the page a builder solders from says what the
firmware drives.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from homeworlds.table.board import BoardError, describe
from homeworlds.table.layout import BUILTIN_LAYOUTS_DIR, Layout, Reader
from homeworlds.table.wiring import McuPins, ReaderPins, latch_decoder_part

GENERATOR = "homeworlds firmware-config"


class FirmwareConfigError(ValueError):
    """A layout no firmware configuration can be made from; names file and key."""


def _fail(source: str, key: str, reason: str) -> FirmwareConfigError:
    return FirmwareConfigError(f"{source}: {key}: {reason}")


def firmware_config(layout: Layout, source: str | None = None) -> dict:
    """The ``CONFIG`` dict for ``layout``'s scanner board."""
    source = source or f"layout {layout.name!r}"
    mcu = layout.mcu
    if mcu is None:
        raise _fail(source, "mcu", "the layout does not say how the scanner is wired: add an "
                    "[mcu] table and the readers' pins (docs/hardware.md, 'Wiring')")
    chips = {reader.chip for reader in layout.readers}
    if len(chips) > 1:
        odd = next(r for r in layout.readers if r.chip != layout.readers[0].chip)
        raise _fail(source, f"readers[{odd.index}].chip",
                    f"the firmware drives one kind of reader, but this layout mixes "
                    f"{' and '.join(sorted(chips))}")
    chip = layout.readers[0].chip
    try:
        board = describe(layout)
    except BoardError as error:
        raise _fail(source, "power", str(error)) from None
    multiplexed = board.multiplexers > 0
    for key, reason in board.problems():
        if key == "mcu.mux_enable" and not multiplexed:
            continue
        raise _fail(source, key, reason)
    config: dict = {"reader": chip, "zones": layout.zone_count}
    if chip == "pn5180":
        config.update(_spi_lines(mcu))
    if mcu.mux_select:
        config["mux"] = list(mcu.mux_select)
    if mcu.mux_enable is not None:
        config["mux_enable"] = mcu.mux_enable
    if multiplexed:
        # The relays' operate + bounce (or release) time, from the parts' datasheets.
        config["mux_settle_us"] = board.mux.relay.settle_us
    if chip == "pn5180":
        # How many readers' fields the supply budget allows on at once.
        config["fields_at_once"] = board.fields_at_once
    if mcu.nss_decoder is not None:
        config["nss_decoder"] = {"address": list(mcu.nss_decoder.address),
                                 "enable": mcu.nss_decoder.enable}
    if board.mux.latched and multiplexed:
        # Each board latches its own channel: the firmware scans pipelined.
        config["mux_latch"] = board.mux.latch_pin
    config["readers"] = [_reader_entry(reader) for reader in layout.readers]
    if mcu.buttons:
        config["buttons"] = list(mcu.buttons)
    if layout.bank:
        # The bank tray changes at most once a turn: the scanner visits it less often.
        config["slow_zones"] = sorted(compartment.zone for compartment in layout.bank)
    return config


def _spi_lines(mcu: McuPins) -> dict:
    """The PN5180s' SPI bus and shared reset line."""
    lines: dict = {}
    if mcu.spi is not None:
        lines["spi"] = {"clock": mcu.spi.sck, "mosi": mcu.spi.mosi, "miso": mcu.spi.miso}
    if mcu.reset is not None:
        lines["reset"] = mcu.reset
    return lines


def _pins(reader: Reader) -> ReaderPins:
    """A reader's pins: a layout with an [mcu] table gives every reader its own
    (``wiring.check`` refuses one without)."""
    assert reader.pins is not None
    return reader.pins


def _reader_entry(reader: Reader) -> dict:
    pins = _pins(reader)
    entry: dict = {}
    if reader.chip == "pn5180":
        entry["cs"] = pins.nss if pins.nss is not None else pins.nss_output
        entry["busy"] = pins.busy
        if pins.irq is not None:
            entry["irq"] = pins.irq
        if pins.reset is not None:
            entry["reset"] = pins.reset
    else:
        entry["tx"] = pins.tx
        entry["rx"] = pins.rx
    wired = [(channel, zone) for channel, zone in enumerate(reader.zones) if zone is not None]
    entry["zones"] = [zone for _, zone in wired]
    channels = [channel for channel, _ in wired]
    if channels != list(range(len(channels))):
        entry["channels"] = channels  # unconnected channels in between
    if pins.mux_select is not None:
        entry["mux"] = list(pins.mux_select)
    return entry


def layout_source(layout: Layout, given: str) -> str:
    """How the generated file names its layout: the repository path for a bundled one."""
    bundled = BUILTIN_LAYOUTS_DIR / f"{layout.name}.toml"
    if given == layout.name and bundled.is_file():
        return f"hardware/layouts/{layout.name}.toml"
    return given


def render_table_config(layout: Layout, given: str) -> str:
    """The text of ``table_config.py`` for ``layout`` (``given``: the LAYOUT argument)."""
    source = layout_source(layout, given)
    config = firmware_config(layout, source)
    mcu = layout.mcu
    assert mcu is not None  # firmware_config refuses a layout that does not wire its MCU
    lines = [
        '"""Wiring of this table, read by code.py on the board.',
        "",
        f"Generated by `{GENERATOR} {given}` from {source}",
        f"(layout {layout.name}, {layout.zone_count} zones, {len(layout.readers)} readers). "
        "Do not edit:",
        "change the layout file and generate again (docs/hardware.md, 'Wiring').",
        '"""',
        "",
        f"LAYOUT = {_literal(layout.name)}",
        "",
        *(["# boot.py: jumper from this pin to GND at power-up = development mode "
           "(CIRCUITPY writable).",
           f"DEV_JUMPER = {_literal(mcu.dev_jumper)}", ""]
          if mcu.dev_jumper is not None else []),
        "CONFIG = {",
    ]
    for key, value in config.items():
        if key == "readers":
            lines.append('    "readers": [')
            for reader, entry in zip(layout.readers, value, strict=True):
                label = f": {reader.label}" if reader.label else ""
                lines.append(f"        # reader {reader.index}{label}")
                lines.append(f"        {_literal(entry)},")
            lines.append("    ],")
            continue
        if key == "mux":
            lines.append("    # Multiplexer select lines, S0 (least significant) first.")
        elif key == "mux_enable":
            lines.append("    # EN_N of every multiplexer, driven low to enable (R2 pulls it up).")
        elif key == "mux_settle_us":
            board = describe(layout)
            relay = board.mux.relay
            lines.append(f"    # Relay {relay.part}: operate {relay.operate_us} us + bounce "
                         f"{relay.bounce_us} us, release {relay.release_us} us "
                         "(hardware/parts.toml).")
        elif key == "fields_at_once":
            board = describe(layout)
            budget = (f"{board.scanner_amps:g} A budget" if board.scanner_amps is not None
                      else "no [power] budget")
            lines.append(f"    # Readers' fields on at once: {budget}, "
                         f"{board.reader.field_amps * 1000:g} mA a field, "
                         f"{board.idle_amps * 1000:.0f} mA relays and bias.")
        elif key == "buttons":
            lines.append("    # Seat buttons 0, 1, ...: to ground, internal pull-ups.")
        elif key == "mux_latch":
            decoder = layout.mcu.nss_decoder if layout.mcu is not None else None
            part = latch_decoder_part(len(decoder.address) if decoder else 3)
            lines.append(f"    # Enable of the {part} strobing each multiplexer's LE (address: "
                         "the NSS decoder's lines):")
            lines.append("    # every board holds its own channel, the scan runs pipelined.")
        elif key == "nss_decoder":
            decoder = layout.mcu.nss_decoder if layout.mcu is not None else None
            part = decoder.part if decoder is not None else "74HC138"
            lines.append(f"    # {part} driving the chip selects: address A0 first, enable "
                         "active low.")
        lines.append(f"    {_literal(key)}: {_literal(value)},")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert read_config_text(text) == config  # the text says what the dict says
    return text


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool) or value is None:
        raise TypeError(f"no such value in a firmware config: {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no such value in a firmware config: {value!r}")


def read_config_text(text: str, source: str = "table_config.py", name: str = "CONFIG",
                     required: bool = True) -> object:
    """``CONFIG`` (or another constant, e.g. ``DEV_JUMPER``) of a table_config.py, read
    without running it; None for a missing constant that is not ``required``."""
    try:
        tree = ast.parse(text, filename=source)
    except SyntaxError as error:
        raise FirmwareConfigError(f"{source}: line {error.lineno}: {error.msg}") from None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                raise FirmwareConfigError(f"{source}: line {node.lineno}: {name} is not a plain "
                                          "literal (dicts, lists, strings, numbers)") from None
    if not required:
        return None
    raise FirmwareConfigError(f"{source}: no {name} = ... assignment")


# --------------------------------------------------------------------------- README table


def _span(count: int) -> str:
    return "0" if count == 1 else f"0–{count - 1}"


def _pn5180_rows(mcu: McuPins, pn5180: list[Reader]) -> list[tuple[str, str | None, str]]:
    """The wiring table's rows of the PN5180 readers: NSS (or the decoder), BUSY, RST."""
    rows: list[tuple[str, str | None, str]] = []
    if mcu.nss_decoder is not None:
        decoder = mcu.nss_decoder
        rows.append((f"decoder A0–A{len(decoder.address) - 1}", ", ".join(decoder.address),
                     f"address inputs of the {decoder.part}"))
        rows.append(("decoder enable", decoder.enable, decoder.enable_wiring))
    nss = [_pins(r).nss or f"Y{_pins(r).nss_output}" for r in pn5180]
    part = mcu.nss_decoder.part if mcu.nss_decoder is not None else ""
    via = (f" (outputs of the {part})" if any(_pins(r).nss is None for r in pn5180)
           else "")
    rows.append((f"NSS {_span(len(pn5180))}", ", ".join(nss),
                 f"NSS of reader {_span(len(pn5180))}{via}"))
    rows.append((f"BUSY {_span(len(pn5180))}", ", ".join(str(_pins(r).busy) for r in pn5180),
                 f"BUSY of reader {_span(len(pn5180))} (MCU inputs)"))
    irq = [r for r in pn5180 if _pins(r).irq is not None]
    if irq:
        indices = [r.index for r in irq]
        which = (_span(len(irq)) if indices == list(range(len(irq)))
                 else ", ".join(str(index) for index in indices))
        rows.append((f"IRQ {which}", ", ".join(str(_pins(r).irq) for r in irq),
                     f"IRQ of reader {which} (MCU inputs)"))
    if mcu.reset is not None:
        shared = [r for r in pn5180 if _pins(r).reset is None]
        rows.append(("RST", mcu.reset, "RST of every PN5180" if len(shared) == len(pn5180)
                     else "RST of reader " + ", ".join(str(r.index) for r in shared)))
    for reader in pn5180:
        if _pins(reader).reset is not None:
            rows.append((f"RST {reader.index}", _pins(reader).reset,
                         f"RST of reader {reader.index}"))
    return rows


def wiring_table(layout: Layout) -> str:
    """hardware/README.md's table of the scanner's wiring (Markdown)."""
    mcu = layout.mcu
    if mcu is None:
        raise _fail(f"layout {layout.name!r}", "mcu", "the layout does not say how the scanner "
                    "is wired")
    readers = layout.readers
    count = len(readers)
    rows: list[tuple[str, str | None, str]] = [("signal", "pin", "goes to")]
    pn5180 = [r for r in readers if r.chip == "pn5180"]
    if mcu.spi is not None:
        rows += [("SPI SCK", mcu.spi.sck, "SCK of every PN5180"),
                 ("SPI MOSI", mcu.spi.mosi, "MOSI of every PN5180"),
                 ("SPI MISO", mcu.spi.miso, "MISO of every PN5180")]
    if pn5180:
        rows += _pn5180_rows(mcu, pn5180)
    for reader in readers:
        if reader.chip == "pn532":
            pins = _pins(reader)
            rows.append((f"UART TX {reader.index}", pins.tx, f"RX of PN532 {reader.index}"))
            rows.append((f"UART RX {reader.index}", pins.rx, f"TX of PN532 {reader.index}"))
    if mcu.mux_select:
        users = [r for r in readers if _pins(r).mux_select is None]
        target = ("every multiplexer" if len(users) == count
                  else "multiplexer " + ", ".join(str(r.index) for r in users))
        rows.append((f"MUX S0–S{len(mcu.mux_select) - 1}", ", ".join(mcu.mux_select),
                     f"channel select of {target}"))
    if mcu.mux_enable is not None:
        rows.append(("MUX EN_N", mcu.mux_enable, "EN_N of every multiplexer: low enables it "
                     "(R2 pulls it up while the scanner is off)"))
    if mcu.mux_latch is not None and mcu.nss_decoder is not None:
        part = latch_decoder_part(len(mcu.nss_decoder.address))
        enable = "G1 (active high; G2A, G2B to GND)" if part == "74HC238" else \
            "E_N (active low; its LE to 3.3 V)"
        rows.append(("MUX LE strobe", mcu.mux_latch,
                     f"{enable} of the {part} whose address inputs are the decoder's A0–"
                     f"A{len(mcu.nss_decoder.address) - 1}; its output Y*n* goes to LE of the "
                     "multiplexer of the reader on NSS output *n* (R3 pulls LE down)"))
    for reader in readers:
        select = _pins(reader).mux_select
        if select is not None:
            rows.append((f"MUX {reader.index} S0–S{len(select) - 1}", ", ".join(select),
                         f"channel select of multiplexer {reader.index}"))
    if mcu.buttons:
        names = {seat.button: seat.name for seat in layout.seats if seat.button is not None}
        seats = ", ".join(f"{i} ({names[i]})" if i in names else str(i)
                          for i in range(len(mcu.buttons)))
        rows.append((f"button {_span(len(mcu.buttons))}", ", ".join(mcu.buttons),
                     f"seat button {seats}: push button to GND (internal pull-up)"))
    if mcu.dev_jumper is not None:
        rows.append(("dev jumper", mcu.dev_jumper, "GND through a jumper at power-up: development "
                     "mode (CIRCUITPY writable); open for play"))
    lines = [f"| {' | '.join(cell or '' for cell in row)} |" for row in rows]
    lines.insert(1, "|---|---|---|")
    return "\n".join(lines) + "\n"

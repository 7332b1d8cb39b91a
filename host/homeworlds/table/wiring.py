"""The scanner's wiring: which microcontroller pin goes to which reader signal.

A layout file's ``[mcu]`` table (shared lines: SPI bus, reset, multiplexer
select lines, chip-select decoder, seat buttons) and the pin keys of its
``[[readers]]`` (``nss``, ``busy``, ...) are the one place the wiring is
written down: the firmware's ``table_config.py`` is generated from them
(:mod:`homeworlds.table.fwconfig`) and hardware/README.md's wiring tables are
checked against them by a test.

This module parses those keys and checks that the pins add up, before anything
is soldered or flashed: a pin used for two things, an MCU output wired to a
PN5180 BUSY output (the two drivers would fight), a reader channel beyond what
its multiplexer's select lines can address, SPI pins that are not one SPI
peripheral of the board. Errors are :class:`WiringError` with the key path;
the layout loader adds the file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

PIN_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")

# Pins on the header of boards we know, by CircuitPython board id (boot_out.txt).
# The Pico's GP23-GP25 drive the regulator, sense VBUS and light the LED.
_PICO_HEADER = tuple(f"GP{n}" for n in (*range(23), 26, 27, 28))
# The PGA2350 (RP2350B) brings out GP0-GP46; GP47 is its PSRAM's chip select. It is the
# scanner of the six-seat table, whose 13 readers and 6 buttons need 34 pins.
_PGA2350_PINS = tuple(f"GP{n}" for n in range(47))
BOARD_PINS: dict[str, tuple[str, ...]] = {
    "raspberry_pi_pico": _PICO_HEADER,
    "raspberry_pi_pico_w": _PICO_HEADER,
    "raspberry_pi_pico2": _PICO_HEADER,
    "raspberry_pi_pico2_w": _PICO_HEADER,
    "pimoroni_pga2350": _PGA2350_PINS,
}


def _rp2_spi(gpio: int) -> tuple[str, str] | None:
    """RP2040/RP2350 pin functions (datasheet, GPIO function table, F1): GPIOs 0-7 of
    every sixteen carry SPI0 and 8-15 SPI1; within four, RX (MISO), CSn, SCK, TX (MOSI)."""
    signal = ("miso", None, "sck", "mosi")[gpio % 4]
    if signal is None:
        return None
    return ("SPI0" if gpio % 16 < 8 else "SPI1"), signal


def _spi_pins(pins: tuple[str, ...]) -> dict[str, dict[str, tuple[str, ...]]]:
    """SPI bus -> signal -> the board's pins that can carry it."""
    buses: dict[str, dict[str, list[str]]] = {}
    for pin in pins:
        function = _rp2_spi(int(pin[2:]))
        if function is not None:
            buses.setdefault(function[0], {}).setdefault(function[1], []).append(pin)
    return {bus: {signal: tuple(found) for signal, found in sorted(signals.items())}
            for bus, signals in sorted(buses.items())}


BOARD_SPI: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    board: _spi_pins(pins) for board, pins in BOARD_PINS.items()}

MAX_SELECT_LINES = 6
MAX_DECODER_LINES = 4


class WiringError(ValueError):
    """A wiring mistake; ``key`` is the key path in the layout file."""

    def __init__(self, reason: str, key: str):
        self.reason = reason
        self.key = key
        super().__init__(f"{key}: {reason}")


@dataclass(frozen=True, slots=True)
class SpiPins:
    sck: str
    mosi: str
    miso: str


@dataclass(frozen=True, slots=True)
class ChipSelectDecoder:
    """A 74HC138-style decoder driving the readers' NSS lines: ``address``
    (A0 first) picks output Y\\ *n*, ``enable`` (to the active-low G2A input)
    makes it go low; the other enable inputs are tied active."""

    address: tuple[str, ...]
    enable: str

    @property
    def outputs(self) -> int:
        return 1 << len(self.address)

    @property
    def part(self) -> str:
        """The decoder chip for this many address lines (one active-low output each)."""
        return {1: "74HC139", 2: "74HC139", 3: "74HC138"}.get(len(self.address), "74HC154")

    @property
    def enable_wiring(self) -> str:
        """Where ``enable`` goes on ``part``, and what the other enable inputs are tied to."""
        if self.part == "74HC138":
            return "G2A (active low) of the 74HC138; G1 to 3.3 V, G2B to GND"
        if self.part == "74HC154":
            return "G1 (active low) of the 74HC154; G2 to GND"
        return "G (active low) of one half of the 74HC139"


@dataclass(frozen=True, slots=True)
class McuPins:
    """The ``[mcu]`` table: lines shared by the readers, and the buttons."""

    board: str | None = None
    spi: SpiPins | None = None
    reset: str | None = None
    """Shared RST of every PN5180 (a reader's own ``reset`` overrides it)."""
    mux_select: tuple[str, ...] = ()
    """Channel-select lines shared by every multiplexer, S0 first."""
    mux_enable: str | None = None
    """EN_N of every multiplexer (active low). The multiplexer board pulls EN_N up
    (R2 of hardware/netlist/mux16.toml): without a pin driving it low the decoder
    stays disabled and no relay ever closes."""
    nss_decoder: ChipSelectDecoder | None = None
    mux_latch: str | None = None
    """Enable of the latch decoder (:func:`latch_decoder_part`, active-high outputs) whose
    address inputs are ``nss_decoder``'s lines: output *n* goes to ``LE`` of the
    multiplexer of the reader with ``nss_output = n``, so each board latches its own
    channel from the shared select lines (the pipelined scan). Without it a board's
    ``LE`` must be tied high (transparent) and the boards follow the select lines."""
    buttons: tuple[str, ...] = ()
    """Pin of seat button 0, 1, ... (to ground, internal pull-up)."""
    dev_jumper: str | None = None
    """Pin that a jumper to GND at power-up puts the board in development mode
    (CIRCUITPY writable by the host); read by boot.py."""


@dataclass(frozen=True, slots=True)
class ReaderPins:
    """Pins of one reader. PN5180: ``nss`` (or ``nss_output`` of the decoder),
    ``busy``, optional ``irq``, own ``reset`` and ``mux_select``. PN532: ``tx``, ``rx``."""

    nss: str | None = None
    nss_output: int | None = None
    busy: str | None = None
    reset: str | None = None
    mux_select: tuple[str, ...] | None = None
    irq: str | None = None
    """The MCU input the PN5180's IRQ output goes to (optional): an empty slot is then told
    by one pin reading instead of an IRQ_STATUS read over SPI."""
    tx: str | None = None
    rx: str | None = None

    @property
    def empty(self) -> bool:
        return self == ReaderPins()


MCU_KEYS = ("board", "spi", "reset", "mux_select", "mux_enable", "nss_decoder", "mux_latch",
            "buttons", "dev_jumper")
READER_PIN_KEYS = ("nss", "nss_output", "busy", "irq", "reset", "mux_select", "tx", "rx")


def latch_decoder_part(address_lines: int) -> str:
    """The decoder with active-high outputs (idle low) that strobes the multiplexers'
    ``LE`` from this many address lines: a 74HC238 (3-to-8) up to three, else a
    74HC4514 (4-to-16, its own LE tied high)."""
    return "74HC238" if address_lines <= 3 else "74HC4514"


# --------------------------------------------------------------------------- parsing


def _pin(value: object, key: str) -> str:
    if not isinstance(value, str) or not PIN_NAME.match(value.strip()):
        raise WiringError(f"expected a pin name such as \"GP5\", got {value!r}", key)
    return value.strip()


def _pins(value: object, key: str, *, limit: int | None = None) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise WiringError(f"expected an array of pin names, got {value!r}", key)
    if limit is not None and not 1 <= len(value) <= limit:
        raise WiringError(f"expected 1 to {limit} pins, got {len(value)}", key)
    return tuple(_pin(item, f"{key}[{i}]") for i, item in enumerate(value))


def _table(value: object, key: str, allowed: Sequence[str]) -> dict:
    if not isinstance(value, dict):
        raise WiringError(f"expected a table, got {value!r}", key)
    for name in value:
        if name not in allowed:
            raise WiringError(f"unknown key (expected one of: {', '.join(allowed)})",
                              f"{key}.{name}")
    return value


def parse_mcu(value: object) -> McuPins:
    """The ``[mcu]`` table of a layout file."""
    data = _table(value, "mcu", MCU_KEYS)
    board = data.get("board")
    if board is not None and (not isinstance(board, str) or not board.strip()):
        raise WiringError(f"expected a CircuitPython board id such as \"raspberry_pi_pico\", "
                          f"got {board!r}", "mcu.board")
    spi = None
    if "spi" in data:
        table = _table(data["spi"], "mcu.spi", ("sck", "mosi", "miso"))
        for name in ("sck", "mosi", "miso"):
            if name not in table:
                raise WiringError("missing (required)", f"mcu.spi.{name}")
        spi = SpiPins(*(_pin(table[name], f"mcu.spi.{name}") for name in ("sck", "mosi", "miso")))
    reset = _pin(data["reset"], "mcu.reset") if "reset" in data else None
    mux_select = (_pins(data["mux_select"], "mcu.mux_select", limit=MAX_SELECT_LINES)
                  if "mux_select" in data else ())
    mux_enable = _pin(data["mux_enable"], "mcu.mux_enable") if "mux_enable" in data else None
    decoder = None
    if "nss_decoder" in data:
        table = _table(data["nss_decoder"], "mcu.nss_decoder", ("address", "enable"))
        for name in ("address", "enable"):
            if name not in table:
                raise WiringError("missing (required)", f"mcu.nss_decoder.{name}")
        decoder = ChipSelectDecoder(
            _pins(table["address"], "mcu.nss_decoder.address", limit=MAX_DECODER_LINES),
            _pin(table["enable"], "mcu.nss_decoder.enable"))
    latch = _pin(data["mux_latch"], "mcu.mux_latch") if "mux_latch" in data else None
    if latch is not None and decoder is None:
        raise WiringError("the latch decoder's address inputs are the NSS decoder's lines: "
                          "mux_latch needs mcu.nss_decoder (and each reader's nss_output)",
                          "mcu.mux_latch")
    buttons = _pins(data["buttons"], "mcu.buttons") if "buttons" in data else ()
    jumper = _pin(data["dev_jumper"], "mcu.dev_jumper") if "dev_jumper" in data else None
    return McuPins(board.strip() if board else None, spi, reset, mux_select, mux_enable, decoder,
                   latch, buttons, jumper)


def parse_reader_pins(data: dict, key: str) -> ReaderPins:
    """The pin keys of one ``[[readers]]`` table (other keys are the layout's)."""
    values: dict[str, Any] = {}
    for name in ("nss", "busy", "irq", "reset", "tx", "rx"):
        if name in data:
            values[name] = _pin(data[name], f"{key}.{name}")
    if "nss_output" in data:
        output = data["nss_output"]
        if isinstance(output, bool) or not isinstance(output, int) or output < 0:
            raise WiringError(f"expected a decoder output number 0, 1, ..., got {output!r}",
                              f"{key}.nss_output")
        values["nss_output"] = output
    if "mux_select" in data:
        values["mux_select"] = _pins(data["mux_select"], f"{key}.mux_select",
                                     limit=MAX_SELECT_LINES)
    return ReaderPins(**values)


# --------------------------------------------------------------------------- checking


@dataclass(frozen=True, slots=True)
class _Use:
    key: str
    role: str  # "output" (the MCU drives it), "busy" (a PN5180 drives it), "input"

    def text(self) -> str:
        if self.role == "busy":
            output = "IRQ" if self.key.endswith(".irq") else "BUSY"
            return f"{self.key} (driven by the PN5180's {output} output)"
        if self.role == "output":
            return f"{self.key} (an MCU output)"
        return f"{self.key} (an MCU input)"


class _PinClaims:
    """Who uses each MCU pin: a pin used twice is refused (with why it cannot work)."""

    def __init__(self, mcu: McuPins):
        self.board = mcu.board
        self.known = BOARD_PINS.get(mcu.board or "")
        self.uses: dict[str, _Use] = {}
        self.shared_groups: dict[tuple[str, ...], str] = {}

    def claim(self, pin: str, key: str, role: str, *, shareable: str | None = None) -> None:
        known = self.known
        if known is not None and pin not in known:
            raise WiringError(f"{self.board} has no pin {pin} on its header (pins: "
                              f"{_pin_ranges(known)})", key)
        before = self.uses.get(pin)
        if before is None:
            self.uses[pin] = _Use(key, role)
            return
        if shareable is not None and before.role == role and shareable in before.key:
            return  # the same shared line named again (a reader's own reset = the shared one)
        use = _Use(key, role)
        if "busy" in (before.role, use.role) and "output" in (before.role, use.role):
            raise WiringError(f"pin {pin} is {before.text()} and {use.text()}: the MCU and "
                              "the PN5180 would drive the same wire against each other", key)
        raise WiringError(f"pin {pin} is already used by {before.key}", key)

    def claim_group(self, pins: tuple[str, ...], key: str) -> None:
        # Select lines may be shared by several multiplexers as a whole group.
        if pins in self.shared_groups:
            return
        for i, pin in enumerate(pins):
            self.claim(pin, f"{key}[{i}]", "output")
        self.shared_groups[pins] = key


def check(mcu: McuPins, readers: Sequence, seats: Sequence) -> None:
    """Refuse wiring that cannot work; ``readers`` are layout Readers (with
    ``chip``, ``channels``, ``zones``, ``pins``), ``seats`` layout Seats."""
    claims = _PinClaims(mcu)
    _claim_shared_lines(claims, mcu, any(r.chip == "pn5180" for r in readers))
    decoder_outputs: dict[int, str] = {}
    for reader in readers:
        _claim_reader(claims, reader, mcu, decoder_outputs)
    for seat in seats:
        if seat.button is not None and seat.button >= len(mcu.buttons):
            raise WiringError(f"button {seat.button} has no pin: mcu.buttons lists "
                              f"{len(mcu.buttons)} (button n is mcu.buttons[n])",
                              f"seats[{seat.index}].button")
    for i, pin in enumerate(mcu.buttons):
        claims.claim(pin, f"mcu.buttons[{i}]", "input")
    if mcu.dev_jumper is not None:
        claims.claim(mcu.dev_jumper, "mcu.dev_jumper", "input")


def _claim_shared_lines(claims: _PinClaims, mcu: McuPins, any_pn5180: bool) -> None:
    """The lines the readers share: SPI, reset, multiplexer select, NSS decoder."""
    if mcu.spi is not None:
        claims.claim(mcu.spi.sck, "mcu.spi.sck", "output")
        claims.claim(mcu.spi.mosi, "mcu.spi.mosi", "output")
        claims.claim(mcu.spi.miso, "mcu.spi.miso", "input")
        _check_spi_peripheral(mcu)
    elif any_pn5180:
        raise WiringError("PN5180 readers need the SPI bus: add spi = { sck = ..., mosi = ..., "
                          "miso = ... }", "mcu.spi")
    if mcu.reset is not None:
        claims.claim(mcu.reset, "mcu.reset", "output", shareable="reset")
    if mcu.mux_select:
        claims.claim_group(mcu.mux_select, "mcu.mux_select")
    if mcu.mux_enable is not None:
        claims.claim(mcu.mux_enable, "mcu.mux_enable", "output")
    if mcu.nss_decoder is not None:
        for i, pin in enumerate(mcu.nss_decoder.address):
            claims.claim(pin, f"mcu.nss_decoder.address[{i}]", "output")
        claims.claim(mcu.nss_decoder.enable, "mcu.nss_decoder.enable", "output")
    if mcu.mux_latch is not None:
        claims.claim(mcu.mux_latch, "mcu.mux_latch", "output")


def _claim_reader(claims: _PinClaims, reader, mcu: McuPins,
                  decoder_outputs: dict[int, str]) -> None:
    """One reader's own pins (SPI select and BUSY of a PN5180, UART of a PN532) and its
    multiplexer's select lines."""
    key = f"readers[{reader.index}]"
    pins = reader.pins or ReaderPins()
    if reader.chip == "pn5180":
        _check_pn5180(reader, pins, mcu, key, decoder_outputs)
        if pins.nss is not None:
            claims.claim(pins.nss, f"{key}.nss", "output")
        assert pins.busy is not None  # _check_pn5180 refused a reader without it
        claims.claim(pins.busy, f"{key}.busy", "busy")
        if pins.irq is not None:
            claims.claim(pins.irq, f"{key}.irq", "busy")  # the PN5180 drives it too
        if pins.reset is not None:
            claims.claim(pins.reset, f"{key}.reset", "output", shareable="reset")
    else:
        for name in ("nss", "nss_output", "busy", "irq", "reset"):
            if getattr(pins, name) is not None:
                raise WiringError("a PN532 reader is wired by its UART: give tx and rx",
                                  f"{key}.{name}")
        for name in ("tx", "rx"):
            if getattr(pins, name) is None:
                raise WiringError("missing (required for a PN532 reader: its UART pins)",
                                  f"{key}.{name}")
        assert pins.tx is not None and pins.rx is not None  # checked just above
        claims.claim(pins.tx, f"{key}.tx", "output")
        claims.claim(pins.rx, f"{key}.rx", "input")
    select = pins.mux_select if pins.mux_select is not None else mcu.mux_select
    select_key = f"{key}.mux_select" if pins.mux_select is not None else "mcu.mux_select"
    if pins.mux_select is not None:
        claims.claim_group(pins.mux_select, f"{key}.mux_select")
    _check_channels(reader, select, select_key, key)


def _check_pn5180(reader, pins: ReaderPins, mcu: McuPins, key: str,
                  decoder_outputs: dict[int, str]) -> None:
    for name in ("tx", "rx"):
        if getattr(pins, name) is not None:
            raise WiringError("a PN5180 reader is wired by SPI: give nss and busy", f"{key}.{name}")
    if pins.busy is None:
        raise WiringError("missing (required for a PN5180 reader: the pin its BUSY output "
                          "goes to)", f"{key}.busy")
    if (pins.nss is None) == (pins.nss_output is None):
        raise WiringError("give either nss (an MCU pin) or nss_output (an output of "
                          "mcu.nss_decoder), not both or neither", f"{key}.nss")
    if pins.nss_output is not None:
        decoder = mcu.nss_decoder
        if decoder is None:
            raise WiringError("nss_output needs mcu.nss_decoder (the decoder's address and "
                              "enable pins)", f"{key}.nss_output")
        if pins.nss_output >= decoder.outputs:
            raise WiringError(f"output {pins.nss_output} is beyond the decoder's "
                              f"{decoder.outputs} outputs ({len(decoder.address)} address "
                              "lines)", f"{key}.nss_output")
        if pins.nss_output in decoder_outputs:
            raise WiringError(f"decoder output {pins.nss_output} already selects "
                              f"{decoder_outputs[pins.nss_output]}", f"{key}.nss_output")
        decoder_outputs[pins.nss_output] = key
    if pins.reset is None and mcu.reset is None:
        raise WiringError("no reset line: set mcu.reset (shared) or this reader's reset",
                          f"{key}.reset")
    if mcu.mux_latch is not None and reader.channels > 1:
        if pins.nss_output is None:
            raise WiringError("with mcu.mux_latch this reader's multiplexer latches on the "
                              "latch decoder's output of its chip select: give nss_output "
                              "(an output of mcu.nss_decoder), not nss", f"{key}.nss")
        if pins.mux_select is not None:
            raise WiringError("a multiplexer that latches its channel takes the shared "
                              "mcu.mux_select lines: drop this reader's own mux_select",
                              f"{key}.mux_select")


def _check_channels(reader, select: tuple[str, ...], select_key: str, key: str) -> None:
    wired = [c for c, zone in enumerate(reader.zones) if zone is not None]
    if not select:
        if any(c > 0 for c in wired) or reader.channels > 1:
            raise WiringError(f"{reader.channels} multiplexer channels but no select lines: set "
                              "mcu.mux_select (shared) or this reader's mux_select",
                              f"{key}.channels")
        return
    reach = 1 << len(select)
    for channel in wired:
        if channel >= reach:
            raise WiringError(f"channel {channel} is beyond the multiplexer: {len(select)} "
                              f"select lines ({select_key}) reach channels 0-{reach - 1}",
                              f"{key}.zones[{channel}]")
    if reader.channels > reach:
        raise WiringError(f"{reader.channels} channels but {len(select)} select lines "
                          f"({select_key}) reach only {reach}", f"{key}.channels")


def _check_spi_peripheral(mcu: McuPins) -> None:
    buses = BOARD_SPI.get(mcu.board or "")
    if buses is None or mcu.spi is None:
        return
    for signals in buses.values():
        if (mcu.spi.sck in signals["sck"] and mcu.spi.mosi in signals["mosi"]
                and mcu.spi.miso in signals["miso"]):
            return
    options = "; ".join(f"{bus}: SCK {'/'.join(s['sck'])}, MOSI {'/'.join(s['mosi'])}, "
                        f"MISO {'/'.join(s['miso'])}" for bus, s in buses.items())
    raise WiringError(f"SCK {mcu.spi.sck}, MOSI {mcu.spi.mosi}, MISO {mcu.spi.miso} are not one "
                      f"SPI peripheral of {mcu.board} ({options})", "mcu.spi")


def _pin_ranges(pins: Iterable[str]) -> str:
    numbers = sorted(int(p[2:]) for p in pins if p.startswith("GP") and p[2:].isdigit())
    parts: list[list[int]] = []
    for n in numbers:
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(f"GP{a}" if a == b else f"GP{a}-GP{b}" for a, b in parts)

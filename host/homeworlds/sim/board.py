"""The simulated board around the PN5180 chips, built from the board's description.

:func:`homeworlds.table.board.describe` reads the layout, the multiplexer's netlist and
hardware/parts.toml; this module turns that description into the parts the emulated
readers are wired to:

- :class:`RelayMux` - one multiplexer: the decoder (4 select lines, active-low enable)
  with its input latch (the 74HCT4514's ``LE``: high = transparent, the decoder follows
  the shared select lines; low = it holds what it had; tied high on the old boards,
  strobed per board from the latch decoder, :class:`DecoderOutput`, on the new ones),
  a relay per channel with the datasheet's operate, bounce and release times. The enable
  is an MCU line when the layout gives ``mcu.mux_enable``; otherwise the net stays at the
  level its pull resistor holds it (R2 pulls EN_N up: the decoder is disabled, no relay
  ever closes). A pad is connected once its relay closed and stopped bouncing; while two
  relays are closed at once (the old one releasing) the field reaches neither pad cleanly.
- :class:`Supply` - the 5 V supply: every field that is on, one relay coil and one pad
  bias per enabled multiplexer, and the LEDs draw from its rating; past it the rail
  sags and every reader resets (a brown-out), as a PN5180 does below its supply's
  minimum.
- :func:`ether` - whether a chip senses another reader's field (RF_ON with collision
  avoidance then fails, :mod:`homeworlds.sim.pn5180_chip`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from homeworlds.sim.pn5180_chip import Pn5180Chip
from homeworlds.table.board import Board, Relay


class Line:
    """A net between the MCU and a multiplexer: a pin sets ``value``; the board hears it.
    With a ``clock``, every write costs the MCU ``cost_us`` (a call into C)."""

    def __init__(self, level: bool, on_change: Callable[[], None] | None = None,
                 clock=None, cost_us: float = 0.0) -> None:
        self._value = level
        self.on_change = on_change
        self.clock = clock
        self.cost_us = cost_us
        self.writes = 0

    @property
    def value(self) -> bool:
        return self._value

    @value.setter
    def value(self, level: bool) -> None:
        self.writes += 1
        if self.clock is not None and self.cost_us:
            self.clock.advance_us(self.cost_us)
        level = bool(level)
        if level != self._value:
            self._value = level
            if self.on_change is not None:
                self.on_change()

    def switch_to_output(self, value: bool = False) -> None:
        self.value = value


class PulledNet:
    """A net no pin drives: it stays at the level its resistor holds it at."""

    def __init__(self, level: bool) -> None:
        self.value = level


class DecoderOutput:
    """Output ``output`` of the latch decoder (a 74HC238 or 74HC4514: active-high outputs)
    on ``address`` lines, enabled while ``enable`` is at ``active``: the ``LE`` of one
    multiplexer board."""

    def __init__(self, address: Sequence[Line], enable: Line, output: int,
                 active: bool = True) -> None:
        self.address = address
        self.enable = enable
        self.output = output
        self.active = active

    @property
    def value(self) -> bool:
        if self.enable.value != self.active:
            return False
        return sum(1 << bit for bit, line in enumerate(self.address) if line.value) == self.output


class MicrosecondClock(Protocol):
    """A virtual clock read in microseconds (``SimClock``)."""

    now_us: int


@dataclass
class _Coil:
    on_at: float | None = None  # energised since
    off_at: float | None = None  # released at (after having been energised)
    closed: bool = False  # the last energising lasted long enough to close the contacts


@dataclass
class RelayMux:
    """A multiplexer board: decoder + one relay per channel."""

    select: Sequence[Line]
    enable: Line | PulledNet
    relay: Relay
    clock: MicrosecondClock
    latch: Line | PulledNet | DecoderOutput | None = None
    """The decoder's ``LE``: None or high = transparent (follows ``select``)."""
    coils: dict[int, _Coil] = field(default_factory=dict)
    energised: int | None = None
    switches: int = 0
    held: int = 0
    """What the decoder's input latch holds (random at power-up: 0 here)."""

    def __post_init__(self) -> None:
        self.changed()

    def decoded(self) -> int | None:
        if self.latch is None or self.latch.value:  # transparent: it takes the lines
            self.held = sum(1 << bit for bit, line in enumerate(self.select) if line.value)
        if self.enable.value:  # EN_N high: every decoder output low, every coil off
            return None
        return self.held

    def changed(self) -> None:
        """A select or enable line moved: the decoder drives another coil (or none)."""
        now = self.clock.now_us
        channel = self.decoded()
        if channel == self.energised:
            return
        if self.energised is not None:
            coil = self.coils[self.energised]
            coil.closed = coil.on_at is not None and now - coil.on_at >= self.relay.operate_us
            coil.off_at = now
            coil.on_at = None
        if channel is not None:
            coil = self.coils.setdefault(channel, _Coil())
            coil.on_at = now
            self.switches += 1
        self.energised = channel

    def _closed(self, channel: int, coil: _Coil, at: float) -> tuple[bool, float]:
        """(contacts closed and steady at ``at``, since when)."""
        relay = self.relay
        if coil.on_at is not None:
            steady = coil.on_at + relay.operate_us + relay.bounce_us
            return at >= steady, steady
        if coil.closed and coil.off_at is not None and at < coil.off_at + relay.release_us:
            return True, coil.off_at  # still releasing
        return False, 0.0

    def route(self, at: float) -> tuple[int | None, float]:
        """The one pad connected to the reader at ``at`` and since when; (None, 0) for
        none, or for two at once (a relay still releasing while the next one closed)."""
        closed = []
        since = 0.0
        opened = 0.0
        for channel, coil in self.coils.items():
            shut, when = self._closed(channel, coil, at)
            if shut:
                closed.append(channel)
                since = when
            elif coil.off_at is not None and coil.closed:
                opened = max(opened, coil.off_at + self.relay.release_us)
        if len(closed) != 1:
            return None, 0.0
        return closed[0], max(since, opened)

    def decoder_inputs(self) -> list[PulledNet]:
        """The decoder's inputs behind its latch (what it decodes), S0 first."""
        return [PulledNet(bool(self.held >> bit & 1)) for bit in range(len(self.select))]

    @property
    def coil_on(self) -> bool:
        return self.energised is not None


class Supply:
    """The 5 V rail: ``rating_amps``; the LEDs draw ``led_amps``; the board's parts draw
    what :meth:`draw` adds up. Past the rating every chip resets (``brownouts`` counts)."""

    def __init__(self, board: Board, chips: Sequence[Pn5180Chip], muxes: Sequence[RelayMux],
                 led_amps: float | None = None) -> None:
        self.board = board
        self.chips = list(chips)
        self.muxes = list(muxes)
        self.rating_amps = board.supply.amps if board.supply is not None else float("inf")
        if led_amps is None:
            # The host caps the LEDs at 80 % of the rating minus what it keeps for the scanner.
            budget = board.scanner_amps or 0.0
            led_amps = max(0.0, 0.8 * self.rating_amps - budget) if board.supply else 0.0
        self.led_amps = led_amps
        self.brownouts = 0
        self.peak_amps = 0.0
        self._sagging = False

    def draw(self) -> float:
        relay = self.board.mux.relay.coil_amps + self.board.mux.bias_amps
        fields = sum(1 for chip in self.chips if chip.rf)
        coils = sum(1 for mux in self.muxes if mux.coil_on)
        return self.led_amps + coils * relay + fields * self.board.reader.field_amps

    def check(self, _chip: Pn5180Chip | None = None) -> None:
        if self._sagging:
            return
        amps = self.draw()
        self.peak_amps = max(self.peak_amps, amps)
        if amps > self.rating_amps:
            self.brownouts += 1
            self._sagging = True
            try:
                for chip in self.chips:
                    chip.reset()
            finally:
                self._sagging = False


def ether(chips: Sequence[Pn5180Chip]) -> Callable[[Pn5180Chip], bool]:
    """``external_field(chip)`` for chips that share a table: another one's field is on.
    The readers' pads lie centimetres apart; a PN5180 senses a field far weaker than
    its neighbour's, so any other field on the table counts."""

    def sensed(chip: Pn5180Chip) -> bool:
        return any(other.rf for other in chips if other is not chip)

    return sensed

"""What a firmware configuration (table_config.py's ``CONFIG``) makes the board announce.

:func:`board_plan` runs the firmware's own ``tablefw.config.build`` on stand-in
``board``/``busio``/``digitalio`` modules that accept any pin name, so the
simulated MCU is assembled exactly as the board would assemble itself from the
same ``CONFIG``: the same checks, the same zone count, the same readers in the
same order. Pin names are the only thing not checked here (the layout's wiring
check and the board itself do that).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace

from homeworlds.sim.table import SimError
from tablefw.config import ConfigError, build


@dataclass(frozen=True, slots=True)
class BoardPlan:
    """What the board builds from a CONFIG: each reader's zones (in channel order),
    the zone count HELLO reports, and the number of seat buttons."""

    reader_zones: tuple[tuple[int, ...], ...]
    zone_count: int
    buttons: int


class _AnyBoard:
    """A ``board`` module with every pin name."""

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        return name


class _Line:
    def __init__(self, pin: str) -> None:
        self.pin = pin
        self.value = False

    def switch_to_output(self, value: bool = False) -> None:
        self.value = value

    def switch_to_input(self, pull: object = None) -> None:
        self.value = pull is not None


_DIGITALIO = SimpleNamespace(DigitalInOut=_Line, Pull=SimpleNamespace(UP="UP", DOWN="DOWN"))
_BUSIO = SimpleNamespace(SPI=lambda *args, **kwargs: SimpleNamespace(),
                         UART=lambda *args, **kwargs: SimpleNamespace())


def board_plan(config: Mapping) -> BoardPlan:
    """The board's readers, zone count and buttons for ``config``; SimError naming the
    firmware's complaint if the board would refuse it."""
    try:
        readers, buttons, _settings, zone_count = build(dict(config), _AnyBoard(), _BUSIO,
                                                        _DIGITALIO, clock=lambda: 0,
                                                        sleep=lambda ms: None)
    except ConfigError as error:
        raise SimError(f"the firmware refuses this table_config.py: {error}") from None
    return BoardPlan(tuple(tuple(reader.zones) for reader in readers), zone_count, len(buttons))

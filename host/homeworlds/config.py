"""The table's configuration file (TOML), read strictly.

Every key is known; an unknown or mistyped key, a missing file or a wrong value is an
error naming the file and the key. See docs/configuration.md for every key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeworlds.hints.settings import HintSettings, HintSettingsError
from homeworlds.pixels.errors import PixelSettingsError
from homeworlds.pixels.settings import PixelSettings
from homeworlds.rules.presets import PRESETS, Rules, preset
from homeworlds.table.layout import Layout, LayoutError, builtin_layout, load_layout
from homeworlds.table.registry import Registry, RegistryError


class ConfigError(ValueError):
    def __init__(self, source: str, key: str | None, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(": ".join(p for p in (source, key, reason) if p))


_SECTIONS: dict[str, dict[str, type | tuple]] = {
    "table": {"layout": str, "registry": str, "rules": str, "players": list,
              "alignment_seed": int},
    "serial": {"port": str, "baudrate": int, "heartbeat_timeout": (int, float)},
    "handicaps": {"timewarp_turns": int, "red_alert": bool, "brain_transference": bool,
                  "junior_seat": int},
    "pixels": {},  # checked by PixelSettings
    "hints": {},   # checked by HintSettings
}


@dataclass(frozen=True)
class TableConfig:
    source: str
    layout: Layout
    registry: Registry | None
    registry_path: Path | None
    rules: Rules
    players: tuple[str, ...]
    port: str | None
    baudrate: int = 115200
    heartbeat_timeout: float = 3.0
    pixels: PixelSettings = field(default_factory=PixelSettings)
    hints: HintSettings = field(default_factory=HintSettings)
    #: Good/Evil: seed of the alignment deal (None: a fresh random deal per game).
    alignment_seed: int | None = None


def load_config(path: str | Path) -> TableConfig:
    path = Path(path)
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(source, None, "no such file") from None
    except OSError as exc:
        raise ConfigError(source, None, exc.strerror or str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, None, f"not valid TOML: {exc}") from None
    return config_from_mapping(data, source, base=path.parent)


def config_from_mapping(data: dict[str, Any], source: str, base: Path = Path(".")
                        ) -> TableConfig:
    for section, value in data.items():
        if section not in _SECTIONS:
            raise ConfigError(source, section, f"unknown section (sections: "
                              f"{', '.join(_SECTIONS)})")
        if not isinstance(value, dict):
            raise ConfigError(source, section, "must be a table ([section])")
        for key, item in value.items():
            if section in ("pixels", "hints"):
                continue
            if key not in _SECTIONS[section]:
                raise ConfigError(source, f"{section}.{key}", "unknown key (keys: "
                                  f"{', '.join(_SECTIONS[section])})")
            want = _SECTIONS[section][key]
            if not isinstance(item, want) or isinstance(item, bool) and want is not bool:
                raise ConfigError(source, f"{section}.{key}", f"wrong type {type(item).__name__}")
    table = data.get("table", {})
    serial = data.get("serial", {})
    layout_name = table.get("layout", "standard-2p")
    try:
        candidate = base / layout_name
        layout = (load_layout(candidate) if layout_name.endswith(".toml")
                  else builtin_layout(layout_name))
    except (LayoutError, KeyError, FileNotFoundError, ValueError) as exc:
        raise ConfigError(source, "table.layout", str(exc)) from None
    registry, registry_path = None, None
    if "registry" in table:
        registry_path = base / table["registry"]
        if registry_path.exists():
            try:
                registry = Registry.load(registry_path)
            except RegistryError as exc:
                raise ConfigError(source, "table.registry", str(exc)) from None
    rules_name = table.get("rules", "looney")
    if rules_name not in PRESETS:
        raise ConfigError(source, "table.rules", f"unknown preset {rules_name!r} (presets: "
                          f"{', '.join(PRESETS)})")
    rules = preset(rules_name)
    handicaps = data.get("handicaps", {})
    if handicaps:
        rules = rules.with_handicaps(**handicaps)
    players = tuple(table.get("players", [s.name for s in layout.seats]))
    if len(players) != len(layout.seats) or not all(isinstance(p, str) and p for p in players):
        raise ConfigError(source, "table.players", f"name one player per seat of the layout "
                          f"({len(layout.seats)} seats)")
    try:
        pixels = PixelSettings.from_mapping(data.get("pixels", {}), source=source,
                                            prefix="pixels.")
        hints = HintSettings.from_mapping(data.get("hints", {}), source=source, prefix="hints.")
    except (PixelSettingsError, HintSettingsError) as exc:
        raise ConfigError("", None, str(exc)) from None  # already names file and key
    return TableConfig(source, layout, registry, registry_path, rules, players,
                       serial.get("port"), serial.get("baudrate", 115200),
                       float(serial.get("heartbeat_timeout", 3.0)), pixels, hints,
                       table.get("alignment_seed"))

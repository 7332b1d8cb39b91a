"""The table's configuration file (TOML), read strictly.

Every key is known; an unknown or mistyped key, a missing file or a wrong value is an
error naming the file and the key. See docs/configuration.md for every key.
"""

from __future__ import annotations

import functools
import math
import socket
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from homeworlds.clock import ClockSpec, ClockSpecError
from homeworlds.event.settings import EVENT_KEYS, EventSettings, EventSettingsError
from homeworlds.hints import HintSettings, HintSettingsError
from homeworlds.pixels import PixelSettings, PixelSettingsError
from homeworlds.remote.settings import REMOTE_KEYS, RemoteSettings, RemoteSettingsError
from homeworlds.rules import PRESETS, Rules, preset
from homeworlds.table.layout import Layout, LayoutError, builtin_layout, load_layout
from homeworlds.table.registry import COPY_LETTERS, Registry, RegistryError
from tablefw.settings import SETTINGS as SCANNER_SETTINGS
from tablefw.settings import Settings as ScannerSettings


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
    "store": {"path": str, "table": str},
    "clock": {},   # checked by ClockSpec (docs/clocks.md)
    # Publishing to an event's MQTT broker (docs/event.md); absent: no broker at all.
    "event": dict(EVENT_KEYS),
    # Playing this table's game against another table over a broker (docs/remote-play.md).
    "remote": dict(REMOTE_KEYS),
    # The web display (docs/display.md): where it listens, its admin token, attract mode.
    "display": {"enabled": bool, "listen": str, "port": int, "admin_token": str,
                "attract_after_s": (int, float), "attract_leds": bool},
    # Firmware settings the host sends with CFG after every (re)connect and table restart.
    "scanner": {key: int for key in SCANNER_SETTINGS},
    # The computer at the table (docs/computer-opponent.md, "At the table").
    "computer": {"time_limits": dict, "hint_level": int},
    "seats": {},  # checked by _computer_seats
    # A seat played from a phone (docs/remote-play.md, "A seat played from a phone").
    "phone": {"seat": int, "listen": str, "port": int},
}

#: Keys of one ``[seats.N]`` table.
_SEAT_KEYS: dict[str, type | tuple] = {"computer": bool, "level": int,
                                       "time_limit": (int, float), "seed": int}
#: Seconds a computer level may be given per move at the table.
TIME_LIMIT_RANGE = (0.1, 600.0)


#: Attract mode starts after this many idle seconds (0: never). Under ten seconds it would
#: start while players are still sitting down; a day is the longest that makes sense.
ATTRACT_AFTER_RANGE = (10.0, 86400.0)

#: A configuration file is a page of text; anything larger is not one (and is not read whole).
MAX_CONFIG_BYTES = 1 << 20
#: Serial speeds pyserial and the USB-serial chips we know accept (USB CDC ignores it).
BAUDRATE_RANGE = (300, 4_000_000)
#: Seconds of silence before the link counts as down. The firmware sends a heartbeat every
#: second (docs/protocol.md, ``hb_ms``) and the host pings at half this timeout: under half
#: a second a USB hiccup flaps the link; over two minutes an unplugged cable goes unnoticed
#: for a whole turn.
HEARTBEAT_TIMEOUT_RANGE = (0.5, 120.0)
#: Second Turn Timewarp bonus turns. The rulebook says "one or more" (rulebooks/000, novice
#: handicaps); more than ten bonus turns is no longer a game.
TIMEWARP_TURNS_RANGE = (0, 10)
#: Longest player name: the record, the terminal and the LED bar labels show it.
MAX_NAME_LENGTH = 40
#: Characters a player name may not contain: SDG writes ``K) name: action`` and
#: ``Participants: name (S), ...``, and names homes after players (system names are one
#: word; the cooked format also separates actions with ``;``).
NAME_FORBIDDEN = ":(),;"


#: Shortest admin token accepted from a configuration (a generated one has 32 characters).
MIN_ADMIN_TOKEN = 16


@dataclass(frozen=True)
class DisplayConfig:
    """``[display]``: the web display ``play`` serves (docs/display.md)."""

    enabled: bool = False
    listen: str = "127.0.0.1"
    port: int = 8080
    #: None: a fresh token is generated at every start and printed (with a QR code)
    admin_token: str | None = None


@dataclass(frozen=True)
class PhoneConfig:
    """``[phone]``: the seat a phone plays and where its pages are served."""

    seat: int
    listen: str = "127.0.0.1"
    port: int = 8090


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
    #: the game store (SQLite), relative paths from the configuration's directory
    store_path: Path | None = None
    #: this table's name in the store as configured (``[store] table``; None: the default,
    #: ``table_name``)
    store_table: str | None = None
    scanner: dict[str, int] = field(default_factory=dict)
    #: Good/Evil: seed of the alignment deal (None: a fresh random deal per game).
    alignment_seed: int | None = None
    #: the time control of this table's games (docs/clocks.md); mode "none" by default
    clock: ClockSpec = field(default_factory=ClockSpec)
    #: whether the event's hub may set the time control of this table's next games
    #: (``[clock] from_event``; docs/clocks.md, "Set by the event's hub")
    clock_from_event: bool = True
    #: the event's MQTT broker this table publishes to (None: no broker)
    event: EventSettings | None = None
    display: DisplayConfig = field(default_factory=DisplayConfig)
    #: [display] attract mode: idle seconds before replays start (0: never), and whether
    #: the LEDs replay the games too.
    attract_after_s: float = 120.0
    attract_leds: bool = False
    #: Seats the computer plays, by seat index (``[seats.N] computer = true``).
    computer_seats: dict = field(default_factory=dict)
    #: Seconds per move of each computer level (``[computer] time_limits``).
    time_limits: dict = field(default_factory=dict)
    #: The level whose suggestion a long press shows (``[computer] hint_level``).
    hint_level: int = 1
    #: The other table of a remote game (``[remote]``; None: the game is played here).
    remote: RemoteSettings | None = None
    #: The seat played from a phone (``[phone]``; None: none).
    phone: PhoneConfig | None = None

    @property
    def table_name(self) -> str:
        """This table's name in the game store: ``[store] table``, else the layout's name
        and this machine's (``default_table_name``), so that two machines' tables sharing
        a store never take the same name."""
        return self.store_table or default_table_name(self.layout.name)


def default_table_name(layout_name: str) -> str:
    """``LAYOUT@MACHINE``: the layout's name and the first 8 characters of this machine's
    id (systemd's /etc/machine-id, else the host name)."""
    return f"{layout_name}@{machine_name()}"


@functools.cache
def machine_name() -> str:
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            text = Path(path).read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            continue
        ident = "".join(ch for ch in text if ch in "0123456789abcdef")
        if len(ident) >= 8:
            return ident[:8]
    host = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in socket.gethostname())
    return host[:32] or "host"


def load_config(path: str | Path) -> TableConfig:
    path = Path(path)
    source = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(source, None, "no such file") from None
    except OSError as exc:
        raise ConfigError(source, None, exc.strerror or str(exc)) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(source, None, f"larger than {MAX_CONFIG_BYTES} bytes: not a "
                          "configuration file (hardware/table.example.toml is an example)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ConfigError(f"{source}:{line}", None, f"not UTF-8 text ({exc.reason} at byte "
                          f"{exc.start}): save the file as UTF-8") from None
    return config_from_mapping(parse_toml(text, source), source, base=path.parent)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text to a mapping; every way it can fail is a ConfigError naming the file."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, None, f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(source, None, "not valid TOML: arrays or tables nested too deeply "
                          "(a configuration needs two levels)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError(source, None, f"not valid TOML: {exc}") from None


def config_from_mapping(data: dict[str, Any], source: str, base: Path = Path(".")
                        ) -> TableConfig:
    # Checked in this order, so the first problem reported is the same whatever else is
    # wrong: shape, layout, rules, registry, handicaps, players, serial, LEDs, store,
    # scanner, clock, event, display, computer seats.
    _check_shape(data, source)
    table = data.get("table", {})
    layout = _layout(table.get("layout", "standard-2p"), base, source)
    players = _players_in_play(table, layout, source)
    seats = len(players)  # the seats in play: a table may seat fewer than it has
    rules = _rules(table.get("rules", "looney"), layout, seats, source)
    registry, registry_path = _registry(table, base, rules, seats, source)
    handicaps = data.get("handicaps", {})
    if handicaps:
        _check_handicaps(handicaps, seats, source)
        rules = rules.with_handicaps(**handicaps)
    try:
        layout.check_bank_fits(rules, seats)
    except LayoutError as exc:
        raise ConfigError(source, "table.layout", exc.reason) from None
    _check_players(players, source)
    port, baudrate, heartbeat_timeout = _serial(data.get("serial", {}), source)
    try:
        pixels = PixelSettings.from_mapping(data.get("pixels", {}), source=source,
                                            prefix="pixels.")
        hints = HintSettings.from_mapping(data.get("hints", {}), source=source, prefix="hints.")
    except (PixelSettingsError, HintSettingsError) as exc:
        raise ConfigError("", None, str(exc)) from None  # already names file and key
    store = data.get("store", {})
    for key in ("path", "table"):
        if key in store and not store[key].strip():
            raise ConfigError(source, f"store.{key}", "must not be empty")
    scanner = dict(data.get("scanner", {}))
    for key, value in scanner.items():
        try:
            ScannerSettings({key: value})
        except ValueError as exc:
            raise ConfigError(source, f"scanner.{key}", str(exc)) from None
    clock_section = dict(data.get("clock", {}))
    clock_from_event = _clock_from_event(clock_section.pop("from_event", True), source)
    clock = _check_clock(clock_section, seats, source)
    event = None
    if "event" in data:
        try:
            event = EventSettings.from_mapping(
                data["event"], source=source, base=base,
                default_table=store.get("table") or layout.name)
        except EventSettingsError as exc:
            raise ConfigError(source, exc.key, exc.reason) from None
    display = _display(data.get("display", {}), source)
    display_section = data.get("display", {})
    attract_after_s = _attract_after(display_section, source)
    computer_seats = _computer_seats(data.get("seats", {}), seats, source)
    time_limits, hint_level = _computer_settings(data.get("computer", {}), source)
    return TableConfig(source, layout, registry, registry_path, rules, players,
                       port, baudrate, float(heartbeat_timeout), pixels, hints,
                       base / store["path"] if "path" in store else None,
                       store.get("table"), scanner,
                       alignment_seed=table.get("alignment_seed"), clock=clock,
                       clock_from_event=clock_from_event,
                       display=display, attract_after_s=attract_after_s,
                       attract_leds=display_section.get("attract_leds", False), event=event,
                       computer_seats=computer_seats, time_limits=time_limits,
                       hint_level=hint_level,
                       remote=_remote(data, len(players), computer_seats, source, base),
                       phone=_phone(data.get("phone"), seats, computer_seats, display, source,
                                    remote="remote" in data))


def _remote(data: dict[str, Any], seats: int, computer_seats: dict, source: str,
            base: Path) -> RemoteSettings | None:
    """``[remote]``: this table's game is played against other tables (each table plays
    one or more seats, every other seat is another table's, none is the computer's)."""
    if "remote" not in data:
        return None
    try:
        remote = RemoteSettings.from_mapping(data["remote"], base=base)
    except RemoteSettingsError as exc:
        raise ConfigError(source, exc.key, exc.reason) from None
    sides = remote.invitation.sides
    if sides > seats:
        raise ConfigError(source, "remote", f"the invitation is for {sides} tables, but "
                          f"{seats} players play: every table plays one or more seats")
    wrong = [s for s in remote.seats if s >= seats]
    if wrong:
        raise ConfigError(source, "remote.seats", f"seat {wrong[0]}: the players have seats "
                          f"0 to {seats - 1}")
    if seats - len(remote.seats) < sides - 1:
        raise ConfigError(source, "remote.seats", f"this table plays {len(remote.seats)} of "
                          f"{seats} seats: the {sides - 1} other tables need one each")
    if computer_seats:
        raise ConfigError(source, "remote", "a remote game has no computer seats: remove "
                          "the [seats.N] computer entries")
    return remote


def _check_shape(data: dict[str, Any], source: str) -> None:
    """Known sections, each a table; known keys of the expected types (the sections with
    their own readers, pixels/hints/clock/seats, check their keys themselves)."""
    for section, value in data.items():
        if section not in _SECTIONS:
            raise ConfigError(source, section, f"unknown section (sections: "
                              f"{', '.join(_SECTIONS)})")
        if not isinstance(value, dict):
            raise ConfigError(source, section, "must be a table ([section])")
        for key, item in value.items():
            _check_magnitude(item, source, f"{section}.{key}")
            if section in ("pixels", "hints", "clock", "seats"):
                continue
            if key not in _SECTIONS[section]:
                raise ConfigError(source, f"{section}.{key}", "unknown key (keys: "
                                  f"{', '.join(_SECTIONS[section])})")
            want = _SECTIONS[section][key]
            if not isinstance(item, want) or isinstance(item, bool) and want is not bool:
                raise ConfigError(source, f"{section}.{key}", f"wrong type {type(item).__name__}")


def _layout(layout_name: str, base: Path, source: str) -> Layout:
    """``table.layout``: a bundled layout's name or a .toml file (relative to ``base``)."""
    try:
        candidate = base / layout_name
        return (load_layout(candidate) if layout_name.endswith(".toml")
                else builtin_layout(layout_name))
    except (LayoutError, KeyError, OSError, ValueError) as exc:
        raise ConfigError(source, "table.layout", str(exc)) from None
    except RecursionError:
        raise ConfigError(source, "table.layout", f"{layout_name}: not valid TOML: nested "
                          "too deeply") from None


def _players_in_play(table: dict[str, Any], layout: Layout, source: str
                     ) -> tuple[str, ...]:
    """``table.players``: they sit at the layout's first seats, 2 up to all of them (three
    at the four-seat table leave its last seat empty); default: one per seat, named
    after it."""
    players = tuple(table.get("players", [s.name for s in layout.seats]))
    if not 2 <= len(players) <= len(layout.seats):
        raise ConfigError(source, "table.players", f"name one player per seat in play: 2 to "
                          f"{len(layout.seats)} for the layout {layout.name!r} (its seats in "
                          f"order: {', '.join(s.name for s in layout.seats)}), got "
                          f"{len(players)}")
    return players


def _rules(rules_name: str, layout: Layout, seats: int, source: str) -> Rules:
    """``table.rules``: a preset for as many players as the table seats."""
    if rules_name not in PRESETS:
        raise ConfigError(source, "table.rules", f"unknown preset {rules_name!r} (presets: "
                          f"{', '.join(PRESETS)})")
    rules = preset(rules_name)
    if not rules.min_players <= seats <= rules.max_players:
        fitting = [name for name, r in PRESETS.items() if r.min_players <= seats <= r.max_players]
        raise ConfigError(source, "table.rules", f"the {rules_name} rules are for "
                          f"{_player_range(rules)} players, and the table seats {seats} "
                          f"(layout {layout.name!r}): name {_player_range(rules)} players, "
                          f"or choose one of: {', '.join(fitting)}")
    return rules


def _registry(table: dict[str, Any], base: Path, rules: Rules, seats: int, source: str
              ) -> tuple[Registry | None, Path | None]:
    """``table.registry``: the tag registry and its path (None, None when not named; no
    registry yet when the file does not exist: registering makes it)."""
    if "registry" not in table:
        return None, None
    registry_path = base / table["registry"]
    try:
        present = registry_path.exists()
    except (OSError, ValueError) as exc:  # a NUL byte, a name too long
        raise ConfigError(source, "table.registry", f"{table['registry']!r}: {exc}") from None
    if not present:
        return None, registry_path
    try:
        registry = Registry.load(registry_path)
    except RegistryError as exc:
        raise ConfigError(source, "table.registry", str(exc)) from None
    except RecursionError:
        raise ConfigError(source, "table.registry", f"{registry_path}: not valid "
                          "TOML: nested too deeply") from None
    _check_registry_fits(registry, rules, seats, source, registry_path)
    return registry, registry_path


def _serial(serial: dict[str, Any], source: str) -> tuple[str | None, int, float]:
    """``[serial]``: port (None: found by USB id), baud rate, heartbeat timeout."""
    port = serial.get("port")
    if port is not None and (not port.strip() or not port.isprintable()):
        raise ConfigError(source, "serial.port", f"{port!r} is not a device name (e.g. "
                          "\"/dev/ttyACM1\" or a pyserial URL)")
    baudrate = serial.get("baudrate", 115200)
    low, high = BAUDRATE_RANGE
    if not low <= baudrate <= high:
        raise ConfigError(source, "serial.baudrate", f"{baudrate} is out of range: give a "
                          f"serial speed from {low} to {high:,} (usually 115200)")
    heartbeat_timeout = serial.get("heartbeat_timeout", 3.0)
    low_s, high_s = HEARTBEAT_TIMEOUT_RANGE
    if not (math.isfinite(heartbeat_timeout) and low_s <= heartbeat_timeout <= high_s):
        raise ConfigError(source, "serial.heartbeat_timeout", f"{heartbeat_timeout} is out of "
                          f"range: give seconds from {low_s} to {high_s:g} (usually 3.0)")
    return port, baudrate, heartbeat_timeout


def _clock_from_event(value: object, source: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(source, "clock.from_event", f"{value!r} is not true or "
                          "false: true (the default) lets the event's hub set the time "
                          "control of this table's next games, false keeps this [clock]")
    return value


def _attract_after(display_section: dict[str, Any], source: str) -> float:
    """``display.attract_after_s``: idle seconds before attract mode (0: never)."""
    attract_after_s = float(display_section.get("attract_after_s", 120.0))
    low_a, high_a = ATTRACT_AFTER_RANGE
    if attract_after_s != 0 and not (math.isfinite(attract_after_s)
                                     and low_a <= attract_after_s <= high_a):
        raise ConfigError(source, "display.attract_after_s", f"{attract_after_s:g} is out of "
                          f"range: give idle seconds from {low_a:g} to {high_a:g}, or 0 to "
                          "turn attract mode off")
    return attract_after_s


def _check_clock(section: dict[str, Any], seats: int, source: str) -> ClockSpec:
    try:
        clock = ClockSpec.from_dict(section, source=source, prefix="clock.")
    except ClockSpecError as exc:
        if exc.reason.startswith("unknown key (keys: "):  # [clock] has one key more
            raise ConfigError(source, exc.key, exc.reason[:-1] + ", from_event)") from None
        raise ConfigError("", None, str(exc)) from None  # already names file and key
    if clock.timed and clock.on_flag == "loss" and seats > 2:
        # The record cannot hold an elimination off the board with three or more players
        # (as with a resignation): the flag is shown and the game goes on.
        raise ConfigError(source, "clock.on_flag", f"the layout seats {seats}, and with "
                          "three or more players a flag fall cannot end the game (the "
                          "record holds no elimination off the board): set on_flag = "
                          "\"none\" (the flag is shown, the game goes on)")
    return clock


def _levels() -> tuple[int, ...]:
    from homeworlds.ai import LEVELS

    return tuple(sorted(LEVELS))


def _check_time_limit(value: object, source: str, key: str) -> float:
    low, high = TIME_LIMIT_RANGE
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or not low <= value <= high:
        raise ConfigError(source, key, f"{value!r} is out of range: give seconds per move "
                          f"from {low:g} to {high:g} (a Raspberry Pi 4 needs about three "
                          "times the development machine's)")
    return float(value)


def _computer_seats(section: dict[str, Any], seats: int, source: str) -> dict:
    """``[seats.N]`` tables: which seats the computer plays, at which level and pace."""
    from homeworlds.session import ComputerSeat

    levels = _levels()
    out = {}
    for name, entry in section.items():
        key = f"seats.{name}"
        if not name.isdigit() or not 0 <= int(name) < seats:
            raise ConfigError(source, key, f"no seat {name!r}: give a seat index from 0 to "
                              f"{seats - 1} (seat order of the layout), e.g. [seats.1]")
        if not isinstance(entry, dict):
            raise ConfigError(source, key, "must be a table ([seats.N] with computer = true, "
                              "level, time_limit)")
        for item, value in entry.items():
            want = _SEAT_KEYS.get(item)
            if want is None:
                raise ConfigError(source, f"{key}.{item}", "unknown key (keys: "
                                  f"{', '.join(_SEAT_KEYS)})")
            if not isinstance(value, want) or isinstance(value, bool) and want is not bool:
                raise ConfigError(source, f"{key}.{item}", f"wrong type {type(value).__name__}")
        if not entry.get("computer", False):
            extra = sorted(set(entry) - {"computer"})
            if extra:
                raise ConfigError(source, f"{key}.{extra[0]}", "only a computer seat has a "
                                  "level, time limit or seed: add computer = true")
            continue
        level = entry.get("level", 1)
        if level not in levels:
            raise ConfigError(source, f"{key}.level", f"no level {level}: levels are "
                              f"{', '.join(map(str, levels))}")
        limit = entry.get("time_limit")
        if limit is not None:
            limit = _check_time_limit(limit, source, f"{key}.time_limit")
        out[int(name)] = ComputerSeat(level, limit, entry.get("seed"))
    if out and seats != 2:
        raise ConfigError(source, f"seats.{min(out)}.computer", f"the computer plays "
                          f"two-player games only, and the layout seats {seats} "
                          "(docs/computer-opponent.md, Limits)")
    return out


def _computer_settings(section: dict[str, Any], source: str) -> tuple[dict[int, float], int]:
    levels = _levels()
    limits = {}
    for name, value in section.get("time_limits", {}).items():
        key = f"computer.time_limits.{name}"
        if not name.isdigit() or int(name) not in levels:
            raise ConfigError(source, key, f"no level {name!r}: levels are "
                              f"{', '.join(map(str, levels))} (e.g. time_limits = "
                              "{1 = 3.0, 3 = 10.0})")
        limits[int(name)] = _check_time_limit(value, source, key)
    hint_level = section.get("hint_level", 1)
    if hint_level not in levels:
        raise ConfigError(source, "computer.hint_level", f"no level {hint_level}: levels are "
                          f"{', '.join(map(str, levels))}")
    return limits, hint_level


def with_phone(config: TableConfig, seat: int, listen: str | None = None,
               port: int | None = None) -> TableConfig:
    """``config`` with seat ``seat`` played from a phone (``play --phone``), served where
    ``[phone]`` says unless ``listen``/``port`` are given; checked as ``[phone]`` is
    (ConfigError naming the option's key)."""
    from dataclasses import replace

    section: dict[str, Any] = {"seat": seat}
    if config.phone is not None:
        section.update(listen=config.phone.listen, port=config.phone.port)
    if listen is not None:
        section["listen"] = listen
    if port is not None:
        section["port"] = port
    phone = _phone(section, len(config.players), config.computer_seats, config.display,
                   config.source, remote=config.remote is not None)
    return replace(config, phone=phone)


def _phone(section: dict[str, Any] | None, seats: int, computer_seats: dict,
           display: DisplayConfig, source: str, remote: bool = False) -> PhoneConfig | None:
    """``[phone]``: one seat of a two-player game, not the computer's, on a port of its
    own (checked like the display's address)."""
    if section is None:
        return None
    if "seat" not in section:
        raise ConfigError(source, "phone.seat", "missing: give the seat the phone plays "
                          "(0 or 1)")
    seat = section["seat"]
    if seats != 2:
        raise ConfigError(source, "phone.seat", f"a phone plays a seat of a two-player game "
                          f"only, and the table seats {seats}")
    if not 0 <= seat < seats:
        raise ConfigError(source, "phone.seat", f"no seat {seat}: give 0 or 1")
    if remote:
        raise ConfigError(source, "phone", "a remote game ([remote]) has no phone seat "
                          "(yet): the other table plays the other seat")
    if seat in computer_seats:
        raise ConfigError(source, "phone.seat", f"seat {seat} is the computer's "
                          f"([seats.{seat}] computer = true)")
    where = _display({"listen": section.get("listen", "127.0.0.1"),
                      "port": section.get("port", 8090)}, source, "phone")
    if display.enabled and where.port == display.port:
        raise ConfigError(source, "phone.port", f"{where.port} is the display's port: give "
                          "the phone a port of its own (e.g. 8090)")
    return PhoneConfig(seat, where.listen, where.port)


def _display(section: dict[str, Any], source: str, name: str = "display") -> DisplayConfig:
    import ipaddress

    listen = section.get("listen", "127.0.0.1")
    if listen != "localhost":
        try:
            ipaddress.ip_address(listen)
        except ValueError:
            raise ConfigError(source, f"{name}.listen", f"{listen!r} is not an IP address "
                              "(127.0.0.1: this machine only; 0.0.0.0: every network)") \
                from None
    port = section.get("port", 8080)
    if not 1 <= port <= 65535:
        raise ConfigError(source, f"{name}.port", f"{port} is out of range: give a TCP port "
                          "from 1 to 65535 (e.g. 8080)")
    token = section.get("admin_token")
    if token is not None:
        if len(token) < MIN_ADMIN_TOKEN:
            raise ConfigError(source, "display.admin_token", f"too short ({len(token)} "
                              f"characters): give at least {MIN_ADMIN_TOKEN}, or leave it out "
                              "to have a fresh token generated at every start")
        if not all(ch.isascii() and (ch.isalnum() or ch in "-_.~") for ch in token):
            raise ConfigError(source, "display.admin_token", "use only letters, digits and "
                              "- _ . ~ (it goes into the admin link and its QR code)")
    return DisplayConfig(section.get("enabled", False), listen, port, token)


#: No setting needs a number this large; beyond it an integer cannot become a float.
MAX_MAGNITUDE = 10 ** 15


def _check_magnitude(item: object, source: str, key: str) -> None:
    """Refuse integers too large for any setting (and for float arithmetic), also inside
    arrays, before any section's own checks compare them with floats."""
    if isinstance(item, list):
        for index, element in enumerate(item):
            _check_magnitude(element, source, f"{key}[{index}]")
    elif isinstance(item, dict):
        for name, element in item.items():
            _check_magnitude(element, source, f"{key}.{name}")
    elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > MAX_MAGNITUDE:
        raise ConfigError(source, key, f"{str(item)[:20]}... is far too large for any setting")


def _player_range(rules: Rules) -> str:
    if rules.min_players == rules.max_players:
        return str(rules.min_players)
    return f"{rules.min_players} to {rules.max_players}"


def _check_handicaps(handicaps: dict[str, Any], seats: int, source: str) -> None:
    if seats != 2:
        raise ConfigError(source, "handicaps", f"the novice handicaps are for two players "
                          f"(rulebooks/000, novice handicaps) and the layout seats {seats}: "
                          "remove the [handicaps] section")
    junior = handicaps.get("junior_seat", 1)
    if not 0 <= junior < seats:
        raise ConfigError(source, "handicaps.junior_seat", f"no seat {junior}: give a seat "
                          f"index from 0 to {seats - 1} (seat order of the layout)")
    turns = handicaps.get("timewarp_turns", 0)
    low, high = TIMEWARP_TURNS_RANGE
    if not low <= turns <= high:
        raise ConfigError(source, "handicaps.timewarp_turns", f"{turns} is out of range: give "
                          f"{low} (no Timewarp) to {high} bonus turns")


def _check_registry_fits(registry: Registry, rules: Rules, seats: int, source: str,
                         path: Path) -> None:
    copies = rules.bank_copies(seats)
    extra = sorted({info.copy for _, info in registry.items()
                    if info.is_piece and info.copy is not None
                    and COPY_LETTERS.index(info.copy) >= copies})
    if extra:
        raise ConfigError(source, "table.registry", f"{path} has piece copies "
                          f"{', '.join(repr(c) for c in extra)}, but a {seats}-seat table "
                          f"plays with {copies} copies of each piece (a to "
                          f"{COPY_LETTERS[copies - 1]}): use the registry enrolled for this "
                          "table's pieces, or a layout with more seats")


def check_player_name(name: object) -> str | None:
    """Why ``name`` cannot be a player's name in the game record, or None when it can."""
    if not isinstance(name, str):
        return f"{name!r} is not a string"
    if not name:
        return "a name cannot be empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"{name[:MAX_NAME_LENGTH]!r}... is longer than {MAX_NAME_LENGTH} characters"
    if any(ch.isspace() for ch in name):
        return f"{name!r} contains a space or line break (SDG names are one word: try " \
               f"{''.join(name.split())!r})"
    if not name.isprintable():
        return f"{name!r} contains a control character"
    bad = sorted({ch for ch in name if ch in NAME_FORBIDDEN})
    if bad:
        return f"{name!r} contains {' '.join(repr(c) for c in bad)}, which SDG notation " \
               f"cannot write (a name may not contain any of {NAME_FORBIDDEN})"
    if name.startswith("#"):
        return f"{name!r} starts with '#', which the cooked notation reads as a comment"
    return None


def _check_players(players: tuple[object, ...], source: str) -> None:
    for index, name in enumerate(players):
        problem = check_player_name(name)
        if problem:
            raise ConfigError(source, f"table.players[{index}]", problem)
    seen: dict[str, int] = {}
    for index, name in enumerate(cast(tuple[str, ...], players)):  # names, checked above
        key = name.casefold()
        if key in seen:
            raise ConfigError(source, f"table.players[{index}]", f"{name!r} is also the name "
                              f"of player {seen[key]} ({players[seen[key]]!r}); SDG does not "
                              "tell names apart by case: give every player a different name")
        seen[key] = index

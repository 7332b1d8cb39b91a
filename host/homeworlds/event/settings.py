"""The ``[event]`` section of a table's configuration: which MQTT broker the table publishes
to, as whom, and under which event and table name (docs/event.md).

Credentials never appear in messages: ``EventSettings.broker_text`` and every error show the
broker URL without its password (``redact_url``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from homeworlds.identity import TableKey

#: Keys of the ``[event]`` section and their TOML types.
EVENT_KEYS: dict[str, type | tuple] = {
    "broker": str, "username": str, "password": str, "password_file": str, "ca_file": str,
    "event": str, "table": str, "keepalive": int, "key_file": str,
}

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
#: A topic level: MQTT forbids + # / in names we put into topics; keep them plain.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
KEEPALIVE_RANGE = (5, 600)


class EventSettingsError(ValueError):
    def __init__(self, source: str, key: str, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(": ".join(p for p in (source, key, reason) if p))


def redact_url(url: str) -> str:
    """``url`` without the password of its user part (``mqtt://ann:***@host``)."""
    return re.sub(r"(//[^/@:]*):[^/@]*@", r"\1:***@", url)


@dataclass(frozen=True)
class BrokerAddress:
    scheme: str
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def tls(self) -> bool:
        return self.scheme == "mqtts"

    def text(self) -> str:
        """The address for messages: never the password."""
        user = f"{self.username}@" if self.username else ""
        return f"{self.scheme}://{user}{self.host}:{self.port}"


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://[user[:password]@]host[:port]`` or ``mqtts://...``; ValueError naming the
    problem (and never the password)."""
    shown = redact_url(url)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{shown!r} is not a broker URL ({exc})") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise ValueError(f"{shown!r}: the scheme must be mqtt:// or mqtts:// (TLS)")
    if not parts.hostname:
        raise ValueError(f"{shown!r} names no host (e.g. mqtt://broker.local:1883)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{shown!r}: a broker URL has no path or query")
    return BrokerAddress(parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme],
                         parts.username or None, parts.password)


def _ca_file(ca_file: Path, broker: BrokerAddress,
             fail: Callable[[str, str], Exception]) -> Path:
    """The certificate authority of an mqtts:// broker (a file that exists)."""
    if not broker.tls:
        raise fail("ca_file", "a CA file is for TLS: use an mqtts:// broker URL")
    if not ca_file.is_file():
        raise fail("ca_file", f"{ca_file}: no such file")
    return ca_file


def _read_table_key(key_path: Path, table: str,
                    fail: Callable[[str, str], Exception]) -> TableKey:
    """The signing key in ``key_file``, which must be this table's."""
    try:
        table_key = TableKey.from_text(key_path.read_text(encoding="utf-8"),
                                       source=str(key_path))
    except OSError as exc:
        raise fail("key_file", f"{key_path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise fail("key_file", str(exc)) from None
    if table_key.table != table:
        raise fail("key_file", f"{key_path} is table {table_key.table}'s key, not table "
                   f"{table}'s")
    return table_key


def _read_password_file(path: Path, fail: Callable[[str, str], Exception]) -> str:
    """The password a ``password_file`` holds (its text, stripped)."""
    try:
        password = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise fail("password_file", f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise fail("password_file", f"{path}: not UTF-8 text") from None
    if not password:
        raise fail("password_file", f"{path} is empty")
    return password


@dataclass(frozen=True)
class EventSettings:
    broker: BrokerAddress
    event: str
    table: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    keepalive: int = 30
    #: the table's signing key, issued by the hub (``homeworlds hub-keys issue``)
    key: TableKey | None = field(default=None, repr=False)

    @property
    def broker_text(self) -> str:
        return self.broker.text()

    @property
    def credentials(self) -> tuple[str | None, str | None]:
        return (self.username or self.broker.username, self.password or self.broker.password)

    @classmethod
    def from_mapping(cls, data: dict[str, Any], *, source: str, base: Path,
                     default_table: str) -> EventSettings:
        """The ``[event]`` table of a configuration (types already checked)."""
        def fail(key: str, reason: str) -> EventSettingsError:
            return EventSettingsError(source, f"event.{key}", reason)

        if "broker" not in data:
            raise fail("broker", "missing: name the broker, e.g. mqtt://broker.local:1883")
        try:
            broker = parse_broker_url(data["broker"])
        except ValueError as exc:
            raise fail("broker", str(exc)) from None
        if "event" not in data:
            raise fail("event", "missing: name the event (e.g. club-2026-11)")
        names = {}
        for key, value in (("event", data["event"]), ("table", data.get("table", default_table))):
            if not NAME_PATTERN.fullmatch(value):
                raise fail(key, f"{value!r}: use letters, digits, '-', '_' or '.' (at most 64, "
                           "starting with a letter or digit); it becomes an MQTT topic level")
            names[key] = value
        if "password" in data and "password_file" in data:
            raise fail("password_file", "give password or password_file, not both")
        password = data.get("password")
        if "password_file" in data:
            password = _read_password_file(base / data["password_file"], fail)
        username = data.get("username")
        if password is not None and not (username or broker.username):
            raise fail("username", "a password needs a username")
        if username is not None and not username.strip():
            raise fail("username", "must not be empty")
        ca_file = _ca_file(base / data["ca_file"], broker, fail) if "ca_file" in data else None
        keepalive = data.get("keepalive", 30)
        if not KEEPALIVE_RANGE[0] <= keepalive <= KEEPALIVE_RANGE[1]:
            raise fail("keepalive", f"{keepalive} is out of range: give {KEEPALIVE_RANGE[0]} "
                       f"to {KEEPALIVE_RANGE[1]} seconds")
        if "key_file" not in data:
            raise fail("key_file", "missing: the hub signs up each table with a key file "
                       f"(`homeworlds hub-keys issue {names['table']}` on the hub's machine)")
        table_key = _read_table_key(base / data["key_file"], names["table"], fail)
        return cls(broker, names["event"], names["table"], username, password, ca_file,
                   keepalive, table_key)

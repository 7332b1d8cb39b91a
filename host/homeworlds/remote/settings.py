"""The ``[remote]`` section of a table's configuration: play this table's game against
another table over a broker (docs/remote-play.md, "At the table").

    [remote]
    broker = "mqtt://broker.example.org"
    role = "host"                  # "host": this table invited (seat 0); "guest": seat 1
                                   # (3+ tables: "guest1", "guest2", ...: seat 1, 2, ...)
    code_file = "remote.code"      # the invitation code (homeworlds remote-invite / -join)
    # seats = [1, 3]               # the seats this table plays (default: its role's)
    # username = "ann"; password_file = "broker.pw"; ca_file = "ca.pem"
    # keepalive = 10               # how soon a silent link is noticed (about twice that)

Pure: the configuration reader (``runtime.config``) checks the types and calls
``RemoteSettings.from_mapping``; a ``RemoteSettingsError`` names the key and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeworlds.event.settings import BrokerAddress, parse_broker_url
from homeworlds.remote.cards import read_deal_file
from homeworlds.remote.deal import DealError
from homeworlds.remote.invitation import Invitation, InvitationError

#: Keys of the ``[remote]`` section and their TOML types.
REMOTE_KEYS: dict[str, type | tuple] = {
    "broker": str, "role": str, "code_file": str, "username": str, "password_file": str,
    "ca_file": str, "seats": list, "keepalive": int,
}
#: Seconds between keepalive pings of the broker link (MQTT keepalive): a link that went
#: silent (a cut cable, a router that drops the connection without closing it) is noticed
#: within about twice that here, and by the broker (which then publishes the last will,
#: so the other tables pause) within one and a half times that.
KEEPALIVE_S = 10
KEEPALIVE_RANGE = (1, 300)
#: The seat each role plays unless ``seats`` says otherwise (the inviting table seat 0).
SEAT_OF_ROLE = {"host": 0, "guest": 1} | {f"guest{k}": k for k in range(1, 6)}


class RemoteSettingsError(ValueError):
    def __init__(self, key: str, reason: str):
        self.key, self.reason = f"remote.{key}", reason
        super().__init__(f"{self.key}: {reason}")


def _read_secret_file(path: Path, key: str, what: str) -> str:
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise RemoteSettingsError(key, f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RemoteSettingsError(key, f"{path}: not UTF-8 text") from None
    if mode & 0o077:
        raise RemoteSettingsError(key, f"{path} can be read by others (mode "
                                  f"{mode & 0o777:o}): it holds {what}; chmod 600 it")
    if not text:
        raise RemoteSettingsError(key, f"{path} is empty")
    return text


@dataclass(frozen=True)
class RemoteSettings:
    broker: BrokerAddress
    role: str
    invitation: Invitation = field(repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    #: The seats this table plays (empty: its role's, ``SEAT_OF_ROLE``).
    played: tuple[int, ...] = ()
    keepalive_s: int = KEEPALIVE_S
    #: The code file (a Good/Evil deal is kept beside it: ``deal_file``).
    code_path: Path | None = None

    @property
    def deal_file(self) -> Path | None:
        """Where this table's part of a Good/Evil deal across tables is kept (mode 600)."""
        return None if self.code_path is None else \
            self.code_path.with_name(self.code_path.name + ".deal")

    @property
    def seats(self) -> tuple[int, ...]:
        return self.played or (SEAT_OF_ROLE[self.role],)

    @property
    def seat(self) -> int:
        """The first seat this table plays."""
        return self.seats[0]

    @classmethod
    def from_mapping(cls, data: dict[str, Any], *, base: Path) -> RemoteSettings:
        """The ``[remote]`` table (types already checked); ``base``: the configuration's
        folder, which relative file names are read from."""
        for key in ("broker", "role", "code_file"):
            if key not in data:
                raise RemoteSettingsError(key, "missing (docs/remote-play.md)")
        try:
            broker = parse_broker_url(data["broker"])
        except ValueError as exc:
            raise RemoteSettingsError("broker", str(exc)) from None
        if data["role"] not in SEAT_OF_ROLE:
            raise RemoteSettingsError("role", f"{data['role']!r}: 'host' (this table "
                                      "invited) or 'guest' (it joined; 'guest1', 'guest2', "
                                      "... in a game of three or more tables)")
        code = _read_secret_file(base / data["code_file"], "code_file",
                                 "the remote game's invitation code")
        try:
            invitation = Invitation.from_code(code)
        except InvitationError as exc:
            raise RemoteSettingsError("code_file", str(exc)) from None
        if data["role"] not in invitation.roles:
            raise RemoteSettingsError("role", f"{data['role']!r}: the invitation is for "
                                      f"{invitation.sides} tables, whose roles are "
                                      f"{', '.join(invitation.roles)}")
        played = data.get("seats", [])
        if "seats" in data and (not played or len(set(played)) != len(played) or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 5
                for s in played)):
            raise RemoteSettingsError("seats", f"{played!r}: a list of the different seats "
                                      "(0 to 5) this table plays")
        password = None
        if "password_file" in data:
            password = _read_secret_file(base / data["password_file"], "password_file",
                                         "a broker password")
        if password is not None and not data.get("username") and not broker.username:
            raise RemoteSettingsError("username", "a password needs a username")
        ca_file = base / data["ca_file"] if "ca_file" in data else None
        if ca_file is not None and not ca_file.is_file():
            raise RemoteSettingsError("ca_file", f"{ca_file}: no such file")
        keepalive = data.get("keepalive", KEEPALIVE_S)
        low, high = KEEPALIVE_RANGE
        if not low <= keepalive <= high:
            raise RemoteSettingsError("keepalive", f"{keepalive}: from {low} to {high} "
                                      "seconds")
        settings = cls(broker, data["role"], invitation, data.get("username"), password,
                       ca_file, tuple(sorted(played)), keepalive, base / data["code_file"])
        deal_file = settings.deal_file
        if deal_file is not None and deal_file.exists():
            try:
                read_deal_file(deal_file, invitation.game_id,
                               invitation.roles.index(data["role"]))
            except DealError as exc:
                raise RemoteSettingsError("code_file", str(exc)) from None
        return settings

"""Each table's identity at an event (docs/event.md, "Identity"): the keys the hub issues,
the table's signer, and the hub's check that a message comes from the table that owns its
topic and was not seen before.

The signatures themselves are ``homeworlds.identity`` (no MQTT, no store); this module
keeps their state in the stores (``store.identity``): at the hub every table's keys and the
highest sequence number accepted per key and channel, at a table how far its numbers were
reserved. Both are persisted before a message is acted on or sent, so a restart of either
side never accepts a number twice.

Channels: ``turns``, ``result`` and ``events`` share one replay window (numbers may arrive a
little out of order; each is accepted once). The retained topics ``state`` and ``online``
keep only the newest: a number below the last accepted one is refused, the same one again
(the broker hands a retained message to every new subscription) is accepted. A table's
last will (``online: false``, signed when the table connected) carries the number its
``online: true`` announced as ``will_seq``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from homeworlds.identity import (
    ReplayError,
    ReplayWindow,
    SignatureError,
    Signer,
    TableKey,
    open_signed,
)
from homeworlds.store import GameStore
from homeworlds.store.identity import StoredIdentity, StoredKey
from homeworlds.store.recorder import utc_now

#: Topic kinds that share the replay window of a key.
STREAM_KINDS = ("turns", "result", "events")
#: Retained topic kinds: only the newest counts.
RETAINED_KINDS = ("state", "online")
#: Seconds between two looks at the store's keys (revocations from ``hub-keys``).
REFRESH_S = 1.0
#: ...and at most this often when a message names a key the hub does not know.
UNKNOWN_REFRESH_S = 0.05


class Refused(ValueError):
    """A message the hub does not believe: the reason names why."""


@dataclass(frozen=True)
class Verified:
    payload: bytes
    key_id: str
    seq: int


def key_of(stored: StoredKey) -> TableKey:
    return TableKey(stored.table, stored.key_id, bytes.fromhex(stored.secret))


class HubIdentities:
    """The hub's keys and replay windows over its store (``StoredIdentity``)."""

    def __init__(self, store: GameStore, *, clock: Callable[[], float] = time.monotonic):
        self.stored = StoredIdentity(store)
        self._clock = clock
        self._keys: dict[str, StoredKey] = {}
        self._loaded = float("-inf")
        self._windows: dict[tuple[str, str], ReplayWindow] = {}
        self._retained: dict[tuple[str, str], int] = {}
        #: table -> the key id it last signed with (the hub answers under that key)
        self._in_use: dict[str, str] = {}
        self._signers: dict[str, Signer] = {}
        self._lock = threading.RLock()
        self.refresh(force=True)

    def refresh(self, *, force: bool = False, within: float = REFRESH_S) -> None:
        """Read the keys again (another process may have issued or revoked one) unless
        they were read less than ``within`` seconds ago."""
        now = self._clock()
        if not force and now - self._loaded < within:
            return
        with self._lock:
            self._keys = {k.key_id: k for k in self.stored.keys()}
            self._loaded = now

    def tables(self, *, valid_only: bool = False) -> set[str]:
        """The tables the hub issued keys to (with a key valid now)."""
        return {k.table for k in self._keys.values() if k.valid or not valid_only}

    def verify(self, table: str, topic: str, kind: str, data: bytes,
               online: bool | None = None) -> Verified:
        """The payload of a message from ``table`` on ``topic`` when its signature is the
        table's and its number is fresh; Refused naming the reason. Nothing is remembered
        until ``accept``."""
        with self._lock:
            self.refresh()
            try:
                message = open_signed(data)
            except SignatureError as exc:
                raise Refused(str(exc)) from None
            stored = self._keys.get(message.key_id)
            if stored is None:
                # Issued a moment ago? (A flood of unknown ids reads at most 20 times a s.)
                self.refresh(within=UNKNOWN_REFRESH_S)
                stored = self._keys.get(message.key_id)
            if stored is None:
                raise Refused(f"unknown key {message.key_id}")
            if stored.table != table:
                raise Refused(f"key {message.key_id} is table {stored.table}'s, not "
                              f"table {table}'s")
            if stored.revoked is not None:
                raise Refused(f"key {message.key_id} was revoked ({stored.revoked})")
            if stored.retired is not None:
                raise Refused(f"key {message.key_id} was retired ({stored.retired}): the "
                              "table has a newer key")
            try:
                payload = message.verify(key_of(stored), topic)
            except SignatureError as exc:
                raise Refused(str(exc)) from None
            self._check_fresh(message.key_id, kind, message.seq)
            return Verified(payload, message.key_id, message.seq)

    def _seen(self, key_id: str) -> dict[str, int]:
        return self.stored.seen(key_id)

    def _window(self, key_id: str) -> ReplayWindow:
        window = self._windows.get((key_id, "stream"))
        if window is None:
            window = ReplayWindow(self._seen(key_id).get("stream", 0))
            self._windows[(key_id, "stream")] = window
        return window

    def _retained_highest(self, key_id: str, channel: str) -> int:
        value = self._retained.get((key_id, channel))
        if value is None:
            value = self._retained[(key_id, channel)] = self._seen(key_id).get(channel, 0)
        return value

    def _check_fresh(self, key_id: str, kind: str, seq: int) -> None:
        if kind in STREAM_KINDS:
            try:
                self._window(key_id).check(seq)
            except ReplayError as exc:
                raise Refused(f"replayed: {exc}") from None
            return
        last = self._retained_highest(key_id, kind)
        if seq >= last:
            return
        if kind == "online" and seq == self._retained_highest(key_id, "will"):
            return  # the table's last will, signed when it connected
        raise Refused(f"replayed: sequence number {seq} is older than the {kind} accepted "
                      f"before ({last})")

    def accept(self, verified: Verified, kind: str, *, will_seq: int | None = None) -> None:
        """Remember a verified message's number (persisted before the hub acts on it); the
        first use of a newer key retires the table's older ones (rotation)."""
        with self._lock:
            key_id, seq = verified.key_id, verified.seq
            if kind in STREAM_KINDS:
                window = self._window(key_id)
                window.accept(seq)
                self.stored.record_seen(key_id, "stream", window.highest)
            elif seq > self._retained_highest(key_id, kind):
                self._retained[(key_id, kind)] = seq
                self.stored.record_seen(key_id, kind, seq)
            if will_seq is not None and will_seq > self._retained_highest(key_id, "will"):
                self._retained[(key_id, "will")] = will_seq
                self.stored.record_seen(key_id, "will", will_seq)
            stored = self._keys[key_id]
            self._in_use[stored.table] = key_id
            if self._first_use(stored):
                if self.stored.retire_older(stored, utc_now()):
                    self.refresh(force=True)

    def sign_for(self, table: str, topic: str, payload: bytes) -> bytes | None:
        """``payload`` signed for ``table`` (the hub's requests on its ``request`` topic):
        under the key the table last signed with, else its newest valid key; None when
        the table has no valid key. The hub's numbers under a key are its own
        (``<key id>/hub``), reserved in its store like a table's."""
        with self._lock:
            stored = self._signing_key(table)
            if stored is None:
                return None
            signer = self._signers.get(stored.key_id)
            if signer is None:
                own = f"{stored.key_id}/hub"
                signer = Signer(key_of(stored), lambda n: self.stored.reserve(own, n))
                self._signers[stored.key_id] = signer
            return signer.sign(topic, payload)

    def _signing_key(self, table: str) -> StoredKey | None:
        stored = self._keys.get(self._in_use.get(table, ""))
        if stored is None or not stored.valid:
            valid = [k for k in self._keys.values() if k.table == table and k.valid]
            stored = max(valid, key=lambda k: k.issued, default=None)
        return stored

    def key_for(self, table: str) -> TableKey | None:
        """The key ``sign_for`` signs ``table``'s messages with now (None: no valid key):
        what the hub seals a remote game's code with (docs/remote-play.md)."""
        with self._lock:
            stored = self._signing_key(table)
            return None if stored is None else key_of(stored)

    def _first_use(self, stored: StoredKey) -> bool:
        return any(k.table == stored.table and k.issued < stored.issued and k.valid
                   for k in self._keys.values())


# ---------------------------------------------------------------------- the organiser's


def issue_key(store: GameStore, table: str) -> TableKey:
    """A new key for ``table``, kept in the hub's store. A table's older keys stay valid
    until the table first signs with the new one (rotation), or until revoked."""
    key = TableKey.new(table)
    stored = StoredIdentity(store)
    issued = utc_now()
    # Keys are ordered by when they were issued: a second one within the same
    # millisecond is issued a moment later.
    latest = max((k.issued for k in stored.keys(table)), default="")
    while issued <= latest:
        time.sleep(0.002)
        issued = utc_now()
    stored.add_key(key.key_id, table, key.secret.hex(), issued)
    return key


def revoke_keys(store: GameStore, table: str, key_id: str | None = None) -> list[str]:
    """Revoke a key of ``table`` (or every key of it): the hub refuses what they sign."""
    return StoredIdentity(store).revoke(table, key_id, utc_now())


def key_list(store: GameStore) -> list[StoredKey]:
    return StoredIdentity(store).keys()


def table_signer(store: GameStore, key: TableKey) -> Signer:
    """The table's signer: sequence numbers reserved in the table's store."""
    stored = StoredIdentity(store)
    return Signer(key, lambda count: stored.reserve(key.key_id, count))


def acl_text(event: str, tables: list[str], hub_user: str = "hub",
             remote_games: Sequence[tuple[str, str, str]] = ()) -> str:
    """A mosquitto ACL file (``acl_file``): each table's account writes only under its own
    topic and reads only its requests, its invitations and the event's settings; the hub's
    account reads every table and writes only the requests, the invitations and the
    event's settings. ``remote_games``: (game id, host table, guest table) of the remote
    games the hub arranged (docs/remote-play.md): each table writes its own side's topic of
    its games and reads the other side's; the hub reads them all."""
    base = f"homeworlds/{event}"
    lines = [f"# homeworlds event {event}: generated by `homeworlds hub-keys acl`",
             "# Anything not allowed here is refused (mosquitto denies by default).", "",
             f"user {hub_user}", f"topic read {base}/tables/+/online",
             f"topic read {base}/tables/+/state", f"topic read {base}/tables/+/turns",
             f"topic read {base}/tables/+/result", f"topic read {base}/tables/+/events",
             f"topic write {base}/tables/+/request", f"topic write {base}/tables/+/invite",
             f"topic readwrite {base}/config/clock", "topic read homeworlds/remote/+/+", ""]
    for table in sorted(set(tables)):
        lines += [f"user {table}"]
        lines += [f"topic write {base}/tables/{table}/{kind}"
                  for kind in ("online", "state", "turns", "result", "events")]
        lines += [f"topic read {base}/tables/{table}/request",
                  f"topic read {base}/tables/{table}/invite",
                  f"topic read {base}/config/clock"]
        for game, host, guest in sorted(remote_games):
            for role, other, at in (("host", "guest", host), ("guest", "host", guest)):
                if at == table:
                    lines += [f"topic write homeworlds/remote/{game}/{role}",
                              f"topic read homeworlds/remote/{game}/{other}"]
        lines.append("")
    return "\n".join(lines)


#: mosquitto's password hash ($7$: PBKDF2-HMAC-SHA512, as ``mosquitto_passwd`` writes it).
PBKDF2_ITERATIONS = 101


def password_line(user: str, password: str, *, iterations: int = PBKDF2_ITERATIONS) -> str:
    """One line of a mosquitto ``password_file``: the password hashed as mosquitto 2
    reads it (the password itself is not in the file)."""
    salt = secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, 64)
    return (f"{user}:$7${iterations}${base64.b64encode(salt).decode()}$"
            f"{base64.b64encode(digest).decode()}")


def write_private(path: Path, text: str) -> None:
    """``text`` into ``path``, readable by its owner only, replaced atomically."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class BrokerFiles:
    """The broker's account files in one directory, kept by ``homeworlds hub-keys``:
    ``broker.passwd`` (mosquitto ``password_file``: one account per table and the hub's),
    ``broker.acl`` (``acl_file``), and beside them what each machine gets: ``<table>.key``
    and ``<table>.pw`` for a table, ``hub.pw`` for the hub."""

    def __init__(self, directory: Path, event: str, hub_user: str = "hub"):
        self.directory = directory
        self.event = event
        self.hub_user = hub_user
        self.passwd = directory / "broker.passwd"
        self.acl = directory / "broker.acl"
        #: (game id, host table, guest table) of the hub's remote games: their topics go
        #: into the ACL (``acl_text``); set from the hub's store before writing
        self.remote_games: list[tuple[str, str, str]] = []

    def _accounts(self) -> dict[str, str]:
        if not self.passwd.exists():
            return {}
        lines = self.passwd.read_text(encoding="utf-8").splitlines()
        return dict(line.split(":", 1) for line in lines if ":" in line)

    def _save(self, accounts: dict[str, str]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        write_private(self.passwd, "".join(f"{u}:{h}\n" for u, h in sorted(accounts.items())))
        write_private(self.acl, acl_text(self.event, [u for u in accounts
                                                      if u != self.hub_user], self.hub_user,
                                         self.remote_games))

    def rewrite(self) -> None:
        """Write ``broker.passwd`` and ``broker.acl`` again from the accounts held."""
        self._save(self._accounts())

    def add_account(self, user: str) -> Path:
        """A fresh broker password for ``user`` (written to ``<user>.pw``) and its hashed
        line in ``broker.passwd``; the ACL written again."""
        password = secrets.token_urlsafe(24)
        accounts = self._accounts()
        accounts[user] = password_line(user, password).split(":", 1)[1]
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{user}.pw"
        write_private(path, password + "\n")
        self._save(accounts)
        return path

    def ensure_hub(self) -> Path | None:
        """The hub's account, made once; the path of its password when made now."""
        if self.hub_user in self._accounts():
            return None
        return self.add_account(self.hub_user)

    def remove_account(self, user: str) -> bool:
        accounts = self._accounts()
        if accounts.pop(user, None) is None:
            return False
        self._save(accounts)
        return True

    def write_key(self, key: TableKey) -> Path:
        path = self.directory / f"{key.table}.key"
        self.directory.mkdir(parents=True, exist_ok=True)
        write_private(path, key.to_text(event=self.event))
        return path

"""Signed messages between a table and whoever holds the table's key (the event's hub
today; another table for remote play): HMAC-SHA256 over the key id, the table, the topic,
a sequence number and the payload (docs/event.md, "Identity").

A signed message is one header line and the payload, unchanged::

    HWS1 <key id> <sequence number> <MAC, 64 hex digits>\\n<payload bytes>

The MAC covers ``HWS1``, the key id, the table the key belongs to, the topic the message
was published on, the sequence number and the payload, each on its own line. Table and
topic are not sent: the receiver takes them from the key and from where the message
arrived, so a message moved to another topic or claimed for another table fails.

The API, independent of MQTT and of any store::

    key = TableKey.new("t4")                    # the hub issues it; key.to_text() -> file
    signer = Signer(key, reserve)               # reserve(n) -> first of n fresh numbers
    data = signer.sign(topic, payload)
    message = open_signed(data)                 # SignatureError: not a signed message
    payload = message.verify(key, topic)        # SignatureError: a forged or moved message
    ReplayWindow().accept(seq)                  # ReplayError: already seen or too old

Sequence numbers never repeat under one key: ``Signer`` takes them in blocks from
``reserve``, which must persist the block's end before returning (a restarted sender
starts after every number it could have used). The receiver keeps a ``ReplayWindow`` per
key and channel and persists its ``highest``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

MAGIC = b"HWS1"
#: A key id: letters, digits, '-', '_', '.' (it is also written in a file name).
KEY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: Bytes of a key's secret.
SECRET_BYTES = 32
#: Sequence numbers are positive and below 2**63 (SQLite's integers).
MAX_SEQ = 2 ** 63 - 1
#: Longest header line read (magic, key id, a 19-digit number, 64 hex digits).
MAX_HEADER = 4 + 1 + 64 + 1 + 19 + 1 + 64
#: Numbers ``Signer`` reserves at a time (one durable write per block).
BLOCK = 256


class SignatureError(ValueError):
    """Not a message signed with the key it names (the reason says why)."""


class ReplayError(ValueError):
    """A sequence number already seen, or too old to tell."""


@dataclass(frozen=True)
class TableKey:
    """One key of one table; ``secret`` is never shown in a repr or a message."""

    table: str
    key_id: str
    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if not KEY_ID.fullmatch(self.key_id):
            raise ValueError(f"key id {self.key_id!r}: use letters, digits, '-', '_' or '.'")
        if not KEY_ID.fullmatch(self.table):
            raise ValueError(f"table {self.table!r}: use letters, digits, '-', '_' or '.'")
        if len(self.secret) < 16:
            raise ValueError(f"key {self.key_id}: the secret has {len(self.secret)} bytes "
                             "(at least 16)")

    @classmethod
    def new(cls, table: str, key_id: str | None = None) -> TableKey:
        """A fresh random key for ``table``."""
        return cls(table, key_id or f"{table}.{secrets.token_hex(4)}",
                   secrets.token_bytes(SECRET_BYTES))

    def to_text(self, **extra: str) -> str:
        """The key file's JSON (``extra``: e.g. the event it is for)."""
        return json.dumps({"table": self.table, "key_id": self.key_id,
                           "secret": self.secret.hex(), **extra}, indent=1) + "\n"

    @classmethod
    def from_text(cls, text: str, *, source: str = "the key") -> TableKey:
        """A key file's text; ValueError naming ``source`` and the field."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{source}: not a key file (not JSON: {exc})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{source}: not a key file (not a JSON object)")
        for name in ("table", "key_id", "secret"):
            if not isinstance(data.get(name), str):
                raise ValueError(f"{source}: {name}: missing or not text")
        try:
            secret = bytes.fromhex(data["secret"])
        except ValueError:
            raise ValueError(f"{source}: secret: not hexadecimal") from None
        try:
            return cls(data["table"], data["key_id"], secret)
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None


def mac(key: TableKey, topic: str, seq: int, payload: bytes) -> str:
    """The MAC (hex) of a message."""
    signed = b"\n".join((MAGIC, key.key_id.encode(), key.table.encode(), topic.encode(),
                         str(seq).encode(), payload))
    return hmac.new(key.secret, signed, hashlib.sha256).hexdigest()


def sign(key: TableKey, topic: str, seq: int, payload: bytes) -> bytes:
    """``payload`` signed for ``topic`` with sequence number ``seq``."""
    if not 0 < seq <= MAX_SEQ:
        raise ValueError(f"sequence number {seq} out of range")
    header = f"{MAGIC.decode()} {key.key_id} {seq} {mac(key, topic, seq, payload)}\n"
    return header.encode() + payload


@dataclass(frozen=True)
class SignedMessage:
    """A signed message as received: not yet verified."""

    key_id: str
    seq: int
    mac: str
    payload: bytes

    def verify(self, key: TableKey, topic: str) -> bytes:
        """The payload when the MAC is ``key``'s for ``topic``; else SignatureError."""
        if key.key_id != self.key_id:
            raise SignatureError(f"signed with key {self.key_id}, not {key.key_id}")
        expected = mac(key, topic, self.seq, self.payload)
        if not hmac.compare_digest(expected, self.mac):
            raise SignatureError(f"the MAC does not match key {self.key_id} of table "
                                 f"{key.table} on this topic (forged, altered or moved)")
        return self.payload


_HEADER = re.compile(rb"HWS1 ([A-Za-z0-9][A-Za-z0-9_.-]{0,63}) ([1-9][0-9]{0,18}) "
                     rb"([0-9a-f]{64})")


def open_signed(data: bytes) -> SignedMessage:
    """Split a signed message into its header and payload; SignatureError when it is not
    one (unsigned, a malformed header)."""
    end = data.find(b"\n", 0, MAX_HEADER + 1)
    if end < 0 or not data.startswith(MAGIC + b" "):
        raise SignatureError("not signed (no HWS1 header)")
    found = _HEADER.fullmatch(data[:end])
    if found is None:
        raise SignatureError("a malformed signature header")
    seq = int(found.group(2))
    if seq > MAX_SEQ:
        raise SignatureError(f"sequence number {seq} out of range")
    return SignedMessage(found.group(1).decode(), seq, found.group(3).decode(),
                         data[end + 1:])


class Signer:
    """Signs with one key and numbers every message: ``reserve(n)`` returns the first of
    ``n`` numbers nobody used under this key, persisted before it returns."""

    def __init__(self, key: TableKey, reserve: Callable[[int], int], *, block: int = BLOCK):
        self.key = key
        self._reserve = reserve
        self._block = block
        self._next = 0
        self._end = 0  # first number not reserved
        self._lock = threading.Lock()

    def next_seq(self) -> int:
        with self._lock:
            if self._next >= self._end:
                first = self._reserve(self._block)
                if first < 1:
                    raise ValueError(f"reserve gave {first}: sequence numbers start at 1")
                self._next, self._end = first, first + self._block
            seq = self._next
            self._next += 1
            return seq

    def sign(self, topic: str, payload: bytes) -> bytes:
        return sign(self.key, topic, self.next_seq(), payload)

    def skip_past(self, seq: int) -> None:
        """Number the next messages above ``seq``: someone else signed it with this key
        (receivers' replay windows have moved past our numbers). The numbers skipped are
        reserved, so they are never used."""
        with self._lock:
            if self._next > seq:
                return
            first = self._reserve(seq + self._block)
            if first < 1:
                raise ValueError(f"reserve gave {first}: sequence numbers start at 1")
            self._next, self._end = max(first, seq + 1), first + seq + self._block


class ReplayWindow:
    """Sequence numbers seen under one key on one channel: each is accepted once. Numbers
    may arrive out of order within ``size`` of the highest; older ones are refused.
    ``highest`` is what a receiver persists: after a restart (``ReplayWindow(highest)``)
    only numbers above it are accepted."""

    def __init__(self, highest: int = 0, size: int = 1024):
        self.highest = highest
        self.size = size
        self._seen: set[int] = set()
        self._restarted_at = highest

    def check(self, seq: int) -> None:
        """ReplayError when ``seq`` must be refused; changes nothing."""
        if seq <= self._restarted_at:
            raise ReplayError(f"sequence number {seq} was used before (the last one "
                              f"accepted was {self.highest})")
        if seq <= self.highest - self.size:
            raise ReplayError(f"sequence number {seq} is too old (the last one accepted was "
                              f"{self.highest})")
        if seq in self._seen:
            raise ReplayError(f"sequence number {seq} was accepted before: a replay")

    def accept(self, seq: int) -> None:
        """Check ``seq`` and remember it."""
        self.check(seq)
        self._seen.add(seq)
        if seq > self.highest:
            self.highest = seq
            floor = seq - self.size
            if len(self._seen) > 2 * self.size:
                self._seen = {s for s in self._seen if s > floor}

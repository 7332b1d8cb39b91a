"""An invitation from the event's hub (docs/remote-play.md, "Invited by the hub").

The organiser pairs two of the event's tables for a remote game on the hub's admin page.
The hub makes the game's invitation (``remote.invitation``: a fresh 120-bit secret) and
sends each table, on its own topic ``homeworlds/<event>/tables/<table>/invite`` (retained:
a table that starts later still gets it), a signed message saying what its ``[remote]``
needs: the game, its role (``host`` plays seat 0, ``guest`` seat 1), the players, the rules
and the other table. The secret travels *sealed*: XORed with HMAC-SHA256 of the table's
own key over a fresh nonce, so someone reading the broker (an insider's account, a wrong
ACL) learns the public game id, never the code. The message is signed with the table's key
(``homeworlds.identity``, under the hub's own numbers as its requests are), so a table
believes only the hub; it refuses, and logs with the reason:

- an unsigned message, one signed with another key, or altered or moved to its topic;
- a replay: a sequence number below the newest invitation it took (kept in its store,
  ``event_seen``, so a restart does not reopen old invitations);
- an invitation for another event or another table, or whose sealed code does not give
  its game id;
- anything malformed (every field checked, at most 4 KiB).

The person at the table sees the invitation on its terminal and types ``accept`` (or
``decline``). Accepting writes the game file (``remote-game.json`` beside the table's
configuration, mode 600, the code in it) and restarts the table into the remote game; a
restarted ``play`` finds the file and resumes the game (``read_game_file``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import queue
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from homeworlds.event.identity import write_private
from homeworlds.identity import SignatureError, TableKey, open_signed
from homeworlds.identity.signing import MAX_HEADER
from homeworlds.remote.invitation import ROLES, SECRET_BYTES, Invitation, InvitationError
from homeworlds.remote.messages import MessageError, json_object
from homeworlds.rules import PRESETS

log = logging.getLogger("homeworlds.remote")

#: Largest invitation read (one is about 500 bytes).
MAX_BYTES = 4096
#: The game file's name beside the table's configuration.
GAME_FILE = "remote-game.json"
#: The replay channel of the hub's invitations in the table's store (``event_seen``).
CHANNEL = "invite"
#: Invitations waiting for the table loop at most (a flood beyond is dropped and counted).
INBOX_LIMIT = 100
#: Refusals noted on the terminal per minute at most (all are logged and counted).
NOTE_PER_MINUTE = 10
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
GAME_ID = re.compile(r"[0-9a-f]{16}")
HEX = re.compile(r"[0-9a-f]+")


class InvitationRefused(ValueError):
    """A message on the invite topic this table does not believe (the text says why)."""


def invite_topic(event: str, table: str) -> str:
    return f"homeworlds/{event}/tables/{table}/invite"


def _stream(key: TableKey, nonce: bytes) -> bytes:
    return hmac.new(key.secret, b"homeworlds invite seal\n" + nonce,
                    hashlib.sha256).digest()[:SECRET_BYTES]


def seal(key: TableKey, secret: bytes, nonce: bytes) -> bytes:
    """``secret`` sealed for the holder of ``key`` (and unsealed by the same call)."""
    return bytes(a ^ b for a, b in zip(secret, _stream(key, nonce), strict=True))


@dataclass(frozen=True)
class HubInvitation:
    """What the hub tells one table of a remote game."""

    event: str
    table: str
    game: str
    role: str
    players: tuple[str, ...]
    rules: str
    host_table: str
    guest_table: str
    invitation: Invitation

    @property
    def seat(self) -> int:
        return ROLES.index(self.role)

    @property
    def other_table(self) -> str:
        return self.guest_table if self.role == "host" else self.host_table

    def describe(self) -> str:
        """The invitation in words, for the table's terminal."""
        me, other = self.players[self.seat], self.players[1 - self.seat]
        return (f"remote game {self.game}: {me} (seat {self.seat}, here) v {other} (at "
                f"table {self.other_table}), rules {self.rules}")

    def payload(self, key: TableKey, nonce: bytes | None = None) -> bytes:
        """The JSON the hub signs for this table (``key``: the table's)."""
        nonce = nonce or secrets.token_bytes(16)
        return json.dumps({
            "type": "invitation", "event": self.event, "table": self.table,
            "game": self.game, "role": self.role, "players": list(self.players),
            "rules": self.rules, "host_table": self.host_table,
            "guest_table": self.guest_table, "nonce": nonce.hex(),
            "sealed": seal(key, self.invitation.secret, nonce).hex()},
            sort_keys=True).encode()

    def game_file_text(self) -> str:
        return json.dumps({
            "event": self.event, "table": self.table, "game": self.game, "role": self.role,
            "players": list(self.players), "rules": self.rules,
            "host_table": self.host_table, "guest_table": self.guest_table,
            "code": self.invitation.code}, indent=1) + "\n"


def _name(data: dict, field: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise InvitationRefused(f"malformed: {field}: not a name of 1 to 64 letters, digits, "
                                "'-', '_' or '.'")
    return value


def _players(data: dict) -> tuple[str, ...]:
    players = data.get("players")
    if not isinstance(players, list) or len(players) != 2 or not all(
            isinstance(p, str) and 0 < len(p) <= 40 and p.isprintable() and p == p.strip()
            for p in players) or players[0] == players[1]:
        raise InvitationRefused("malformed: players: not two different names (printable, "
                                "at most 40 characters)")
    return tuple(players)


def _fields(data: dict) -> tuple[str, str, str, tuple[str, ...], str, str, str]:
    """(event, table, game, players, rules, host table, guest table), checked."""
    game = data.get("game")
    if not isinstance(game, str) or not GAME_ID.fullmatch(game):
        raise InvitationRefused("malformed: game: not a game id (16 hex digits)")
    rules = data.get("rules")
    if not isinstance(rules, str) or rules not in PRESETS:
        raise InvitationRefused(f"malformed: rules: {str(rules)[:40]!r} is not one of "
                                f"{', '.join(sorted(PRESETS))}")
    host, guest = _name(data, "host_table"), _name(data, "guest_table")
    if host == guest:
        raise InvitationRefused(f"malformed: both sides are table {host}")
    return (_name(data, "event"), _name(data, "table"), game, _players(data), rules, host,
            guest)


def read_invitation(payload: bytes, key: TableKey, event: str, table: str) -> HubInvitation:
    """The invitation in ``payload`` (its signature already verified with ``key``) for
    ``table`` of ``event``; InvitationRefused naming what is wrong."""
    try:
        data = json_object(payload, MAX_BYTES)
    except MessageError as exc:
        raise InvitationRefused(f"malformed: {exc}") from None
    if data.get("type") != "invitation":
        raise InvitationRefused("malformed: not an invitation")
    their_event, their_table, game, players, rules, host, guest = _fields(data)
    if their_event != event:
        raise InvitationRefused(f"the invitation is for event {their_event}, this table "
                                f"plays at event {event}")
    if their_table != table:
        raise InvitationRefused(f"the invitation is for table {their_table}, this is table "
                                f"{table}")
    role = data.get("role")
    if role not in ROLES or (host, guest)[ROLES.index(role)] != table:
        raise InvitationRefused(f"malformed: role: {str(role)[:20]!r} does not name this "
                                f"table's side (host {host}, guest {guest})")
    nonce, sealed = data.get("nonce"), data.get("sealed")
    if not isinstance(nonce, str) or not HEX.fullmatch(nonce) or len(nonce) != 32 or \
            not isinstance(sealed, str) or not HEX.fullmatch(sealed) or \
            len(sealed) != 2 * SECRET_BYTES:
        raise InvitationRefused("malformed: nonce/sealed: not 16 and 15 bytes in hex")
    invitation = Invitation(seal(key, bytes.fromhex(sealed), bytes.fromhex(nonce)))
    if invitation.game_id != game:
        raise InvitationRefused(f"the sealed code does not open to game {game} (sealed "
                                "for another key, or altered)")
    return HubInvitation(event, table, game, role, players, rules, host, guest, invitation)


# ---------------------------------------------------------------------- the game file


def read_game_file(path: Path) -> HubInvitation:
    """The accepted invitation kept in ``path`` (``GAME_FILE``); ValueError naming the
    problem (a file readable by others, not one of ours, a mistyped code)."""
    try:
        mode = path.stat().st_mode
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: not the JSON an accepted invitation writes: {exc}") \
            from None
    if mode & 0o077:
        raise ValueError(f"{path} can be read by others (mode {mode & 0o777:o}): it holds "
                         "the remote game's code; chmod 600 it")
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not the JSON an accepted invitation writes")
    try:
        event, table, game, players, rules, host, guest = _fields(data)
        invitation = Invitation.from_code(str(data.get("code", "")))
    except (InvitationRefused, InvitationError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    role = data.get("role")
    if role not in ROLES or invitation.game_id != game:
        raise ValueError(f"{path}: its role or code does not fit game {game}")
    return HubInvitation(event, table, game, role, players, rules, host, guest, invitation)


def store_game(path: Path) -> str | None:
    """The uid of the store's game that plays the accepted invitation in ``path`` (None:
    not started yet: the next start begins it as a new game)."""
    try:
        uid = json.loads(path.read_text(encoding="utf-8")).get("store_game")
    except (OSError, ValueError, AttributeError):
        return None
    return uid if isinstance(uid, str) and HEX.fullmatch(uid) and len(uid) <= 64 else None


def note_store_game(path: Path, uid: str) -> None:
    """Keep in ``path`` that the store's game ``uid`` plays its invitation (a restart
    resumes that game, never an older one of the same players)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["store_game"] = uid
    write_private(path, json.dumps(data, indent=1) + "\n")


# ---------------------------------------------------------------------- the table's desk


class InvitationDesk:
    """A table's side of the hub's invitations: what arrives on its invite topic is
    checked on the table loop's thread (``poll``), shown, and accepted or declined by the
    person at the table (``command``: ``accept`` / ``decline``).

    ``seen``/``record_seen``: the highest sequence number of the hub's invitations taken
    (persisted in the table's store); ``can_start()``: why the table cannot start another
    game now (None: it can); ``say``: a line for the table's terminal."""

    def __init__(self, key: TableKey, event: str, table: str, game_file: Path, *,
                 seen: int, record_seen: Callable[[int], None],
                 can_start: Callable[[], str | None], say: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic):
        self.key, self.event, self.table = key, event, table
        self.topic = invite_topic(event, table)
        self.game_file = game_file
        self._seen = seen
        self._record_seen = record_seen
        self._can_start = can_start
        self._say = say
        self._clock = clock
        self._inbox: queue.Queue[tuple[str, bytes]] = queue.Queue(INBOX_LIMIT)
        self.dropped = 0
        #: the invitation shown and waiting for ``accept`` / ``decline``
        self.pending: HubInvitation | None = None
        #: the invitation accepted now (the table restarts into its game)
        self.accepted: HubInvitation | None = None
        self.declined: set[str] = set()
        #: (topic, reason) of the last refusals, and how many in all
        self.refusals: deque[tuple[str, str]] = deque(maxlen=50)
        self.refused_count = 0
        self._noted: deque[float] = deque()
        self.current_game = self._current_game()

    def _current_game(self) -> str | None:
        try:
            return read_game_file(self.game_file).game if self.game_file.exists() else None
        except ValueError:
            return None

    def offer(self, topic: str, data: bytes) -> None:
        """From the MQTT thread: a message on the invite topic (checked by ``poll``)."""
        if not data:
            return  # the hub withdrew its retained invitation
        if len(data) > MAX_BYTES + MAX_HEADER + 1:
            self.dropped += 1
            return
        try:
            self._inbox.put_nowait((topic, bytes(data)))
        except queue.Full:
            self.dropped += 1

    def poll(self) -> None:
        """Check what arrived (on the table loop's thread)."""
        while True:
            try:
                topic, data = self._inbox.get_nowait()
            except queue.Empty:
                break
            try:
                self._take(topic, data)
            except InvitationRefused as exc:
                self._refuse(topic, str(exc))
        if self.dropped:
            self._refuse(self.topic, f"{self.dropped} messages dropped unread (larger than "
                         f"{MAX_BYTES} bytes, or a flood of more than {INBOX_LIMIT})")
            self.dropped = 0

    def _take(self, topic: str, data: bytes) -> None:
        if topic != self.topic:
            raise InvitationRefused(f"not this table's invite topic ({self.topic})")
        try:
            signed = open_signed(data)
            payload = signed.verify(self.key, topic)
        except SignatureError as exc:
            raise InvitationRefused(str(exc)) from None
        if signed.seq < self._seen:
            raise InvitationRefused(f"replayed: sequence number {signed.seq} is older than "
                                    f"the hub's invitation taken before ({self._seen})")
        invitation = read_invitation(payload, self.key, self.event, self.table)
        if signed.seq > self._seen:
            self._record_seen(signed.seq)  # persisted before it is shown
            self._seen = signed.seq
        if invitation.game in (self.current_game, *self.declined) or (
                self.pending is not None and self.pending.game == invitation.game):
            return  # the same invitation again (retained, or sent again by the hub)
        self.pending = invitation
        self._say(f"invitation from the hub: {invitation.describe()}; type `accept` to "
                  "play it at this table, or `decline`")

    def _refuse(self, topic: str, reason: str) -> None:
        self.refused_count += 1
        self.refusals.append((topic, reason))
        log.warning("table %s: refused an invitation on %s: %s", self.table, topic, reason)
        now = self._clock()
        while self._noted and now - self._noted[0] > 60:
            self._noted.popleft()
        if len(self._noted) < NOTE_PER_MINUTE:
            self._noted.append(now)
            self._say(f"refused an invitation on {topic}: {reason}")

    def command(self, line: str) -> str | None:
        """``accept`` / ``decline`` typed at the table, or ``accept-invitation`` /
        ``decline-invitation`` (which no other verb of the table shares; None: not one of
        these)."""
        words = line.split()
        verb = words[0].lower().removesuffix("-invitation") if words else ""
        if verb not in ("accept", "decline"):
            return None
        pending = self.pending
        if pending is None:
            return "no invitation from the hub is waiting"
        if verb == "decline":
            self.declined.add(pending.game)
            self.pending = None
            return f"declined {pending.describe()}"
        return self.accept()

    def accept(self) -> str:
        """Take the pending invitation: its game file is written (mode 600); the table
        then restarts into the game (``accepted``)."""
        pending = self.pending
        if pending is None:
            return "no invitation from the hub is waiting"
        problem = self._can_start()
        if problem is not None:
            return f"cannot accept the invitation now: {problem}"
        try:
            write_private(self.game_file, pending.game_file_text())
        except OSError as exc:
            return f"cannot keep the invitation in {self.game_file}: {exc.strerror or exc}"
        self.pending = None
        self.accepted, self.current_game = pending, pending.game
        return (f"accepted {pending.describe()}; its code is kept in {self.game_file}: the "
                "table starts the remote game")

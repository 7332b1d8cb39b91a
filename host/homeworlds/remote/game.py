"""One table's side of a remote game: its player's turns go out, the other side's come in.

The other side's seat is played like a computer seat (``session.computer``): its "player"
(``RemotePlayer``) waits in the advisor's worker thread for the other table's turn instead
of thinking, and the session lays that turn out on this table by the same LED guidance and
commits it only when the table shows it (a wrong piece is corrected as for the computer).
This table's own turns are sensed as always; once committed they are signed and published.

Everything that reaches the game runs on the table loop's thread (``poll``, a tick
listener): the MQTT thread only queues what arrives. A message of the other side is
accepted only when it is signed with the other side's key of this game (derived from the
invitation), its sequence number is new (``ReplayWindow``, its highest persisted), it is a
well-formed message of this game, and, for a turn, it is the next turn, of the other seat,
and legal. Anything else is refused; the reason is shown here and told to the other side.
"""

from __future__ import annotations

import hashlib
import queue
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from homeworlds.clock import ClockSpec
from homeworlds.identity import ReplayError, ReplayWindow, SignatureError, Signer, open_signed
from homeworlds.identity.signing import MAX_HEADER
from homeworlds.remote.cards import TableCards
from homeworlds.remote.deal import DealError
from homeworlds.remote.invitation import Invitation
from homeworlds.remote.messages import (
    MAX_BYTES,
    Commitments,
    DealStep,
    Departure,
    Hello,
    Lock,
    Message,
    MessageError,
    Offline,
    Refusal,
    Reveal,
    TurnMessage,
    read_payload,
    to_payload,
    topic,
)
from homeworlds.rules import GameState, HomeworldsError, IllegalAction, Turn
from homeworlds.session import ClockReading, Stage, TableSession
from homeworlds.store.records import turn_from_sdg, turn_to_sdg
from homeworlds.table.tracker import Commit, Status

#: The replay window's channel name in the store (``store.identity``, ``event_seen``).
CHANNEL = "remote"
#: How much more time a clock here may show than the other side's reading before this side
#: answers with its own (more than a message takes on a local broker; less than a pause's gap).
CLOCKS_AHEAD_MS = 100
#: Messages waiting for the table loop at most (a flood beyond is dropped and counted).
INBOX_LIMIT = 1000
#: A copy of one of the last so many messages accepted is a second delivery of it (MQTT's
#: QoS 1 delivers at least once: a message held in a stalled connection arrives again
#: after the reconnection), ignored; an older one is a replay, refused.
DUPLICATE_WINDOW = 8
#: Last wills signed ahead at each connection, one per reconnection attempt (the last is
#: used again beyond).
WILLS = 16
#: At most so many refusals are told to the other side per minute (a flood of forgeries
#: must not make this table flood the broker).
TELL_PER_MINUTE = 20
#: Turns a message may run ahead of this table and be kept until its time (three or more
#: sides); beyond, it is refused as out of order.
MAX_AHEAD = 64


@dataclass(frozen=True)
class Refused:
    """A refusal, as the log keeps it: ``side`` is "here" (this table refused a message of
    the other) or "there" (the other table refused one of ours)."""

    side: str
    number: int | None
    reason: str
    at: float


class RemoteGame:
    """This table's side. ``local_seat``: the seat this table plays, or every seat it plays
    (a table may play several seats of a game of three or more). ``reserve(n)``: the first
    of ``n`` fresh sequence numbers of this side's key, persisted
    (``StoredIdentity.reserve``); ``seen``: the highest sequence number accepted before of
    the other side (two sides), or of each other side by role; ``record_seen(highest)``
    (two sides) or ``record_seen_by(role, highest)`` persists it."""

    def __init__(self, session: TableSession, invitation: Invitation, role: str,
                 local_seat: int | Iterable[int], *, reserve: Callable[[int], int],
                 seen: int | Mapping[str, int] = 0,
                 record_seen: Callable[[int], None] = lambda highest: None,
                 record_seen_by: Callable[[str, int], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 deal_file: Path | None = None):
        self.session = session
        self.tracker = session.tracker
        self.invitation = invitation
        self.game_id = invitation.game_id
        self.role = role
        self.roles = invitation.roles
        if role not in self.roles:
            raise ValueError(f"role {role!r}: one of {', '.join(self.roles)}")
        self.peer_roles = tuple(r for r in self.roles if r != role)
        players = len(self.tracker.players)
        seats = (local_seat,) if isinstance(local_seat, int) else tuple(local_seat)
        self.local_seats = frozenset(seats)
        if not seats or not all(0 <= s < players for s in seats) \
                or len(self.local_seats) != len(seats):
            raise ValueError(f"seats {list(seats)}: one or more different seats from 0 to "
                             f"{players - 1}")
        if players - len(seats) < len(self.peer_roles):
            raise ValueError(f"{len(self.roles)} tables cannot share {players} seats when "
                             f"this one plays {len(seats)}: every table plays one or more")
        self.local_seat = min(seats)
        self.key = invitation.key(role)
        self.peer_keys = {r: invitation.key(r) for r in self.peer_roles}
        self.topic = topic(self.game_id, role)
        self.peer_topics = {topic(self.game_id, r): r for r in self.peer_roles}
        self.signer = Signer(self.key, reserve)
        highest = seen if isinstance(seen, Mapping) else {self.peer_roles[0]: seen}
        self.windows = {r: ReplayWindow(highest.get(r, 0)) for r in self.peer_roles}
        self._record_seen = record_seen_by or (lambda _role, h: record_seen(h))
        self.clock = clock
        #: Where messages go (the MQTT connection sets it): (topic, data, retain).
        self.send: Callable[[str, bytes, bool], None] | None = None
        #: Hands the connection fresh last wills (link id, data), one for each connection
        #: attempt to come; ``current_link``: the link id of the connection up now (the
        #: MQTT connection sets both).
        self.set_wills: Callable[[list[tuple[str, bytes]]], None] | None = None
        self.current_link: Callable[[], str | None] = lambda: None
        #: A departure (after, kind, seat) applied here from another table, and whether it
        #: ended the game (the table's store keeps it: ``RemoteTableLink``).
        self.on_departure: Callable[[tuple[int, str, int], bool], None] | None = None
        self._inbox: queue.Queue[tuple[str, bytes | bool]] = queue.Queue(INBOX_LIMIT)
        #: Messages dropped unread: too large, or the inbox full (a flood).
        self.dropped = 0
        #: Digests of the messages accepted last, and how many second deliveries of them
        #: (or old last wills) were ignored.
        self._recent: deque[bytes] = deque(maxlen=DUPLICATE_WINDOW)
        self.duplicates = 0
        self._ready: dict[int, Turn] = {}
        #: Turns and departures that arrived before the ones before them (three or more
        #: sides: a side that comes back hears every other side's again, in any order).
        self._early: dict[int, tuple[str, TurnMessage]] = {}
        self._early_departures: dict[int, tuple[str, Departure]] = {}
        #: The other side's clock reading of each turn ready here (adopted at the commit).
        self._readings: dict[int, ClockReading] = {}
        #: Our clock reading of each turn we sent (sent again with the turn).
        self._sent_clocks: dict[int, tuple[int, ...]] = {}
        #: Our clock reading of turn n as the store keeps it (a turn sent again after a
        #: restart; ``RemoteTableLink`` reads the store), None: not kept.
        self.stored_clocks: Callable[[int], tuple[int, ...] | None] = lambda number: None
        self._ready_changed = threading.Condition()
        self.closed = False
        self.link_up = False
        #: Each other side's last hello, and whether it is online now.
        self.peers: dict[str, Hello] = {}
        self.online: dict[str, bool] = {r: False for r in self.peer_roles}
        #: Each side that refused our turn: (number, reason), until it holds that turn.
        self.refused_by: dict[str, tuple[int | None, str]] = {}
        self.refusals: deque[Refused] = deque(maxlen=100)
        self._told: deque[float] = deque()
        #: Messages of other sides refused here in all, and since the last one noted.
        self.refused_count = 0
        self._quiet = 0
        #: When each turn of another side arrived and was accepted (the benchmark).
        self.accepted_at: dict[int, float] = {}
        self._last_pause: str | None = None
        #: Departures of the tracker known to this side (told, or applied from elsewhere).
        self._departures_known = len(self.tracker.departures)
        #: A result decided here by a card revealed by another table (the store keeps it).
        self.on_result: Callable[[], None] | None = None
        #: Good/Evil: the cards dealt across the tables (None: no secret cards).
        self.cards: TableCards | None = None
        self._cards_learnt = False
        #: The resignation that ended the game here was told (or came from elsewhere).
        self._end_told = self.tracker.ended_by is not None
        self._audit_noted = False
        #: Sequence numbers this side signed since it was made (the first: where they
        #: start), to tell its own messages, which the broker echoes, from an impostor's.
        self._signed: set[int] = set()
        self._first_signed: int | None = None
        #: Another table of this game signed as this one (why), or None.
        self.impostor: str | None = None
        if self.tracker.alignments is not None:
            # ``deal_file`` keeps this side's part (a restarted host goes on with it); a
            # file that is not this game's is an error the table's start reports.
            self.cards = TableCards(self.game_id, players, self.roles.index(role),
                                    len(self.roles), self.local_seats, deal_file)
            # No card is known here until the tables have dealt them (the deal the session
            # was made with is a stand-in: it is never shown, nor decides a result).
            self.tracker.state.secret_seats = frozenset(range(players))
            if self.tracker.record and not self.cards.dealt:
                self._note("this Good/Evil game's deal was not kept (no deal file): this "
                           "table knows no card (docs/remote-play.md)")

    # ------------------------------------------------------------------ the sides

    @property
    def sides(self) -> int:
        return len(self.roles)

    @property
    def remote_seats(self) -> frozenset[int]:
        """The seats played at other tables."""
        return frozenset(range(len(self.tracker.players))) - self.local_seats

    @property
    def peer_seat(self) -> int:
        """The first seat played elsewhere (the other seat, with two players)."""
        return min(self.remote_seats)

    @property
    def peer_topic(self) -> str:
        """The other side's topic (the first other side's, with three or more)."""
        return topic(self.game_id, self.peer_roles[0])

    @property
    def peer_key(self):
        return self.peer_keys[self.peer_roles[0]]

    @property
    def peer(self) -> Hello | None:
        return self.peers.get(self.peer_roles[0])

    @property
    def peer_online(self) -> bool:
        """Every other side is online."""
        return all(self.online.values())

    @property
    def refused_there(self) -> tuple[int | None, str] | None:
        return next(iter(self.refused_by.values()), None)

    def seats_of(self, role: str) -> frozenset[int]:
        """The seats ``role`` plays: as its hello said; with two sides, before it said
        hello, every seat not played here."""
        hello = self.peers.get(role)
        if hello is not None:
            return frozenset(hello.played)
        return self.remote_seats if self.sides == 2 else frozenset()

    def owner_of(self, seat: int) -> str | None:
        """The role of the side that plays ``seat`` (None: not known yet)."""
        if seat in self.local_seats:
            return self.role
        return next((r for r in self.peer_roles if seat in self.seats_of(r)), None)

    def table_name(self, role: str) -> str:
        """How notes name a side: "the other table" with two; else by its players."""
        if self.sides == 2:
            return "the other table"
        seats = sorted(self.seats_of(role))
        if not seats:
            return f"the {role} table"
        return f"{' and '.join(self.tracker.players[s] for s in seats)}'s table ({role})"

    # ------------------------------------------------------------------ wiring

    def attach(self) -> None:
        """Listen to the session: publish our commits, run ``poll`` at every tick."""
        events = self.session.events
        events.committed.listen(Stage.PUBLISH, self.committed)
        events.tick.listen(Stage.CONTROL, self.poll)
        self.session.pause_sources.append(self.pause_reason)
        self.guard_seat()

    def guard_seat(self) -> None:
        """The other tables' seats' turns are committed only as they arrived from there (a
        person handling such a seat's pieces before is refused at the hand-over), with the
        clocks as the sending table read them (``clock_reading``)."""
        self.tracker.elsewhere_seats = self.remote_seats
        self.session.timekeeper.reading_for = self.clock_reading

    def clock_reading(self, commit: Commit) -> ClockReading | None:
        """For the session's clocks, on the loop's thread: the sending table's reading of
        the clocks for the turn committed now, if it is another side's and came with one."""
        if commit.seat in self.local_seats:
            return None
        return self._readings.pop(len(self.tracker.record), None)

    def pause_reason(self) -> str | None:
        """"remote" while the game is paused by another table or the link: the clocks
        pause on every table (docs/clocks.md)."""
        return "remote" if self.paused is not None else None

    def player_factory(self, level, seed, rules, names) -> RemotePlayer:
        """For ``new_session(player_factory=...)``: the other seats' "computer"."""
        return RemotePlayer(lambda: self)

    def will(self, link: str | None = None) -> tuple[str, bytes]:
        """The last will the broker publishes when this side's link is lost (signed now);
        ``link``: the connection it is left by."""
        return self.topic, self.sign_own(to_payload(Offline(self.game_id, link)))

    def wills_ahead(self) -> list[tuple[str, bytes]]:
        """Last wills for the connection attempts to come, each for a connection of its
        own (a random link id) and with a fresh sequence number."""
        return [(link, self.will(link)[1])
                for link in (secrets.token_hex(8) for _ in range(WILLS))]

    def sign_own(self, payload: bytes) -> bytes:
        """``payload`` signed for this side's topic; its number is remembered, so that the
        broker's echo of it is known for ours."""
        data = self.signer.sign(self.topic, payload)
        seq = open_signed(data).seq
        self._signed.add(seq)
        if self._first_signed is None:
            self._first_signed = seq
        return data

    def received(self, message_topic: str, data: bytes) -> None:
        """From the MQTT thread: a message arrived (handled by ``poll``). One too large to
        be ours, or beyond a full inbox, is dropped unread (``dropped``)."""
        if len(data) > MAX_BYTES + MAX_HEADER + 1:
            self.dropped += 1
            return
        try:
            self._inbox.put_nowait((message_topic, bytes(data)))
        except queue.Full:
            self.dropped += 1

    def connected(self, up: bool) -> None:
        """From the MQTT thread: the link to the broker is up or lost."""
        self._inbox.put(("", up))  # waits while a flood fills the inbox: never lost

    def close(self) -> None:
        self.closed = True
        with self._ready_changed:
            self._ready_changed.notify_all()

    # ------------------------------------------------------------------ state

    @property
    def paused(self) -> str | None:
        """Why the game cannot go on now (None: it can)."""
        if not self.link_up:
            return "paused: the link to the broker is lost (reconnecting)"
        if self.impostor is not None:
            return f"paused: {self.impostor}"
        for role, (number, reason) in self.refused_by.items():
            return f"paused: {self.table_name(role)} refused turn {number}: {reason}"
        away = [r for r in self.peer_roles if not self.online[r]]
        if away:
            if self.sides == 2:
                return "paused: waiting for the other table"
            return "paused: waiting for " + ", ".join(self.table_name(r) for r in away)
        unplayed = [s for s in range(len(self.tracker.players)) if self.owner_of(s) is None]
        if unplayed:
            return "paused: no table plays " + ", ".join(
                f"seat {s} ({self.tracker.players[s]})" for s in unplayed)
        if self.cards is not None and not self.cards.dealt and not self.tracker.record:
            return ("paused: the tables deal the Good/Evil cards ("
                    f"{self.cards.progress()})")
        return None

    def ready_turn(self, number: int) -> Turn | None:
        with self._ready_changed:
            return self._ready.get(number)

    def wait_for_turn(self, number: int, timeout: float) -> Turn | None:
        """Another side's turn ``number`` once accepted, None after ``timeout`` seconds or
        once closed (the advisor's thread waits)."""
        with self._ready_changed:
            if number not in self._ready and not self.closed:
                self._ready_changed.wait(timeout)
            return self._ready.get(number)

    # ------------------------------------------------------------------ the loop's work

    def poll(self) -> None:
        """Handle what arrived (on the table loop's thread)."""
        while True:
            try:
                where, data = self._inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(data, bool):
                self._link_changed(data)
            elif where in self.peer_topics:
                self._handle(self.peer_topics[where], where, data)
            elif where == self.topic:
                self._own_topic(data)
        if self.dropped:
            self._refuse(None, f"{self.dropped} messages dropped unread (larger than "
                         f"{MAX_BYTES} bytes, or a flood of more than {INBOX_LIMIT})")
            self.dropped = 0
        self._tell_departures()
        self._release_early()
        self._deal_cards()
        pause = self.paused
        if pause != self._last_pause:
            self._note(pause or ("the other table is here: the game goes on"
                                 if self.sides == 2 else
                                 "every table is here: the game goes on"))
            self._last_pause = pause

    def _own_topic(self, data: bytes) -> None:
        """A message on this side's own topic (the broker echoes ours): signed with this
        side's key but not by this side since it was made, it is another table of the
        game signing as this one (every table derives every key from the code). It is told
        to every table, and this table pauses."""
        try:
            signed = open_signed(data)
            signed.verify(self.key, self.topic)
        except SignatureError:
            return  # not signed with our key: every other table refuses it anyway
        first = self._first_signed
        if first is None or signed.seq < first or signed.seq in self._signed:
            return  # ours, or from before this side was made (a restart)
        reason = (f"a message signed as {self.role} that this table did not send (number "
                  f"{signed.seq}): another table of this game signs as it")
        if self.impostor is None:
            self.impostor = reason
        # The other tables now refuse our numbers up to the impostor's as replays: ours go
        # on above it, so that what we say (this first) reaches them.
        self.signer.skip_past(signed.seq)
        self._refuse(None, reason)

    def _link_changed(self, up: bool) -> None:
        self.link_up = up
        if up:
            # This connection's will is spent once the link is lost (and an attempt that
            # reached the broker but was given up spends its own): each attempt to come
            # gets a will with a fresh sequence number, or the others would refuse it as a
            # replay and not learn of the next cut.
            if self.set_wills is not None:
                self.set_wills(self.wills_ahead())
            self._say(self._hello())
        else:
            for role in self.online:
                self.online[role] = False

    def _handle(self, role: str, where: str, data: bytes) -> None:
        try:
            signed = open_signed(data)
            payload = signed.verify(self.peer_keys[role], where)
            self.windows[role].check(signed.seq)
            message = read_payload(payload, self.game_id)
        except ReplayError as exc:
            will = _offline(payload, self.game_id)
            if will is not None and will.link is not None and self.online[role] \
                    and will.link == getattr(self.peers.get(role), "link", None):
                # The will of the connection that side is on now, signed before this table
                # last restarted (its replay window starts above it): the link is lost.
                self._dispatch(role, will)
                return
            if hashlib.sha256(data).digest() in self._recent or will is not None:
                # Delivered twice (at least once), not replayed; or an old last will
                # (retained, or of an attempt given up): nothing to do either way.
                self.duplicates += 1
                return
            self._refuse(None, f"a message refused: {exc}", role)
            return
        except (SignatureError, MessageError) as exc:
            self._refuse(None, f"a message refused: {exc}", role)
            return
        self._recent.append(hashlib.sha256(data).digest())
        self.windows[role].accept(signed.seq)
        self._record_seen(role, self.windows[role].highest)
        self._dispatch(role, message)

    def _dispatch(self, role: str, message: Message) -> None:
        if isinstance(message, Hello):
            self._hello_received(role, message)
        elif isinstance(message, TurnMessage):
            self._turn_received(role, message)
        elif isinstance(message, Departure):
            self._departure_received(role, message)
        elif isinstance(message, Refusal):
            self._refusal_received(role, message)
        elif isinstance(message, Offline):
            current = getattr(self.peers.get(role), "link", None)
            if message.link is not None and current is not None and message.link != current:
                self.duplicates += 1  # the will of a connection given up: that side is on
                return
            # Say so: if that side is there after all, its answer resumes the game at once.
            if self.online[role]:
                self.online[role] = False
                self._say(self._hello())
        elif isinstance(message, DealStep | Commitments | Reveal | Lock):
            try:
                self._cards_message(role, message)
            except DealError as exc:
                self._refuse(None, str(exc), role)
            if self.cards is not None:
                self.cards.save()

    def _refusal_received(self, role: str, message: Refusal) -> None:
        what = f"turn {message.number}" if message.number else "a message"
        if message.to is not None and message.to != self.role:
            # Every side reads every refusal: one of a third side's messages.
            self._note(f"{self.table_name(role)} refused {self.table_name(message.to)}'s "
                       f"{what}: {message.reason}")
            return
        self.refusals.append(Refused("there", message.number, message.reason, self.clock()))
        self._note(f"{self.table_name(role)} refused {what}: {message.reason}")
        if message.number is not None:
            self.refused_by[role] = (message.number, message.reason)

    def _hello_received(self, role: str, hello: Hello) -> None:
        mismatch = self._setup_mismatch(role, hello)
        if mismatch is not None:
            self._refuse(None, mismatch, role)
            return
        first = not self.online[role]
        self.peers[role], self.online[role] = hello, True
        count = len(self.tracker.record)
        refused = self.refused_by.get(role)
        if refused is not None and hello.turns >= (refused[0] or 0):
            del self.refused_by[role]
        behind = False
        if hello.clocks_ms is not None and hello.turns == count:
            # After a cut: every side's clocks stand where the first to notice stopped them.
            self.session.timekeeper.agree(hello.clocks_ms, self.session.clock())
            behind = self._clocks_ahead_of(hello.clocks_ms)
        if first or hello.waiting:
            # A side met (again) hears where our clocks stand, whatever it said.
            self._say(self._hello(answer=hello.waiting, with_clocks=True))
        elif behind:
            # Its clocks stand behind ours (it never learnt where ours stopped: its hello
            # crossed ours): it hears ours. An answer never waits, and once both agree
            # neither is behind, so this ends.
            self._say(self._hello(answer=True))
        if first and self.cards is not None:
            for message in self.cards.told_again():
                self._say(message)
        # Turns and departures of ours the other side missed (lost while its link or host
        # was down).
        departures = self.tracker.departures
        for index in range(hello.departures, len(departures)):
            if departures[index][2] in self.local_seats and index < self._departures_known:
                self._publish_departure(index)
        for number in range(hello.turns + 1, count + 1):
            seat, turn = self.tracker.record[number - 1]
            if seat in self.local_seats:
                self._publish_turn(number, seat, turn)

    def _clocks_ahead_of(self, theirs: tuple[int, ...]) -> bool:
        """A seat's clock here shows more time left than the other side's reading by more
        than a message's delay (``CLOCKS_AHEAD_MS``): that side must hear ours."""
        clocks = self.session.clocks
        if clocks is None or not clocks.started or clocks.ended \
                or len(theirs) != len(clocks.remaining):
            return False
        now = self.session.clock()
        return any(clocks.remaining_ms(seat, now) - reading > CLOCKS_AHEAD_MS
                   for seat, reading in enumerate(theirs))

    def _setup_mismatch(self, role: str, hello: Hello) -> str | None:
        players = tuple(self.tracker.players)
        if hello.players != players:
            return (f"{self.table_name(role)} plays {' v '.join(hello.players)}, this table "
                    f"{' v '.join(players)}")
        if hello.rules != self.tracker.rules.name:
            return f"{self.table_name(role)} plays {hello.rules} rules, this table " \
                   f"{self.tracker.rules.name}"
        for seat in hello.played:
            if seat in self.local_seats:
                return f"both tables play seat {seat} ({players[seat]})"
            for other in self.peer_roles:
                if other != role and seat in self.seats_of(other) and other in self.peers:
                    return (f"{role} and {other} both play seat {seat} ({players[seat]})")
        mine = self.session.timekeeper.game_spec or ClockSpec()
        if hello.clock.to_dict() != mine.to_dict():
            return (f"{self.table_name(role)} plays with {hello.clock.describe()}, this "
                    f"table with {mine.describe()}")
        return None

    def _turn_received(self, role: str, message: TurnMessage) -> None:
        try:
            turn = self._check_turn(role, message)
        except MessageError as exc:
            self._refuse(message.number, str(exc), role)
            return
        if turn is None:
            return  # a turn this table holds already, or one held until its time
        if message.clocks_ms is not None:
            self._note_reading(message.number, message.seat, message.clocks_ms)
        with self._ready_changed:
            self._ready[message.number] = turn
            self._ready_changed.notify_all()
        if self.cards is not None:
            # A player of ours it eliminates reveals their card now (002: "any players that
            # you eliminated should aso reveal their aignments"): every table knows it
            # before it commits the turn.
            after = self.tracker.state.copy()
            after.apply_turn(turn)
            self._reveal_cards(s for s in self.local_seats if after.revealed[s] is not None)
        self.accepted_at[message.number] = self.clock()
        source = "the other table" if self.sides == 2 else self.table_name(role)
        self._note(f"turn {message.number} from {source}: "
                   + "; ".join(map(str, turn)) + ": follow the lights")

    def _note_reading(self, number: int, seat: int, clocks_ms: tuple[int, ...]) -> None:
        """Keep the sending side's clocks of turn ``number``, with how long the mover's
        clock has run here for it so far."""
        clocks = self.session.clocks
        if clocks is None:
            return  # untimed here: nothing to agree on
        now = self.session.clock()
        used = clocks.at(now).used if clocks.to_move == seat else 0.0
        self._readings[number] = ClockReading(clocks_ms, used, now)

    def _check_turn(self, role: str, message: TurnMessage) -> Turn | None:
        """The turn to lay out; None for a repeat of a turn held (or a turn kept until
        the turns before it arrived); MessageError: why not."""
        players = self.tracker.players
        number, count = message.number, len(self.tracker.record)
        played = self.seats_of(role)
        if message.seat not in played:
            plays = " and ".join(players[s] for s in sorted(played)) or "no seat yet"
            raise MessageError(f"turn {number} is for seat {message.seat} "
                               f"({players[message.seat]}); "
                               f"{self.table_name(role)} plays {plays}")
        try:
            turn = turn_from_sdg(message.sdg, message.seat, players)
        except (HomeworldsError, ValueError) as exc:
            raise MessageError(f"turn {number} is not a turn: {exc}") from None
        held = self.tracker.record[number - 1] if number <= count else \
            (message.seat, self._ready[number]) if number in self._ready else None
        if held is not None:
            if held == (message.seat, turn):
                return None
            raise MessageError(f"turn {number} differs from the turn {number} this table "
                               f"holds ({turn_to_sdg(held[1], players)})")
        departed = len(self.tracker.departures)
        early = number > count + 1 or (message.departures or 0) > departed
        if early and self.sides > 2 and number <= count + MAX_AHEAD:
            self._early[number] = (role, message)
            return None
        if number != count + 1:
            raise MessageError(f"out of order: turn {number} arrived, this table holds "
                               f"{count} turns and expects turn {count + 1}")
        if message.departures is not None and message.departures != departed:
            raise MessageError(f"turn {number} follows {message.departures} departures, "
                               f"this table holds {departed}")
        if message.clocks_ms is not None and len(message.clocks_ms) != len(players):
            raise MessageError(f"turn {number}: {len(message.clocks_ms)} clocks for "
                               f"{len(players)} seats")
        state = self.tracker.state
        if state.is_over or state.to_move != message.seat:
            raise MessageError(f"turn {number}: it is not {players[message.seat]}'s turn")
        return self._legal(state, number, turn)

    def _release_early(self) -> None:
        """Turns and departures kept until the ones before them arrived: their time came."""
        while True:
            index = len(self.tracker.departures)
            if index in self._early_departures \
                    and self._early_departures[index][1].after <= len(self.tracker.record):
                role, departure = self._early_departures.pop(index)
                self._departure_received(role, departure)
                continue
            number = len(self.tracker.record) + 1
            if number in self._early and number not in self._ready \
                    and (self._early[number][1].departures or 0) <= index:
                role, message = self._early.pop(number)
                self._turn_received(role, message)
                continue
            return

    @staticmethod
    def _legal(state: GameState, number: int, turn: Turn) -> Turn:
        after = state.copy()
        try:
            after.apply_turn(turn)
        except HomeworldsError as exc:
            raise MessageError(f"turn {number} is illegal: {exc}") from None
        return turn

    # ------------------------------------------------------------------ departures

    def _departure_received(self, role: str, message: Departure) -> None:
        try:
            self._apply_departure(role, message)
        except MessageError as exc:
            self._refuse(None, str(exc), role)

    def _apply_departure(self, role: str, message: Departure) -> None:
        """A player of ``role``'s seats resigned and left, or missed the turn (issue 28):
        applied here as the admin's ``resign`` / ``skip`` is, once it is this table's
        next departure after the same turns."""
        players, tracker = self.tracker.players, self.tracker
        seat = message.seat
        if seat not in self.seats_of(role):
            raise MessageError(f"{players[seat]} is not played at {self.table_name(role)}: "
                               f"only their own table can say they {message.kind}")
        held = tracker.departures
        if tracker.is_over:
            return  # over here already (the resignation that ended it, sent again)
        if message.index < len(held):
            if held[message.index] == (message.after, message.kind, seat):
                return  # held already (sent again after a reconnect)
            raise MessageError(f"departure {message.index + 1} ({players[seat]} "
                               f"{message.kind}) differs from the one this table holds")
        count = len(tracker.record)
        if message.index > len(held) or message.after > count:
            if self.sides > 2 and message.after <= count + MAX_AHEAD:
                self._early_departures[message.index] = (role, message)
                return
        if message.index != len(held) or message.after != count:
            raise MessageError(f"out of order: {players[seat]} {message.kind} after turn "
                               f"{message.after}; this table holds {count} turns and "
                               f"{len(held)} departures")
        if message.kind == "skipped" and tracker.state.to_move != seat:
            raise MessageError(f"{players[seat]} cannot miss a turn that is not theirs")
        try:
            ended = self.session.resign(seat) if message.kind == "resigned" else \
                (self.session.skip_turn(), False)[1]
        except IllegalAction as exc:
            raise MessageError(f"{players[seat]} {message.kind}: {exc}") from None
        self._departures_known = len(tracker.departures)
        what = "resigned and leaves the game" if message.kind == "resigned" else \
            "misses the turn"
        if ended:
            what = "resigned: the game is over"
        self._note(f"{players[seat]} {what} (at {self.table_name(role)})")
        if self.on_departure is not None:
            self.on_departure((message.after, message.kind, seat), ended)

    def _tell_departures(self) -> None:
        """Departures made at this table (the admin's ``resign`` / ``skip``, and a
        resignation that ends the game) are told to every other side; only a seat played
        here can leave here."""
        departures = self.tracker.departures
        state = self.tracker.state
        if self.tracker.ended_by == "resigned" and not self._end_told:
            self._end_told = True
            left = {d[2] for d in departures if d[1] == "resigned"}
            for seat in sorted(self.local_seats):
                if state.eliminated[seat] and state.eliminated_by[seat] is None \
                        and seat not in left and state.revealed[seat] is None:
                    self._say(Departure(self.game_id, "resigned", seat,
                                        len(self.tracker.record), len(departures)))
        self._departures_known = min(self._departures_known, len(departures))
        while self._departures_known < len(departures):
            index = self._departures_known
            self._departures_known += 1
            seat = departures[index][2]
            if seat in self.local_seats:
                self._publish_departure(index)
                if departures[index][1] == "resigned":
                    # Who wins may depend on the card of a player who left: it is shown.
                    self._reveal_cards([seat])
            else:
                self._note(f"{self.tracker.players[seat]} is played at another table: "
                           "their departure here is not told to the others (they refuse "
                           "it); let that table say it")

    # ------------------------------------------------------------------ committing

    def committed(self, commit: Commit) -> None:
        """A turn was committed here: ours goes out; either way the other sides hear how
        many turns this table holds."""
        number = len(self.tracker.record)
        with self._ready_changed:
            self._ready.pop(number, None)
        self._tell_departures()
        if commit.seat in self.local_seats:
            clocks = self.session.clocks
            if clocks is not None and clocks.since is not None:
                # As they stood at the commit (``since``), the mover's increment included.
                self._sent_clocks[number] = tuple(clocks.remaining_ms(seat, clocks.since)
                                                  for seat in range(len(clocks.remaining)))
            self._publish_turn(number, commit.seat, commit.turn)
        if self.cards is not None:
            state = self.tracker.state
            self._reveal_cards(s for s in self.local_seats if state.revealed[s] is not None)
        self._say(self._hello())

    # ------------------------------------------------------------------ Good/Evil

    def _owners(self) -> list[int]:
        """The side index playing each seat."""
        return [self.roles.index(self.owner_of(s) or self.role)
                for s in range(len(self.tracker.players))]

    def _deal_cards(self) -> None:
        """Good/Evil: take this side's next step of the deal when it is due; once every
        card is dealt, give the rules engine the cards known here; at the end of the game
        reveal every card of ours and our lock (the audit)."""
        cards = self.cards
        if cards is None or self.send is None or not self.link_up:
            return
        if not cards.dealt:
            if any(not self.online[r] for r in self.peer_roles) or any(
                    self.owner_of(s) is None for s in range(len(self.tracker.players))):
                return
            try:
                due = cards.due_steps()
            except DealError as exc:
                self._refuse(None, str(exc))
                return
            if due:
                cards.save()  # kept before it is said: a restart says the same again
            for message in due:
                self._say(message)
            if not cards.dealt:
                return
        if not self._cards_learnt:
            self._cards_learnt = True
            self._learn_cards()
            self._note("the Good/Evil cards are dealt: this table knows only its own "
                       "players' (press your seat's button to see yours)")
        if self.tracker.is_over and not cards.lock_sent:
            self._reveal_cards(self.local_seats)
            lock = cards.lock()
            cards.save()
            self._say(lock)
            try:
                cards.try_audit(self._owners())
            except DealError as exc:
                self._refuse(None, str(exc))
            self._audited()

    def _reveal_cards(self, seats: Iterable[int]) -> None:
        cards = self.cards
        if cards is None or not cards.dealt:
            return
        for seat in sorted(seats):
            if seat in self.local_seats and seat not in cards.revealed_sent:
                reveal = cards.reveal(seat)
                cards.save()
                self._say(reveal)

    def _cards_message(self, role: str, message: DealStep | Commitments | Reveal | Lock
                       ) -> None:
        cards, players = self.cards, self.tracker.players
        if cards is None:
            raise DealError("this game has no Good/Evil cards")
        side = self.roles.index(role)
        played = self.seats_of(role)
        if isinstance(message, DealStep):
            if message.side != side:
                raise DealError(f"{self.table_name(role)} sent side {message.side}'s step of "
                                "the deal")
            cards.step_received(message)
        elif isinstance(message, Commitments):
            wrong = [s for s, _ in message.cards if s not in played]
            if wrong:
                raise DealError(f"{self.table_name(role)} committed to the card of seat "
                                f"{wrong[0]}, which it does not play")
            cards.commitments_received(message)
        elif isinstance(message, Reveal):
            if message.seat not in played:
                raise DealError(f"{self.table_name(role)} revealed the card of seat "
                                f"{message.seat}, which it does not play")
            if cards.reveal_received(message):
                self._note(f"{players[message.seat]}'s card: {message.alignment.capitalize()} "
                           "(revealed by their table, as committed at the deal)")
                self._learn_cards()
        else:
            cards.lock_received(side, message, self._owners())
            self._audited()

    def _audited(self) -> None:
        if self.cards is not None and self.cards.audit_result == "" \
                and not self._audit_noted:
            self._audit_noted = True
            self._note("the deal checks: every card revealed is the card the tables dealt")

    def _learn_cards(self) -> None:
        """The rules engine plays with the cards known here (stand-ins for the others); a
        result that waited for a card revealed now is decided."""
        assert self.cards is not None
        vector, secret = self.cards.vector()
        tracker = self.tracker
        was_over = tracker.state.is_over
        tracker.alignments = vector
        tracker.state.learn_alignments(vector, secret)
        result = tracker.state.result
        if result is not None and not was_over:
            winners = ", ".join(tracker.players[s] for s in result.winners) or "nobody"
            tracker.status = Status("over", tracker.state.to_move,
                                    f"game over: {winners} wins" if result.winners
                                    else "game over: draw")
            self.session.status = tracker.status
            self._note(tracker.status.message)
            if self.on_result is not None:
                self.on_result()

    # ------------------------------------------------------------------ sending

    def _hello(self, *, answer: bool = False, with_clocks: bool = False) -> Hello:
        """This side's hello: ``waiting`` while another side has not answered, with the
        clocks where they stand; an ``answer`` to a waiting hello never waits (so two
        sides waiting for a third do not answer each other for ever) and carries the
        clocks the sides resume from."""
        seats = tuple(sorted(self.local_seats))
        waiting = not self.peer_online and not answer
        reading = None
        clocks = self.session.clocks
        if (waiting or answer or with_clocks) and clocks is not None and clocks.started \
                and not clocks.ended:
            now = self.session.clock()
            reading = tuple(clocks.remaining_ms(seat, now)
                            for seat in range(len(clocks.remaining)))
        return Hello(self.game_id, seats[0], tuple(self.tracker.players),
                     self.tracker.rules.name, len(self.tracker.record),
                     seats if len(seats) > 1 or self.sides > 2 else (),
                     len(self.tracker.departures),
                     self.session.timekeeper.game_spec or ClockSpec(), waiting, reading,
                     self.current_link())

    def _publish_turn(self, number: int, seat: int, turn: Turn) -> None:
        departures = None
        if len(self.tracker.players) > 2:
            departures = sum(1 for d in self.tracker.departures if d[0] < number)
        reading = self._sent_clocks.get(number)
        if reading is None:
            reading = self.stored_clocks(number)  # sent again after a restart
        self._say(TurnMessage(self.game_id, number, seat,
                              turn_to_sdg(turn, self.tracker.players), reading, departures))

    def _publish_departure(self, index: int) -> None:
        after, kind, seat = self.tracker.departures[index]
        self._say(Departure(self.game_id, kind, seat, after, index))

    def _say(self, message: Message) -> None:
        if self.send is not None:
            self.send(self.topic, self.sign_own(to_payload(message)), False)

    def _refuse(self, number: int | None, reason: str, role: str | None = None) -> None:
        """Refused here: kept, noted and told to every other side; beyond
        ``TELL_PER_MINUTE`` a minute (a flood of forgeries) only counted, and the count
        said with the next refusal noted."""
        self.refusals.append(Refused("here", number, reason, self.clock()))
        self.refused_count += 1
        now = self.clock()
        while self._told and now - self._told[0] > 60.0:
            self._told.popleft()
        if len(self._told) >= TELL_PER_MINUTE:
            self._quiet += 1
            return
        if self._quiet:
            reason = f"{reason} (and {self._quiet} more refused since, not shown)"
            self._quiet = 0
        self._told.append(now)
        source = "the other table" if self.sides == 2 or role is None else \
            self.table_name(role)
        self._note(f"refused from {source}: " + reason)
        self._say(Refusal(self.game_id, number, reason[:500],
                          role if self.sides > 2 else None))

    def _note(self, text: str) -> None:
        self.session.notices.append(f"remote game: {text}")


def _offline(payload: bytes, game_id: str) -> Offline | None:
    """The (verified) payload as another side's last will, None if it is none."""
    try:
        message = read_payload(payload, game_id)
    except MessageError:
        return None
    return message if isinstance(message, Offline) else None


class TurnSource(Protocol):
    """Where a remote seat's turns come from: the other table (``RemoteGame``) or a phone
    (``remote.phone.PhoneSeat``)."""

    @property
    def closed(self) -> bool: ...

    def wait_for_turn(self, number: int, timeout: float) -> Turn | None: ...


class RemoteSide:
    """Holds this table's side once it is made: the session (and its computer seat for the
    other table) is built first, the side when the store and the broker are known."""

    def __init__(self) -> None:
        self.game: RemoteGame | None = None

    def player_factory(self, level, seed, rules, names) -> RemotePlayer:
        return RemotePlayer(lambda: self.game)


class RemotePlayer:
    """The other table's seat, for ``ComputerAtTable``: its "choice" is the other side's
    turn for this position, as it arrives over the broker. ``side()`` is this table's
    current side (None: not made yet; a side made again takes over the wait); the wait
    ends when that side is closed and not replaced."""

    #: What the table notes while it waits (``ComputerAtTable``).
    waiting_text = "waiting for the turn from the other table…"

    def __init__(self, side: Callable[[], TurnSource | None]):
        self.side = side

    def choose_turn(self, state: GameState) -> Turn:
        number = state.ply + 1
        while True:
            game = self.side()
            if game is None:
                time.sleep(0.2)
                continue
            turn = game.wait_for_turn(number, 0.5)
            if turn is not None:
                return turn
            if game.closed and self.side() is game:
                raise RuntimeError("the remote game was closed")

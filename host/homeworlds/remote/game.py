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
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from homeworlds.clock import ClockSpec
from homeworlds.identity import ReplayError, ReplayWindow, SignatureError, Signer, open_signed
from homeworlds.identity.signing import MAX_HEADER
from homeworlds.remote.invitation import Invitation, other_role
from homeworlds.remote.messages import (
    MAX_BYTES,
    Hello,
    Message,
    MessageError,
    Offline,
    Refusal,
    TurnMessage,
    read_payload,
    to_payload,
    topic,
)
from homeworlds.rules import GameState, HomeworldsError, Turn
from homeworlds.session import ClockReading, Stage, TableSession
from homeworlds.store.records import turn_from_sdg, turn_to_sdg
from homeworlds.table.tracker import Commit

#: The replay window's channel name in the store (``store.identity``, ``event_seen``).
CHANNEL = "remote"
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


@dataclass(frozen=True)
class Refused:
    """A refusal, as the log keeps it: ``side`` is "here" (this table refused a message of
    the other) or "there" (the other table refused one of ours)."""

    side: str
    number: int | None
    reason: str
    at: float


class RemoteGame:
    """This table's side. ``reserve(n)``: the first of ``n`` fresh sequence numbers of this
    side's key, persisted (``StoredIdentity.reserve``); ``seen``: the highest sequence
    number of the other side accepted before (persisted by ``record_seen``)."""

    def __init__(self, session: TableSession, invitation: Invitation, role: str,
                 local_seat: int, *, reserve: Callable[[int], int], seen: int = 0,
                 record_seen: Callable[[int], None] = lambda highest: None,
                 clock: Callable[[], float] = time.monotonic):
        self.session = session
        self.tracker = session.tracker
        self.game_id = invitation.game_id
        self.role = role
        self.local_seat = local_seat
        players = len(self.tracker.players)
        if players != 2:
            raise ValueError(f"remote play is for two tables of two players, not {players}")
        self.peer_seat = 1 - local_seat
        self.key = invitation.key(role)
        self.peer_key = invitation.key(other_role(role))
        self.topic = topic(self.game_id, role)
        self.peer_topic = topic(self.game_id, other_role(role))
        self.signer = Signer(self.key, reserve)
        self.window = ReplayWindow(seen)
        self._record_seen = record_seen
        self.clock = clock
        #: Where messages go (the MQTT connection sets it): (topic, data, retain).
        self.send: Callable[[str, bytes, bool], None] | None = None
        #: Hands the connection fresh last wills, one for each connection attempt to come
        #: (the MQTT connection sets it).
        self.set_wills: Callable[[list[bytes]], None] | None = None
        self._inbox: queue.Queue[tuple[str, bytes | bool]] = queue.Queue(INBOX_LIMIT)
        #: Messages dropped unread: too large, or the inbox full (a flood).
        self.dropped = 0
        #: Digests of the messages accepted last, and how many second deliveries of them
        #: were ignored.
        self._recent: deque[bytes] = deque(maxlen=DUPLICATE_WINDOW)
        self.duplicates = 0
        self._ready: dict[int, Turn] = {}
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
        self.peer: Hello | None = None
        self.peer_online = False
        #: The other table refused our turn (number, reason) until it holds it.
        self.refused_there: tuple[int | None, str] | None = None
        self.refusals: deque[Refused] = deque(maxlen=100)
        self._told: deque[float] = deque()
        #: Messages of the other side refused here in all, and since the last one noted.
        self.refused_count = 0
        self._quiet = 0
        #: When each turn of the other side arrived and was accepted (the benchmark).
        self.accepted_at: dict[int, float] = {}
        self._last_pause: str | None = None

    # ------------------------------------------------------------------ wiring

    def attach(self) -> None:
        """Listen to the session: publish our commits, run ``poll`` at every tick."""
        events = self.session.events
        events.committed.listen(Stage.PUBLISH, self.committed)
        events.tick.listen(Stage.CONTROL, self.poll)
        self.session.pause_sources.append(self.pause_reason)
        self.guard_seat()

    def guard_seat(self) -> None:
        """The other seat's turns are committed only as they arrived from the other table
        (a person handling that seat's pieces before is refused at the hand-over), with
        the clocks as the other table read them (``clock_reading``)."""
        self.tracker.elsewhere_seats = frozenset({self.peer_seat})
        self.session.timekeeper.reading_for = self.clock_reading

    def clock_reading(self, commit: Commit) -> ClockReading | None:
        """For the session's clocks, on the loop's thread: the other table's reading of
        the clocks for the turn committed now, if it is the other side's and came with one."""
        if commit.seat != self.peer_seat:
            return None
        return self._readings.pop(len(self.tracker.record), None)

    def pause_reason(self) -> str | None:
        """"remote" while the game is paused by the other table or the link: the clocks
        pause on both tables (docs/clocks.md)."""
        return "remote" if self.paused is not None else None

    def player_factory(self, level, seed, rules, names) -> RemotePlayer:
        """For ``new_session(player_factory=...)``: the other seat's "computer"."""
        return RemotePlayer(lambda: self)

    def will(self) -> tuple[str, bytes]:
        """The last will the broker publishes when this side's link is lost (signed now)."""
        return self.topic, self.signer.sign(self.topic, to_payload(Offline(self.game_id)))

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
        if self.refused_there is not None:
            number, reason = self.refused_there
            return f"paused: the other table refused turn {number}: {reason}"
        if not self.peer_online:
            return "paused: waiting for the other table"
        return None

    def ready_turn(self, number: int) -> Turn | None:
        with self._ready_changed:
            return self._ready.get(number)

    def wait_for_turn(self, number: int, timeout: float) -> Turn | None:
        """The other side's turn ``number`` once accepted, None after ``timeout`` seconds or
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
            elif where == self.peer_topic:
                self._handle(data)
        if self.dropped:
            self._refuse(None, f"{self.dropped} messages dropped unread (larger than "
                         f"{MAX_BYTES} bytes, or a flood of more than {INBOX_LIMIT})")
            self.dropped = 0
        pause = self.paused
        if pause != self._last_pause:
            self._note(pause or "the other table is here: the game goes on")
            self._last_pause = pause

    def _link_changed(self, up: bool) -> None:
        self.link_up = up
        if up:
            # This connection's will is spent once the link is lost (and an attempt that
            # reached the broker but was given up spends its own): each attempt to come
            # gets a will with a fresh sequence number, or the other table would refuse it
            # as a replay and not learn of the next cut.
            if self.set_wills is not None:
                self.set_wills([self.will()[1] for _ in range(WILLS)])
            self._say(self._hello())
        else:
            self.peer_online = False

    def _handle(self, data: bytes) -> None:
        try:
            signed = open_signed(data)
            payload = signed.verify(self.peer_key, self.peer_topic)
            self.window.check(signed.seq)
            message = read_payload(payload, self.game_id)
        except ReplayError as exc:
            if hashlib.sha256(data).digest() in self._recent or _is_offline(payload, self.game_id):
                # Delivered twice (at least once), not replayed; or an old last will
                # (retained, or of an attempt given up): nothing to do either way.
                self.duplicates += 1
                return
            self._refuse(None, f"a message refused: {exc}")
            return
        except (SignatureError, MessageError) as exc:
            self._refuse(None, f"a message refused: {exc}")
            return
        self._recent.append(hashlib.sha256(data).digest())
        self.window.accept(signed.seq)
        self._record_seen(self.window.highest)
        self._dispatch(message)

    def _dispatch(self, message: Message) -> None:
        if isinstance(message, Hello):
            self._hello_received(message)
        elif isinstance(message, TurnMessage):
            self._turn_received(message)
        elif isinstance(message, Refusal):
            self.refusals.append(Refused("there", message.number, message.reason,
                                         self.clock()))
            self._note("the other table refused "
                       + (f"turn {message.number}" if message.number else "a message")
                       + f": {message.reason}")
            if message.number is not None:
                self.refused_there = (message.number, message.reason)
        elif isinstance(message, Offline):
            # Say so: if the other side is there after all (a will of a connection it gave
            # up, published late), its answer resumes the game at once.
            if self.peer_online:
                self.peer_online = False
                self._say(self._hello())

    def _hello_received(self, hello: Hello) -> None:
        mismatch = self._setup_mismatch(hello)
        if mismatch is not None:
            self._refuse(None, mismatch)
            return
        first = not self.peer_online
        self.peer, self.peer_online = hello, True
        count = len(self.tracker.record)
        if self.refused_there is not None and hello.turns >= (self.refused_there[0] or 0):
            self.refused_there = None
        if hello.clocks_ms is not None and hello.turns == count:
            # After a cut: both sides' clocks stand where the first to notice stopped them.
            self.session.timekeeper.agree(hello.clocks_ms, self.session.clock())
        if first or hello.waiting:
            self._say(self._hello(answer=hello.waiting))
        # Turns of ours the other side missed (lost while its link or host was down).
        for number in range(hello.turns + 1, count + 1):
            seat, turn = self.tracker.record[number - 1]
            if seat == self.local_seat:
                self._publish_turn(number, seat, turn)

    def _setup_mismatch(self, hello: Hello) -> str | None:
        players = tuple(self.tracker.players)
        if hello.players != players:
            return (f"the other table plays {' v '.join(hello.players)}, this table "
                    f"{' v '.join(players)}")
        if hello.rules != self.tracker.rules.name:
            return f"the other table plays {hello.rules} rules, this table " \
                   f"{self.tracker.rules.name}"
        if hello.seat != self.peer_seat:
            return f"both tables play seat {hello.seat} ({players[hello.seat]})"
        mine = self.session.timekeeper.game_spec or ClockSpec()
        if hello.clock.to_dict() != mine.to_dict():
            return (f"the other table plays with {hello.clock.describe()}, this table with "
                    f"{mine.describe()}")
        return None

    def _turn_received(self, message: TurnMessage) -> None:
        try:
            turn = self._check_turn(message)
        except MessageError as exc:
            self._refuse(message.number, str(exc))
            return
        if turn is None:
            return  # a turn this table holds already (sent again after a reconnect)
        if message.clocks_ms is not None:
            self._note_reading(message.number, message.clocks_ms)
        with self._ready_changed:
            self._ready[message.number] = turn
            self._ready_changed.notify_all()
        self.accepted_at[message.number] = self.clock()
        self._note(f"turn {message.number} from the other table: "
                   + "; ".join(map(str, turn)) + ": follow the lights")

    def _note_reading(self, number: int, clocks_ms: tuple[int, ...]) -> None:
        """Keep the other side's clocks of turn ``number``, with how long the mover's clock
        has run here for it so far."""
        clocks = self.session.clocks
        if clocks is None:
            return  # untimed here: nothing to agree on
        now = self.session.clock()
        used = clocks.at(now).used if clocks.to_move == self.peer_seat else 0.0
        self._readings[number] = ClockReading(clocks_ms, used, now)

    def _check_turn(self, message: TurnMessage) -> Turn | None:
        """The turn to lay out; None for a repeat of a turn held; MessageError: why not."""
        players = self.tracker.players
        number, count = message.number, len(self.tracker.record)
        if message.seat != self.peer_seat:
            raise MessageError(f"turn {number} is for seat {message.seat}; the other "
                               f"table plays {players[self.peer_seat]}")
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
        if number != count + 1:
            raise MessageError(f"out of order: turn {number} arrived, this table holds "
                               f"{count} turns and expects turn {count + 1}")
        if message.clocks_ms is not None and len(message.clocks_ms) != len(players):
            raise MessageError(f"turn {number}: {len(message.clocks_ms)} clocks for "
                               f"{len(players)} seats")
        state = self.tracker.state
        if state.is_over or state.to_move != self.peer_seat:
            raise MessageError(f"turn {number}: it is not {players[self.peer_seat]}'s turn")
        return self._legal(state, number, turn)

    @staticmethod
    def _legal(state: GameState, number: int, turn: Turn) -> Turn:
        after = state.copy()
        try:
            after.apply_turn(turn)
        except HomeworldsError as exc:
            raise MessageError(f"turn {number} is illegal: {exc}") from None
        return turn

    def committed(self, commit: Commit) -> None:
        """A turn was committed here: ours goes out; either way the other side hears how
        many turns this table holds."""
        number = len(self.tracker.record)
        with self._ready_changed:
            self._ready.pop(number, None)
        if commit.seat == self.local_seat:
            clocks = self.session.clocks
            if clocks is not None and clocks.since is not None:
                # As they stood at the commit (``since``), the mover's increment included.
                self._sent_clocks[number] = tuple(clocks.remaining_ms(seat, clocks.since)
                                                  for seat in range(len(clocks.remaining)))
            self._publish_turn(number, commit.seat, commit.turn)
        self._say(self._hello())

    # ------------------------------------------------------------------ sending

    def _hello(self, *, answer: bool = False) -> Hello:
        """This side's hello: ``waiting`` while the other side has not answered, with the
        clocks where they stand (also in the ``answer`` to a waiting hello: the clocks
        both resume from)."""
        waiting = not self.peer_online
        reading = None
        clocks = self.session.clocks
        if (waiting or answer) and clocks is not None and clocks.started and not clocks.ended:
            now = self.session.clock()
            reading = tuple(clocks.remaining_ms(seat, now)
                            for seat in range(len(clocks.remaining)))
        return Hello(self.game_id, self.local_seat, tuple(self.tracker.players),
                     self.tracker.rules.name, len(self.tracker.record),
                     self.session.timekeeper.game_spec or ClockSpec(), waiting, reading)

    def _publish_turn(self, number: int, seat: int, turn: Turn) -> None:
        reading = self._sent_clocks.get(number)
        if reading is None:
            reading = self.stored_clocks(number)  # sent again after a restart
        self._say(TurnMessage(self.game_id, number, seat,
                              turn_to_sdg(turn, self.tracker.players), reading))

    def _say(self, message: Message) -> None:
        if self.send is not None:
            self.send(self.topic, self.signer.sign(self.topic, to_payload(message)), False)

    def _refuse(self, number: int | None, reason: str) -> None:
        """Refused here: kept, noted and told to the other side; beyond
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
        self._note("refused from the other table: " + reason)
        self._say(Refusal(self.game_id, number, reason[:500]))

    def _note(self, text: str) -> None:
        self.session.notices.append(f"remote game: {text}")


def _is_offline(payload: bytes, game_id: str) -> bool:
    """The (verified) payload is the other side's last will."""
    try:
        return isinstance(read_payload(payload, game_id), Offline)
    except MessageError:
        return False


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

"""The table host's publisher: drains the outbox of the table's store to the event's MQTT
broker (docs/event.md, "Failure behaviour").

One thread owns the outbox. paho's network thread only reports (connected, disconnected,
PUBACK of message id, a hub's request, the event's time control) through a queue; the
drain thread publishes turns in order with QoS 1, moves the store's publish cursor when
the broker acknowledged them, and after every change replaces the table's retained ``state``
snapshot. A disconnect
forgets what was in flight: it is sent again from the cursor after reconnecting (the hub
ignores duplicates). A host killed at any instant re-sends from the cursor on restart.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from homeworlds.event.event_clock import EventClockError, parse_clock_payload
from homeworlds.event.mqtt import make_client, reason_text
from homeworlds.event.payloads import (
    PayloadError,
    decode,
    encode,
    result_message,
    rules_of,
    snapshot_message,
    turn_message,
)
from homeworlds.event.settings import EventSettings
from homeworlds.event.topics import event_config_topic, table_topic
from homeworlds.identity import ReplayError, ReplayWindow, SignatureError, Signer, open_signed
from homeworlds.rules import GameState
from homeworlds.store import GameStore, StoredGame, StoreError
from homeworlds.store.identity import StoredIdentity
from homeworlds.store.outbox import Cursor, Outbox
from homeworlds.store.records import turn_from_sdg

log = logging.getLogger("homeworlds.event")

#: Messages published and not yet acknowledged, at most (the rest wait for acks).
WINDOW = 64
#: Seconds between looks at the store when nobody calls ``wake``.
POLL_S = 0.5
#: Least seconds between two retained snapshots that carry no new turn (hints and clocks
#: change many times a second; a committed turn's snapshot goes out at once).
SNAPSHOT_EVERY_S = 0.5


class EventPublisher:
    def __init__(self, settings: EventSettings, store_path: str | Path, store_table: str, *,
                 poll_s: float = POLL_S,
                 clocks: Callable[[], dict | None] | None = None,
                 on_event_clock: Callable[[Any], None] | None = None,
                 on_invitation: Callable[[str, bytes], None] | None = None,
                 client_factory: Callable[..., Any] = make_client):
        self.settings = settings
        self.store_path = Path(store_path)
        self.store_table = store_table
        self.poll_s = poll_s
        self._clocks = clocks
        #: called (on paho's thread: it must only queue) with the event's time control
        #: (a ClockSpec, or None when the hub cleared it); docs/event.md
        self._on_event_clock = on_event_clock
        #: called (on paho's thread: it must only queue) with each message on the table's
        #: ``invite`` topic: the hub's invitations to remote games (remote.hub_invite)
        self._on_invitation = on_invitation
        self._client_factory = client_factory
        if settings.key is None:
            raise ValueError(f"table {settings.table}: no signing key (event.key_file)")
        #: signs every message with the table's key (docs/event.md, "Identity")
        self._signer = Signer(settings.key, self._reserve)
        self._will_seq = 0
        #: the hub's requests seen (each acted on once; a request is idempotent besides)
        self._requests_seen = ReplayWindow()
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._store: GameStore | None = None
        self._outbox: Outbox | None = None
        self.connected = False
        #: why publishing is held up now (None: it is not), for the table's display
        self.fault: str | None = None
        # In flight (this connection only): message id -> (game id, "turn"|"result", number)
        self._inflight: dict[int, tuple[int, str, int]] = {}
        self._sent_upto: dict[int, int] = {}
        self._result_sent: set[int] = set()
        #: games whose result a hub asked for again (sent again though acknowledged)
        self._resend_result: set[int] = set()
        self._acked_numbers: dict[int, set[int]] = {}
        self._cursors: dict[int, Cursor] = {}
        self._states: dict[int, tuple[int, GameState]] = {}
        self._seq = 0
        self._snapshot_dirty = True
        self.published = 0
        self._refused = False
        self._published_turns = False
        self._link_up: bool | None = None
        self._store_fault: str | None = None
        self._live: dict | None = None
        self._last_snapshot = float("-inf")

    # ------------------------------------------------------------------ lifecycle

    def topic(self, kind: str) -> str:
        return table_topic(self.settings.event, self.settings.table, kind)

    def _reserve(self, count: int) -> int:
        """Sequence numbers for the signer, reserved durably in the table's store (its
        own connection: any thread may publish)."""
        store = GameStore.open(self.store_path)
        try:
            return StoredIdentity(store).reserve(self._signer.key.key_id, count)
        finally:
            store.close()

    def _signed(self, kind: str, message: dict) -> bytes:
        return self._signer.sign(self.topic(kind), encode(message))

    def start(self) -> None:
        s = self.settings
        username, password = s.credentials
        try:
            offline: bytes | None = self._signed("online", {"table": s.table,
                                                            "online": False})
        except StoreError as exc:
            log.warning("table %s: no last will (its sequence number could not be kept: "
                        "%s)", s.table, exc)
            offline = None
        if offline is not None:
            self._will_seq = open_signed(offline).seq
        self._client = self._client_factory(
            s.broker, f"hw-table-{s.event}-{s.table}", username=username, password=password,
            ca_file=s.ca_file, will=(self.topic("online"), offline) if offline else None)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        self._client.connect_async(s.broker.host, s.broker.port, keepalive=s.keepalive)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name="event-publisher", daemon=True)
        self._thread.start()
        log.info("publishing table %s of event %s to %s", s.table, s.event, s.broker_text)

    def stop(self, timeout: float = 3.0) -> None:
        """Say the table is offline (retained) and disconnect; unacknowledged turns stay in
        the outbox for the next start."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._client is not None:
            if self.connected:
                try:
                    info = self._client.publish(
                        self.topic("online"), self._signed(
                            "online", {"table": self.settings.table, "online": False}),
                        qos=1, retain=True)
                    info.wait_for_publish(timeout=1.0)
                except (RuntimeError, ValueError, StoreError) as exc:
                    log.warning("table %s: could not say it goes offline: %s",
                                self.settings.table, exc)
            self._client.disconnect()
            self._client.loop_stop()
        if self._store is not None:
            self._store.close()
            self._store = None

    def wake(self) -> None:
        """Something was committed: look at the outbox now."""
        self._wake.set()

    def table_status(self, *, link_up: bool | None = None, store_fault: str | None = None
                     ) -> None:
        """The table's sensors link and store state changed: it goes into the retained
        snapshot (so a hub that connects later sees it) and out as an event."""
        if link_up is not None and link_up != self._link_up:
            self._link_up = link_up
            self.publish_event("link", {"up": link_up})
        if store_fault != self._store_fault:
            self._store_fault = store_fault
            self.publish_event("store", {"fault": store_fault})
        self._snapshot_dirty = True
        self._wake.set()

    def offer_snapshot(self, live: dict) -> None:
        """The live table's feed ``snapshot`` (JSON form; homeworlds.feed): its hints, clocks
        and sensor link go into the retained state, at most ``SNAPSHOT_EVERY_S`` apart.
        What was committed (game, turns, position) still comes from the store."""
        self._live = live
        self._snapshot_dirty = True
        self._wake.set()

    def publish_event(self, kind: str, detail: dict | None = None) -> None:
        """A table event (link down, store fault...) for the hub; not kept in the outbox."""
        if self._client is not None and self.connected:
            message = {"type": "event", "table": self.settings.table, "kind": kind,
                       "at": time.time(), **(detail or {})}
            try:
                self._client.publish(self.topic("events"), self._signed("events", message),
                                     qos=1)
            except StoreError as exc:
                log.warning("table %s: event %s not sent: %s", self.settings.table, kind, exc)

    # ------------------------------------------------------------------ paho's thread

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if getattr(reason_code, "is_failure", False):
            self._events.put(("refused", reason_text(reason_code)))
            self._wake.set()
            return
        client.subscribe(self.topic("request"), qos=1)
        if self._on_event_clock is not None:
            client.subscribe(event_config_topic(self.settings.event, "clock"), qos=1)
        if self._on_invitation is not None:
            client.subscribe(self.topic("invite"), qos=1)
        try:
            client.publish(self.topic("online"), self._signed(
                "online", {"table": self.settings.table, "online": True,
                           "will_seq": self._will_seq or None}), qos=1, retain=True)
        except StoreError as exc:
            log.warning("table %s: could not say it is online: %s", self.settings.table, exc)
        self._events.put(("up",))
        self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self._events.put(("down", reason_text(reason_code)))
        self._wake.set()

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self._events.put(("ack", mid))
        self._wake.set()

    def _on_message(self, client, userdata, message) -> None:
        if message.topic == event_config_topic(self.settings.event, "clock"):
            self._event_clock(message)
            return
        if message.topic == self.topic("invite"):
            if self._on_invitation is not None:
                self._on_invitation(message.topic, message.payload)
            return
        try:
            signed = open_signed(message.payload)
            payload = signed.verify(self._signer.key, message.topic)
            self._requests_seen.accept(signed.seq)
        except (SignatureError, ReplayError) as exc:
            log.warning("table %s: ignored a request on %s: %s (only the hub's signed, "
                        "fresh requests count)", self.settings.table, message.topic, exc)
            return
        try:
            data = decode(payload)
            uid, first = data["game_uid"], data["from"]
            if not isinstance(uid, str) or not isinstance(first, int) or first < 1:
                raise PayloadError("game_uid/from have the wrong type")
        except (PayloadError, KeyError) as exc:
            log.warning("table %s: ignored a malformed request on %s: %s",
                        self.settings.table, message.topic, exc)
            return
        self._events.put(("request", uid, first))
        self._wake.set()

    def _event_clock(self, message) -> None:
        try:
            spec = parse_clock_payload(message.payload)
        except EventClockError as exc:
            log.warning("table %s: ignored the event's time control on %s: %s",
                        self.settings.table, message.topic, exc)
            return
        if self._on_event_clock is not None:
            self._on_event_clock(spec)

    # ------------------------------------------------------------------ drain thread

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll_s)
            self._wake.clear()
            try:
                self._step()
            except StoreError as exc:
                self.fault = f"cannot read the outbox: {exc}"
                log.warning("table %s: %s", self.settings.table, self.fault)
                if self._store is not None:
                    self._store.close()
                self._store = self._outbox = None
                self._stop.wait(1.0)

    def _open(self) -> Outbox:
        if self._outbox is None:
            self._store = GameStore.open(self.store_path)
            self._outbox = Outbox(self._store, self.store_table, self.settings.event)
            self._cursors = self._outbox.cursors()
        return self._outbox

    def _step(self) -> None:
        outbox = self._open()
        requests, acks = self._take_events()
        if acks:
            self._acknowledge(outbox, acks)
        if not self.connected:
            return
        games = {g.uid: g for g in outbox.games()}
        for uid, first in requests:
            game = games.get(uid)
            if game is None:
                continue
            acked = self._cursors.get(game.id, Cursor()).turns_acked
            self._sent_upto[game.id] = min(self._sent_upto.get(game.id, acked), first - 1)
            self._result_sent.discard(game.id)
            self._resend_result.add(game.id)
        before = self.published
        self._publish_pending(outbox, games.values(), bool(requests))
        self._published_turns = self.published != before
        if self._snapshot_dirty and (
                self._published_turns or
                time.monotonic() - self._last_snapshot >= SNAPSHOT_EVERY_S):
            self._publish_snapshot(outbox, list(games.values()))

    def _take_events(self) -> tuple[list[tuple[str, int]], list[int]]:
        """Apply the MQTT thread's connection news; return the resend requests (game uid,
        first turn) and the acknowledged message ids it passed on."""
        requests: list[tuple[str, int]] = []
        acks: list[int] = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            if event[0] == "up":
                self.connected, self.fault, self._refused = True, None, False
                self._forget_inflight()
                self._snapshot_dirty = True
                log.info("table %s: connected to %s", self.settings.table,
                         self.settings.broker_text)
            elif event[0] == "down":
                if self.connected:
                    log.warning("table %s: lost the broker %s (%s); the outbox keeps every "
                                "turn", self.settings.table, self.settings.broker_text, event[1])
                self.connected = False
                if not self._refused:
                    self.fault = f"no broker ({event[1]})"
                self._forget_inflight()
            elif event[0] == "refused":
                fault = f"the broker {self.settings.broker_text} refused us: {event[1]}"
                if fault != self.fault:  # said once, not at every retry
                    log.warning("table %s: %s", self.settings.table, fault)
                self.fault, self._refused = fault, True
            elif event[0] == "ack":
                acks.append(event[1])
            elif event[0] == "request":
                requests.append((event[1], event[2]))
        return requests, acks

    def _forget_inflight(self) -> None:
        self._inflight.clear()
        self._sent_upto.clear()
        self._result_sent.clear()
        self._acked_numbers.clear()

    def _acknowledge(self, outbox: Outbox, mids: list[int]) -> None:
        moved: dict[int, Cursor] = {}
        for mid in mids:
            what = self._inflight.pop(mid, None)
            if what is None:
                continue
            game_id, kind, number = what
            cursor = moved.get(game_id) or self._cursors.get(game_id, Cursor())
            if kind == "result":
                cursor = Cursor(cursor.turns_acked, True)
            else:
                if number <= cursor.turns_acked:
                    continue  # a turn sent again on request: the cursor is past it
                done = self._acked_numbers.setdefault(game_id, set())
                done.add(number)
                n = cursor.turns_acked
                while n + 1 in done:
                    n += 1
                    done.discard(n)
                cursor = Cursor(n, cursor.result_acked)
            moved[game_id] = cursor
        changed = {g: c for g, c in moved.items() if c != self._cursors.get(g)}
        if changed:
            outbox.acknowledge(changed)  # StoreError: acks are re-earned by re-sending
            self._cursors.update(changed)

    def _publish_pending(self, outbox: Outbox, games, resend: bool) -> None:
        for game in games:
            cursor = self._cursors.get(game.id, Cursor())
            sent = max(self._sent_upto.get(game.id, cursor.turns_acked), 0)
            result_due = game.finished and game.id not in self._result_sent and (
                not cursor.result_acked or game.id in self._resend_result)
            if sent >= game.turns and not result_due:
                continue
            room = WINDOW - len(self._inflight)
            if room <= 0:
                return
            for turn in outbox.turns_after(game, sent, room):
                info = self._client.publish(self.topic("turns"), self._signed(
                    "turns", turn_message(self.settings.table, game, turn)), qos=1)
                self._inflight[info.mid] = (game.id, "turn", turn.number)
                self._sent_upto[game.id] = turn.number
                self.published += 1
                self._snapshot_dirty = True
            if max(self._sent_upto.get(game.id, 0), cursor.turns_acked) >= game.turns \
                    and result_due:
                result = outbox.store.result(game.id)
                if result is not None:
                    info = self._client.publish(self.topic("result"), self._signed(
                        "result", result_message(self.settings.table, game, result)), qos=1)
                    self._inflight[info.mid] = (game.id, "result", 0)
                    self._result_sent.add(game.id)
                    self._resend_result.discard(game.id)
                    self._snapshot_dirty = True

    def _publish_snapshot(self, outbox: Outbox, games: list[StoredGame]) -> None:
        game = games[-1] if games else None
        state = turns = result = None
        if game is not None:
            turns = outbox.store.turns(game.id)
            state = self._state(game, turns)
            result = outbox.store.result(game.id)
        self._seq += 1
        clocks = self._clocks() if self._clocks is not None else None
        message = snapshot_message(self.settings.table, self._seq, game, state, turns or [],
                                   result, clocks=clocks)
        message["link_up"] = self._link_up
        message["store_fault"] = self._store_fault
        live = self._live
        if live is not None:
            for key in ("hints", "clocks", "link_up"):
                if live.get(key) is not None:
                    message[key] = live[key]
            live_game = live.get("game") or {}
            if message.get("game") and live_game.get("uid") == message["game"]["uid"]:
                message["game"]["turn_started_at"] = live_game.get("turn_started_at")
        self._client.publish(self.topic("state"), self._signed("state", message), qos=1,
                             retain=True)
        self._snapshot_dirty = False
        self._last_snapshot = time.monotonic()

    def _state(self, game: StoredGame, turns) -> GameState | None:
        """The position after the stored turns (kept per game and advanced)."""
        have, state = self._states.get(game.id, (0, None))
        try:
            if state is None or have > len(turns):
                rules = rules_of(game.rules, game.handicaps)
                state = GameState(rules, len(game.players), first_to_move=game.first_seat)
                have = 0
            for t in turns[have:]:
                state.push(turn_from_sdg(t.sdg, t.seat, game.players))
        except (ValueError, TypeError) as exc:
            log.warning("table %s: game %s does not replay (%s): snapshot without position",
                        self.settings.table, game.uid, exc)
            return None
        self._states = {game.id: (len(turns), state)}
        return state

"""A remote game's link to the broker (paho-mqtt through ``event.mqtt``): it subscribes to
every other side's topic, publishes this side's signed messages (QoS 1), leaves a signed last
will (``offline``) and reconnects by itself. It only moves bytes: ``RemoteGame`` judges
them on the table loop's thread."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

from homeworlds.clock import ClockSpec
from homeworlds.event.mqtt import make_client
from homeworlds.event.settings import BrokerAddress
from homeworlds.remote.game import CHANNEL, RemoteGame, RemoteSide
from homeworlds.remote.messages import Offline, to_payload
from homeworlds.remote.settings import KEEPALIVE_S, RemoteSettings
from homeworlds.session import TableSession
from homeworlds.store import GameStore
from homeworlds.store.identity import StoredIdentity


class RemoteConnection:
    def __init__(self, game: RemoteGame, broker: BrokerAddress, *,
                 username: str | None = None, password: str | None = None,
                 ca_file: Path | None = None, keepalive_s: int = KEEPALIVE_S):
        self.game = game
        self.keepalive_s = keepalive_s
        self.broker = broker
        self.client: Any = make_client(
            broker, f"hw-remote-{game.game_id}-{game.role}", username=username,
            password=password, ca_file=ca_file)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        game.send = self._send
        #: Wills signed ahead (link id, data), one per connection attempt, and the link
        #: id of the last attempt (the connection up now, once connected).
        self._wills: deque[tuple[str, bytes]] = deque(game.wills_ahead())
        self._link: str | None = None
        game.set_wills = self._set_wills
        game.current_link = lambda: self._link
        self.client.on_pre_connect = self._on_pre_connect

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port,
                                  keepalive=self.keepalive_s)
        self.client.loop_start()

    def close(self) -> None:
        """Leave cleanly: the other side is told (a clean disconnect sends no will). The
        side itself is its owner's to close (``RemoteGame.close``)."""
        game = self.game
        if self.client.is_connected():
            info = self.client.publish(game.topic, game.sign_own(
                to_payload(Offline(game.game_id, self._link))), qos=1)
            info.wait_for_publish(2.0)
        self.client.disconnect()
        self.client.loop_stop()
        game.send = None
        game.set_wills = None

    def _set_wills(self, wills: list[tuple[str, bytes]]) -> None:
        """From the table loop: wills signed ahead, one for each attempt to connect."""
        self._wills = deque(wills)

    def _on_pre_connect(self, client, userdata) -> None:
        """Before each attempt to connect (paho's thread): the next fresh will."""
        wills = self._wills
        if wills:
            self._link, data = wills.popleft() if len(wills) > 1 else wills[0]
            client.will_set(self.game.topic, data, qos=1, retain=True)

    def _send(self, topic: str, data: bytes, retain: bool) -> None:
        self.client.publish(topic, data, qos=1, retain=retain)

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if getattr(reason_code, "is_failure", False):
            return
        for peer_topic in self.game.peer_topics:
            client.subscribe(peer_topic, qos=1)
        # Our own topic too: what we did not send there is someone signing as us.
        client.subscribe(self.game.topic, qos=1)
        self.game.connected(True)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self.game.connected(False)

    def _on_message(self, client, userdata, message) -> None:
        self.game.received(message.topic, message.payload)


def stored_reading(store: GameStore, game_id: int | None, number: int, seats: int,
                   spec: ClockSpec | None) -> tuple[int, ...] | None:
    """Each seat's clock (ms) at the commit of turn ``number`` as the store keeps the game:
    a seat's time after its last timed turn up to it (the others did not run meanwhile),
    its main time before its first; None for a turn that was not timed (or untimed)."""
    if game_id is None or spec is None or not spec.timed:
        return None
    left: list[int] = [int(spec.initial_s * 1000)] * seats
    timed = False
    for turn in store.turns(game_id, limit=number):
        if turn.clock_ms is not None and 0 <= turn.seat < seats:
            left[turn.seat] = turn.clock_ms
        timed = turn.number == number and turn.clock_ms is not None
    return tuple(left) if timed else None


class RemoteTableLink:
    """A running table's remote game (``homeworlds play`` with ``[remote]``): its side,
    whose sequence numbers and replay window live in the table's store, and its broker
    link. ``close`` leaves cleanly."""

    def __init__(self, settings: RemoteSettings, session: TableSession, store_path: Path,
                 side: RemoteSide, recorder: Any = None):
        self.store = GameStore.open(store_path)
        identity = StoredIdentity(self.store)
        invitation = settings.invitation
        key = invitation.key(settings.role).key_id
        peers = {role: invitation.key(role).key_id for role in invitation.roles
                 if role != settings.role}
        self.game = RemoteGame(
            session, invitation, settings.role, settings.seats,
            reserve=lambda n: identity.reserve(key, n),
            seen={role: identity.seen(k).get(CHANNEL, 0) for role, k in peers.items()},
            record_seen_by=lambda role, highest: identity.record_seen(peers[role], CHANNEL,
                                                                      highest),
            deal_file=settings.deal_file)
        if recorder is not None:
            self.game.on_departure = lambda d, ended: record_departure(recorder, session, d,
                                                                       ended)
            self.game.on_result = lambda: record_result(recorder, session)
        self.game.stored_clocks = lambda number: stored_reading(
            self.store, None if recorder is None else recorder.game_id, number,
            len(session.tracker.players), session.timekeeper.game_spec)
        self.game.attach()
        side.game = self.game
        self.connection = RemoteConnection(self.game, settings.broker,
                                           username=settings.username,
                                           password=settings.password,
                                           ca_file=settings.ca_file,
                                           keepalive_s=settings.keepalive_s)
        self.connection.start()

    def close(self) -> None:
        self.connection.close()
        self.game.close()
        self.store.close()


def record_departure(recorder: Any, session: TableSession, departure: tuple[int, str, int],
                     ended: bool) -> None:
    """Another table's player left or missed a turn: this table's store keeps it as the
    admin's ``resign`` / ``skip`` does (``GameRecorder``: ``departure``, ``finish``)."""
    if not ended:
        recorder.departure(*departure)
        return
    tracker = session.tracker
    result = tracker.state.result
    recorder.finish("resigned", tuple(result.winners) if result is not None else (),
                    departure[2], len(tracker.record))


def record_result(recorder: Any, session: TableSession) -> None:
    """A result decided by a card another table revealed (Good/Evil): the store keeps it."""
    tracker = session.tracker
    result = tracker.state.result
    if result is not None:
        recorder.finish(result.kind, tuple(result.winners), None, len(tracker.record))

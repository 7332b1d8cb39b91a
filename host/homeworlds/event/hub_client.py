"""The hub's connection to the event's broker: every table topic in, requests for missing
turns and the event's time control out. The record itself is ``HubIngest``'s."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from homeworlds.clock import ClockSpec
from homeworlds.event.event_clock import EventClockError, parse_clock_payload
from homeworlds.event.hub import HubIngest
from homeworlds.event.mqtt import make_client, reason_text
from homeworlds.event.payloads import encode
from homeworlds.event.settings import BrokerAddress
from homeworlds.event.topics import event_config_topic, event_filter, table_topic
from homeworlds.store import StoreError

log = logging.getLogger("homeworlds.hub")

TICK_S = 0.5
#: Seconds the admin's "set the clock" waits for the broker to take the message.
PUBLISH_TIMEOUT_S = 5.0


class HubOffline(RuntimeError):
    """The hub cannot reach the broker now: a setting was not published."""


class HubClient:
    def __init__(self, broker: BrokerAddress, event: str, ingest: HubIngest, *,
                 username: str | None = None, password: str | None = None,
                 ca_file: Path | None = None, client_id: str | None = None,
                 keepalive: int = 30, remote: Any = None):
        self.broker = broker
        self.event = event
        self.ingest = ingest
        #: the remote games the hub arranged (``remote.hub_games.HubRemoteGames``), or None
        self.remote = remote
        self.connected = False
        self.fault: str | None = None
        #: the event's time control as the broker holds it (None: each table's own)
        self.event_clock: ClockSpec | None = None
        self._keepalive = keepalive
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # A persistent session: the broker keeps QoS 1 messages while the hub is away.
        self._client: Any = make_client(broker, client_id or f"hw-hub-{event}",
                                        username=username, password=password,
                                        ca_file=ca_file, clean_session=False)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        ingest._request = self.request

    def start(self) -> None:
        self._client.connect_async(self.broker.host, self.broker.port,
                                   keepalive=self._keepalive)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._tick, name="hub-tick", daemon=True)
        self._thread.start()
        log.info("hub of event %s following %s", self.event, self.broker.text())

    def stop(self) -> None:
        self._stop.set()
        self.connected = False  # a disconnect asked for is not a fault
        if self._thread is not None:
            self._thread.join(2)
        self._client.disconnect()
        self._client.loop_stop()

    def request(self, table: str, uid: str, first: int) -> None:
        """Ask ``table`` to send game ``uid`` again from turn ``first``, signed with the
        table's key (a table acts only on requests the hub signed)."""
        if not self.connected:
            return
        topic = table_topic(self.event, table, "request")
        try:
            signed = self.ingest.identities.sign_for(
                table, topic, encode({"game_uid": uid, "from": first}))
        except StoreError as exc:
            log.warning("hub: could not ask table %s for game %s (%s)", table, uid, exc)
            return
        if signed is not None:
            self._client.publish(topic, signed, qos=1)

    def send_invitations(self, game_id: str) -> int:
        """Publish the remote game's invitation to each of its tables (retained, so a
        table that starts later gets it); waits for the broker's PUBACKs. The number
        sent; HubOffline when the broker cannot take them now."""
        if self.remote is None:
            raise HubOffline("this hub does not arrange remote games")
        if not self.connected:
            raise HubOffline(f"the hub is not connected to the broker {self.broker.text()} "
                             f"({self.fault or 'connecting'}): the invitation is sent when "
                             "it is")
        infos = [self._client.publish(topic, signed, qos=1, retain=True)
                 for topic, signed in self.remote.invitations(game_id)]
        for info in infos:
            try:
                info.wait_for_publish(timeout=PUBLISH_TIMEOUT_S)
            except (RuntimeError, ValueError) as exc:
                raise HubOffline(f"the invitation could not be sent: {exc}") from None
        if not all(info.is_published() for info in infos):
            raise HubOffline(f"the broker {self.broker.text()} did not confirm the "
                             f"invitation within {PUBLISH_TIMEOUT_S:g} s: it is sent again "
                             "when the hub reconnects")
        log.info("hub: remote game %s: invitation sent to %d tables", game_id, len(infos))
        return len(infos)

    def _send_unjoined(self) -> None:
        """On (re)connecting: the invitations of games a table has not joined yet again (a
        broker restarted without persistence lost them; a table ignores a repeat)."""
        if self.remote is None:
            return
        try:
            for game_id in self.remote.unjoined():
                for topic, signed in self.remote.invitations(game_id):
                    self._client.publish(topic, signed, qos=1, retain=True)
        except StoreError as exc:
            log.warning("hub: could not send the remote games' invitations again: %s", exc)

    @property
    def clock_topic(self) -> str:
        return event_config_topic(self.event, "clock")

    def set_event_clock(self, spec: ClockSpec | None) -> None:
        """Publish the event's time control, retained, for every table's next game (None:
        clear it; each table plays its own [clock] again). Waits for the broker's PUBACK;
        HubOffline when it cannot be delivered now."""
        if not self.connected:
            raise HubOffline(f"the hub is not connected to the broker {self.broker.text()} "
                             f"({self.fault or 'connecting'}): the time control was not set")
        payload = b"" if spec is None else encode(spec.to_dict())
        info = self._client.publish(self.clock_topic, payload, qos=1, retain=True)
        try:
            info.wait_for_publish(timeout=PUBLISH_TIMEOUT_S)
        except (RuntimeError, ValueError) as exc:
            raise HubOffline(f"the time control could not be sent to the broker: {exc}") \
                from None
        if not info.is_published():
            raise HubOffline(f"the broker {self.broker.text()} did not confirm the time "
                             f"control within {PUBLISH_TIMEOUT_S:g} s: it may not be set")
        self.event_clock = spec
        log.info("hub: the event's time control is now %s",
                 "each table's own" if spec is None else spec.to_dict())

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            if self.connected:
                self.ingest.tick()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if getattr(reason_code, "is_failure", False):
            fault = f"the broker {self.broker.text()} refused the hub: " \
                    f"{reason_text(reason_code)}"
            if fault != self.fault:  # said once, not at every retry
                log.warning("%s", fault)
            self.fault = fault
            return
        self.connected, self.fault = True, None
        topics = [(event_filter(self.event), 1), (self.clock_topic, 1)]
        if self.remote is not None:
            topics.append((self.remote.topic_filter, 1))
        client.subscribe(topics)
        log.info("hub connected to %s", self.broker.text())
        threading.Thread(target=self._send_unjoined, name="hub-invite", daemon=True).start()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if self.connected:
            log.warning("hub lost the broker %s (%s)", self.broker.text(),
                        reason_text(reason_code))
        self.connected = False
        if not (self.fault or "").startswith(f"the broker {self.broker.text()} refused"):
            self.fault = f"no broker ({reason_text(reason_code)})"

    def _on_message(self, client, userdata, message) -> None:
        if message.topic == self.clock_topic:
            try:
                self.event_clock = parse_clock_payload(message.payload)
            except EventClockError as exc:
                self.ingest.problems.append(f"the event's time control on {message.topic} "
                                            f"is not one: {exc}")
                log.warning("hub: ignored the event's time control on %s: %s",
                            message.topic, exc)
            return
        if self.remote is not None and self.remote.follows(message.topic):
            try:
                self.remote.handle(message.topic, message.payload)
            except Exception as exc:  # noqa: BLE001 - paho's thread must live
                log.error("hub: a message on %s could not be handled: %s: %s",
                          message.topic, type(exc).__name__, exc)
            return
        try:
            self.ingest.handle(message.topic, message.payload)
        except Exception as exc:  # noqa: BLE001 - paho's thread must live: log and go on
            log.error("hub: a message on %s could not be handled: %s: %s", message.topic,
                      type(exc).__name__, exc)

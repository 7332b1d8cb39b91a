"""The MQTT client (paho-mqtt 2.x), imported only when a table or hub talks to a broker.

One place builds clients so that the table and the hub connect alike: TLS for mqtts://
(the system CAs, or ``ca_file``), username/password, automatic reconnection, and a last
will when one is given. Messages name the broker without its password.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from homeworlds.event.settings import BrokerAddress

INSTALL_HINT = "pip install 'homeworlds-table[event]'"
#: Seconds between reconnection attempts (paho doubles from the first to the second).
RECONNECT_DELAY = (0.2, 2.0)


class MqttUnavailable(RuntimeError):
    pass


def paho():
    try:
        import paho.mqtt.client as client
    except ImportError:
        raise MqttUnavailable("the event features need the paho-mqtt library: "
                              f"{INSTALL_HINT}") from None
    return client


def make_client(broker: BrokerAddress, client_id: str, *, username: str | None = None,
                password: str | None = None, ca_file: Path | None = None,
                will: tuple[str, bytes] | None = None, clean_session: bool = True,
                max_inflight: int = 100) -> Any:
    """A paho client for ``broker``, not yet connected (``connect_async`` + ``loop_start``)."""
    mqtt = paho()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         clean_session=clean_session, protocol=mqtt.MQTTv311)
    user = username or broker.username
    secret = password or broker.password
    if user:
        client.username_pw_set(user, secret)
    if broker.tls:
        context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        client.tls_set_context(context)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(*RECONNECT_DELAY)
    client.max_inflight_messages_set(max_inflight)
    client.max_queued_messages_set(0)
    return client


def reason_text(reason_code: Any) -> str:
    """A connect/disconnect reason for messages ("Not authorized", "Success")."""
    return str(getattr(reason_code, "getName", lambda: reason_code)())

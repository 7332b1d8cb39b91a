"""The host side of the serial link to the table's microcontroller.

Three layers, as in Klipper: the line codec ``tablefw.protocol`` (pure, shared
with the firmware), a byte :class:`Transport` (a pyserial port or an in-memory
pipe), and :class:`TableLink`, which does the handshake, resyncs, watches the
heartbeat, reconnects with backoff and reports :class:`LinkEvent` values::

    from homeworlds.link import SerialTransport, TableLink, ZoneChanged

    link = TableLink(lambda: SerialTransport("/dev/ttyACM1"), expected_zones=layout.zone_count)
    while True:
        for event in link.poll(timeout=0.05):
            if isinstance(event, ZoneChanged):
                ...

:class:`LinkThread` runs the same loop on a thread. User documentation:
docs/link.md; the wire format: docs/protocol.md.
"""

from homeworlds.link.background import LinkThread
from homeworlds.link.core import (
    DEFAULT_BACKOFF,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_REFUSED_RETRY,
    DEFAULT_RESYNC_INTERVAL,
    LINK_DROP_REASONS,
    LinkState,
    LinkStats,
    TableLink,
)
from homeworlds.link.events import (
    ButtonHeld,
    ButtonPressed,
    ConfigReported,
    HandshakeRefused,
    Heartbeat,
    LinesLost,
    LinkDown,
    LinkEvent,
    LinkUp,
    McuInfo,
    McuStats,
    PongReceived,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.link.transport import (
    DEFAULT_BAUDRATE,
    PipeTransport,
    SerialTransport,
    Transport,
    TransportError,
)

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_BAUDRATE",
    "DEFAULT_HEARTBEAT_TIMEOUT",
    "DEFAULT_REFUSED_RETRY",
    "DEFAULT_RESYNC_INTERVAL",
    "LINK_DROP_REASONS",
    "ButtonHeld",
    "ButtonPressed",
    "ConfigReported",
    "HandshakeRefused",
    "Heartbeat",
    "LinesLost",
    "LinkDown",
    "LinkEvent",
    "LinkState",
    "LinkStats",
    "LinkThread",
    "LinkUp",
    "McuInfo",
    "McuStats",
    "PipeTransport",
    "PongReceived",
    "ReaderFault",
    "SerialTransport",
    "SnapshotReceived",
    "TableLink",
    "Transport",
    "TransportError",
    "ZoneChanged",
]

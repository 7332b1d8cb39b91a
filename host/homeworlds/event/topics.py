"""The MQTT topic tree of an event (docs/event.md, "Topics")::

    homeworlds/<event>/tables/<table>/online    retained  {"online": true|false}   (last will)
    homeworlds/<event>/tables/<table>/state     retained  snapshot of the table's game
    homeworlds/<event>/tables/<table>/turns     QoS 1     one message per committed turn
    homeworlds/<event>/tables/<table>/result    QoS 1     how a game ended
    homeworlds/<event>/tables/<table>/events    QoS 1     table events (link, store faults)
    homeworlds/<event>/tables/<table>/request   QoS 1     hub -> table: send turns again
    homeworlds/<event>/tables/<table>/invite    retained  hub -> table: a remote game's
                                                          invitation (remote.hub_invite)
    homeworlds/<event>/config/clock             retained  hub -> tables: the event's time
                                                          control (ClockSpec.to_dict());
                                                          empty: each table's own [clock]

Event and table names are single topic levels (``settings.NAME_PATTERN``).
"""

from __future__ import annotations

ROOT = "homeworlds"
KINDS = ("online", "state", "turns", "result", "events", "request", "invite")


def table_topic(event: str, table: str, kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown topic kind {kind!r} (kinds: {', '.join(KINDS)})")
    return f"{ROOT}/{event}/tables/{table}/{kind}"


#: What the hub sets for every table of the event (``event_config_topic``).
CONFIG_KINDS = ("clock",)


def event_config_topic(event: str, kind: str) -> str:
    """A setting the hub publishes (retained) for every table of the event."""
    if kind not in CONFIG_KINDS:
        raise ValueError(f"unknown config kind {kind!r} (kinds: {', '.join(CONFIG_KINDS)})")
    return f"{ROOT}/{event}/config/{kind}"


def event_filter(event: str, kind: str = "+") -> str:
    """Subscription filter for ``kind`` of every table of the event."""
    return f"{ROOT}/{event}/tables/+/{kind}"


def parse_topic(topic: str) -> tuple[str, str, str] | None:
    """(event, table, kind) of a table topic, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "tables" or parts[4] not in KINDS:
        return None
    return parts[1], parts[3], parts[4]

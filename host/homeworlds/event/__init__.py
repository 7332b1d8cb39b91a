"""Several tables at one event: each table publishes its games to an MQTT broker through
an outbox in its store, one hub follows them all (docs/event.md).

``settings`` (the ``[event]`` config section), ``topics`` (the topic tree), ``payloads``
(JSON messages built from store rows, and checked when read), ``mqtt`` (the paho client,
imported lazily), ``publisher`` (the table's outbox), ``hub`` (the event's screen and
archive), ``pairing`` (round robin and Swiss pairings).
"""

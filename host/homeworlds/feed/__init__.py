"""The table feed (docs/display.md, "The table feed"): what a display needs of the table.

- ``events``: the feed's immutable events (``SnapshotEvent``, ``TurnEvent``,
  ``ResultEvent``, ``AnalysisEvent``) with their JSON and a strict reader
  (:func:`event_from_json`); ``FeedProducer``, which makes them from a running table on
  the table's own thread; ``FeedHub``, which fans them out to asyncio subscribers through
  bounded queues.
- ``client``: :func:`follow_feed` reads another host's ``/feed`` stream, reconnecting by
  itself.

No web library is imported here: a transport only has to carry ``to_json()``.
"""

from homeworlds.feed.client import follow_feed
from homeworlds.feed.events import (
    QUEUE_LIMIT,
    AnalysisEvent,
    FeedError,
    FeedEvent,
    FeedHub,
    FeedProducer,
    GameInfo,
    Hints,
    Mistake,
    Result,
    ResultEvent,
    SnapshotEvent,
    Subscription,
    TurnEvent,
    bank_counts,
    encode,
    event_from_json,
    overpopulations,
    result_of,
)

__all__ = [
    "QUEUE_LIMIT",
    "AnalysisEvent",
    "FeedError",
    "FeedEvent",
    "FeedHub",
    "FeedProducer",
    "GameInfo",
    "Hints",
    "Mistake",
    "Result",
    "ResultEvent",
    "SnapshotEvent",
    "Subscription",
    "TurnEvent",
    "bank_counts",
    "encode",
    "event_from_json",
    "follow_feed",
    "overpopulations",
    "result_of",
]

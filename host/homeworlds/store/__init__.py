"""The game store: every game a table played, durably, in one SQLite file (docs/store.md).

``GameStore`` is the file (schema, one transaction per write); ``GameRecorder`` is what the
running table talks to (writes in order, kept in memory and retried while the store has a
fault); ``export`` writes SDG, cooked or JSON copies of stored games.
"""

from homeworlds.store.database import (
    GameStore,
    StoredGame,
    StoredObservation,
    StoredResult,
    StoredTurn,
    StoreError,
    StoreRefused,
    StoreUnavailable,
)
from homeworlds.store.lock import (
    HolderLock,
    LockHeld,
    LockUnavailable,
    TableLock,
    holder_text,
    port_lock,
)
from homeworlds.store.recorder import GameRecorder, ResumePoint

__all__ = ["GameRecorder", "GameStore", "HolderLock", "LockHeld", "LockUnavailable",
           "ResumePoint", "StoreError", "StoreRefused", "StoreUnavailable", "StoredGame",
           "StoredObservation", "StoredResult", "StoredTurn", "TableLock", "holder_text",
           "port_lock"]

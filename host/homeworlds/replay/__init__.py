"""Recorded games through the rules engine (docs/replay.md).

- ``transcript``: an SDG transcript or a cooked game replayed turn by turn
  (:func:`replay_game`, :func:`replay_cooked_game`), the rules a transcript is played
  under (:func:`rules_for_game`), its turn numbers, and the seats that left a
  multi-player game (:func:`infer_departures`).
- ``archive``: the replays compared with the archive's expected results
  (``../shared/games``), for the tests and ``make corpus``.
"""

from homeworlds.replay.archive import (
    Expected,
    cooked_disagreements,
    disagreement,
    load_expected,
    replay_cooked,
    sdg_disagreements,
)
from homeworlds.replay.transcript import (
    ReplayError,
    ReplayResult,
    ReplaySetupError,
    infer_departures,
    replay_cooked_game,
    replay_game,
    rules_for_game,
    setup_relative_numbering,
)

__all__ = [
    "Expected",
    "ReplayError",
    "ReplayResult",
    "ReplaySetupError",
    "cooked_disagreements",
    "disagreement",
    "infer_departures",
    "load_expected",
    "replay_cooked",
    "replay_cooked_game",
    "replay_game",
    "rules_for_game",
    "sdg_disagreements",
    "setup_relative_numbering",
]

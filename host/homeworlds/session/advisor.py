"""The computer at the table: it thinks in a worker thread while the table keeps scanning.

A :class:`Thinking` is one request: the computer chooses a turn for the seat to move of a
copied position (its own turn at a computer seat, or a learner's suggestion). The host
polls it from its loop (``done``, ``turn``, ``error``); it never blocks the loop, so the
LEDs animate and the sensors are read while the computer thinks.

``ComputerPlayer.choose_turn`` may accept ``time_limit=`` (seconds for the whole move) and
``progress=`` (a callback with what the search found so far); both are passed only when
the player's ``choose_turn`` accepts them, so any player with ``choose_turn(state)`` works.
"""

from __future__ import annotations

import inspect
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from homeworlds.rules import GameState, Rules, Turn

#: Default seconds a level may think per move at the table (a Raspberry Pi 4 is about 3x
#: slower than the development machine, so these leave room; [computer] time_limits).
DEFAULT_TIME_LIMITS: dict[int, float] = {1: 3.0, 2: 6.0, 3: 10.0, 4: 6.0}


@dataclass(frozen=True, slots=True)
class ComputerSeat:
    """A seat the computer plays: its level and seconds per move (None: the level's
    default from the configuration)."""

    level: int = 1
    time_limit: float | None = None
    seed: int | None = None


def make_player(level: int, seed: int | None, rules: Rules, names: tuple[str, ...]):
    from homeworlds.ai import ComputerPlayer

    return ComputerPlayer(level, seed=seed, rules=rules, names=names)


def played_from(player) -> str:
    """Where a seat played elsewhere plays from, in words: the player's ``played_from``,
    else what its ``waiting_text`` names ("waiting for the turn from the phone…" -> "the
    phone"), else "elsewhere"."""
    given = getattr(player, "played_from", None)
    if isinstance(given, str) and given.strip():
        return given.strip()
    found = _FROM.search(getattr(player, "waiting_text", None) or "")
    return found.group(1) if found else "elsewhere"


#: The place a ``waiting_text`` names: "… from the other table…".
_FROM = re.compile(r"\bfrom (.+?)(?:…|\.\.\.)?\s*$")


class Thinking:
    """One choice of a turn, running in a daemon thread. ``purpose``: "turn" (the
    computer's own turn) or "suggestion" (a learner's hint); ``key`` identifies the
    position it was asked for (the host drops an answer whose key is stale)."""

    def __init__(self, player, state: GameState, *, purpose: str, key: tuple,
                 time_limit: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.purpose = purpose
        self.key = key
        self.seat = state.to_move
        self.started = clock()
        self.finished: float | None = None
        self.turn: Turn | None = None
        self.error: str | None = None
        #: The latest progress report of the search (whatever it passes), if any.
        self.progress: object = None
        #: What a seat played elsewhere waits for instead of thinking (a remote game's
        #: ``RemotePlayer``: "waiting for the turn from the other table…"), or None.
        waiting = getattr(player, "waiting_text", None) if purpose == "turn" else None
        self.waiting_text: str | None = waiting if isinstance(waiting, str) else None
        #: Where that seat's turn comes from ("the other table", "the phone"), or None: the
        #: computer chooses it. What the lights and displays say instead of "the computer".
        self.played_from: str | None = (played_from(player) if self.waiting_text is not None
                                        else None)
        self._clock = clock
        self._done = threading.Event()
        kwargs: dict[str, object] = {}
        accepted: Mapping[str, object]
        try:
            accepted = inspect.signature(player.choose_turn).parameters
        except (TypeError, ValueError):
            accepted = {}
        if time_limit is not None and "time_limit" in accepted:
            kwargs["time_limit"] = time_limit
        if "progress" in accepted:
            kwargs["progress"] = self._progress
        state = state.copy()
        self._thread = threading.Thread(target=self._run, args=(player, state, kwargs),
                                        name=f"computer-{purpose}-seat{self.seat}", daemon=True)
        self._thread.start()

    def _progress(self, report: object) -> None:
        self.progress = report

    def _run(self, player, state: GameState, kwargs: dict) -> None:
        try:
            self.turn = tuple(player.choose_turn(state, **kwargs))
        except Exception as exc:  # noqa: BLE001 - reported on the terminal, never lost
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.finished = self._clock()
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def seconds(self) -> float:
        end = self.finished if self.finished is not None else self._clock()
        return end - self.started

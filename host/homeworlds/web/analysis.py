"""Live analysis for spectators: the display's worker thread (docs/analysis.md).

``AnalysisWorker`` watches the feed the display serves (``FeedHub.listeners``: called on
the server's event loop, it only notes the latest committed position and wakes the
worker) and, on a thread of its own, works out for that position the calibrated win
probability (``ai.analysis``), the threats in words (``ai.threats``) and the computer's
suggested turn for the player to move (the top level, within ``think_s``; not in
tournament mode). It publishes the result as an ``AnalysisEvent`` through the same hub.

It runs where the display runs: in ``play`` and ``demo --web`` that is the display's own
process (``web.process``), at a lower CPU priority than the table, so the analysis never
takes the table loop's time. A position is analysed once; when the table moves on while
the worker thinks, the newer position is taken next and the older one is not finished
twice. A position the analysis cannot read is skipped with one line on stderr.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from homeworlds.feed import AnalysisEvent, FeedEvent, SnapshotEvent
from homeworlds.notation import CookedSystem, read_cooked
from homeworlds.rules import GameState, HomeworldsError, preset

#: Seconds the computer may think about its suggestion, and about a forced win in two.
THINK_S = 1.5
FORCED_S = 1.0


def position_for_analysis(snapshot: SnapshotEvent) -> GameState | None:
    """The snapshot's committed position as the model sees it: the player who set up
    first as seat 0 (the table's ``first_seat`` may be 1), the turns played as ``ply``.
    None when there is nothing to analyse (setup, a turn in progress, the game over, not
    two seats, no position)."""
    game = snapshot.game
    if (game.in_setup or game.result is not None or snapshot.turn_in_progress
            or len(game.players) != 2 or not snapshot.position.strip()):
        return None
    systems = read_cooked(snapshot.position).systems
    to_move = game.to_move
    if game.first_seat == 1:
        systems = tuple(_swapped(s) for s in systems)
        to_move = 1 - to_move
    state = GameState.from_position(systems, preset(game.rules), to_move=to_move)
    state.ply = max(state.ply, game.turn_number - 1)
    return None if state.result is not None else state


def _swapped(system: CookedSystem) -> CookedSystem:
    home = system.home_of
    return replace(system, ships=(system.ships[1], system.ships[0]),
                   home_of=None if home is None else 1 - home)


def analyse(snapshot: SnapshotEvent, *, suggestions: bool = True, think_s: float = THINK_S,
            forced_s: float | None = FORCED_S, node_limit: int | None = None,
            clock: Callable[[], float] = time.monotonic) -> AnalysisEvent | None:
    """The analysis of a snapshot's committed position (None: nothing to analyse).
    ``forced_s``: see ``find_threats``; ``think_s`` and ``node_limit``: the suggestion's
    limits (``ComputerPlayer``; a node limit and a generous time give the same turn on
    any machine)."""
    from homeworlds.ai import ComputerPlayer
    from homeworlds.ai.analysis import bundled_model, phase_of
    from homeworlds.ai.threats import find_threats, turn_words

    started = clock()
    state = position_for_analysis(snapshot)
    if state is None:
        return None
    game = snapshot.game
    flip = game.first_seat == 1
    players = game.players[::-1] if flip else game.players

    def table_seat(seat: int | None) -> int | None:
        return None if seat is None or not flip else 1 - seat

    p_first = bundled_model().probability(state)
    win = (1.0 - p_first, p_first) if flip else (p_first, 1.0 - p_first)
    threats = []
    for threat in find_threats(state, players, forced_time=forced_s, clock=clock):
        data = threat.to_json()
        data["seat"] = table_seat(threat.seat) if flip else threat.seat
        threats.append(data)
    suggested = None
    if suggestions:
        player = ComputerPlayer(4, seed=0, rules=state.rules, time_limit=think_s,
                                node_limit=node_limit)
        turn = player.choose_turn(state.copy())
        suggested = {"seat": game.to_move, "turn": turn_words(turn, players)}
    return AnalysisEvent(snapshot.table, snapshot.seq, game.uid, game.turn_number,
                         game.to_move, snapshot.position, phase_of(state),
                         tuple(round(p, 4) for p in win), tuple(threats), suggested,
                         not suggestions, round(clock() - started, 3))


class AnalysisWorker:
    """The display's analysis thread. ``publish``: where analyses go (the hub's
    ``publish_threadsafe``); ``suggestions``: False in tournament mode (no suggested turn,
    ``hidden`` is said instead)."""

    def __init__(self, publish: Callable[[FeedEvent], None], *, suggestions: bool = True,
                 think_s: float = THINK_S, forced_s: float = FORCED_S):
        self.publish = publish
        self.suggestions = suggestions
        self.think_s = think_s
        self.forced_s = forced_s
        self._wake = threading.Condition()
        self._pending: SnapshotEvent | None = None
        self._done_key: tuple | None = None
        self._stopped = False
        self._thread: threading.Thread | None = None
        #: Analyses published, and positions that could not be read (for tests).
        self.published = 0
        self.failures = 0

    @staticmethod
    def _key(snapshot: SnapshotEvent) -> tuple:
        return (snapshot.game.uid, snapshot.game.turn_number, snapshot.position)

    def observe(self, event: FeedEvent) -> None:
        """A hub listener: note a snapshot of a committed position (cheap; any thread)."""
        if not isinstance(event, SnapshotEvent) or event.turn_in_progress:
            return
        with self._wake:
            if self._key(event) == self._done_key:
                return
            self._pending = event
            self._wake.notify()

    def start(self) -> AnalysisWorker:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="analysis", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._stopped:
                    self._wake.wait()
                if self._stopped:
                    return
                snapshot, self._pending = self._pending, None
                assert snapshot is not None
                self._done_key = self._key(snapshot)
            self.run_once(snapshot)

    def run_once(self, snapshot: SnapshotEvent) -> AnalysisEvent | None:
        try:
            event = analyse(snapshot, suggestions=self.suggestions, think_s=self.think_s,
                            forced_s=self.forced_s)
        except (HomeworldsError, ValueError) as exc:
            self.failures += 1
            print(f"homeworlds display: no analysis of turn {snapshot.game.turn_number} "
                  f"({exc})", file=sys.stderr, flush=True)
            return None
        if event is not None:
            # Published even when a newer position waits: the page shows an analysis only
            # beside its own position, and the newer one follows.
            self.publish(event)
            self.published += 1
        return event

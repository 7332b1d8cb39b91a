"""Admin commands for the running table, from another thread (the web display's admin page).

The table loop owns the game (the ``TurnTracker``); nothing else may change it. An admin
request therefore becomes an ``AdminCommand`` put on a ``ControlQueue``; the table loop
runs what waits (``run_pending``) between ticks and answers each through a
``concurrent.futures.Future``, which the web thread awaits. A command that cannot be done
(undo with no turn, resign after the game ended, a bad setting) is answered with a
``ControlError`` naming why, and nothing changes.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace

from homeworlds.rules import IllegalAction
from homeworlds.session.lights import HINT_LEVELS
from homeworlds.store.records import cooked_position, position_to_json, turn_to_sdg

#: The admin verbs.
VERBS = ("new-game", "resign", "skip", "brain-transference", "draw", "undo", "settings",
         "decline-draw", "release-phone")

#: Lowest LED brightness the admin page may set (0 would look like a dead table).
MIN_BRIGHTNESS = 0.02


class ControlError(ValueError):
    """An admin command that cannot be done now; the text says why."""


@dataclass(frozen=True, slots=True)
class AdminCommand:
    verb: str
    #: resign: the seat that resigns
    seat: int | None = None
    #: settings: hint level ("full", "warnings", "minimal")
    hint_level: str | None = None
    #: settings: LED brightness, 0..the configured brightness
    brightness: float | None = None

    def __post_init__(self) -> None:
        if self.verb not in VERBS:
            raise ControlError(f"unknown action {self.verb!r} (actions: {', '.join(VERBS)})")


class ControlQueue:
    """Commands from any thread to the table loop; each ``submit`` returns a Future that
    the loop resolves with the message to show (or a ControlError)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[AdminCommand, Future]] = queue.SimpleQueue()

    def submit(self, command: AdminCommand) -> Future:
        future: Future = Future()
        self._queue.put((command, future))
        return future

    def run_pending(self, run: Callable[[AdminCommand], str]) -> int:
        """On the table loop's thread: run every waiting command; returns how many ran."""
        done = 0
        while True:
            try:
                command, future = self._queue.get_nowait()
            except queue.Empty:
                return done
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(run(command))
            except ControlError as exc:
                future.set_exception(exc)
            except Exception as exc:  # a bug must not stop the table loop
                future.set_exception(ControlError(f"the table could not do it: {exc}"))
            done += 1


class TableControl:
    """Runs admin commands against a session, on the table loop's thread.

    ``recorder`` (optional) records resignations, draws and undos in the game store;
    ``start_new_game`` starts the next game the way the host does (store, export,
    Good/Evil deal); ``on_undo(number)`` is told after a turn was withdrawn (the SDG
    export is rewritten there). After an undo the session's guidance leads the players
    back to the earlier position on the LEDs, step by step; ``producer``, a
    ``FeedProducer``, shows the withdrawn turn and the position to restore."""

    def __init__(self, session, *, recorder=None, producer=None,
                 start_new_game: Callable[[], None] | None = None,
                 on_undo: Callable[[int], None] | None = None,
                 max_brightness: float = 1.0, verbs: tuple[str, ...] = VERBS,
                 refusal: str = "not available here",
                 decline_draw: Callable[[], str] | None = None,
                 release_phone: Callable[[], str] | None = None):
        self.session = session
        #: the actions this table allows (the demo, which plays a recorded game, allows
        #: only the settings); ``refusal`` says why the others are refused
        self.verbs = verbs
        self.refusal = refusal
        self.recorder = recorder
        self.producer = producer
        self.start_new_game = start_new_game
        self.on_undo = on_undo
        self.max_brightness = max_brightness
        #: declines the draw offered from a phone (``PhoneSeat.decline_draw``), if any
        self.decline_draw = decline_draw
        #: frees the phone's seat for another phone (``PhoneSeat.release``), if any
        self.release_phone = release_phone

    def __call__(self, command: AdminCommand) -> str:
        if command.verb not in self.verbs:
            raise ControlError(f"{command.verb}: {self.refusal}")
        return getattr(self, "_" + command.verb.replace("-", "_"))(command)

    def _end(self, kind: str, seat: int | None) -> str:
        tracker = self.session.tracker
        try:
            self.session.end_game(kind, seat)
        except IllegalAction as exc:
            raise ControlError(str(exc)) from None
        result = tracker.state.result
        winners = tuple(result.winners) if result is not None else ()
        if self.recorder is not None:
            self.recorder.finish(kind, winners, seat, len(tracker.record))
        self._cancel_guide_back()
        return tracker.status.message

    def _cancel_guide_back(self) -> None:
        """A game that ended or was replaced needs no pieces put back."""
        self.session.computer.cancel_guide_back()
        if self.producer is not None:
            self.producer.guidance = None

    def _resign(self, command: AdminCommand) -> str:
        tracker = self.session.tracker
        players = tracker.players
        if command.seat is None or not 0 <= command.seat < len(players):
            raise ControlError(f"resign: name the seat that resigns (0 to {len(players) - 1})")
        try:
            ended = self.session.resign(command.seat)
        except IllegalAction as exc:
            raise ControlError(str(exc)) from None
        if ended:
            result = tracker.state.result
            winners = tuple(result.winners) if result is not None else ()
            if self.recorder is not None:
                self.recorder.finish("resigned", winners, command.seat, len(tracker.record))
            self._cancel_guide_back()
            return tracker.status.message
        self._record_departure()
        return (f"{players[command.seat]} resigned and leaves the game; "
                f"{players[tracker.state.to_move]} is to move")

    def _record_departure(self) -> None:
        """The store keeps who left or missed a turn, for a resumed game."""
        if self.recorder is not None and self.session.tracker.departures:
            self.recorder.departure(*self.session.tracker.departures[-1])

    def _brain_transference(self, command: AdminCommand) -> str:
        """The junior player uses Brain Transference (as when both seat buttons are held)."""
        try:
            self.session.brain_transference()
        except IllegalAction as exc:
            raise ControlError(f"brain-transference: {exc}") from None
        return self.session.tracker.status.message

    def _skip(self, command: AdminCommand) -> str:
        tracker = self.session.tracker
        try:
            seat = self.session.skip_turn()
        except IllegalAction as exc:
            raise ControlError(f"skip: {exc}") from None
        self._record_departure()
        return (f"{tracker.players[seat]} misses the turn; "
                f"{tracker.players[tracker.state.to_move]} is to move")

    def _draw(self, command: AdminCommand) -> str:
        return self._end("agreed-draw", None)

    def _release_phone(self, command: AdminCommand) -> str:
        if self.release_phone is None:
            raise ControlError("release-phone: this table has no phone seat")
        try:
            return self.release_phone()
        except ValueError as exc:  # the store could not keep it (ClaimRefused)
            raise ControlError(f"release-phone: {exc}") from None

    def _decline_draw(self, command: AdminCommand) -> str:
        if self.decline_draw is None:
            raise ControlError("decline-draw: no one offered a draw (only a phone's seat can)")
        try:
            return self.decline_draw()
        except ValueError as exc:
            raise ControlError(f"decline-draw: {exc}") from None

    def _new_game(self, command: AdminCommand) -> str:
        tracker = self.session.tracker
        if not tracker.is_over:
            if tracker.record:
                self._end("abandoned", None)
        self.session.new_game(self.start_new_game)
        self._cancel_guide_back()
        return "new game: set up your homeworlds"

    def _undo(self, command: AdminCommand) -> str:
        tracker = self.session.tracker
        try:
            number, seat, turn = self.session.withdraw_last_turn()
        except IllegalAction as exc:
            raise ControlError(f"undo: {exc}") from None
        if self.recorder is not None:
            self.recorder.withdraw(number)
        if self.producer is not None:
            # The display names the withdrawn turn and the position to restore; while the
            # LEDs guide the players back, the feed adds the current step to it.
            self.producer.guidance = {
                "withdrawn_turn": number, "seat": seat,
                "sdg": turn_to_sdg(turn, tracker.players),
                "restore": cooked_position(position_to_json(tracker.state)),
                "text": f"turn {number} withdrawn: put the pieces back as shown"}
        if self.on_undo is not None:
            self.on_undo(number)
        return tracker.status.message

    def _settings(self, command: AdminCommand) -> str:
        session = self.session
        said = []
        if command.hint_level is not None:
            if command.hint_level not in HINT_LEVELS:
                raise ControlError(f"hint level {command.hint_level!r}: choose one of "
                                   f"{', '.join(HINT_LEVELS)}")
        if command.brightness is not None:
            b = command.brightness
            if not MIN_BRIGHTNESS <= b <= self.max_brightness:
                raise ControlError(f"brightness {b:g}: choose from {MIN_BRIGHTNESS:g} to "
                                   f"{self.max_brightness:g} (the configuration's "
                                   "[pixels] brightness is the ceiling)")
        if command.hint_level is not None:
            session.lights.hint_level = command.hint_level
            said.append(f"hint level {command.hint_level}")
        if command.brightness is not None:
            output = session.lights.output
            if output is not None and hasattr(output, "set_correction"):
                output.set_correction(replace(output.correction,
                                              brightness=command.brightness))
            session.lights.brightness = command.brightness
            said.append(f"brightness {command.brightness:g}")
        if not said:
            raise ControlError("settings: nothing to change (hint level or brightness)")
        return "settings: " + ", ".join(said)


"""Game clocks: each seat's thinking time under a time control, as immutable values.

Nothing here reads a clock: every operation takes ``now``, seconds of a monotonic clock
(the table session passes its injected ``clock()``, tests pass numbers), and returns a new
value. docs/clocks.md describes the time controls and how the table drives them.

Time controls (:class:`ClockSpec`, the ``[clock]`` section of a table's configuration):

* ``none``: no clock.
* ``sudden-death``: ``initial_s`` for the whole game.
* ``fischer``: ``initial_s``, and ``increment_s`` added to the mover's clock after every
  turn they complete (as on a chess clock: after the move, so a quick turn can gain time).
* ``delay``: simple delay (the "US delay"): at the start of each turn the clock waits
  ``delay_s`` before it counts down; delay left unused is lost, never banked. (Bronstein
  delay gives back the time used up to ``delay_s`` after the move: the flag falls at the
  same moment under either, but a simple-delay clock never shows time going up, which is
  easier to read on a bar.)

A clock runs only for the seat to move, and only while no pause reason holds (link down,
reader fault, a mistake the table asks the players to correct, a table being laid out
again after a restart). A seat whose clock reaches zero has *flagged*.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

MODES = ("none", "sudden-death", "fischer", "delay")
ON_FLAG = ("loss", "none")
#: Longest main time: a week of thinking is not a time control any more.
MAX_INITIAL_S = 7 * 24 * 3600.0
#: Shortest main time (one second: bullet games, and tests that wait for a flag).
MIN_INITIAL_S = 1.0
#: Longest increment or delay per turn.
MAX_PER_TURN_S = 3600.0
#: The most a seat's clock can show: twice the longest main time (increments add up). A
#: stored or received clock beyond it is not a clock (docs/clocks.md).
MAX_REMAINING_S = 2 * MAX_INITIAL_S
#: Pause reasons, most important first (the feed and the terminal name the first that holds).
PAUSE_REASONS = ("link-down", "reader-fault", "mistake", "resume", "remote")
#: What each pause reason means, for displays.
PAUSE_TEXT = {"link-down": "the table's link is down", "reader-fault": "a reader fault",
              "mistake": "the table asks to correct a mistake",
              "resume": "the table is being laid out as recorded",
              "remote": "the other table of the remote game is away"}
#: Seconds of main time under which the bar of the seat to move blinks.
LOW_TIME_S = 60.0

_KEYS = ("mode", "initial_s", "increment_s", "delay_s", "on_flag", "timed_setup")


class ClockSpecError(ValueError):
    """A bad time control: ``source`` (file), ``key``, ``reason``, joined by ``str()``."""

    def __init__(self, reason: str, *, key: str | None = None, source: str | None = None):
        self.reason, self.key, self.source = reason, key, source
        super().__init__(": ".join(p for p in (source, key, reason) if p))


def _check_per_turn(mode: str, numbers: Mapping[str, float],
                    fail: Callable[[str | None, str], ClockSpecError]) -> None:
    """The increment belongs to Fischer clocks, the delay to delay clocks, each 0 < s <=
    MAX_PER_TURN_S."""
    for key, wanted in (("increment_s", "fischer"), ("delay_s", "delay")):
        if key in numbers and mode != wanted:
            raise fail(key, f"only mode = \"{wanted}\" uses it, and the mode is {mode!r}")
        if key not in numbers and mode == wanted:
            raise fail(key, f"missing: mode = \"{wanted}\" needs it (seconds per turn, "
                       "e.g. 5)")
        if key in numbers and not 0 < numbers[key] <= MAX_PER_TURN_S:
            value = numbers[key]
            raise fail(key, f"{value:g} is out of range: give seconds per turn, more "
                       f"than 0 and at most {MAX_PER_TURN_S:g}")


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A time control. Build it with :meth:`from_dict` to have every value checked."""

    mode: str = "none"
    initial_s: float = 0.0
    increment_s: float = 0.0
    delay_s: float = 0.0
    #: "loss": a flag fall loses the game; "none" (casual play): the flag shows, play goes on
    on_flag: str = "loss"
    #: Whether the setup turns (homeworld choices) are timed. False (the default): the
    #: clocks start with the first turn after setup, as a chess arbiter starts the clock
    #: once the pieces are set up.
    timed_setup: bool = False

    @property
    def timed(self) -> bool:
        return self.mode != "none"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None,
                  prefix: str = "") -> ClockSpec:
        """A checked time control from a mapping (a TOML ``[clock]`` table, or JSON from
        the event hub). ``source`` and ``prefix`` (``clock.``) point error messages at
        the file and key."""
        def fail(key: str | None, reason: str) -> ClockSpecError:
            return ClockSpecError(reason, key=f"{prefix}{key}" if key else prefix.rstrip(".")
                                  or None, source=source)

        if not isinstance(data, Mapping):
            raise fail(None, f"a time control is a table of keys ({', '.join(_KEYS)}), not "
                       f"{type(data).__name__}")
        for key in data:
            if key not in _KEYS:
                raise fail(str(key), f"unknown key (keys: {', '.join(_KEYS)})")
        mode = data.get("mode", "none")
        if not isinstance(mode, str) or mode not in MODES:
            raise fail("mode", f"{mode!r} is not a clock mode (modes: "
                       f"{', '.join(repr(m) for m in MODES)})")
        on_flag = data.get("on_flag", "loss")
        if not isinstance(on_flag, str) or on_flag not in ON_FLAG:
            raise fail("on_flag", f"{on_flag!r}: give \"loss\" (a flag fall loses the game) "
                       "or \"none\" (casual play: the flag shows, the game goes on)")
        timed_setup = data.get("timed_setup", False)
        if not isinstance(timed_setup, bool):
            raise fail("timed_setup", f"{timed_setup!r} is not true or false")
        numbers = {key: _seconds(data[key], fail, key) for key in
                   ("initial_s", "increment_s", "delay_s") if key in data}
        if mode == "none":
            extra = sorted(numbers)
            if extra:
                raise fail(extra[0], "mode = \"none\" has no clock: remove it, or set a mode "
                           "(\"sudden-death\", \"fischer\", \"delay\")")
            return cls(on_flag=on_flag, timed_setup=timed_setup)
        if "initial_s" not in numbers:
            raise fail("initial_s", f"missing: mode = {mode!r} needs the main time in seconds "
                       "(e.g. initial_s = 600 for ten minutes)")
        initial = numbers["initial_s"]
        if not MIN_INITIAL_S <= initial <= MAX_INITIAL_S:
            raise fail("initial_s", f"{initial:g} is out of range: give seconds from "
                       f"{MIN_INITIAL_S:g} to {MAX_INITIAL_S:g} (a week)")
        _check_per_turn(mode, numbers, fail)
        return cls(mode, initial, numbers.get("increment_s", 0.0), numbers.get("delay_s", 0.0),
                   on_flag, timed_setup)

    def to_dict(self) -> dict[str, Any]:
        """The time control as JSON-able data that :meth:`from_dict` reads back."""
        out: dict[str, Any] = {"mode": self.mode}
        if self.timed:
            out["initial_s"] = self.initial_s
        if self.mode == "fischer":
            out["increment_s"] = self.increment_s
        if self.mode == "delay":
            out["delay_s"] = self.delay_s
        out["on_flag"] = self.on_flag
        out["timed_setup"] = self.timed_setup
        return out

    @classmethod
    def parse(cls, text: str) -> ClockSpec:
        """A compact time control for command lines: ``none``, ``600`` (sudden death, ten
        minutes), ``300+5`` (Fischer: five minutes, 5 s a turn), ``300d5`` (delay 5 s)."""
        forms = "forms: none, 600, 300+5, 300d5"
        words = text.strip().lower()
        if words == "none":
            return cls()
        for mark, mode, key in (("+", "fischer", "increment_s"), ("d", "delay", "delay_s")):
            if mark in words:
                main, _, per_turn = words.partition(mark)
                data = {"mode": mode, "initial_s": main, key: per_turn}
                break
        else:
            data = {"mode": "sudden-death", "initial_s": words}
        try:
            numbers = {k: float(v) if k != "mode" else v for k, v in data.items()}
        except ValueError:
            raise ClockSpecError(f"{text!r} is not a time control ({forms})") from None
        try:
            return cls.from_dict(numbers)
        except ClockSpecError as exc:
            raise ClockSpecError(f"{text!r}: {exc} ({forms})") from None

    def describe(self) -> str:
        if not self.timed:
            return "no clock"
        main = format_clock(self.initial_s * 1000)
        text = {"sudden-death": f"{main} sudden death",
                "fischer": f"{main} + {self.increment_s:g} s a turn (Fischer)",
                "delay": f"{main}, {self.delay_s:g} s delay a turn"}[self.mode]
        return text + ("" if self.on_flag == "loss" else ", casual (a flag does not lose)")


def _seconds(value: object, fail, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(key, f"{value!r} is not a number of seconds")
    if not math.isfinite(value):
        raise fail(key, f"{value!r} is not a number of seconds")
    return float(value)


@dataclass(frozen=True, slots=True)
class TurnTime:
    """What the record keeps of a timed turn."""

    seat: int
    #: milliseconds the mover's clock ran during the turn (pauses not counted)
    elapsed_ms: int
    #: milliseconds left on the mover's clock after the turn (increment included)
    clock_ms: int


@dataclass(frozen=True, slots=True)
class GameClocks:
    """Every seat's clock at one moment of accounting (``since``).

    ``remaining`` is exact for every seat at ``since``; the seat to move loses time from
    ``since`` onwards while nothing pauses its clock. Operations settle the account at
    their ``now`` and return a new value; reading (``remaining_ms``, ``feed``) changes
    nothing. A ``now`` earlier than ``since`` counts as ``since`` (events may carry the
    time a change happened, a moment before the last accounting).
    """

    spec: ClockSpec
    #: seconds left per seat at ``since``
    remaining: tuple[float, ...]
    #: the seat whose turn is timed now; None before the clocks start and after the game
    to_move: int | None = None
    since: float | None = None
    #: simple delay left in the current turn, seconds
    grace: float = 0.0
    #: seconds the clock of ``to_move`` has run this turn
    used: float = 0.0
    paused: frozenset[str] = frozenset()
    #: seats whose flag fell, in the order they fell
    flagged: tuple[int, ...] = ()
    #: the game is over: the clocks stopped for good
    ended: bool = False
    #: seats that left the game (resigned in a game of three or more that goes on): their
    #: clocks stopped for good
    departed: tuple[int, ...] = ()

    @classmethod
    def new(cls, spec: ClockSpec, seats: int) -> GameClocks:
        if not spec.timed:
            raise ValueError("a time control with mode = \"none\" has no clocks")
        return cls(spec, (spec.initial_s,) * seats)

    @classmethod
    def restored(cls, spec: ClockSpec, remaining_ms: tuple[int | None, ...]) -> GameClocks:
        """The clocks of a resumed game: each seat's time as stored after its last turn
        (None: the seat has not finished a timed turn, so its main time is whole)."""
        clocks = cls.new(spec, len(remaining_ms))
        # A stored time beyond any clock (a damaged row) counts as none: the main time.
        left = tuple(spec.initial_s if ms is None or ms > MAX_REMAINING_S * 1000
                     else max(0.0, ms / 1000) for ms in remaining_ms)
        flagged = tuple(seat for seat, t in enumerate(left) if t <= 0)
        return replace(clocks, remaining=left, flagged=flagged)

    # ------------------------------------------------------------------ reading

    @property
    def started(self) -> bool:
        return self.to_move is not None

    @property
    def running(self) -> bool:
        """The mover's clock counts now (it may be in its delay, or flagged already)."""
        return self.to_move is not None and not self.paused

    def pause_reason(self) -> str | None:
        """The most important reason the clocks are paused, or None."""
        return next((r for r in PAUSE_REASONS if r in self.paused),
                    min(self.paused) if self.paused else None)

    def _charged(self, now: float) -> tuple[float, float, float]:
        """(seconds charged to the mover, delay used, seconds run) since ``since``."""
        if not self.running or self.since is None:
            return 0.0, 0.0, 0.0
        ran = max(0.0, now - self.since)
        from_delay = min(self.grace, ran)
        return ran - from_delay, from_delay, ran

    def remaining_s(self, seat: int, now: float) -> float:
        left = self.remaining[seat]
        if seat == self.to_move and seat not in self.flagged:
            left -= self._charged(now)[0]
        return max(0.0, left)

    def remaining_ms(self, seat: int, now: float) -> int:
        return _ms(self.remaining_s(seat, now))

    def in_delay(self, now: float) -> bool:
        """The mover is still in the turn's delay (the clock does not count down yet)."""
        return self.running and self.grace > self._charged(now)[1]

    def fraction(self, seat: int, now: float) -> float:
        """The share of the main time left, 0..1 (a Fischer clock above its main time
        counts as full): how much of the seat's bar is lit."""
        return min(1.0, self.remaining_s(seat, now) / self.spec.initial_s)

    def fallen(self, now: float) -> int | None:
        """The seat to move if its clock has run out by ``now`` and it had not flagged."""
        seat = self.to_move
        if seat is None or seat in self.flagged or not self.running:
            return None
        return seat if self.remaining_s(seat, now) <= 0 else None

    def feed(self, now: float) -> dict[str, Any]:
        """The ``clocks`` member of the table feed's snapshot. ``delay_ms``: the simple
        delay the running seat has left before its clock counts down (a display counting
        down by itself waits that long)."""
        delay_ms = _ms(max(0.0, self.grace - self._charged(now)[1]))
        return {"seats": [{"remaining_ms": self.remaining_ms(seat, now),
                           "running": (running := self.running and seat == self.to_move
                                       and seat not in self.flagged),
                           "flagged": seat in self.flagged,
                           "delay_ms": delay_ms if running else 0,
                           # a player who left the game (only then: older readers ignore it)
                           **({"left": True} if seat in self.departed else {})}
                          for seat in range(len(self.remaining))],
                "paused": self.pause_reason() if self.started else None}

    def state_key(self) -> tuple:
        """What a display must be told about when it changes: the seat to move, running or
        paused (and why), flags, the end — not the time ticking away."""
        return (self.to_move, self.running, self.pause_reason(), self.flagged, self.ended,
                self.departed)

    # ------------------------------------------------------------------ changing

    def at(self, now: float) -> GameClocks:
        """The same clocks with the account settled at ``now``."""
        if self.since is not None and now <= self.since:
            return self
        charged, from_delay, ran = self._charged(now)
        if not ran:
            return replace(self, since=now)
        remaining = self.remaining
        seat = self.to_move
        assert seat is not None
        if seat not in self.flagged:
            remaining = _set(remaining, seat, remaining[seat] - charged)
        return replace(self, remaining=remaining, since=now, grace=self.grace - from_delay,
                       used=self.used + ran)

    def start(self, seat: int, now: float) -> GameClocks:
        """``seat``'s turn begins: its clock runs from ``now`` (after the delay)."""
        if not 0 <= seat < len(self.remaining):
            raise ValueError(f"no seat {seat} (seats 0-{len(self.remaining) - 1})")
        if seat in self.departed:
            raise ValueError(f"seat {seat} left the game: its clock stopped for good")
        settled = self.at(now)
        return replace(settled, to_move=seat, since=max(now, settled.since or now),
                       grace=self.spec.delay_s if self.spec.mode == "delay" else 0.0,
                       used=0.0)

    def hand_over(self, next_seat: int | None, now: float) -> tuple[GameClocks, TurnTime]:
        """The mover ends the turn at ``now``: the Fischer increment is added, the turn's
        time is returned for the record, and ``next_seat``'s clock starts (None: the game
        is over and every clock stops)."""
        settled = self.at(now)
        seat = settled.to_move
        if seat is None:
            raise ValueError("no clock is running: start the clocks first")
        remaining = settled.remaining
        if seat not in settled.flagged and settled.spec.mode == "fischer":
            remaining = _set(remaining, seat, remaining[seat] + settled.spec.increment_s)
        settled = replace(settled, remaining=remaining)
        record = TurnTime(seat, _ms(settled.used), _ms(max(0.0, remaining[seat])))
        if next_seat is None:
            return settled.stop(now), record
        return settled.start(next_seat, now), record

    def adopt(self, remaining_ms: tuple[int, ...], ran: float, now: float) -> GameClocks:
        """Another table's reading of these clocks (a remote game, docs/remote-play.md):
        ``remaining_ms``, each seat's time when that table committed the turn just handed
        over here, replaces this table's; the seat to move has had ``ran`` seconds of
        running clock since (the time this table took to lay the turn out), charged now
        as its turn's own (the delay first)."""
        if len(remaining_ms) != len(self.remaining):
            raise ValueError(f"{len(remaining_ms)} clocks for {len(self.remaining)} seats")
        left = tuple(min(MAX_REMAINING_S, max(0.0, ms / 1000)) for ms in remaining_ms)
        fresh = replace(self, remaining=left, since=now - max(0.0, ran), used=0.0,
                        paused=frozenset(),
                        grace=self.spec.delay_s if self.spec.mode == "delay" else 0.0)
        if self.to_move is None:
            return replace(fresh, since=now, grace=0.0, paused=self.paused)
        return replace(fresh.at(now), paused=self.paused)

    def depart(self, seat: int, now: float) -> GameClocks:
        """``seat`` leaves the game (a resignation in a game that goes on): its clock stops
        for good, with the time it had at ``now``. When it was the seat to move no clock
        runs until the next seat's starts (``start``)."""
        if not 0 <= seat < len(self.remaining):
            raise ValueError(f"no seat {seat} (seats 0-{len(self.remaining) - 1})")
        if seat in self.departed:
            return self
        settled = self.at(now)
        if settled.to_move == seat:
            settled = replace(settled, to_move=None, grace=0.0, used=0.0)
        return replace(settled, departed=settled.departed + (seat,))

    def stop(self, now: float) -> GameClocks:
        """The game is over: every clock stops as it stands at ``now``."""
        return replace(self.at(now), to_move=None, grace=0.0, ended=True)

    def pause(self, reason: str, now: float) -> GameClocks:
        if reason in self.paused:
            return self
        return replace(self.at(now), paused=self.paused | {reason})

    def resume(self, reason: str, now: float) -> GameClocks:
        if reason not in self.paused:
            return self
        return replace(self.at(now), paused=self.paused - {reason})

    def flag(self, now: float) -> GameClocks:
        """The seat to move has run out of time (see :meth:`fallen`): its clock shows
        zero and the flag. Its turn goes on being timed for the record."""
        seat = self.fallen(now)
        if seat is None:
            return self
        settled = self.at(now)
        return replace(settled, remaining=_set(settled.remaining, seat, 0.0),
                       flagged=settled.flagged + (seat,))


def _set(values: tuple[float, ...], index: int, value: float) -> tuple[float, ...]:
    return values[:index] + (value,) + values[index + 1:]


def _ms(seconds: float) -> int:
    return max(0, int(math.floor(seconds * 1000 + 1e-6)))


def format_clock(ms: float) -> str:
    """``h:mm:ss`` from an hour up, ``m:ss`` under it, ``s.t`` (tenths) under ten seconds."""
    ms = max(0, int(ms))
    if ms < 10_000:
        return f"{ms // 1000}.{ms % 1000 // 100}"
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"

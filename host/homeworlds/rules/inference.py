"""Turn inference: which legal turn turns the position S0 into an observed board?

The physical table only sees where pieces lie when the turn token moves; the
player may have hopped a ship through a system discovered and abandoned in
the same turn, sacrificed and rebuilt a piece, or triggered catastrophes.
``infer_turn`` finds a legal turn T with apply(S0, T) equal to the observed
board (names of new systems aside) by a depth-first search that only tries
actions the *difference* between the current search state and the target
makes relevant — never an enumeration of every successor.

The observed board is a sequence of systems with ``name`` (the existing
system's name when the table recognised its star pieces, None for a new
system), ``stars`` and ``ships`` (pieces per seat).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from homeworlds.rules.actions import (
    Action,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
    Turn,
)
from homeworlds.rules.errors import AmbiguousAction, IllegalAction
from homeworlds.rules.moves import fresh_system_name
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import GameState, System, TurnInProgress

BoardKey = tuple


def system_signature(stars: Iterable[int], ships: Iterable[Iterable[int]]) -> tuple:
    return (tuple(sorted(stars)), tuple(tuple(f) for f in ships))


def board_key(state: GameState) -> BoardKey:
    """What lies on the board, without system names or home marks: homes never move, so two
    boards reachable from one position in one turn are the same position when their keys
    are equal (a home's mark only changes when its owner is eliminated)."""
    return tuple(sorted(system_signature(s.stars, s.ships) for s in state.systems))


def observed_key(systems: Iterable, players: int) -> BoardKey:
    sigs = []
    for spec in systems:
        fleets = [[0] * 12 for _ in range(players)]
        for seat, ships in enumerate(spec.ships):
            for p in ships:
                fleets[seat][p.index] += 1
        sigs.append(system_signature((p.index for p in spec.stars), fleets))
    return tuple(sorted(sigs))


@dataclass(frozen=True, slots=True)
class ObservedSystem:
    """A system as the table sees it. ``name``: the existing system whose star pieces these
    are, or None for a system new this turn; ``ships``: pieces per seat."""

    name: str | None
    stars: tuple
    ships: tuple


@dataclass(frozen=True, slots=True)
class SystemDifference:
    """How one system on the table differs from the nearest legal outcome."""

    name: str | None
    expected: str
    observed: str


@dataclass(frozen=True, slots=True)
class InferenceResult:
    turn: Turn | None
    #: Search nodes visited (for benchmarks and budgets).
    nodes: int
    #: When no legal turn explains the board: the systems where the nearest legal outcome
    #: differs from it.
    differences: tuple[SystemDifference, ...] = ()

    @property
    def found(self) -> bool:
        return self.turn is not None


class _Target:
    """The observed board, indexed for the relevance tests of the search."""

    def __init__(self, systems: Iterable, players: int):
        self.players = players
        self.systems = list(systems)
        self.key = observed_key(self.systems, players)
        self.named: dict[str, tuple[list[int], list[list[int]]]] = {}
        self.new: list[tuple[list[int], list[list[int]]]] = []
        for spec in self.systems:
            fleets = [[0] * 12 for _ in range(players)]
            for seat, ships in enumerate(spec.ships):
                for p in ships:
                    fleets[seat][p.index] += 1
            entry = (sorted(p.index for p in spec.stars), fleets)
            if spec.name is not None:
                self.named[spec.name.casefold()] = entry
            else:
                self.new.append(entry)

    def entry_for(self, system: System, start_names: set[str], present: set[str]):
        """The target's version of a system of the search state (None: it must vanish).

        A system created during the turn matches a new system of the table with the same
        stars — or a named one that has vanished from the search state: a star that faded
        and was rediscovered lies where it lay, so the table still calls it by its name.
        """
        if system.key in start_names:
            return self.named.get(system.key)
        stars = sorted(system.stars)
        for entry in self.new:
            if entry[0] == stars:
                return entry
        for key, entry in self.named.items():
            if key not in present and entry[0] == stars:
                return entry
        return None

    def new_star_kinds(self, present: set[str]) -> set[int]:
        kinds = {i for stars, _ in self.new for i in stars}
        kinds.update(i for key, (stars, _) in self.named.items() if key not in present
                     for i in stars)
        return kinds


class _Search:
    def __init__(self, start: GameState, target: _Target, max_nodes: int,
                 prefix: bool = False):
        self.prefix = prefix
        #: With ``prefix``: the turn in progress whose position matches the target.
        self.matched: TurnInProgress | None = None
        self.start = start
        self.target = target
        self.max_nodes = max_nodes
        self.nodes = 0
        self.seen: set = set()
        self.start_names = {s.key for s in start.systems}
        self.best: tuple[int, GameState] | None = None
        self._counts_now: dict[str, list[int]] = {}
        self._entry_counts: dict[int, list[int]] = {}

    # ---- relevance ----

    def _tcount(self, entry, seat: int, piece: int) -> int:
        return 0 if entry is None else entry[1][seat][piece]

    def _color_drop(self, system: System, entry, color: int) -> bool:
        """The target has fewer pieces of ``color`` in this system than it has now."""
        now = self._counts_now.get(system.key)
        if now is None:
            now = self._counts_now[system.key] = system.color_counts()
        if entry is None:
            return now[color] > 0
        want = self._entry_counts.get(id(entry))
        if want is None:
            want = [0, 0, 0, 0]
            for i in entry[0]:
                want[i // 3] += 1
            for fleet in entry[1]:
                for i, n in enumerate(fleet):
                    if n:
                        want[i // 3] += n
            self._entry_counts[id(entry)] = want
        return now[color] > want[color]

    def candidates(self, tip: TurnInProgress) -> Iterator[Action]:
        st = tip.state
        self._counts_now: dict[str, list[int]] = {}
        self._hops: set[Action] = set()
        seat = tip.seat
        present = {s.key for s in st.systems}
        entries = {s.key: self.target.entry_for(s, self.start_names, present)
                   for s in st.systems}
        rules = st.rules
        # Catastrophes where the target holds fewer pieces of that colour.
        if not (rules.catastrophe_timing == "after" and not tip.free_action_used):
            for s in st.systems:
                counts = self._counts_now[s.key] = s.color_counts()
                for c in range(4):
                    if counts[c] >= 4 and self._color_drop(s, entries[s.key], c):
                        yield Catastrophe(s.name, Color(c))
        if tip.passed or tip.closed_by_catastrophe:
            return
        # Each power action takes at most one of the mover's ships off a system where the
        # target has fewer (catastrophes aside): more such ships than actions left is hopeless.
        budget = (3 if not tip.free_action_used
                  else tip.sacrifice_left if tip.sacrifice_color is not None else 0)
        excess, deficit = self._out_of_place(st, seat, entries)
        # Before the turn's action, a sacrifice may also take one surplus ship away.
        if deficit > budget or excess > budget + (not tip.free_action_used):
            return
        if not tip.free_action_used:
            # Any ship may be sacrificed (its actions may even bring an equal one back:
            # the Factory); those the target no longer has come first.
            likely, others = [], []
            for s in st.systems:
                fleet = s.ships[seat]
                entry = entries[s.key]
                for i in range(12):
                    if fleet[i]:
                        gone = (self._tcount(entry, seat, i) < fleet[i]
                                or self._color_drop(s, entry, i // 3))
                        (likely if gone else others).append(Sacrifice(PIECES[i], s.name))
            yield from likely
            yield from others
            for s in st.systems:
                for c in range(4):
                    if s.has_access(seat, c):
                        yield from self._power(tip, s, c, entries, remaining=0)
        elif tip.sacrifice_left > 0:
            for s in st.systems:
                yield from self._power(tip, s, tip.sacrifice_color, entries,
                                       remaining=tip.sacrifice_left - 1)

    def _power(self, tip: TurnInProgress, s: System, c: int, entries,
               remaining: int) -> Iterator[Action]:
        st = tip.state
        seat = tip.seat
        fleet = s.ships[seat]
        entry = entries[s.key]
        if c == 0:
            largest = max((i % 3 + 1 for i in range(12) if fleet[i]), default=0)
            for owner in range(st.players):
                if owner == seat:
                    continue
                for i in range(12):
                    if s.ships[owner][i] and i % 3 + 1 <= largest and (
                            self._tcount(entry, seat, i) > fleet[i]
                            or self._tcount(entry, owner, i) < s.ships[owner][i]
                            and self._color_drop(s, entry, i // 3)):
                        yield Capture(PIECES[i], s.name, owner if st.players > 2 else None)
        elif c == 1:
            sizes = s.star_sizes()
            movable = [i for i in range(12) if fleet[i] and (
                self._tcount(entry, seat, i) < fleet[i] or entry is None)]
            for dest in st.systems:
                if dest is s or sizes & dest.star_sizes():
                    continue
                dentry = entries[dest.key]
                for i in movable:
                    if (self._tcount(dentry, seat, i) > dest.ships[seat][i]
                            or self._color_drop(dest, dentry, i // 3)):
                        yield Move(PIECES[i], s.name, dest.name)
                    elif remaining > 0 and self._hop_useful(st, dest, i, entries):
                        hop = Move(PIECES[i], s.name, dest.name)
                        self._hops.add(hop)  # tried after the moves that go straight there
                        yield hop
            if movable:
                name = fresh_system_name(st)
                new_stars = self.target.new_star_kinds({x.key for x in st.systems})
                for star in range(12):
                    if not st.bank[star] or star % 3 in sizes:
                        continue
                    if remaining == 0 and star not in new_stars:
                        continue
                    for i in movable:
                        yield Discover(PIECES[i], s.name, PIECES[star], name)
        elif c == 2:
            for col in range(4):
                lo = col * 3
                if not (fleet[lo] or fleet[lo + 1] or fleet[lo + 2]):
                    continue
                smallest = next((i for i in range(lo, lo + 3) if st.bank[i]), None)
                if smallest is None:
                    continue
                if (self._tcount(entry, seat, smallest) > fleet[smallest]
                        or self._color_drop(s, entry, col)):
                    yield Build(PIECES[smallest], s.name)
        else:
            for i in range(12):
                if not fleet[i]:
                    continue
                for j in range(i % 3, 12, 3):
                    if j // 3 == i // 3 or not st.bank[j]:
                        continue
                    if (self._tcount(entry, seat, j) > fleet[j]
                            or self._color_drop(s, entry, j // 3)
                            or remaining > 0 and self._tcount(entry, seat, i) < fleet[i]):
                        yield Trade(PIECES[i], PIECES[j], s.name)

    def _out_of_place(self, st: GameState, seat: int, entries) -> tuple[int, int]:
        """A lower bound on the power actions still needed: each one takes at most one of
        the mover's ships off a system that has too many (catastrophes aside) and brings
        at most one to a system that has too few."""
        excess = deficit = 0
        for s in st.systems:
            entry = entries[s.key]
            fleet = s.ships[seat]
            for i in range(12):
                want = self._tcount(entry, seat, i)
                if fleet[i] > want:
                    if not self._color_drop(s, entry, i // 3):
                        excess += fleet[i] - want
                elif want > fleet[i]:
                    deficit += want - fleet[i]
        matched = {id(e) for e in entries.values() if e is not None}
        for entry in list(self.target.named.values()) + self.target.new:
            if id(entry) not in matched:
                deficit += sum(entry[1][seat])
        return excess, deficit

    def _hop_useful(self, st: GameState, via: System, piece: int, entries) -> bool:
        """Whether a ship moved to ``via`` could go on to where the target wants it."""
        sizes = via.star_sizes()
        seat = st.to_move
        for other in st.systems:
            if other is via or sizes & other.star_sizes():
                continue
            entry = entries[other.key]
            if (self._tcount(entry, seat, piece) > other.ships[seat][piece]
                    or self._color_drop(other, entry, piece // 3)):
                return True
        return any(stars and stars[0] % 3 not in sizes and fleets[seat][piece]
                   for stars, fleets in self.target.new)

    # ---- the search ----

    def _distance_key(self, key: BoardKey) -> int:
        """Systems that differ between a board and the target (0: the same board)."""
        target = list(self.target.key)
        mine = list(key)
        common = 0
        for sig in mine:
            if sig in target:
                target.remove(sig)
                common += 1
        return len(mine) + len(target) - 2 * common

    def run(self, tip: TurnInProgress) -> Turn | None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            return None
        key = board_key(tip.state)
        mark = (key, tip.free_action_used, tip.sacrifice_color, tip.sacrifice_left, tip.passed,
                tip.closed_by_catastrophe)
        if mark in self.seen:
            return None
        self.seen.add(mark)
        if self.prefix:
            if key == self.target.key:
                self.matched = tip
                return tuple(tip.actions)
            d = self._distance_key(key)
            if self.best is None or d < self.best[0]:
                self.best = (d, tip.state)
        elif tip.actions:
            # Ending the turn only removes eliminated players' empty homes, so the board
            # can match only if it nearly does already: finish just those candidates.
            d = self._distance_key(key)
            if d <= 2:
                try:
                    done = _finish_copy(tip)
                except (IllegalAction, AmbiguousAction):
                    done = None
                if done is not None and board_key(done) == self.target.key:
                    return tuple(tip.actions)
            if self.best is None or d < self.best[0]:
                self.best = (d, tip.state)
        actions = list(self.candidates(tip))
        if self._hops:
            actions.sort(key=lambda a: a in self._hops)
        for action in actions:
            child = tip.copy()
            try:
                child.apply(action)
            except (IllegalAction, AmbiguousAction):
                continue
            found = self.run(child)
            if found is not None:
                return found
        return None


def _finish_copy(tip: TurnInProgress) -> GameState:
    return tip.copy().finish()


def infer_turn(start: GameState, observed: Iterable, *, max_nodes: int = 200_000
               ) -> InferenceResult:
    """Find a legal turn of the player to move that leads from ``start`` to ``observed``."""
    target = _Target(observed, start.players)
    if board_key(start) == target.key and start.rules.whole_turn_pass:
        return InferenceResult((Pass(),), 1)
    search = _Search(start, target, max_nodes)
    turn = search.run(start.begin_turn())
    if turn is not None:
        return InferenceResult(turn, search.nodes)
    nearest = search.best[1] if search.best is not None else start
    return InferenceResult(None, search.nodes, describe_differences(nearest, target))


@dataclass(frozen=True, slots=True)
class PartialResult:
    """Whether the board can be the middle of a legal turn (pieces in hand put back)."""

    ok: bool
    #: the actions so far that explain the board (None when nothing does)
    actions: Turn | None
    #: the turn in progress after them: what the player may still do
    progress: TurnInProgress | None
    nodes: int
    differences: tuple[SystemDifference, ...] = ()


def explain_partial(start: GameState, observed: Iterable, *, max_nodes: int = 50_000
                    ) -> PartialResult:
    """Find the start of a legal turn that leaves the board as observed (no action at all
    counts: an untouched board is fine)."""
    target = _Target(observed, start.players)
    search = _Search(start, target, max_nodes, prefix=True)
    actions = search.run(start.begin_turn())
    if actions is not None:
        return PartialResult(True, actions, search.matched, search.nodes)
    nearest = search.best[1] if search.best is not None else start
    return PartialResult(False, None, None, search.nodes, describe_differences(nearest, target))


def describe_differences(nearest: GameState, target: _Target) -> tuple[SystemDifference, ...]:
    """Per system: what the nearest legal outcome has there, and what the table shows."""
    diffs = []
    near = {s.key: s for s in nearest.systems}
    seen = set()
    for spec in target.systems:
        observed_text = _spec_text(spec)
        system = near.get(spec.name.casefold()) if spec.name is not None else None
        if system is None and spec.name is None:
            stars = sorted(p.index for p in spec.stars)
            system = next((s for s in nearest.systems
                           if s.key not in seen and sorted(s.stars) == stars), None)
        if system is not None:
            seen.add(system.key)
            expected_text = _system_text(system)
            if expected_text != observed_text:
                diffs.append(SystemDifference(spec.name, expected_text, observed_text))
        else:
            diffs.append(SystemDifference(spec.name, "(no such system)", observed_text))
    for s in nearest.systems:
        if s.key not in seen and not any(
                spec.name is not None and spec.name.casefold() == s.key
                for spec in target.systems):
            diffs.append(SystemDifference(s.name, _system_text(s), "(not on the table)"))
    return tuple(diffs)


def _system_text(s: System) -> str:
    stars = "".join(PIECES[i].to_text() for i in sorted(s.stars))
    fleets = "-".join("".join(p.to_text() for p in sorted(s.ship_pieces(seat)))
                      for seat in range(len(s.ships)))
    return f"({stars}) {fleets}"


def _spec_text(spec) -> str:
    stars = "".join(p.to_text() for p in sorted(spec.stars))
    fleets = "-".join("".join(p.to_text() for p in sorted(ships)) for ships in spec.ships)
    return f"({stars}) {fleets}"

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
from typing import cast

from homeworlds.rules.actions import (
    Action,
    BrainTransference,
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
from homeworlds.rules.pieces import OVERPOPULATION, PIECES, Color
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
    #: The search gave up at its node budget: the board may or may not be legal (the
    #: table then asks the players instead of guessing).
    exhausted: bool = False

    @property
    def found(self) -> bool:
        return self.turn is not None


class _Want:
    """What the table shows (or may show) at one system of the search state.

    ``lo`` and ``hi`` are per-seat piece counts: the fewest and the most the table can
    hold there. They differ only when several systems created this turn have the same
    stars as several new systems of the table (which goes where is not known yet), so
    every relevance test stays optimistic: "wants more" asks ``hi``, "has too many" asks
    ``lo``, and ``colors`` (pieces of each colour, stars included) is the least.
    """

    __slots__ = ("stars", "lo", "hi", "colors")

    def __init__(self, stars: list[int], lo: list[list[int]], hi: list[list[int]]):
        self.stars = stars
        self.lo = lo
        self.hi = hi
        colors = _star_colors(stars)
        for fleet in lo:
            for i, n in enumerate(fleet):
                if n:
                    colors[i // 3] += n
        self.colors = colors

    @classmethod
    def merged(cls, wants: list[_Want], may_vanish: bool) -> _Want:
        seats = len(wants[0].lo)
        lo = [[0 if may_vanish else min(w.lo[s][i] for w in wants) for i in range(12)]
              for s in range(seats)]
        hi = [[max(w.hi[s][i] for w in wants) for i in range(12)] for s in range(seats)]
        return cls(wants[0].stars, lo, hi)


class _Target:
    """The observed board, indexed for the relevance tests and bounds of the search."""

    def __init__(self, systems: Iterable, players: int):
        self.players = players
        self.systems = list(systems)
        self.key = observed_key(self.systems, players)
        self.named: dict[str, _Want] = {}
        #: signature of each named system (the exact, name-aware final comparison)
        self.named_sigs: dict[str, tuple] = {}
        self.new: list[_Want] = []
        for spec in self.systems:
            fleets = [[0] * 12 for _ in range(players)]
            for seat, ships in enumerate(spec.ships):
                for p in ships:
                    fleets[seat][p.index] += 1
            stars = sorted(p.index for p in spec.stars)
            want = _Want(stars, fleets, fleets)
            if spec.name is not None:
                self.named[spec.name.casefold()] = want
                self.named_sigs[spec.name.casefold()] = system_signature(stars, fleets)
            else:
                self.new.append(want)

    def wants_for(self, st: GameState, start_names: set[str]
                  ) -> tuple[dict[str, _Want | None], list[_Want], list[_Want]]:
        """Per system of the search state, the table's version of it (None: it must
        vanish); the table's systems that nothing in the search state stands for; and
        those that may or may not be stood for (more new systems of the table than
        created ones with the same stars).

        A system of the start position is the table's system of that name. A system
        created during the turn is one of the table's new systems with the same stars —
        or a named one that has vanished from the search state: a star that faded and was
        rediscovered lies where it lay, so the table still calls it by its name.
        """
        wants: dict[str, _Want | None] = {}
        created: dict[tuple, list[str]] = {}
        present = set()
        for s in st.systems:
            if s.key in start_names:
                want = self.named.get(s.key)
                if want is not None and not _may_become(s.stars, want.stars):
                    want = None  # that name went to a system created in its place
                else:
                    present.add(s.key)
                wants[s.key] = want
            else:
                created.setdefault(tuple(sorted(s.stars)), []).append(s.key)
        pool: dict[tuple, list[_Want]] = {}
        for want in self.new:
            pool.setdefault(tuple(want.stars), []).append(want)
        for name, want in self.named.items():
            if name not in present:
                pool.setdefault(tuple(want.stars), []).append(want)
        maybe: list[_Want] = []
        for stars, keys in created.items():
            options = pool.get(stars)
            if not options:
                for k in keys:
                    wants[k] = None
            elif len(options) == 1 and len(keys) == 1:
                wants[keys[0]] = options[0]
            else:
                merged = _Want.merged(options, may_vanish=len(keys) > len(options))
                for k in keys:
                    wants[k] = merged
                if len(options) > len(keys):
                    maybe.extend(options)
        unmatched = [w for stars, options in pool.items() if stars not in created
                     for w in options]
        return wants, unmatched, maybe

    def new_star_kinds(self, st: GameState) -> set[int]:
        present = {s.key: s for s in st.systems}
        kinds = {i for want in self.new for i in want.stars}
        for key, want in self.named.items():
            s = present.get(key)
            if s is None or not _may_become(s.stars, want.stars):
                kinds.update(want.stars)
        return kinds

    def matches(self, st: GameState, start_names: set[str]) -> bool:
        """Whether a board is the table's, names included: every system of the start
        position that is still there is the table's system of that name."""
        if board_key(st) != self.key:
            return False
        for s in st.systems:
            if s.key in start_names and self.named_sigs.get(s.key) != system_signature(
                    s.stars, s.ships):
                return False
        return True


def _may_become(stars: list[int], later: list[int]) -> bool:
    """Whether a system with these stars can still have ``later`` (sorted) as its stars:
    a system only loses stars (to catastrophes), it never gains any."""
    rest = list(stars)
    for i in later:
        if i not in rest:
            return False
        rest.remove(i)
    return True


def _star_colors(stars) -> list[int]:
    counts = [0, 0, 0, 0]
    for i in stars:
        counts[i // 3] += 1
    return counts


def _need(want: _Want | None, seat: int, piece: int) -> int:
    """The most ships of ``piece`` the table may want of ``seat`` here."""
    return 0 if want is None else want.hi[seat][piece]


def _keep(want: _Want | None, seat: int, piece: int) -> int:
    """The fewest ships of ``piece`` the table may keep of ``seat`` here."""
    return 0 if want is None else want.lo[seat][piece]


class _InferenceSearch:
    """Depth-first search for a turn from the start position to the table's board.

    Each node is a turn in progress; its children are the actions the difference
    between its board and the table makes relevant (``candidates``), and a node whose
    board the remaining actions cannot possibly turn into the table's is cut
    (``_hopeless``). ``max_nodes`` bounds the work: past it the search gives up and says
    so (``exhausted``) instead of keeping a player waiting.
    """

    def __init__(self, start: GameState, target: _Target, max_nodes: int,
                 prefix: bool = False):
        self.prefix = prefix
        #: With ``prefix``: the turn in progress whose position matches the target.
        self.matched: TurnInProgress | None = None
        self.start = start
        self.target = target
        self.max_nodes = max_nodes
        self.nodes = 0
        self.exhausted = False
        self.seen: set = set()
        self.start_names = {s.key for s in start.systems}
        self.best: tuple[int, GameState] | None = None
        self._counts_now: dict[str, list[int]] = {}
        self._hops: set[Action] = set()

    # ---- relevance ----

    def _color_drop(self, system: System, want: _Want | None, color: int) -> bool:
        """The table may hold fewer pieces of ``color`` in this system than it has now."""
        now = self._counts_now.get(system.key)
        if now is None:
            now = self._counts_now[system.key] = system.color_counts()
        if want is None:
            return now[color] > 0
        return now[color] > want.colors[color]

    def candidates(self, tip: TurnInProgress) -> Iterator[Action]:
        st = tip.state
        self._counts_now = {}
        self._hops = set()
        seat = tip.seat
        if not tip.actions and st.brain_transference_open():
            # The handicap's turn swaps every ship between the seats; only catastrophes may
            # follow it, so trying it first costs a node or a few.
            yield BrainTransference()
        wants, unmatched, maybe = self.target.wants_for(st, self.start_names)
        # Catastrophes where the target holds fewer pieces of that colour.
        if not (st.rules.catastrophe_timing == "after" and not tip.free_action_used):
            yield from self._catastrophes(st, wants)
        if tip.passed or tip.closed_by_catastrophe:
            return
        if self._hopeless(tip, wants, unmatched, maybe):
            return
        if not tip.free_action_used:
            # The free action first (one action deep), then any ship may be sacrificed
            # (its actions may even bring an equal one back: the Factory); those the
            # target no longer has come first.
            for s in st.systems:
                for c in range(4):
                    if s.has_access(seat, c):
                        yield from self._power(tip, s, c, wants, remaining=0)
            yield from self._sacrifices(st, seat, wants)
        elif tip.sacrifice_left > 0:
            for s in st.systems:
                # sacrifice_color is set whenever sacrifice_left is.
                yield from self._power(tip, s, cast(int, tip.sacrifice_color), wants,
                                       remaining=tip.sacrifice_left - 1)

    def _catastrophes(self, st: GameState, wants) -> Iterator[Action]:
        """Catastrophes where the target holds fewer pieces of that colour."""
        for s in st.systems:
            counts = self._counts_now[s.key] = s.color_counts()
            for c in range(4):
                if counts[c] >= OVERPOPULATION and self._color_drop(s, wants[s.key], c):
                    yield Catastrophe(s.name, Color(c))

    def _sacrifices(self, st: GameState, seat: int, wants) -> Iterator[Action]:
        """Every ship of the mover may be sacrificed; those the target no longer has (or
        whose colour drops where they are) come first."""
        likely: list[Sacrifice] = []
        others: list[Sacrifice] = []
        for s in st.systems:
            fleet = s.ships[seat]
            want = wants[s.key]
            for i in range(12):
                if fleet[i]:
                    gone = (_keep(want, seat, i) < fleet[i]
                            or self._color_drop(s, want, i // 3))
                    (likely if gone else others).append(Sacrifice(PIECES[i], s.name))
        yield from likely
        yield from others

    def _captures(self, st: GameState, seat: int, s: System, want) -> Iterator[Action]:
        """Captures that bring the board nearer the target: a ship the mover needs there,
        or one the owner no longer has where its colour drops."""
        fleet = s.ships[seat]
        largest = max((i % 3 + 1 for i in range(12) if fleet[i]), default=0)
        for owner in range(st.players):
            if owner == seat:
                continue
            for i in range(12):
                if s.ships[owner][i] and i % 3 + 1 <= largest and (
                        _need(want, seat, i) > fleet[i]
                        or _keep(want, owner, i) < s.ships[owner][i]
                        and self._color_drop(s, want, i // 3)):
                    yield Capture(PIECES[i], s.name, owner if st.players > 2 else None)

    def _power(self, tip: TurnInProgress, s: System, c: int, wants,
               remaining: int) -> Iterator[Action]:
        st = tip.state
        seat = tip.seat
        fleet = s.ships[seat]
        want = wants[s.key]
        if c == 0:
            yield from self._captures(st, seat, s, want)
        elif c == 1:
            yield from self._yellow(st, s, want, wants, remaining)
        elif c == 2:
            for col in range(4):
                lo = col * 3
                if not (fleet[lo] or fleet[lo + 1] or fleet[lo + 2]):
                    continue
                smallest = next((i for i in range(lo, lo + 3) if st.bank[i]), None)
                if smallest is None:
                    continue
                if (_need(want, seat, smallest) > fleet[smallest]
                        or self._color_drop(s, want, col)):
                    yield Build(PIECES[smallest], s.name)
        else:
            for i in range(12):
                if not fleet[i]:
                    continue
                for j in range(i % 3, 12, 3):
                    if j // 3 == i // 3 or not st.bank[j]:
                        continue
                    if (_need(want, seat, j) > fleet[j]
                            or self._color_drop(s, want, j // 3)
                            or remaining > 0 and _keep(want, seat, i) < fleet[i]):
                        yield Trade(PIECES[i], PIECES[j], s.name)

    def _yellow(self, st: GameState, s: System, want: _Want | None, wants,
                remaining: int) -> Iterator[Action]:
        """Moves of ships the table has fewer of here: to where the table wants them, or
        (with moves left) through a system from which they can go on to such a place."""
        seat = st.to_move
        fleet = s.ships[seat]
        sizes = s.star_sizes()
        movable = [i for i in range(12) if fleet[i] and (
            want is None or _keep(want, seat, i) < fleet[i])]
        if not movable:
            return
        for dest in st.systems:
            if dest is s or sizes & dest.star_sizes():
                continue
            dwant = wants[dest.key]
            for i in movable:
                if (_need(dwant, seat, i) > dest.ships[seat][i]
                        or self._color_drop(dest, dwant, i // 3)):
                    yield Move(PIECES[i], s.name, dest.name)
                elif remaining > 0 and self._hop_useful(st, dest.star_sizes(), dest, i,
                                                        wants):
                    hop: Action = Move(PIECES[i], s.name, dest.name)
                    self._hops.add(hop)  # tried after the moves that go straight there
                    yield hop
        name = fresh_system_name(st)
        new_stars = self.target.new_star_kinds(st)
        for star in range(12):
            if not st.bank[star] or star % 3 in sizes:
                continue
            for i in movable:
                if star in new_stars:
                    yield Discover(PIECES[i], s.name, PIECES[star], name)
                elif remaining > 0 and self._hop_useful(st, {star % 3}, None, i, wants):
                    # A waypoint discovered and abandoned again (it fades).
                    hop = Discover(PIECES[i], s.name, PIECES[star], name)
                    self._hops.add(hop)
                    yield hop

    def _hop_useful(self, st: GameState, sizes: set[int], via: System | None, piece: int,
                    wants) -> bool:
        """Whether a ship moved to ``via`` (stars of ``sizes``) could go on to where the
        target wants it."""
        seat = st.to_move
        for other in st.systems:
            if other is via or sizes & other.star_sizes():
                continue
            want = wants[other.key]
            if (_need(want, seat, piece) > other.ships[seat][piece]
                    or self._color_drop(other, want, piece // 3)):
                return True
        present = {x.key: x for x in st.systems}
        return any(want.stars and want.stars[0] % 3 not in sizes and want.hi[seat][piece]
                   for want in self.target.new + [
                       w for k, w in self.target.named.items()
                       if k not in present or not _may_become(present[k].stars, w.stars)])

    # ---- the bound ----

    # The inference's bound, run at every search node: one frame on purpose (speed);
    # split it only with benchmarks/inference_bench.py (docs/code-overview.md).
    def _hopeless(self, tip: TurnInProgress, wants, unmatched: list[_Want],  # noqa: C901
                  maybe: list[_Want]) -> bool:
        """Whether the actions left cannot turn this board into the table's.

        Every power action takes at most one of the mover's ships off a place that has
        more than the table shows (a move, a trade) and brings at most one to a place that
        has fewer (a move, a build, a trade, a capture); a sacrifice takes one away too.
        Only catastrophes remove more, so a place where the table has fewer pieces of a
        colour is counted both ways — without a catastrophe there, or with one (its
        ships of that colour then need no action, but the colour must first reach four
        pieces there, one action per piece, and what the table shows of it afterwards
        must be brought back). A system the table no longer shows may also go whole, by a
        catastrophe of a star colour. Red and green actions never take a ship away. The
        turn is hopeless when no choice of catastrophes fits the actions left.
        """
        st = tip.state
        seat = tip.seat
        if tip.free_action_used:
            left = tip.sacrifice_left if tip.sacrifice_color is not None else 0
            color = tip.sacrifice_color
            removals = 0 if color in (0, 2) else left
            arrivals = left
        else:
            largest = max((i % 3 + 1 for s in st.systems for i in range(12)
                           if s.ships[seat][i]), default=1)
            removals = largest + 1  # the sacrificed ship, and a move per action
            arrivals = largest
        # Pareto set of (ships to take away, ships to bring) over the catastrophe choices.
        base_e = base_d = 0
        options: list[list[tuple[int, int]]] = []
        # Moves only (a yellow sacrifice under way) never change a ship's kind: each ship
        # the table wants somewhere must come from a place with one to spare (a
        # catastrophe there changes nothing to this: it takes the spare ship away, and
        # what the table shows there afterwards must come from elsewhere).
        moves_only = tip.free_action_used and color == 1
        # Trades only keep every ship where it is and as large as it is.
        trades_only = tip.free_action_used and color == 3
        can_capture = not tip.free_action_used or color == 0
        spare = [0] * 12
        short = [0] * 12
        # Under moves only, a ship of a kind the table shows fewer of must meet a
        # catastrophe: of its colour (``sink_colors``) or of a star of a system that goes.
        total_now = [0] * 12
        total_hi = [0] * 12
        sink_colors = [False] * 4
        sink_all = False
        for s in st.systems:
            want = wants[s.key]
            if want is not None and want.lo is want.hi and s.ships == want.lo \
                    and sorted(s.stars) == want.stars:
                continue  # already as the table shows it
            counts = self._counts_now.get(s.key)
            if counts is None:
                counts = self._counts_now[s.key] = s.color_counts()
            per_color = []
            if want is None:
                kept = hi_all = lo_all = None
            else:
                kept = _star_colors(want.stars)
                hi_all, lo_all = want.hi, want.lo
            stars_now = _star_colors(s.stars)
            ships = s.ships
            if trades_only:
                for z in range(3):
                    if sum(ships[seat][z::3]) < (0 if lo_all is None else sum(lo_all[seat][z::3])):
                        return True
            for c in range(4):
                e = d = others_gone = others_kept = 0
                for i in range(c * 3, c * 3 + 3):
                    for owner in range(len(ships)):
                        have = ships[owner][i]
                        hi = 0 if hi_all is None else hi_all[owner][i]
                        if owner == seat:
                            total_now[i] += have
                            total_hi[i] += hi
                            lo = 0 if lo_all is None else lo_all[owner][i]
                            if have > hi:
                                e += have - hi
                                spare[i] += have - hi
                            elif lo > have:
                                d += lo - have
                                short[i] += lo - have
                        else:
                            if have > hi:
                                others_gone += have - hi
                            if lo_all is not None:
                                others_kept += lo_all[owner][i]
                # Other seats' ships leave only by capture (red) or catastrophe, stars
                # only by catastrophe; and nothing brings either back. A catastrophe
                # needs four pieces of its colour, each action adding at most one.
                forced = (kept is not None and stars_now[c] > kept[c]
                          or others_gone and not can_capture)
                fuel = max(0, OVERPOPULATION - counts[c])
                possible = (fuel <= arrivals and not (kept and kept[c]) and not others_kept)
                if forced and not possible and want is not None:
                    return True  # (a system that goes may go whole: see below)
                if possible:
                    sink_colors[c] = True
                    if want is None and stars_now[c]:
                        sink_all = True
                per_color.append((e, d, forced, possible, fuel))
            if want is None:
                # The system goes: all its ships leave (and it fades), or a catastrophe of
                # a star colour takes it whole.
                choices = [(0, per_color[c][4]) for c in range(4)
                           if stars_now[c] and per_color[c][3]]
                drops = [c for c in range(4) if per_color[c][3] and not stars_now[c]]
                for mask in range(1 << len(drops)):
                    e = d = 0
                    for c in range(4):
                        if c in drops and mask >> drops.index(c) & 1:
                            d += per_color[c][4]
                        elif per_color[c][2]:
                            break  # this colour cannot leave without a catastrophe
                        else:
                            e += per_color[c][0]
                            d += per_color[c][1]
                    else:
                        choices.append((e, d))
                if not choices:
                    return True
                options.append(choices)
                continue
            for c in range(4):
                e, d, forced, possible, fuel = per_color[c]
                if possible and (e or forced):
                    # With a catastrophe: the colour must first reach four pieces, and
                    # what the table shows of it here afterwards must be brought.
                    cat = (0, fuel + sum(want.lo[seat][c * 3:c * 3 + 3]))
                    options.append([cat] if forced else [(e, d), cat])
                else:
                    base_e += e
                    base_d += d
        for want in unmatched:
            base_d += sum(want.lo[seat])
            if trades_only and any(want.lo[seat]):
                return True
            if moves_only:
                for i, n in enumerate(want.lo[seat]):
                    short[i] += n
                    total_hi[i] += want.hi[seat][i]
        if base_e > removals or base_d > arrivals:
            return True
        if moves_only:
            for want in maybe:
                for i, n in enumerate(want.hi[seat]):
                    total_hi[i] += n
            for i in range(12):
                if short[i] > spare[i]:
                    return True
                if total_now[i] > total_hi[i] and not sink_all and not sink_colors[i // 3]:
                    return True
        front = {(base_e, base_d)}
        for choices in options:
            grown = set()
            for e0, d0 in front:
                for e, d in choices:
                    if e0 + e <= removals and d0 + d <= arrivals:
                        grown.add((e0 + e, d0 + d))
            if not grown:
                return True
            # Keep the Pareto-minimal pairs only.
            front = {p for p in grown
                     if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in grown)}
        return False

    # ---- the search ----

    def _distance_key(self, key: BoardKey) -> int:
        """Systems that differ between a board and the target (0: the same board)."""
        target = list(self.target.key)
        extra = 0
        for sig in key:
            if sig in target:
                target.remove(sig)
            else:
                extra += 1
        return extra + len(target)

    def _mark(self, tip: TurnInProgress) -> tuple:
        """What decides the rest of the search from a node: the board, with the names of
        the start position's systems (the table names those), and what the turn allows."""
        names = self.start_names
        board = tuple(sorted((s.key if s.key in names else "",
                              system_signature(s.stars, s.ships)) for s in tip.state.systems))
        return (board, tip.free_action_used, tip.sacrifice_color, tip.sacrifice_left,
                tip.passed, tip.closed_by_catastrophe)

    def _reached(self, tip: TurnInProgress, key: tuple) -> Turn | None:
        """The actions so far when they leave the board as the table shows it (the start
        of a turn, or a whole turn once ended); the nearest board is kept either way."""
        d = self._distance_key(key)
        if self.prefix:
            if key == self.target.key and self.target.matches(tip.state, self.start_names):
                self.matched = tip
                return tuple(tip.actions)
        elif d <= 2:
            # Ending the turn only removes eliminated players' empty homes, so the board
            # can match only if it nearly does already: finish just those candidates.
            try:
                done = _finish_copy(tip)
            except (IllegalAction, AmbiguousAction):
                done = None
            if done is not None and self.target.matches(done, self.start_names):
                return tuple(tip.actions)
        if self.best is None or d < self.best[0]:
            self.best = (d, tip.state)
        return None

    def run(self, tip: TurnInProgress) -> Turn | None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.exhausted = True
            return None
        mark = self._mark(tip)
        if mark in self.seen:
            return None
        self.seen.add(mark)
        key = tuple(sorted(sig for _, sig in mark[0]))
        if self.prefix or tip.actions:
            found = self._reached(tip, key)
            if found is not None:
                return found
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
            if self.exhausted:
                return None
        return None


def _finish_copy(tip: TurnInProgress) -> GameState:
    return tip.copy().finish()


#: Search nodes an inference may visit before it gives up (``exhausted``). Every turn of
#: the archive needs far fewer (docs/performance.md); at roughly 0.1 ms a node here and
#: 0.5 ms on a Raspberry Pi 4 this caps a hand-over at about a second there.
NODE_BUDGET = 2_000


def infer_turn(start: GameState, observed: Iterable, *, max_nodes: int | None = None,
               progress: TurnInProgress | None = None) -> InferenceResult:
    """Find a legal turn of the player to move that leads from ``start`` to ``observed``.

    ``progress``: a turn in progress from ``start`` that is known to have happened (the
    table saw the board in that state mid-turn); the search then only looks at its
    continuations. ``max_nodes`` defaults to ``NODE_BUDGET``; ``exhausted`` in the result:
    it ran out before an answer.
    """
    target = _Target(observed, start.players)
    if progress is None and start.rules.whole_turn_pass and target.matches(
            start, {s.key for s in start.systems}):
        return InferenceResult((Pass(),), 1)
    search = _InferenceSearch(start, target, NODE_BUDGET if max_nodes is None else max_nodes)
    turn = search.run(start.begin_turn() if progress is None else progress.copy())
    if turn is not None:
        return InferenceResult(turn, search.nodes)
    nearest = search.best[1] if search.best is not None else start
    return InferenceResult(None, search.nodes, describe_differences(nearest, target),
                           exhausted=search.exhausted)


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
    #: The search gave up at its node budget (see ``InferenceResult.exhausted``).
    exhausted: bool = False


def explain_partial(start: GameState, observed: Iterable, *, max_nodes: int | None = None,
                    progress: TurnInProgress | None = None) -> PartialResult:
    """Find the start of a legal turn that leaves the board as observed (no action at all
    counts: an untouched board is fine). ``progress``: only continuations of that turn in
    progress (see ``infer_turn``)."""
    target = _Target(observed, start.players)
    search = _InferenceSearch(start, target, NODE_BUDGET if max_nodes is None else max_nodes,
                              prefix=True)
    actions = search.run(start.begin_turn() if progress is None else progress.copy())
    if actions is not None:
        return PartialResult(True, actions, search.matched, search.nodes)
    nearest = search.best[1] if search.best is not None else start
    return PartialResult(False, None, None, search.nodes, describe_differences(nearest, target),
                         exhausted=search.exhausted)


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

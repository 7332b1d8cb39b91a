"""Every distinct position reachable by one legal turn: successor generation.

``successors(state)`` lazily yields ``Successor(turn, key)`` values — one turn
per distinct resulting position, the position identified by its name-free
``canonical_key`` — and ``count_successors(state)`` counts them. A whole
turn is optional catastrophes, then a whole-turn pass, one free action, or a
sacrifice followed by up to (its size) actions of its colour, with
catastrophes placed where the rules preset allows them; every rule of
``GameState`` is honoured (star fading, the mid-turn home rules, suicide, the
strict post-catastrophe check, immediate elimination), and each yielded turn
applies through ``GameState.apply_turn`` to the position of its key.

How it is fast enough (docs/successors.md): the search runs on the integer
signatures of ``fast.py`` with in-place changes and undo; the position key is
an exact product of primes updated in O(1) per change; and action sequences
are enumerated in a *canonical order* — of two adjacent actions that commute
(two captures, builds of different colours, moves that touch different
systems and bank pieces, catastrophes in different systems) only one order is
tried — so most orderings that must lead to the same position are never
generated. A set of keys removes the remaining coincidences.

The search (``SuccessorSearch``) is assembled from named parts over one
``_Context``: bookkeeping (change a system, undo it, fade, catastrophe effects),
the endings of a turn, the win-mode bound, one part per power (captures, moves
and discoveries, builds, trades), catastrophes, the sacrifice, and the tree of
partial turns that calls them; canonical order has one helper per kind of
action. ``TurnWriter`` turns a search path into a ``Turn``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FunctionType

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
from homeworlds.rules.fast import EncodedPosition, PrimeTable, canonical_key, home_tag
from homeworlds.rules.pieces import OVERPOPULATION, PIECES, Color
from homeworlds.rules.state import GameState

__all__ = [
    "FIRST_KINDS",
    "SearchInterrupted",
    "Successor",
    "canonical_key",
    "count_successors",
    "successor_keys",
    "successors",
]

# Path entries are tuples ``(code, order, ...)``; ``order`` ranks commuting actions.
#   (CAT, order, slot, colour)
#   (SAC, 0, slot, kind)
#   (CAP, order, slot, kind, victim seat)
#   (MOV, order, from slot, kind, to slot, origin star kinds mask, from uid, to uid)
#   (DIS, order, from slot, kind, star kind, new slot, origin star kinds mask, from uid, new uid)
#   (BLD, order, slot, kind built)
#   (TRD, order, slot, old kind, new kind)
#   (PAS, 0)
#   (BRT, 0)    Brain Transference: first, in a search of the position seen from the other side
CAT, SAC, CAP, MOV, DIS, BLD, TRD, PAS, BRT = range(9)
# Fields of MOV and DIS entries that canonical order compares.
MOV_STARS, MOV_FROM, MOV_TO = 5, 6, 7
DIS_STAR, DIS_STARS, DIS_FROM, DIS_NEW = 4, 6, 7, 8

#: What ``first_kind`` accepts: the class of a turn's first non-catastrophe action;
#: ``Catastrophe`` selects turns of catastrophes only, ``Pass`` the whole-turn pass,
#: ``BrainTransference`` the handicap's turn (with the catastrophes that may follow it).
FIRST_KINDS = (Pass, Sacrifice, Capture, Move, Discover, Build, Trade, Catastrophe,
               BrainTransference)
_CODE_OF = {Pass: PAS, Sacrifice: SAC, Capture: CAP, Move: MOV, Discover: DIS, Build: BLD,
            Trade: TRD, Catastrophe: CAT}
_FREE_CODES = ((CAP,), (MOV, DIS), (BLD,), (TRD,))

_NAME_STEM = "New"


@dataclass(frozen=True, slots=True)
class Successor:
    """One distinct successor: a turn that reaches it and the resulting position's key.

    ``key`` is the board as the turn leaves it (see ``canonical_key``), with every home
    still marked as its seat's home even when the turn has just eliminated that seat;
    ``fast.state_key`` turns it into the key of the ``GameState`` after the turn.
    """

    turn: Turn
    key: tuple

    def apply(self, state: GameState) -> GameState:
        """The position after this turn (``state`` must be the one it was generated from)."""
        after = state.copy()
        after.apply_turn(self.turn)
        return after


class SearchInterrupted(Exception):
    """A win search given ``should_stop`` was told to stop before it could answer."""


class _Found(Exception):
    """Raised inside the win search to unwind it at the first eliminating turn."""

    def __init__(self, path: tuple):
        self.path = path


class _Filter:
    """Which turns a search keeps, by their first non-catastrophe action."""

    __slots__ = ("codes", "slot", "color")

    def __init__(self, codes: frozenset[int], slot: int | None, color: int | None):
        self.codes = codes
        self.slot = slot
        self.color = color

    def wants(self, code: int, slot: int, color: int) -> bool:
        return (code in self.codes and (self.slot is None or slot == self.slot)
                and (self.color is None or color == self.color))


class SuccessorSearch:
    """One successor enumeration from one position (``winning`` runs it in win mode).

    ``results`` maps the exact product key of each distinct successor to the path
    that first reached it (None when paths are not kept); ``fresh`` lists the
    (path, canonical key) of results not yet handed out. ``TurnWriter`` turns a path
    into a ``Turn``.
    """

    def __init__(self, state: GameState, keep_paths: bool = True,
                 win_targets: tuple[int, ...] | None = None,
                 on_found: Callable[[tuple, tuple], None] | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 goal: str = "eliminate", min_pips: int = 1):
        if state.result is not None:
            raise ValueError("the game is over: there are no successors")
        if state.in_setup:
            raise ValueError("setup is not finished: successors are generated for "
                             "positions after setup")
        rules = state.rules
        if rules.elimination_check == "immediate" and state.players > 2:
            raise ValueError("immediate elimination with more than two players is not "
                             "supported by the successor search")
        self.state = state
        self.snap = EncodedPosition(state)
        self.keep_paths = keep_paths
        self.results: dict[int, None] = {}
        self.fresh: list[tuple[tuple, tuple]] = []
        #: Win mode: look only for a turn eliminating one of these seats, stop at the first.
        self.win_targets = win_targets
        #: What a target must suffer in win mode: ``"eliminate"`` (its home lost),
        #: ``"home-star"`` (a star of its home destroyed, or the home lost) or
        #: ``"material"`` (ships of at least ``min_pips`` pips in all captured or
        #: destroyed, or the home lost).
        if goal not in GOALS:
            raise ValueError(f"unknown goal {goal!r}; goals are {', '.join(GOALS)}")
        if goal == "material" and not (isinstance(min_pips, int) and min_pips >= 1):
            raise ValueError(f"min_pips must be a whole number of pips from 1, "
                             f"not {min_pips!r}")
        self.goal = goal
        self.min_pips = min_pips
        #: Called with (path, canonical key) of each new result instead of keeping it in
        #: ``fresh``, so that a listing holds nothing but the keys.
        self.on_found = on_found
        #: Win mode: asked now and then; True interrupts the search (``SearchInterrupted``),
        #: so that a caller with a deadline is never held up by a long win search.
        self.should_stop = should_stop
        self._context = _Context(self)
        self._node = _assemble(self._context)

    def run(self, first: _Filter | None = None) -> None:
        self._node(False, -1, 0, False, False, 0, first)

    def claim(self, key: tuple) -> bool:
        """Count the position of canonical ``key`` among the results (found another way, by
        the Brain Transference search); False if this search has it already."""
        primes = self._context.primes
        product = 1
        homes, others = key
        for seat, sig in enumerate(homes):
            if sig is not None:
                product *= primes[home_tag(sig, seat)]
        for sig in others:
            product *= primes[home_tag(sig, -1)]
        if product in self.results:
            return False
        self.results[product] = None
        return True

    def close(self) -> None:
        """Drop the parts of the search. They are closures over one context that refer
        to each other, so without this only the cyclic garbage collector frees them, and
        the computer opponent, which runs thousands of searches a move, would leave the
        collector more and longer pauses (docs/computer-opponent.md, *Time*). The
        results (``results``, ``fresh``) stay; ``run`` may not be called again."""
        context = self._context
        parts = [self._node]
        for name in _PARTS:
            part = getattr(context, name, None)
            if part is not None:
                parts.append(part)
                delattr(context, name)
        # The parts also hold each other (and recursive ones themselves) in closure
        # cells: emptying the cells leaves no cycle. Only this module's parts are
        # emptied, never a caller's callback (``on_found``, ``should_stop``).
        seen = {id(context.on_found), id(context.should_stop)}
        while parts:
            part = parts.pop()
            if id(part) in seen or part.__module__ != __name__:
                continue
            seen.add(id(part))
            for cell in part.__closure__ or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue  # already empty
                if isinstance(value, FunctionType):
                    parts.append(value)
                del cell.cell_contents
        self._node = _closed

    def find_win(self) -> tuple | None:
        """Win mode: the path of one eliminating turn, or None."""
        try:
            self._node(False, -1, 0, False, False, 0, None)
        except _Found as found:
            return found.path
        finally:
            self.close()
        return None


class TransferredSearch(SuccessorSearch):
    """The turns that begin with Brain Transference (000's handicap; docs/successors.md).

    The transference swaps every ship and home between the two seats, and the junior
    player may then only declare catastrophes (``TurnInProgress`` accepts them as after a
    pass). The board after the swap, seen by the junior player, is the board before it seen
    by the senior one, so this is the ordinary search of the position with the senior
    player to move, from a turn whose action is taken and passed: every rule (fading,
    the mid-turn home rules, suicide, the strict check, immediate elimination) then
    applies to the right home. Seats are the real ones at its edges: ``win_targets`` are
    given as real seats and ``fresh`` holds real keys (a path names systems, the same on
    both sides).
    """

    def __init__(self, state: GameState, keep_paths: bool = True,
                 win_targets: tuple[int, ...] | None = None,
                 should_stop: Callable[[], bool] | None = None,
                 goal: str = "eliminate", min_pips: int = 1):
        if not state.brain_transference_open():
            raise ValueError("Brain Transference is not open to the player to move")
        other_side = state.copy()
        other_side.to_move = 1 - state.to_move
        if win_targets is not None:
            win_targets = tuple(1 - t for t in win_targets)
        super().__init__(other_side, keep_paths=keep_paths, win_targets=win_targets,
                         should_stop=should_stop, goal=goal, min_pips=min_pips)

    def run(self, first: _Filter | None = None) -> None:
        """Every turn that begins with Brain Transference (``first`` is not used)."""
        self._transfer()
        mirror = self.snap.layout.mirrored_key
        self.fresh[:] = [(path, mirror(key)) for path, key in self.fresh]

    def find_win(self) -> tuple | None:
        try:
            self._transfer()
        except _Found as found:
            return found.path
        finally:
            self.close()
        return None

    def _transfer(self) -> None:
        c = self._context
        c.path.append((BRT, 0))
        c.final()
        c.node(True, -1, 0, False, True, len(c.path) + c.no_reorder, None)
        c.path.pop()


def transferred_search(state: GameState, **options) -> TransferredSearch | None:
    """The Brain Transference search of ``state``, or None when the handicap is not open
    to the player to move (the only cost of the handicap when it is off)."""
    if not state.brain_transference_open():
        return None
    return TransferredSearch(state, **options)


# ---- the parts of a search ---------------------------------------------------------
#
# A search is a set of closures, one group per part below, over one ``_Context``: in
# CPython, closure variables are much faster than attribute access in the hot loops, so
# each part binds what it uses to locals of its own factory. The position is changed in
# place and restored on the way back; only the exact key and the overpopulation count
# (``_Context.key``, ``.nover``) are shared scalars, the rest are lists changed in place.
# Parts that call a part built after them (an action continues the turn: ``node``) go
# through the context.


#: Context slots that hold the parts of a search (``close`` empties them).
_PARTS = ("setsig", "restore", "kill", "fade_rule", "apply_cat", "need_home", "game_ended",
          "won", "final", "can_win", "node", "after_action")


def _closed(*args) -> None:
    raise RuntimeError("this successor search was closed")


#: What a targeted search (win mode) looks for.
GOALS = ("eliminate", "home-star", "material")


class _Context:
    """What the parts of one search share: facts about the position and the rules, the
    position being walked (signatures, homes, bank, system ids, the path of actions so
    far, the key), and the parts that others call back."""

    __slots__ = (
        # the position walked, changed in place
        "sigs", "homes", "bank", "uids", "path", "newuid", "key", "nover",
        # facts
        "layout", "info", "analyse", "cache", "me", "seats", "my_weight", "weights",
        "star_weight", "primes", "n0", "timing", "cats_close", "may_empty", "immediate",
        "self_elim_ok", "post_check", "whole_pass", "prune_home", "home_slot", "my_home",
        "others", "results", "fresh", "keep", "on_found", "win_mode", "bank_settled", "targets",
        "no_reorder", "should_stop", "star_goal", "target_stars", "material_goal",
        "target_pips", "min_pips",
        # parts
        *_PARTS,
    )
    # The parts, set by the builders in ``_assemble`` once the facts are known.
    setsig: Callable[[int, int], None]
    restore: Callable[[int, int, int, int], None]
    kill: Callable[[int], None]
    fade_rule: Callable[[int], bool]
    apply_cat: Callable[[int, int], bool]
    need_home: Callable[[], bool]
    won: Callable[[], bool]
    game_ended: Callable[[], bool]
    final: Callable[[], None]
    can_win: Callable[..., bool]
    node: Callable[..., None]
    after_action: Callable[[int, int, int], None]

    def __init__(self, search: SuccessorSearch):
        state = search.state
        rules = state.rules
        snap = search.snap
        layout = snap.layout
        self.layout = layout
        self.cache = layout._cache
        self.analyse = layout.info
        cache, analyse = self.cache, self.analyse

        def info(sig):
            got = cache.get(sig)
            return got if got is not None else analyse(sig)

        self.info = info
        self.me = me = state.to_move
        self.seats = seats = snap.seats
        self.my_weight = layout.ship_weight[me]
        self.weights = layout.ship_weight
        self.star_weight = layout.star_weight
        self.sigs = snap.sigs
        self.homes = homes = snap.homes
        self.bank = snap.bank
        self.n0 = len(snap.sigs)
        self.uids = list(range(self.n0))
        self.path: list[tuple] = []
        self.newuid: dict[tuple[int, int], int] = {}
        self.primes = primes = PrimeTable()
        self.timing = rules.catastrophe_timing
        self.cats_close = self.timing != "anytime"
        self.may_empty = rules.home_may_be_empty_midturn
        self.immediate = immediate = rules.elimination_check == "immediate"
        # Under immediate elimination a lost home ends the game on the spot, so the
        # end-of-turn checks (no suicide, the strict post-catastrophe check) never apply.
        self.self_elim_ok = rules.self_elimination_allowed or immediate
        self.post_check = rules.post_catastrophe_suicide_check and not immediate
        self.whole_pass = rules.whole_turn_pass
        self.prune_home = not self.self_elim_ok
        self.home_slot = [homes.index(s) if s in homes else -1 for s in range(seats)]
        self.my_home = self.home_slot[me]
        self.others = [s for s in range(seats) if s != me and not snap.eliminated[s]
                       and self.home_slot[s] >= 0]
        self.results = search.results
        self.fresh = search.fresh
        self.keep = search.keep_paths
        self.on_found = search.on_found
        self.win_mode = search.win_targets is not None
        self.should_stop = search.should_stop
        # Inside a sacrifice's run of builds the bank only shrinks, unless catastrophes
        # may happen mid-turn.
        self.bank_settled = self.timing != "anytime"
        self.targets = [t for t in (search.win_targets or ()) if t in self.others]
        self.star_goal = search.goal == "home-star"
        # Stars of each target's home now (the home-star goal is one fewer, or none).
        self.target_stars = {t: len(info(self.sigs[self.home_slot[t]]).stars)
                             for t in self.targets}
        self.material_goal = search.goal == "material"
        self.min_pips = search.min_pips
        # Each target's ship pips now (the material goal takes min_pips of them); only
        # for that goal: the win-in-one search runs thousands of times a move.
        self.target_pips = {t: sum(info(sig).pips[t] for sig in self.sigs if sig)
                            for t in self.targets} if self.material_goal else {}
        # Under immediate elimination an action can end the game, so that actions which
        # otherwise commute cannot be reordered: the canonical order is switched off by
        # starting every run of commuting actions beyond the end of any path.
        self.no_reorder = 1 << 30 if immediate else 0
        key = 1
        nover = 0
        for sig, home in zip(self.sigs, homes, strict=True):
            key *= primes[home_tag(sig, home)]
            nover += len(info(sig).overpop)
        self.key = key
        self.nover = nover


def _assemble(c: _Context):
    """Build the parts in dependency order; returns the root of the tree of partial turns."""
    _bookkeeping(c)
    _endings(c)
    _win_bound(c)
    # The tree builds the parts it calls (powers, catastrophes, the sacrifice) itself,
    # when it first needs them (see ``_turn_tree``).
    return _turn_tree(c)


# ---- canonical order ---------------------------------------------------------------
#
# Of two adjacent actions that commute, only the order with the smaller rank first is
# explored (docs/successors.md, "Canonical order"). Each helper looks back over the run
# of actions since ``start`` that the new action commutes with and says whether the new
# action, of rank ``order``, may come after them.


def _captures_in_order(path: list, start: int, order: int) -> bool:
    """Captures always commute: keep them in non-decreasing order."""
    return not (len(path) > start and path[-1][0] == CAP and order < path[-1][1])


def _builds_in_order(path: list, start: int, order: int, color: int) -> bool:
    """Builds of different colours commute."""
    j = len(path) - 1
    while j >= start:
        a = path[j]
        if a[0] != BLD or a[3] // 3 == color:
            return True
        if order < a[1]:
            return False
        j -= 1
    return True


def _trades_in_order(path: list, start: int, order: int, old: int, new: int) -> bool:
    """Trades that share no piece kind commute."""
    j = len(path) - 1
    while j >= start:
        a = path[j]
        if a[0] != TRD or a[3] == old or a[3] == new or a[4] == old or a[4] == new:
            return True
        if order < a[1]:
            return False
        j -= 1
    return True


def _yellow_run(path: list, start: int, origin: int, origin_stars: int) -> list:
    """The moves and discoveries just before a move or discovery from system id
    ``origin`` that it may commute with (latest first): up to one that entered
    ``origin``, discovered a system ``origin`` is, or discovered a star kind that
    ``origin`` could return to the bank by fading. Canonical order then compares the new
    action with each of them in turn, up to the first that conflicts with its other end:
    a move's destination (an earlier move out of it, a discovery of it or from it) or a
    discovery's star kind (an earlier move or discovery whose origin could return it)."""
    run = []
    j = len(path) - 1
    while j >= start:
        a = path[j]
        code = a[0]
        if code == MOV:
            if a[MOV_TO] == origin:
                break
        elif code == DIS:
            if a[DIS_NEW] == origin or (1 << a[DIS_STAR]) & origin_stars:
                break
        else:
            break
        run.append(a)
        j -= 1
    return run


def _catastrophes_in_order(path: list, start: int, order: int, slot: int) -> bool:
    """Catastrophes in different systems commute."""
    j = len(path) - 1
    while j >= start:
        a = path[j]
        if a[0] != CAT or a[2] == slot:
            return True
        if order < a[1]:
            return False
        j -= 1
    return True


# ---- bookkeeping: changing the position and undoing it ---------------------------


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _bookkeeping(c: _Context) -> None:  # noqa: C901
    sigs, homes, bank = c.sigs, c.homes, c.bank
    info = c.info
    ship_count = c.layout.ship_count
    without_color = c.layout.without_color
    P = c.primes
    me, seats, my_home, home_slot, others = c.me, c.seats, c.my_home, c.home_slot, c.others
    may_empty = c.may_empty

    def setsig(i, new):
        """System i now has signature ``new`` (key and overpopulation count follow)."""
        old = sigs[i]
        h = homes[i] + 1
        c.key = c.key // P[old * 8 + h] * P[new * 8 + h]
        c.nover += len(info(new).overpop) - len(info(old).overpop)
        sigs[i] = new

    def restore(i, sig, key, nover):
        """Undo a change of system i: its signature, the key and the count as saved."""
        sigs[i] = sig
        c.key = key
        c.nover = nover

    def kill(i):
        """System i leaves the board: everything in it returns to the bank."""
        sig = sigs[i]
        inf = info(sig)
        for k in inf.stars:
            bank[k] += 1
        if inf.ships:
            for s in range(seats):
                for k in inf.kinds[s]:
                    bank[k] += ship_count(sig, s, k)
        c.key //= P[sig * 8 + homes[i] + 1]
        c.nover -= len(inf.overpop)
        sigs[i] = 0

    def fade_rule(i):
        """System i has no ship left: it fades (or, for a home, what the rules say).
        Returns False when that makes the action illegal."""
        h = homes[i]
        if h < 0:
            kill(i)
        elif may_empty:
            pass  # an empty home stays until the end of the turn
        elif h == me:
            return False  # emptying your own home is suicide under these rules
        else:
            kill(i)
        return True

    cat_cache: dict[int, tuple] = {}

    def cat_effect(sig, color):
        """A catastrophe of ``color`` at a system: (new signature, pieces returned to the
        bank as (kind, count) pairs, stars left?, ships left?)."""
        got = cat_cache.get(sig * 4 + color)
        if got is None:
            inf = info(sig)
            back: dict[int, int] = {}
            for k in inf.stars:
                if k // 3 == color:
                    back[k] = back.get(k, 0) + 1
            for s in range(seats):
                for k in inf.kinds[s]:
                    if k // 3 == color:
                        back[k] = back.get(k, 0) + ship_count(sig, s, k)
            new = without_color(sig, color)
            ni = info(new)
            got = (new, tuple(back.items()), bool(ni.stars), bool(ni.ships))
            cat_cache[sig * 4 + color] = got
        return got

    def apply_cat(i, color):
        """Perform a catastrophe; False if the rules forbid it (the caller undoes)."""
        new, back, stars_left, ships_left = cat_effect(sigs[i], color)
        for k, n in back:
            bank[k] += n
        setsig(i, new)
        if not stars_left:
            kill(i)  # the star is gone: the ships go with it
            return True
        if not ships_left:
            return fade_rule(i)
        return True

    def need_home():
        """Strict rules: your home has lost its last ship of yours (so far)."""
        if my_home < 0:
            return True
        hs = sigs[my_home]
        return not hs or not info(hs).count[me]

    def won():
        for s in others:
            hs = sigs[home_slot[s]]
            if not hs or not info(hs).count[s]:
                return True
        return False

    def game_ended():
        """Immediate elimination: has a seat lost its home at this moment?"""
        return need_home() or won()

    c.setsig, c.restore, c.kill, c.fade_rule, c.apply_cat = (setsig, restore, kill,
                                                              fade_rule, apply_cat)
    c.need_home, c.won, c.game_ended = need_home, won, game_ended


# ---- ending a turn -----------------------------------------------------------------


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _endings(c: _Context) -> None:  # noqa: C901
    """``c.final``: the current position as the end of a turn — recorded if new and legal,
    or (win mode) the search stopped if the turn wins."""
    sigs, homes, path = c.sigs, c.homes, c.path
    info, cache, analyse = c.info, c.cache, c.analyse
    me, seats, my_home, home_slot = c.me, c.seats, c.my_home, c.home_slot
    self_elim_ok, post_check, won = c.self_elim_ok, c.post_check, c.won
    results, fresh, keep, targets = c.results, c.fresh, c.keep, c.targets
    on_found = c.on_found
    star_goal, target_stars = c.star_goal, c.target_stars
    material_goal, target_pips, min_pips = c.material_goal, c.target_pips, c.min_pips

    def portable_key():
        home_sigs: list[int | None] = [None] * seats
        rest = []
        for i in range(len(sigs)):
            sig = sigs[i]
            if sig:
                if homes[i] >= 0:
                    home_sigs[homes[i]] = sig
                else:
                    rest.append(sig)
        rest.sort()
        return (tuple(home_sigs), tuple(rest))

    def leaves_own_home_to_overpopulation(inf) -> bool:
        """The strict engine refuses a win after which performing the pending
        overpopulations would also destroy the winner's home."""
        bad = 0
        for color in inf.overpop:
            bad |= 1 << color
        return not (inf.star_colors & ~bad) or not (inf.colors[me] & ~bad)

    def final():
        """The key is the board as the turn leaves it, homes still marked as homes even
        when their seat has just lost them (as the reference engine counts): two winning
        turns that leave different systems as the loser's former home are different
        successors."""
        k = c.key
        if my_home < 0:
            lost_me = True
        else:
            hs = sigs[my_home]
            lost_me = not hs or not (cache.get(hs) or analyse(hs)).count[me]
        if lost_me:
            if not self_elim_ok:
                return
        elif post_check:
            inf = info(sigs[my_home])
            if inf.overpop and won() and leaves_own_home_to_overpopulation(inf):
                return
        if k in results:
            return
        # Only the key is kept for the whole search: a path is handed out once, through
        # ``fresh``, so that listing successors holds each turn only until it is printed.
        results[k] = None
        if on_found is not None:
            on_found(tuple(path), portable_key())
        elif keep:
            fresh.append((tuple(path), portable_key()))

    def final_win():
        if my_home < 0:
            return
        hs = sigs[my_home]
        if not hs or not info(hs).count[me]:
            return  # eliminating yourself (even in a draw) is not a win
        for t in targets:
            ts = sigs[home_slot[t]]
            if not ts or not info(ts).count[t]:
                break
            if star_goal and len(info(ts).stars) < target_stars[t]:
                break
            if material_goal and target_pips[t] - sum(
                    info(sig).pips[t] for sig in sigs if sig) >= min_pips:
                break
        else:
            return
        if post_check:
            inf = info(hs)
            if inf.overpop and leaves_own_home_to_overpopulation(inf):
                return
        raise _Found(tuple(path))

    c.final = final_win if c.win_mode else final


# ---- win mode: the bound that prunes -----------------------------------------------


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _win_bound(c: _Context) -> None:  # noqa: C901
    sigs, bank = c.sigs, c.bank
    info, ship_count = c.info, c.layout.ship_count
    me, home_slot, targets, cats_close = c.me, c.home_slot, c.targets, c.cats_close
    star_goal, target_stars = c.star_goal, c.target_stars
    material_goal, target_pips, min_pips = c.material_goal, c.target_pips, c.min_pips

    def can_hit_star(color, left, exact=False):
        """The home-star goal's bound: could ``left`` more actions of ``color`` and
        catastrophes still destroy a star of a target's home? Only a catastrophe destroys
        a star, so some star colour there must reach four pieces."""
        for t in targets:
            hs = home_slot[t]
            sig = sigs[hs]
            if not sig:
                return True
            inf = info(sig)
            if not inf.count[t] or len(inf.stars) < target_stars[t]:
                return True
            tot = inf.color_totals
            stars = inf.star_colors
            for x in range(4):
                if stars >> x & 1 and tot[x] >= OVERPOPULATION:
                    return True
            if left <= 0 or color <= 0:
                continue  # no actions left, or red: captures add no pieces
            for x in range(4):
                if stars >> x & 1 and supply_cost(color, x, OVERPOPULATION - tot[x], hs, inf,
                                                  exact) <= left:
                    return True
        return False

    # Search kernel: closures sharing one frame, inlined on purpose (speed); split
    # only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
    def can_win(color, left, exact=False):  # noqa: C901
        """Could ``left`` more actions of ``color`` (-1: none) and catastrophes still
        eliminate a target? An optimistic bound, so pruning with it loses no win: every
        action adds at most one piece of one colour to a system, captures need red, and
        a catastrophe needs four pieces of its colour there."""
        for t in targets:
            hs = home_slot[t]
            sig = sigs[hs]
            if not sig:
                return True
            inf = info(sig)
            if not inf.count[t]:
                return True
            tot = inf.color_totals
            theirs = inf.colors[t]
            stars = inf.star_colors
            ready = 0
            for x in range(4):
                if tot[x] >= OVERPOPULATION:
                    ready |= 1 << x
            if ready and (not stars & ~ready or not theirs & ~ready):
                return True
            if left <= 0 or color < 0:
                continue
            if color == 0:
                n = 0
                big = 0
                for k in inf.kinds[t]:
                    if not ready >> (k // 3) & 1:
                        n += ship_count(sig, t, k)
                        if k % 3 + 1 > big:
                            big = k % 3 + 1
                if n <= left and inf.largest[me] >= big:
                    return True
                continue
            for need_colors in (theirs, stars):
                cost = 0
                for x in range(4):
                    if need_colors >> x & 1 and tot[x] < OVERPOPULATION:
                        cost += supply_cost(color, x, OVERPOPULATION - tot[x], hs, inf, exact)
                        if cost > left:
                            break
                if cost <= left:
                    return True
        return False

    def supply_cost(color, x, d, hs, inf, exact_bank):
        """Fewest actions of ``color`` that can add ``d`` pieces of colour x at system hs."""
        lo = 3 * x
        if color == 2:
            # Builds need a ship of that colour there already; the bank only counts
            # once the sacrifice is made and when no catastrophe can refill it.
            if not inf.colors[me] >> x & 1:
                return 99
            if exact_bank and bank[lo] + bank[lo + 1] + bank[lo + 2] < d:
                return 99
            return d
        if color == 3:
            # Trades recolour ships already there (the bank may be refilled by
            # trading that colour away elsewhere, so it is not counted).
            others_here = inf.count[me] - sum(
                ship_count(sigs[hs], me, k) for k in (lo, lo + 1, lo + 2))
            return d if others_here >= d else 99
        near = far = 0
        hmask = inf.size_mask
        for j in range(len(sigs)):
            sj = sigs[j]
            if not sj or j == hs:
                continue
            ij = info(sj)
            if not ij.colors[me] >> x & 1:
                continue
            n = ship_count(sj, me, lo) + ship_count(sj, me, lo + 1) + ship_count(sj, me, lo + 2)
            # Two moves from a system that shares a star size with the target, unless a
            # catastrophe mid-turn can still take a star from either system away.
            if cats_close and ij.size_mask & hmask:
                far += n
            else:
                near += n
        if near + far < d:
            return 99
        return d + max(0, d - near)

    # Search kernel: closures sharing one frame, inlined on purpose (speed); split
    # only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
    def can_take(color, left, exact=False):  # noqa: C901
        """The material goal's bound: could ``left`` more actions of ``color`` (-1: none)
        and catastrophes still take ``min_pips`` of a target's ships? Optimistic: every
        capture and catastrophe open to the turn is counted as if all could be had at
        once. A catastrophe of a star's colour is counted as taking all the target's
        ships there (the system may go with its star); red actions capture one ship each,
        no larger than the mover's largest ship in that system (a captured ship is never
        larger, so it opens no bigger capture there)."""
        for t in targets:
            # Systems without the target's ships add nothing to its pips or to the reach.
            need = min_pips - target_pips[t]
            reach = 0
            sizes = []
            for j in range(len(sigs)):
                sig = sigs[j]
                if not sig:
                    continue
                inf = info(sig)
                if not inf.count[t]:
                    continue
                need += inf.pips[t]
                tot = inf.color_totals
                stars = inf.star_colors
                theirs = inf.colors[t]
                for x in range(4):
                    if stars >> x & 1:
                        lost = inf.pips[t]
                    elif theirs >> x & 1:
                        lost = 0
                        for k in (3 * x, 3 * x + 1, 3 * x + 2):
                            lost += ship_count(sig, t, k) * (k % 3 + 1)
                    else:
                        continue
                    if tot[x] >= OVERPOPULATION or left > 0 and color > 0 and supply_cost(
                            color, x, OVERPOPULATION - tot[x], j, inf, exact) <= left:
                        reach += lost
                if color == 0 and left > 0:
                    big = inf.largest[me]
                    for k in inf.kinds[t]:
                        if k % 3 < big:
                            sizes.extend([k % 3 + 1] * ship_count(sig, t, k))
            if need <= 0:
                return True
            if sizes:
                sizes.sort(reverse=True)
                reach += sum(sizes[:left])
            if reach >= need:
                return True
        return False

    if star_goal:
        can_eliminate = can_win

        def can_win(color, left, exact=False):  # noqa: F811 -- the goal's own bound
            # Losing the home also takes its stars: both ways are kept open.
            return can_hit_star(color, left, exact) or can_eliminate(color, left, exact)
    elif material_goal:
        can_eliminate = can_win

        def can_win(color, left, exact=False):  # noqa: F811 -- the goal's own bound
            return can_take(color, left, exact) or can_eliminate(color, left, exact)
    should_stop = c.should_stop
    if should_stop is not None:
        bound = can_win
        calls = [0]

        def can_win(color, left, exact=False):  # noqa: F811 -- the bound, interruptible
            calls[0] += 1
            if not calls[0] & 63 and should_stop():
                raise SearchInterrupted
            return bound(color, left, exact)

    c.can_win = can_win


# ---- the four powers ---------------------------------------------------------------


def _power_actions(c: _Context):
    """``power(color, where, sac_left, seq_start, allow)``: every action of ``color`` at
    system ``where`` (a free action) or anywhere (-1: a sacrifice's)."""
    red = _captures(c)
    yellow = _moves(c)
    green = _builds(c)
    blue = _trades(c)

    def power(color, where, sac_left, seq_start, allow):
        if color == 1:
            yellow(where, sac_left, seq_start, allow)
        elif color == 0:
            red(where, sac_left, seq_start)
        elif color == 2:
            green(where, sac_left, seq_start)
        else:
            blue(where, sac_left, seq_start)

    return power


def _captures(c: _Context):
    sigs, uids, path = c.sigs, c.uids, c.path
    info, setsig, restore, after_action = c.info, c.setsig, c.restore, c.after_action
    me, seats, W, WALL = c.me, c.seats, c.my_weight, c.weights

    def red(where, sac_left, seq_start):
        for i in (range(len(sigs)) if where < 0 else (where,)):
            sig = sigs[i]
            if not sig:
                continue
            inf = info(sig)
            big = inf.largest[me]
            if not big:
                continue
            uid = uids[i]
            for v in range(seats):
                if v == me or not inf.count[v]:
                    continue
                wv = WALL[v]
                for p in inf.kinds[v]:
                    if p % 3 + 1 > big:
                        continue
                    order = (uid * 12 + p) * 8 + v
                    if len(path) > seq_start and not _captures_in_order(path, seq_start, order):
                        continue
                    k0, nv0 = c.key, c.nover
                    setsig(i, sig - wv[p] + W[p])
                    path.append((CAP, order, i, p, v))
                    after_action(0, sac_left, seq_start)
                    path.pop()
                    restore(i, sig, k0, nv0)

    return red


def _builds(c: _Context):
    sigs, bank, uids, path = c.sigs, c.bank, c.uids, c.path
    info, setsig, restore, after_action = c.info, c.setsig, c.restore, c.after_action
    me, W = c.me, c.my_weight

    def green(where, sac_left, seq_start):
        for i in (range(len(sigs)) if where < 0 else (where,)):
            sig = sigs[i]
            if not sig:
                continue
            cm = info(sig).colors[me]
            if not cm:
                continue
            uid = uids[i]
            for color in range(4):
                if not cm >> color & 1:
                    continue
                lo = color * 3
                if bank[lo]:
                    p = lo
                elif bank[lo + 1]:
                    p = lo + 1
                elif bank[lo + 2]:
                    p = lo + 2
                else:
                    continue
                order = uid * 4 + color
                if len(path) > seq_start and not _builds_in_order(path, seq_start, order,
                                                                         color):
                    continue
                k0, nv0 = c.key, c.nover
                setsig(i, sig + W[p])
                bank[p] -= 1
                path.append((BLD, order, i, p))
                after_action(2, sac_left, seq_start)
                path.pop()
                bank[p] += 1
                restore(i, sig, k0, nv0)

    return green


def _trades(c: _Context):
    sigs, bank, uids, path = c.sigs, c.bank, c.uids, c.path
    info, setsig, restore, after_action = c.info, c.setsig, c.restore, c.after_action
    me, W = c.me, c.my_weight

    def blue(where, sac_left, seq_start):
        for i in (range(len(sigs)) if where < 0 else (where,)):
            sig = sigs[i]
            if not sig:
                continue
            kinds = info(sig).kinds[me]
            if not kinds:
                continue
            uid = uids[i]
            for p in kinds:
                for q in range(p % 3, 12, 3):
                    if q // 3 == p // 3 or not bank[q]:
                        continue
                    order = (uid * 12 + p) * 12 + q
                    if len(path) > seq_start and not _trades_in_order(path, seq_start, order,
                                                                             p, q):
                        continue
                    k0, nv0 = c.key, c.nover
                    setsig(i, sig - W[p] + W[q])
                    bank[p] += 1
                    bank[q] -= 1
                    path.append((TRD, order, i, p, q))
                    after_action(3, sac_left, seq_start)
                    path.pop()
                    bank[p] -= 1
                    bank[q] += 1
                    restore(i, sig, k0, nv0)

    return blue


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _moves(c: _Context):  # noqa: C901
    """Moves and discoveries. Two of them commute unless one's destination is the
    other's origin, one creates the system the other enters, or one may return to the
    bank (by fading its origin) a star kind the other discovers."""
    sigs, homes, bank, uids, path, newuid = c.sigs, c.homes, c.bank, c.uids, c.path, c.newuid
    cache, analyse = c.cache, c.analyse
    me, W, SW, P, n0 = c.me, c.my_weight, c.star_weight, c.primes, c.n0
    prune_home, may_empty, my_home, need_home = c.prune_home, c.may_empty, c.my_home, c.need_home
    after_action = c.after_action

    def yellow(where, sac_left, seq_start, allow):
        only_home = prune_home and sac_left <= 1 and need_home()
        in_run = len(path) > seq_start
        n = len(sigs)
        dests = []
        for j in range(n):
            sj = sigs[j]
            if sj:
                dests.append((j, (cache.get(sj) or analyse(sj)).size_mask))
        for i in (range(n) if where < 0 else (where,)):
            sig = sigs[i]
            if not sig:
                continue
            inf = cache.get(sig) or analyse(sig)
            kinds = inf.kinds[me]
            if not kinds:
                continue
            run = _yellow_run(path, seq_start, uids[i], inf.star_mask) if in_run else ()
            for p in kinds:
                new = sig - W[p]
                ni = cache.get(new) or analyse(new)
                empties = not ni.ships
                if empties and not may_empty and homes[i] == me:
                    continue  # emptying your own home is suicide under these rules
                fades = empties and (homes[i] < 0 or not may_empty)
                if allow & 1:
                    moves(i, p, sig, inf, new, ni, fades, dests,
                          my_home if only_home else -1, run, sac_left, seq_start)
                if allow & 2 and not only_home:
                    discoveries(i, p, sig, inf, new, ni, fades, run, sac_left, seq_start)

    def moves(i, p, sig, inf, new, ni, fades, dests, only_to, run, sac_left, seq_start):
        """Ship ``p`` from system i to each connected system (``only_to``, if not -1).
        ``new``: i without it; ``fades``: i then goes, its stars back to the bank;
        ``run``: see ``_yellow_run``."""
        ui = uids[i]
        prod = inf.star_mask
        smask = inf.size_mask
        hi = homes[i] + 1
        base_order = (ui * 16 + p) << 24
        for j, dmask in dests:
            if dmask & smask or j == i or only_to >= 0 and j != only_to:
                continue
            uj = uids[j]
            order = base_order | uj
            out_of_order = False
            for a in run:
                if a[0] == MOV:
                    if a[MOV_FROM] == uj:
                        break
                elif a[DIS_NEW] == uj or a[DIS_FROM] == uj:
                    break
                if order < a[1]:
                    out_of_order = True
                    break
            if out_of_order:
                continue
            k0, nv0 = c.key, c.nover
            sj = sigs[j]
            hj = homes[j] + 1
            nj = sj + W[p]
            over_j = len((cache.get(nj) or analyse(nj)).overpop) - len(
                (cache.get(sj) or analyse(sj)).overpop)
            if fades:
                c.key = k0 // P[sig * 8 + hi] // P[sj * 8 + hj] * P[nj * 8 + hj]
                c.nover = nv0 + over_j - len(inf.overpop)
                sigs[i] = 0
                for k in ni.stars:
                    bank[k] += 1
            else:
                c.key = k0 // P[sig * 8 + hi] // P[sj * 8 + hj] * P[new * 8 + hi] * P[nj * 8 + hj]
                c.nover = nv0 + over_j + len(ni.overpop) - len(inf.overpop)
                sigs[i] = new
            sigs[j] = nj
            path.append((MOV, order, i, p, j, prod, ui, uj))
            after_action(1, sac_left, seq_start)
            path.pop()
            sigs[j] = sj
            if fades:
                for k in ni.stars:
                    bank[k] -= 1
            sigs[i] = sig  # restore(i, sig, k0, nv0), inline: the hottest loop
            c.key = k0
            c.nover = nv0

    # Search kernel: closures sharing one frame, inlined on purpose (speed); split
    # only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
    def discoveries(i, p, sig, inf, new, ni, fades, run, sac_left, seq_start):  # noqa: C901
        """Ship ``p`` from system i to a new system, for each star kind in the bank that
        connects to i (``run``: see ``_yellow_run``)."""
        ui = uids[i]
        prod = inf.star_mask
        smask = inf.size_mask
        hi = homes[i] + 1
        base_order = (ui * 16 + p) << 24 | (1 << 23)
        for k in range(12):
            if not bank[k] or smask >> (k % 3) & 1:
                continue
            order = base_order | k
            wanted = 1 << k
            out_of_order = False
            for a in run:
                if a[0] == MOV:
                    if a[MOV_STARS] & wanted:
                        break
                elif a[DIS_STARS] & wanted:
                    break
                if order < a[1]:
                    out_of_order = True
                    break
            if out_of_order:
                continue
            # The new system's id: the same for the same discovery at the same place of
            # the turn, whatever came before it (so that canonical order compares alike).
            occ = 0
            for a in path:
                if a[1] == order and a[0] == DIS:
                    occ += 1
            label = (order, occ)
            nu = newuid.get(label)
            if nu is None:
                nu = newuid[label] = n0 + len(newuid)
            k0, nv0 = c.key, c.nover
            nsig = SW[k] + W[p]
            bank[k] -= 1
            if fades:
                c.key = k0 // P[sig * 8 + hi] * P[nsig * 8]
                c.nover = nv0 - len(inf.overpop)
                sigs[i] = 0
                for s in ni.stars:
                    bank[s] += 1
            else:
                c.key = k0 // P[sig * 8 + hi] * P[new * 8 + hi] * P[nsig * 8]
                c.nover = nv0 + len(ni.overpop) - len(inf.overpop)
                sigs[i] = new
            j = len(sigs)
            sigs.append(nsig)
            homes.append(-1)
            uids.append(nu)
            path.append((DIS, order, i, p, k, j, prod, ui, nu))
            after_action(1, sac_left, seq_start)
            path.pop()
            sigs.pop()
            homes.pop()
            uids.pop()
            if fades:
                for s in ni.stars:
                    bank[s] -= 1
            bank[k] += 1
            sigs[i] = sig  # restore(i, sig, k0, nv0), inline: the hottest loop
            c.key = k0
            c.nover = nv0

    return yellow


# ---- catastrophes and sacrifices ---------------------------------------------------


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _catastrophes(c: _Context):  # noqa: C901
    """``catastrophes(...)``: every catastrophe now, each followed by the rest of the
    turn; ``post_cats()``: every subset of the catastrophes left once only catastrophes
    may follow (each position's subsets enumerated once)."""
    sigs, bank, uids, path = c.sigs, c.bank, c.uids, c.path
    info, apply_cat, final, game_ended, node = (c.info, c.apply_cat, c.final, c.game_ended,
                                                c.node)
    restore = c.restore
    immediate, cats_close, no_reorder = c.immediate, c.cats_close, c.no_reorder
    whole_pass = c.whole_pass

    def catastrophes(free_used, sac_color, sac_left, closed, passed, seq_start, first):
        cats_only = not free_used or (passed and path[0][0] == PAS)
        for i in range(len(sigs)):
            sig = sigs[i]
            if not sig:
                continue
            inf = info(sig)
            if not inf.overpop:
                continue
            for color in inf.overpop:
                order = uids[i] * 4 + color
                if len(path) > no_reorder and not _catastrophes_in_order(path, no_reorder,
                                                                         order, i):
                    continue
                k0, nv0, b0 = c.key, c.nover, bank[:]
                if apply_cat(i, color):
                    path.append((CAT, order, i, color))
                    # A turn of catastrophes only is kept unless the filter wants other turns.
                    if not (cats_only and first is not None and not cats_match(first)) \
                            and (free_used or whole_pass or immediate and game_ended()):
                        final()  # without a pass, catastrophes alone are no turn
                    if not (immediate and game_ended()):
                        node(free_used, sac_color, sac_left,
                               closed or (cats_close and free_used), passed, seq_start, first)
                    path.pop()
                restore(i, sig, k0, nv0)
                bank[:] = b0

    def cats_match(first):
        if CAT not in first.codes:
            return False
        for a in path:
            if a[0] == CAT and (first.slot is None or a[2] == first.slot) and (
                    first.color is None or a[3] == first.color):
                return True
        return False

    # After the turn's actions (and under "ends"/"after" timing, after any catastrophe
    # once the turn's action is taken) only catastrophes remain, and which positions they
    # reach depends on the position alone: each position's catastrophes are enumerated
    # once.
    expanded: set[int] = set()

    def post_cats():
        if not c.nover or c.key in expanded:
            return
        expanded.add(c.key)
        pairs = []
        for i in range(len(sigs)):
            sig = sigs[i]
            if sig:
                for color in info(sig).overpop:
                    pairs.append((i, color))
        cat_subsets(pairs, 0)

    def cat_subsets(pairs, start):
        for j in range(start, len(pairs)):
            i, color = pairs[j]
            sig = sigs[i]
            if not sig:
                continue  # an earlier catastrophe destroyed the system
            k0, nv0, b0 = c.key, c.nover, bank[:]
            if apply_cat(i, color):
                path.append((CAT, uids[i] * 4 + color, i, color))
                final()
                cat_subsets(pairs, j + 1)
                path.pop()
            restore(i, sig, k0, nv0)
            bank[:] = b0

    return catastrophes, post_cats


def _sacrifice(c: _Context):
    sigs, bank, path = c.sigs, c.bank, c.path
    info, setsig, fade_rule, final = c.info, c.setsig, c.fade_rule, c.final
    me, W, my_home, prune_home = c.me, c.my_weight, c.my_home, c.prune_home
    immediate, game_ended, no_reorder, node = c.immediate, c.game_ended, c.no_reorder, c.node
    restore = c.restore

    def sacrifice(i, sig, p):
        color = p // 3
        new = sig - W[p]
        ni = info(new)
        if prune_home and i == my_home and not ni.count[me] and color != 1:
            return  # your home would lose its last ship and only yellow brings one back
        k0, nv0 = c.key, c.nover
        setsig(i, new)
        bank[p] += 1
        legal = True
        if not ni.ships:
            legal = fade_rule(i)
        if legal:
            path.append((SAC, 0, i, p))
            final()
            if not (immediate and game_ended()):
                node(True, color, p % 3 + 1, False, False, len(path) + no_reorder, None)
            path.pop()
        if not sigs[i]:
            for k in ni.stars:
                bank[k] -= 1
        bank[p] -= 1
        restore(i, sig, k0, nv0)

    return sacrifice


# ---- the tree of partial turns -----------------------------------------------------


# Search kernel: closures sharing one frame, inlined on purpose (speed); split
# only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
def _turn_tree(c: _Context):  # noqa: C901
    sigs, path = c.sigs, c.path
    info, final, can_win, need_home, game_ended = (c.info, c.final, c.can_win, c.need_home,
                                                   c.game_ended)
    me, timing, cats_close, immediate = c.me, c.timing, c.cats_close, c.immediate
    whole_pass, prune_home, win_mode = c.whole_pass, c.prune_home, c.win_mode
    bank_settled, no_reorder = c.bank_settled, c.no_reorder

    # The parts the tree calls continue the turn through ``c.node`` and
    # ``c.after_action``, so they are built after the tree; and only on first need,
    # because the win bound cuts most win searches before any of them is called
    # (building them would cost more than such a search). Until then each name below is
    # a stand-in that builds them all, rebinding the names, and passes its call on.
    power: Callable[..., None]
    catastrophes: Callable[..., None]
    post_cats: Callable[[], None]
    sacrifice: Callable[[int, int, int], None]

    def build_callees():
        nonlocal power, catastrophes, post_cats, sacrifice
        power = _power_actions(c)
        catastrophes, post_cats = _catastrophes(c)
        sacrifice = _sacrifice(c)

    def power_stand_in(*args):
        build_callees()
        power(*args)

    def catastrophes_stand_in(*args):
        build_callees()
        catastrophes(*args)

    def post_cats_stand_in():
        build_callees()
        post_cats()

    def sacrifice_stand_in(i, sig, p):
        build_callees()
        sacrifice(i, sig, p)

    power, catastrophes = power_stand_in, catastrophes_stand_in
    post_cats, sacrifice = post_cats_stand_in, sacrifice_stand_in

    def node(free_used, sac_color, sac_left, closed, passed, seq_start, first):
        """Explore every continuation of the current partial turn.

        ``seq_start``: index in ``path`` where the current run of possibly commuting
        actions begins. ``first``: a filter on the turn's first non-catastrophe action
        (only before that action is taken).
        """
        if win_mode and free_used:
            left = 0 if closed or passed else sac_left
            if not can_win(sac_color if left else -1, left, bank_settled):
                return
        if c.nover and (timing != "after" or free_used or passed):
            if cats_close and free_used and not passed and not immediate:
                post_cats()
            else:
                catastrophes(free_used, sac_color, sac_left, closed, passed, seq_start, first)
        if passed or closed:
            return
        if not free_used:
            first_action(first)
        elif sac_left > 0:
            if prune_home and sac_color != 1 and need_home():
                return  # only a yellow action could still bring a ship home
            power(sac_color, -1, sac_left, seq_start, 3)

    # Search kernel: closures sharing one frame, inlined on purpose (speed); split
    # only with benchmarks/successors_bench.py (docs/code-overview.md, Complexity).
    def first_action(first):  # noqa: C901
        """The turn's action: a whole-turn pass, a free action, or a sacrifice."""
        if not path and whole_pass and (first is None or PAS in first.codes
                                        or CAT in first.codes and timing == "after"):
            path.append((PAS, 0))
            if first is None or PAS in first.codes:
                final()
            if timing == "after" and c.nover:
                # Under "after" timing, a pass is what allows catastrophes alone.
                node(True, -1, 0, False, True, len(path), first)
            path.pop()
        home_needed = prune_home and need_home()
        base = len(path) + no_reorder
        if win_mode:
            hopeful = [can_win(color, 1) for color in range(4)]
            largest = [0, 0, 0, 0]
            for sig in sigs:
                if sig:
                    for p in info(sig).kinds[me]:
                        largest[p // 3] = max(largest[p // 3], p % 3 + 1)
            sac_hopeful = [largest[color] and can_win(color, largest[color])
                           for color in range(4)]
        for i in range(len(sigs)):
            sig = sigs[i]
            if not sig:
                continue
            inf = info(sig)
            if not inf.count[me]:
                continue
            access = inf.star_colors | inf.colors[me]
            for color in ((1,) if home_needed else (0, 1, 2, 3)):
                if not access >> color & 1 or win_mode and not hopeful[color]:
                    continue
                if first is None:
                    power(color, i, 0, base, 3)
                elif color == 1:
                    allow = ((1 if first.wants(MOV, i, 1) else 0)
                             | (2 if first.wants(DIS, i, 1) else 0))
                    if allow:
                        power(1, i, 0, base, allow)
                elif first.wants(_FREE_CODES[color][0], i, color):
                    power(color, i, 0, base, 3)
        for i in range(len(sigs)):
            sig = sigs[i]
            if not sig:
                continue
            inf = info(sig)
            if not inf.count[me]:
                continue
            for p in inf.kinds[me]:
                color = p // 3
                if first is not None and not first.wants(SAC, i, color):
                    continue
                if home_needed and color != 1 or win_mode and not sac_hopeful[color]:
                    continue
                sacrifice(i, sig, p)

    def after_action(color, sac_left, seq_start):
        """The current position ends the turn, or the turn goes on."""
        if immediate and game_ended():
            final()
            return
        final()
        if sac_left > 1:
            node(True, color, sac_left - 1, False, False, seq_start, None)
        elif c.nover:
            node(True, color, 0, False, False, seq_start, None)

    c.node = node
    c.after_action = after_action
    return node


def _filter(state: GameState, first_kind: type | None, system: str | None,
            color: Color | int | None) -> _Filter | None:
    if first_kind is None and system is None and color is None:
        return None
    if first_kind is None:
        codes = frozenset(_CODE_OF.values())
    elif first_kind in _CODE_OF:
        codes = frozenset({_CODE_OF[first_kind]})
    elif first_kind is BrainTransference:
        codes = frozenset()  # only the Brain Transference search (``_transferred``)
    else:
        raise ValueError("first_kind must be one of "
                         + ", ".join(k.__name__ for k in FIRST_KINDS))
    slot = None
    if system is not None:
        target = state.system(system)
        if target is None:
            raise ValueError(f"there is no system named {system!r}")
        slot = state.systems.index(target)
        codes = codes - {PAS}
    c = None
    if color is not None:
        c = int(color) if not isinstance(color, str) else int(Color.from_text(color))
        if not 0 <= c < 4:
            raise ValueError(f"not a colour: {color!r}")
        codes = codes - {PAS}
    return _Filter(codes, slot, c)


def count_successors(state: GameState) -> int:
    """How many distinct positions one legal turn of the player to move reaches."""
    search = SuccessorSearch(state, keep_paths=False)
    try:
        search.run()
        for _ in _transferred(state, search):
            pass
    finally:
        search.close()
    return len(search.results)


def successor_keys(state: GameState) -> set[tuple]:
    """The canonical keys of every successor."""
    search = SuccessorSearch(state, keep_paths=True)
    try:
        search.run()
        keys = {key for _, key in search.fresh}
        keys.update(succ.key for succ in _transferred(state, search))
    finally:
        search.close()
    return keys


def _transferred(state: GameState, search: SuccessorSearch) -> Iterator[Successor]:
    """The successors of the turns that begin with Brain Transference, when the handicap is
    open, that ``search`` (the ordinary search, run first) has not reached another way."""
    other = transferred_search(state)
    if other is None:
        return
    try:
        other.run()
        writer = TurnWriter(other)
        for path, key in other.fresh:
            if search.claim(key):
                yield Successor(writer.turn(path), key)
    finally:
        other.close()


def _wants_transference(first_kind: type | None, system: str | None,
                        color: Color | int | None) -> bool:
    return first_kind in (None, BrainTransference) and system is None and color is None


def successors(state: GameState, *, first_kind: type | None = None, system: str | None = None,
               color: Color | int | None = None) -> Iterator[Successor]:
    """Yield one ``Successor(turn, key)`` per distinct position one legal turn reaches.

    Filters select turns by their first non-catastrophe action: ``first_kind`` its
    class (``Move``, ``Sacrifice``, ... ``Pass``; ``Catastrophe`` for turns of
    catastrophes only; ``BrainTransference`` for the handicap's turns), ``system`` where
    it happens (a move's origin), ``color`` the colour of power it uses (a sacrifice: the
    sacrificed ship's colour). A position reachable by several turns is yielded once,
    with the first turn found.

    The search runs lazily, one group of first actions (a kind at a system) at a time;
    Brain Transference, when the handicap is open to the player to move, comes last.
    """
    search = SuccessorSearch(state, keep_paths=True)
    writer = TurnWriter(search)
    wanted = _filter(state, first_kind, system, color)
    try:
        for group in _groups(state, wanted):
            search.run(group)
            batch = search.fresh[:]
            search.fresh.clear()
            for path, key in batch:
                yield Successor(writer.turn(path), key)
        if _wants_transference(first_kind, system, color):
            yield from _transferred(state, search)
    finally:
        search.close()


class _Stop(Exception):
    pass


def each_successor(state: GameState, emit: Callable[[Successor], bool | None]) -> int:
    """Call ``emit`` with each distinct successor the moment the search finds it, in the
    order ``successors`` yields them; ``emit`` returning True stops the search. Only the
    positions' keys are held meanwhile, so a listing of a million turns prints them as it
    goes in bounded memory. Returns how many were emitted."""
    emitted = 0
    writer: TurnWriter | None = None

    def found(path: tuple, key: tuple) -> None:
        nonlocal emitted
        emitted += 1
        assert writer is not None
        if emit(Successor(writer.turn(path), key)):
            raise _Stop

    search = SuccessorSearch(state, keep_paths=True, on_found=found)
    writer = TurnWriter(search)
    try:
        for group in _groups(state, None):
            search.run(group)
        for succ in _transferred(state, search):
            emitted += 1
            if emit(succ):
                break
    except _Stop:
        pass
    finally:
        search.close()
    return emitted


def _groups(state: GameState, wanted: _Filter | None) -> Iterator[_Filter]:
    """Split the search by first action so that results come out early."""
    all_codes = wanted.codes if wanted is not None else frozenset(_CODE_OF.values())
    slots = range(len(state.systems)) if wanted is None or wanted.slot is None \
        else (wanted.slot,)
    color = wanted.color if wanted is not None else None
    for code in (PAS, CAT):
        if code in all_codes:
            yield _Filter(frozenset({code}), wanted.slot if wanted else None, color)
    for code in (CAP, MOV, DIS, BLD, TRD, SAC):
        if code not in all_codes:
            continue
        for slot in slots:
            yield _Filter(frozenset({code}), slot, color)


class TurnWriter:
    """Internal paths to actions with names; discoveries get fresh names."""

    def __init__(self, search: SuccessorSearch):
        snap = search.snap
        self.names = list(snap.names)
        taken = {n.casefold() for n in snap.names}
        self.fresh_names: list[str] = []
        n = 1
        while len(self.fresh_names) < 8:
            name = f"{_NAME_STEM}{n}"
            if name.casefold() not in taken:
                self.fresh_names.append(name)
            n += 1
        self.seats = snap.seats

    def turn(self, path: tuple) -> Turn:
        names = dict(enumerate(self.names))
        out: list[Action] = []
        used = 0
        for e in path:
            code = e[0]
            if code == CAT:
                out.append(Catastrophe(names[e[2]], Color(e[3])))
            elif code == SAC:
                out.append(Sacrifice(PIECES[e[3]], names[e[2]]))
            elif code == CAP:
                out.append(Capture(PIECES[e[3]], names[e[2]], e[4] if self.seats > 2 else None))
            elif code == MOV:
                out.append(Move(PIECES[e[3]], names[e[2]], names[e[4]]))
            elif code == DIS:
                new = self.fresh_names[used]
                used += 1
                names[e[5]] = new
                out.append(Discover(PIECES[e[3]], names[e[2]], PIECES[e[4]], new))
            elif code == BLD:
                out.append(Build(PIECES[e[3]], names[e[2]]))
            elif code == TRD:
                out.append(Trade(PIECES[e[3]], PIECES[e[4]], names[e[2]]))
            elif code == BRT:
                out.append(BrainTransference())
            else:
                out.append(Pass())
        return tuple(out)


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
"""

from __future__ import annotations

from collections.abc import Iterator
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
from homeworlds.rules.fast import PrimeTable, Snapshot, canonical_key, home_tag
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import GameState

__all__ = [
    "FIRST_KINDS",
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
CAT, SAC, CAP, MOV, DIS, BLD, TRD, PAS = range(8)

#: What ``first_kind`` accepts: the class of a turn's first non-catastrophe action;
#: ``Catastrophe`` selects turns of catastrophes only, ``Pass`` the whole-turn pass.
FIRST_KINDS = (Pass, Sacrifice, Capture, Move, Discover, Build, Trade, Catastrophe)
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
    """One successor enumeration from one position.

    ``results`` maps the exact product key of each distinct successor to the path
    that first reached it (None when paths are not kept); ``fresh`` lists the
    (path, canonical key) of results not yet handed out.
    """

    def __init__(self, state: GameState, keep_paths: bool = True,
                 win_targets: tuple[int, ...] | None = None):
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
        self.snap = Snapshot(state)
        self.keep_paths = keep_paths
        self.results: dict[int, tuple | None] = {}
        self.fresh: list[tuple[tuple, tuple]] = []
        #: Win mode: look only for a turn eliminating one of these seats, stop at the first.
        self.win_targets = win_targets
        self._build()

    def run(self, first: _Filter | None = None) -> None:
        self._node(False, -1, 0, False, False, 0, first)

    def find_win(self) -> tuple | None:
        """Win mode: the path of one eliminating turn, or None."""
        try:
            self._node(False, -1, 0, False, False, 0, None)
        except _Found as found:
            return found.path
        return None

    # The search is one set of closures over local state: in CPython, local and
    # closure variables are much faster than attribute access in the hot loops.
    def _build(self) -> None:
        state = self.state
        rules = state.rules
        snap = self.snap
        L = snap.layout
        cache = L._cache
        analyse = L.info
        without_color = L.without_color
        ship_count = L.ship_count
        me = state.to_move
        seats = snap.seats
        W = L.ship_weight[me]
        WALL = L.ship_weight
        SW = L.star_weight
        sigs = snap.sigs
        homes = snap.homes
        bank = snap.bank
        n0 = len(sigs)
        uids = list(range(n0))
        P = PrimeTable()
        eliminated = snap.eliminated
        timing = rules.catastrophe_timing
        cats_close = timing != "anytime"
        may_empty = rules.home_may_be_empty_midturn
        immediate = rules.elimination_check == "immediate"
        # Under immediate elimination a lost home ends the game on the spot, so the
        # end-of-turn checks (no suicide, the strict post-catastrophe check) never apply.
        self_elim_ok = rules.self_elimination_allowed or immediate
        post_check = rules.post_catastrophe_suicide_check and not immediate
        whole_pass = rules.whole_turn_pass
        prune_home = not self_elim_ok
        home_slot = [homes.index(s) if s in homes else -1 for s in range(seats)]
        my_home = home_slot[me]
        others = [s for s in range(seats)
                  if s != me and not eliminated[s] and home_slot[s] >= 0]
        results = self.results
        win_mode = self.win_targets is not None
        # Inside a sacrifice's run of builds the bank only shrinks, unless catastrophes
        # may happen mid-turn.
        bank_settled = rules.catastrophe_timing != "anytime"
        targets = [t for t in (self.win_targets or ()) if t in others]
        fresh = self.fresh
        keep = self.keep_paths
        path: list[tuple] = []
        newuid: dict[tuple, int] = {}
        # Under immediate elimination an action can end the game, so that actions which
        # otherwise commute cannot be reordered: the canonical order is switched off by
        # starting every run of commuting actions beyond the end of any path.
        no_reorder = 1 << 30 if immediate else 0

        def info(sig):
            got = cache.get(sig)
            return got if got is not None else analyse(sig)

        key = 1
        nover = 0
        for sig, home in zip(sigs, homes, strict=True):
            key *= P[home_tag(sig, home)]
            nover += len(info(sig).overpop)

        # ---- ending a turn -------------------------------------------------

        def final():
            """The current position as the end of the turn: record it if new and legal.

            The key is the board as the turn leaves it, homes still marked as homes even
            when their seat has just lost them (as the reference engine counts): two
            winning turns that leave different systems as the loser's former home are
            different successors."""
            k = key
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
                if inf.overpop and won():
                    # The strict engine refuses a win after which performing the pending
                    # overpopulations would also destroy the winner's home.
                    bad = 0
                    for c in inf.overpop:
                        bad |= 1 << c
                    if not (inf.star_colors & ~bad) or not (inf.colors[me] & ~bad):
                        return
            if k in results:
                return
            if keep:
                p = tuple(path)
                results[k] = p
                fresh.append((p, portable_key()))
            else:
                results[k] = None

        def final_win():
            """Win mode: stop the search if the current position ends a winning turn."""
            if my_home < 0:
                return
            hs = sigs[my_home]
            if not hs or not info(hs).count[me]:
                return  # eliminating yourself (even in a draw) is not a win
            for t in targets:
                ts = sigs[home_slot[t]]
                if not ts or not info(ts).count[t]:
                    break
            else:
                return
            if post_check:
                inf = info(hs)
                if inf.overpop:
                    bad = 0
                    for c in inf.overpop:
                        bad |= 1 << c
                    if not (inf.star_colors & ~bad) or not (inf.colors[me] & ~bad):
                        return
            raise _Found(tuple(path))

        def can_win(c, r, exact=False):
            """Could ``r`` more actions of colour ``c`` (-1: none) and catastrophes still
            eliminate a target? An optimistic bound, so pruning with it loses no win:
            every action adds at most one piece of one colour to a system, captures
            need red, and a catastrophe needs four pieces of its colour there."""
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
                    if tot[x] >= 4:
                        ready |= 1 << x
                if ready and (not stars & ~ready or not theirs & ~ready):
                    return True
                if r <= 0 or c < 0:
                    continue
                if c == 0:
                    n = 0
                    big = 0
                    for k in inf.kinds[t]:
                        if not ready >> (k // 3) & 1:
                            n += ship_count(sig, t, k)
                            if k % 3 + 1 > big:
                                big = k % 3 + 1
                    if n <= r and inf.largest[me] >= big:
                        return True
                    continue
                for need_colors in (theirs, stars):
                    cost = 0
                    for x in range(4):
                        if need_colors >> x & 1 and tot[x] < 4:
                            cost += supply_cost(c, x, 4 - tot[x], hs, inf, exact)
                            if cost > r:
                                break
                    if cost <= r:
                        return True
            return False

        def supply_cost(c, x, d, hs, inf, exact_bank):
            """Fewest actions of colour c that can add d pieces of colour x at system hs."""
            lo = 3 * x
            if c == 2:
                # Builds need a ship of that colour there already; the bank only counts
                # once the sacrifice is made and when no catastrophe can refill it.
                if not inf.colors[me] >> x & 1:
                    return 99
                if exact_bank and bank[lo] + bank[lo + 1] + bank[lo + 2] < d:
                    return 99
                return d
            if c == 3:
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

        def won():
            for s in others:
                hs = sigs[home_slot[s]]
                if not hs or not info(hs).count[s]:
                    return True
            return False

        def portable_key():
            home_sigs = [None] * seats
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

        def game_ended():
            """Immediate elimination: has a seat lost its home at this moment?"""
            if my_home < 0:
                return True
            hs = sigs[my_home]
            if not hs or not info(hs).count[me]:
                return True
            for s in others:
                hs = sigs[home_slot[s]]
                if not hs or not info(hs).count[s]:
                    return True
            return False

        def need_home():
            """Strict rules: your home has lost its last ship of yours (so far)."""
            if my_home < 0:
                return True
            hs = sigs[my_home]
            return not hs or not info(hs).count[me]

        # ---- system bookkeeping -------------------------------------------

        def kill(i):
            """System i leaves the board: everything in it returns to the bank."""
            nonlocal key, nover
            sig = sigs[i]
            inf = info(sig)
            for k in inf.stars:
                bank[k] += 1
            if inf.ships:
                for s in range(seats):
                    for k in inf.kinds[s]:
                        bank[k] += ship_count(sig, s, k)
            key //= P[sig * 8 + homes[i] + 1]
            nover -= len(inf.overpop)
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

        def cat_effect(sig, c):
            """A catastrophe of colour c at a system: (new signature, pieces returned to
            the bank as (kind, count) pairs, stars left?, ships left?)."""
            got = cat_cache.get(sig * 4 + c)
            if got is None:
                inf = info(sig)
                back: dict[int, int] = {}
                for k in inf.stars:
                    if k // 3 == c:
                        back[k] = back.get(k, 0) + 1
                for s in range(seats):
                    for k in inf.kinds[s]:
                        if k // 3 == c:
                            back[k] = back.get(k, 0) + ship_count(sig, s, k)
                new = without_color(sig, c)
                ni = info(new)
                got = (new, tuple(back.items()), bool(ni.stars), bool(ni.ships))
                cat_cache[sig * 4 + c] = got
            return got

        def apply_cat(i, c):
            """Perform a catastrophe; False if the rules forbid it (the caller undoes)."""
            new, back, stars_left, ships_left = cat_effect(sigs[i], c)
            for k, n in back:
                bank[k] += n
            setsig(i, new)
            if not stars_left:
                kill(i)  # the star is gone: the ships go with it
                return True
            if not ships_left:
                return fade_rule(i)
            return True

        # After the turn's actions (and under "ends"/"after" timing, after any
        # catastrophe once the turn's action is taken) only catastrophes remain, and
        # which positions they reach depends on the position alone: each position's
        # catastrophes are enumerated once.
        expanded: set[int] = set()

        def post_cats():
            if not nover or key in expanded:
                return
            expanded.add(key)
            pairs = []
            for i in range(len(sigs)):
                sig = sigs[i]
                if sig:
                    for c in info(sig).overpop:
                        pairs.append((i, c))
            cat_subsets(pairs, 0)

        def cat_subsets(pairs, start):
            nonlocal key, nover
            for j in range(start, len(pairs)):
                i, c = pairs[j]
                sig = sigs[i]
                if not sig:
                    continue  # an earlier catastrophe destroyed the system
                k0, nv0, b0 = key, nover, bank[:]
                if apply_cat(i, c):
                    path.append((CAT, uids[i] * 4 + c, i, c))
                    final()
                    cat_subsets(pairs, j + 1)
                    path.pop()
                sigs[i] = sig
                key, nover = k0, nv0
                bank[:] = b0

        def setsig(i, new):
            nonlocal key, nover
            old = sigs[i]
            h = homes[i] + 1
            key = key // P[old * 8 + h] * P[new * 8 + h]
            nover += len(info(new).overpop) - len(info(old).overpop)
            sigs[i] = new

        # ---- the tree of partial turns ------------------------------------

        def node(free_used, sac_color, sac_left, closed, passed, seq_start, first):
            """Explore every continuation of the current partial turn.

            ``seq_start``: index in ``path`` where the current run of possibly commuting
            actions begins. ``first``: a filter on the turn's first non-catastrophe action
            (only before that action is taken).
            """
            nonlocal key, nover
            if win_mode and free_used:
                left = 0 if closed or passed else sac_left
                if not can_win(sac_color if left else -1, left, bank_settled):
                    return
            if nover and (timing != "after" or free_used or passed):
                if cats_close and free_used and not passed and not immediate:
                    post_cats()
                else:
                    catastrophes(free_used, sac_color, sac_left, closed, passed, seq_start,
                                 first)
            if passed or closed:
                return
            if not free_used:
                if not path and whole_pass and (first is None or PAS in first.codes
                                                or CAT in first.codes and timing == "after"):
                    path.append((PAS, 0))
                    if first is None or PAS in first.codes:
                        final()
                    if timing == "after" and nover:
                        # Under "after" timing, a pass is what allows catastrophes alone.
                        node(True, -1, 0, False, True, len(path), first)
                    path.pop()
                home_needed = prune_home and need_home()
                base = len(path) + no_reorder
                if win_mode:
                    hopeful = [can_win(c, 1) for c in range(4)]
                    largest = [0, 0, 0, 0]
                    for sig in sigs:
                        if sig:
                            for p in info(sig).kinds[me]:
                                largest[p // 3] = max(largest[p // 3], p % 3 + 1)
                    sac_hopeful = [largest[c] and can_win(c, largest[c]) for c in range(4)]
                for i in range(len(sigs)):
                    sig = sigs[i]
                    if not sig:
                        continue
                    inf = info(sig)
                    if not inf.count[me]:
                        continue
                    access = inf.star_colors | inf.colors[me]
                    for c in ((1,) if home_needed else (0, 1, 2, 3)):
                        if not access >> c & 1 or win_mode and not hopeful[c]:
                            continue
                        if first is None:
                            power(c, i, 0, base, 3)
                        elif c == 1:
                            allow = ((1 if first.wants(MOV, i, 1) else 0)
                                     | (2 if first.wants(DIS, i, 1) else 0))
                            if allow:
                                power(1, i, 0, base, allow)
                        elif first.wants(_FREE_CODES[c][0], i, c):
                            power(c, i, 0, base, 3)
                for i in range(len(sigs)):
                    sig = sigs[i]
                    if not sig:
                        continue
                    inf = info(sig)
                    if not inf.count[me]:
                        continue
                    for p in inf.kinds[me]:
                        c = p // 3
                        if first is not None and not first.wants(SAC, i, c):
                            continue
                        if home_needed and c != 1 or win_mode and not sac_hopeful[c]:
                            continue
                        sacrifice(i, sig, p)
            elif sac_left > 0:
                if prune_home and sac_color != 1 and need_home():
                    return  # only a yellow action could still bring a ship home
                power(sac_color, -1, sac_left, seq_start, 3)

        def catastrophes(free_used, sac_color, sac_left, closed, passed, seq_start, first):
            nonlocal key, nover
            cats_only = not free_used or (passed and path[0][0] == PAS)
            for i in range(len(sigs)):
                sig = sigs[i]
                if not sig:
                    continue
                inf = info(sig)
                if not inf.overpop:
                    continue
                for c in inf.overpop:
                    order = uids[i] * 4 + c
                    # Catastrophes in different systems commute: one order only.
                    ok = True
                    j = len(path) - 1
                    while j >= no_reorder:
                        a = path[j]
                        if a[0] != CAT or a[2] == i:
                            break
                        if order < a[1]:
                            ok = False
                            break
                        j -= 1
                    if not ok:
                        continue
                    k0, nv0, b0 = key, nover, bank[:]
                    if apply_cat(i, c):
                        path.append((CAT, order, i, c))
                        # A turn of catastrophes only is kept unless the filter wants other turns.
                        if not (cats_only and first is not None and not cats_match(first)):
                            final()
                        if not (immediate and game_ended()):
                            node(free_used, sac_color, sac_left,
                                 closed or (cats_close and free_used), passed, seq_start, first)
                        path.pop()
                    sigs[i] = sig
                    key, nover = k0, nv0
                    bank[:] = b0

        def cats_match(first):
            if CAT not in first.codes:
                return False
            for a in path:
                if a[0] == CAT and (first.slot is None or a[2] == first.slot) and (
                        first.color is None or a[3] == first.color):
                    return True
            return False

        def sacrifice(i, sig, p):
            nonlocal key, nover
            c = p // 3
            new = sig - W[p]
            ni = info(new)
            if prune_home and i == my_home and not ni.count[me] and c != 1:
                return  # your home would lose its last ship and only yellow brings one back
            k0, nv0 = key, nover
            setsig(i, new)
            bank[p] += 1
            legal = True
            if not ni.ships:
                legal = fade_rule(i)
            if legal:
                path.append((SAC, 0, i, p))
                if immediate and game_ended():
                    final()
                else:
                    final()
                    node(True, c, p % 3 + 1, False, False, len(path) + no_reorder, None)
                path.pop()
            if not sigs[i]:
                for k in ni.stars:
                    bank[k] -= 1
            sigs[i] = sig
            bank[p] -= 1
            key, nover = k0, nv0

        def after_action(color, sac_left, seq_start):
            """The current position ends the turn, or the turn goes on."""
            if immediate and game_ended():
                final()
                return
            final()
            if sac_left > 1:
                node(True, color, sac_left - 1, False, False, seq_start, None)
            elif nover:
                node(True, color, 0, False, False, seq_start, None)

        def power(color, where, sac_left, seq_start, allow):
            """Every action of ``color`` at ``where`` (free) or anywhere (sacrifice, -1)."""
            if color == 1:
                yellow(where, sac_left, seq_start, allow)
            elif color == 0:
                red(where, sac_left, seq_start)
            elif color == 2:
                green(where, sac_left, seq_start)
            else:
                blue(where, sac_left, seq_start)

        def red(where, sac_left, seq_start):
            nonlocal key, nover
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
                        # Captures always commute: keep them in non-decreasing order.
                        if len(path) > seq_start and path[-1][0] == CAP and order < path[-1][1]:
                            continue
                        k0, nv0 = key, nover
                        setsig(i, sig - wv[p] + W[p])
                        path.append((CAP, order, i, p, v))
                        after_action(0, sac_left, seq_start)
                        path.pop()
                        sigs[i] = sig
                        key, nover = k0, nv0

        def green(where, sac_left, seq_start):
            nonlocal key, nover
            for i in (range(len(sigs)) if where < 0 else (where,)):
                sig = sigs[i]
                if not sig:
                    continue
                cm = info(sig).colors[me]
                if not cm:
                    continue
                uid = uids[i]
                for c in range(4):
                    if not cm >> c & 1:
                        continue
                    lo = c * 3
                    if bank[lo]:
                        p = lo
                    elif bank[lo + 1]:
                        p = lo + 1
                    elif bank[lo + 2]:
                        p = lo + 2
                    else:
                        continue
                    order = uid * 4 + c
                    # Builds of different colours commute.
                    ok = True
                    j = len(path) - 1
                    while j >= seq_start:
                        a = path[j]
                        if a[0] != BLD or a[3] // 3 == c:
                            break
                        if order < a[1]:
                            ok = False
                            break
                        j -= 1
                    if not ok:
                        continue
                    k0, nv0 = key, nover
                    setsig(i, sig + W[p])
                    bank[p] -= 1
                    path.append((BLD, order, i, p))
                    after_action(2, sac_left, seq_start)
                    path.pop()
                    bank[p] += 1
                    sigs[i] = sig
                    key, nover = k0, nv0

        def blue(where, sac_left, seq_start):
            nonlocal key, nover
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
                        # Trades that share no piece kind commute.
                        ok = True
                        j = len(path) - 1
                        while j >= seq_start:
                            a = path[j]
                            if a[0] != TRD or a[3] == p or a[3] == q or a[4] == p or a[4] == q:
                                break
                            if order < a[1]:
                                ok = False
                                break
                            j -= 1
                        if not ok:
                            continue
                        k0, nv0 = key, nover
                        setsig(i, sig - W[p] + W[q])
                        bank[p] += 1
                        bank[q] -= 1
                        path.append((TRD, order, i, p, q))
                        after_action(3, sac_left, seq_start)
                        path.pop()
                        bank[p] -= 1
                        bank[q] += 1
                        sigs[i] = sig
                        key, nover = k0, nv0

        def yellow(where, sac_left, seq_start, allow):
            """Moves and discoveries. Two of them commute unless one's destination is
            the other's origin, one creates the system the other enters, or one may
            return to the bank (by fading its origin) a star kind the other discovers."""
            nonlocal key, nover
            only_home = prune_home and sac_left <= 1 and need_home()
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
                inf = (cache.get(sig) or analyse(sig))
                kinds = inf.kinds[me]
                if not kinds:
                    continue
                smask = inf.size_mask
                prod = inf.star_mask
                ui = uids[i]
                hi = homes[i] + 1
                for p in kinds:
                    new = sig - W[p]
                    ni = (cache.get(new) or analyse(new))
                    empties = not ni.ships
                    if empties and not may_empty and homes[i] == me:
                        continue  # emptying your own home is suicide under these rules
                    fades = empties and (hi == 0 or not may_empty)
                    base_order = (ui * 16 + p) << 24
                    # -- to an existing system --
                    for j, dmask in (dests if allow & 1 else ()):
                        if dmask & smask or j == i:
                            continue
                        if only_home and j != my_home:
                            continue
                        uj = uids[j]
                        order = base_order | uj
                        ok = True
                        q = len(path) - 1
                        while q >= seq_start:
                            a = path[q]
                            code = a[0]
                            if code == MOV:
                                if a[7] == ui or a[6] == uj:
                                    break
                            elif code == DIS:
                                if (a[8] == ui or a[8] == uj or a[7] == uj
                                        or (1 << a[4]) & prod):
                                    break
                            else:
                                break
                            if order < a[1]:
                                ok = False
                                break
                            q -= 1
                        if not ok:
                            continue
                        k0, nv0 = key, nover
                        sj = sigs[j]
                        hj = homes[j] + 1
                        nj = sj + W[p]
                        if fades:
                            key = key // P[sig * 8 + hi] // P[sj * 8 + hj] * P[nj * 8 + hj]
                            nover += (len((cache.get(nj) or analyse(nj)).overpop) - len((cache.get(sj) or analyse(sj)).overpop)
                                      - len(inf.overpop))
                            sigs[i] = 0
                            for k in ni.stars:
                                bank[k] += 1
                        else:
                            key = (key // P[sig * 8 + hi] // P[sj * 8 + hj]
                                   * P[new * 8 + hi] * P[nj * 8 + hj])
                            nover += (len((cache.get(nj) or analyse(nj)).overpop) - len((cache.get(sj) or analyse(sj)).overpop)
                                      + len(ni.overpop) - len(inf.overpop))
                            sigs[i] = new
                        sigs[j] = nj
                        path.append((MOV, order, i, p, j, prod, ui, uj))
                        after_action(1, sac_left, seq_start)
                        path.pop()
                        sigs[i] = sig
                        sigs[j] = sj
                        if fades:
                            for k in ni.stars:
                                bank[k] -= 1
                        key, nover = k0, nv0
                    if only_home or not allow & 2:
                        continue
                    # -- to a new system, its star from the bank --
                    for k in range(12):
                        if not bank[k] or smask >> (k % 3) & 1:
                            continue
                        cons = 1 << k
                        order = base_order | (1 << 23) | k
                        ok = True
                        q = len(path) - 1
                        while q >= seq_start:
                            a = path[q]
                            code = a[0]
                            if code == MOV:
                                if a[7] == ui or a[5] & cons:
                                    break
                            elif code == DIS:
                                if a[8] == ui or a[6] & cons or (1 << a[4]) & prod:
                                    break
                            else:
                                break
                            if order < a[1]:
                                ok = False
                                break
                            q -= 1
                        if not ok:
                            continue
                        occ = 0
                        for a in path:
                            if a[1] == order and a[0] == DIS:
                                occ += 1
                        label = (order, occ)
                        nu = newuid.get(label)
                        if nu is None:
                            nu = newuid[label] = n0 + len(newuid)
                        k0, nv0 = key, nover
                        nsig = SW[k] + W[p]
                        bank[k] -= 1
                        if fades:
                            key = key // P[sig * 8 + hi] * P[nsig * 8]
                            nover -= len(inf.overpop)
                            sigs[i] = 0
                            for s in ni.stars:
                                bank[s] += 1
                        else:
                            key = key // P[sig * 8 + hi] * P[new * 8 + hi] * P[nsig * 8]
                            nover += len(ni.overpop) - len(inf.overpop)
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
                        sigs[i] = sig
                        if fades:
                            for s in ni.stars:
                                bank[s] -= 1
                        bank[k] += 1
                        key, nover = k0, nv0

        if win_mode:
            final = final_win  # noqa: F841 — the closures above call it by this name
        self._node = node


def _filter(state: GameState, first_kind: type | None, system: str | None,
            color: Color | int | None) -> _Filter | None:
    if first_kind is None and system is None and color is None:
        return None
    if first_kind is None:
        codes = frozenset(_CODE_OF.values())
    elif first_kind in _CODE_OF:
        codes = frozenset({_CODE_OF[first_kind]})
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
    search.run()
    return len(search.results)


def successor_keys(state: GameState) -> set[tuple]:
    """The canonical keys of every successor."""
    search = SuccessorSearch(state, keep_paths=True)
    search.run()
    return {key for _, key in search.fresh}


def successors(state: GameState, *, first_kind: type | None = None, system: str | None = None,
               color: Color | int | None = None) -> Iterator[Successor]:
    """Yield one ``Successor(turn, key)`` per distinct position one legal turn reaches.

    Filters select turns by their first non-catastrophe action: ``first_kind`` its
    class (``Move``, ``Sacrifice``, ... ``Pass``; ``Catastrophe`` for turns of
    catastrophes only), ``system`` where it happens (a move's origin), ``color`` the
    colour of power it uses (a sacrifice: the sacrificed ship's colour). A position
    reachable by several turns is yielded once, with the first turn found.

    The search runs lazily, one group of first actions (a kind at a system) at a time.
    """
    search = SuccessorSearch(state, keep_paths=True)
    writer = TurnWriter(search)
    wanted = _filter(state, first_kind, system, color)
    for group in _groups(state, wanted):
        search.run(group)
        batch = search.fresh[:]
        search.fresh.clear()
        for path, key in batch:
            yield Successor(writer.turn(path), key)


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
            else:
                out.append(Pass())
        return tuple(out)


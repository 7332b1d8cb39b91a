"""The computer's top level: iterative-deepening alpha-beta on the successor generator.

How a move is chosen (docs/computer-opponent.md, *Level 4*):

1. a win-in-one is played at once;
2. the root's candidate turns (every free-action turn, then sacrifice groups while an
   estimate budget and the clock last) are scored by ``SearchEvaluator`` and searched
   best first, one iteration deeper each time (1, 2, 3 ... plies), every iteration in
   the order the previous one left; the best turn of the last iteration (or of the
   unfinished one, once it has beaten the previous best) is played;
3. inside the tree every node first asks for a win-in-one of the player to move (this
   is both the safety check — a turn that lets the opponent win loses — and the
   detection of two-turn kills: a turn after which every reply still leaves a win),
   then searches its best few successors by the evaluation (more of them when all the
   ones looked at lose: a defence ranked low by the evaluation is still found); in the
   two plies below the root a node's successors also hold the sacrifice group of a
   turn that takes the other's ships (found by the engine's targeted search), so that
   a sacrifice-driven catastrophe is searched in its best version;
   the last ply is scored from the successors' keys without building positions;
4. a transposition table keeps each position's best successor for ordering;
5. when ahead, a turn back into a position already seen in the game is penalised, so
   a won game is not shuttled into a draw by repetition.

Every loop, successor enumeration included (group by group), checks one ``Budget``: a
deadline on a monotonic clock (the whole move: search, replies, safety checks) and,
for reproducible runs, an optional node count. The search is anytime: when the budget
runs out it returns the best turn found so far, never nothing.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from homeworlds.ai.candidates import ESTIMATE_PER_SECOND, FREE_KINDS, sacrifice_groups
from homeworlds.ai.evaluate import RED, WIN, SearchEvaluator, outcome_score
from homeworlds.ai.threats import forced_win_in_two
from homeworlds.ai.wins import home_stars_out_of_reach, immediate_win
from homeworlds.rules import (
    Capture,
    Catastrophe,
    GameState,
    Sacrifice,
    SearchInterrupted,
    Successor,
    Turn,
    canonical_key,
    find_home_star_turn,
    find_material_turn,
    successors,
)

INF = 4 * WIN
#: Scores at or beyond this are wins or losses found by the search.
DECIDED = WIN / 2


class SearchTimeout(Exception):
    """Raised inside the search when the move's budget is spent (caught at the root)."""


@dataclass(frozen=True, slots=True)
class SearchProgress:
    """What the search has done so far (handed to ``choose_turn``'s ``progress``)."""

    #: Deepest iteration completed (plies; 0 while the first is running).
    depth: int
    #: Positions searched so far.
    nodes: int
    #: The turn that would be played if time ran out now (None before the first).
    best_turn: Turn | None
    #: Its score in pips for the player to move (``WIN`` and more: a forced win found).
    score: float
    #: Seconds since the move started.
    elapsed: float


class Budget:
    """The limits of one move: a deadline on ``clock`` and optionally a node count.

    ``clock`` is injectable (tests drive it by hand); ``expired`` is what every loop
    of the search asks."""

    def __init__(self, time_limit: float, clock: Callable[[], float] = time.monotonic,
                 node_limit: int | None = None):
        self.clock = clock
        self.started = clock()
        self.deadline = self.started + time_limit
        self.node_limit = node_limit
        self.nodes = 0
        #: How many times the deadline was consulted (tests check that it is).
        self.checks = 0
        #: Win-in-one searches cut short (by the deadline or their own cap).
        self.interrupted = 0

    def expired(self) -> bool:
        self.checks += 1
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        return self.clock() >= self.deadline

    def check(self) -> None:
        if self.expired():
            raise SearchTimeout

    def elapsed(self) -> float:
        return self.clock() - self.started

    def fits(self, estimate: int) -> bool:
        """Whether a successor group of this estimate (``candidates.sacrifice_groups``)
        fits in the time left: groups are never cut halfway, so one too big for it is
        left out rather than overrun the deadline."""
        return estimate <= (self.deadline - self.clock()) * ESTIMATE_PER_SECOND / 2


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How the search player spends its time."""

    #: Seconds for the whole move (default for the level; ``time_limit`` overrides).
    time_limit: float
    #: Deepest iteration, in plies.
    max_depth: int = 6
    #: Root turns searched at iteration depth 2, 3, 4 ... (the last repeats).
    root_widths: tuple[int, ...] = (24, 10, 6)
    #: Successors searched at an inner node by depth left 2, 3, ... (the last repeats).
    inner_widths: tuple[int, ...] = (10, 6)
    #: Root turns checked for a win-in-one handed to the opponent before the search.
    safety_checks: int = 200
    #: Seconds one win-in-one search may take before it is given up as "no win": for
    #: those safety checks, and inside the tree.
    root_win_cap: float = 0.15
    inner_win_cap: float = 0.03
    #: Each node's successors include a turn destroying a star of the other's home when
    #: there is one, found by the engine's targeted search even in a sacrifice group too
    #: big to list (the "big yellow sacrifice" threat on a home).
    home_star_threats: bool = True
    #: In the first ``threat_plies`` plies below the root (the opponent's replies to the
    #: root's turns, and our answers to them) a node's successors also hold the whole
    #: sacrifice group (system, colour) of a turn taking at least ``threat_pips`` of the
    #: other's ships, found by the engine's targeted search, when the listing left it out
    #: and its estimate is at most ``threat_estimate`` (0: off). The sacrifice-driven
    #: catastrophe on a crowded system is often the sharpest answer to a turn and lies in
    #: a yellow sacrifice group too big for ``reply_estimate``; the whole group, not the
    #: one turn found, so that the search meets the best version of it (the turn found
    #: first may be one the search then refutes). Both sides: with the opponent's threats
    #: only, the search saw every danger and none of its own answers, and played
    #: timidly (docs/computer-opponent.md, *Tuning*).
    threat_plies: int = 2
    threat_estimate: int = 8_000
    threat_pips: int = 3
    #: When every successor looked at loses, up to this many times the width more are
    #: tried (each first checked cheaply for an immediate loss).
    widen_factor: int = 6
    #: Sacrifice groups enumerated, in units of ``candidates.sacrifice_groups``'
    #: estimate, at the root and at inner nodes (free-action turns are always all there).
    root_estimate: int = 8_000
    inner_estimate: int = 200
    #: ... and at the replies to the root's turns (the opponent's big sacrifices are
    #: its sharpest answers).
    reply_estimate: int = 1_500
    #: Ahead by at least this many pips (even counts), a turn back into a position seen
    #: before in the game costs ``repeat_base`` plus ``repeat_share`` of the lead (up to
    #: ``repeat_cap``): Homeworlds has no draw by repetition, so a cycle never ends.
    repeat_ahead: float = 0.0
    repeat_base: float = 2.0
    repeat_share: float = 0.5
    repeat_cap: float = 25.0
    #: Share of the move's time spent looking for a forced win in two (a turn after which
    #: every reply leaves a win-in-one, ``ai.threats.forced_win_in_two``) among the root's
    #: turns before the search; 0: not looked for (the search alone finds about half of
    #: them, docs/analysis.md).
    forced_win_share: float = 0.35


class _CollectorPaused:
    """Keep Python's cyclic garbage collector off the objects that were there before the
    move, for the move's duration.

    A collection during the move then looks only at what the move allocates: with the
    search's successor lists kept from move to move, every full collection walked half a
    million objects and took 0.8-1.7 s of a 1.8 s move (docs/computer-opponent.md,
    *Time*). Those lists are now emptied after each move, and the engine's searches
    leave no cycles (``SuccessorSearch.close``); freezing keeps the rest of the process
    (the table's own objects) out of the move's collections. Everything is given back to
    the collector when the move ends, so nothing is kept from it for good."""

    def __enter__(self) -> None:
        gc.freeze()

    def __exit__(self, *exc) -> None:
        gc.unfreeze()


def _win_now(state: GameState, budget: Budget, cap: float) -> bool:
    """Can the player to move win at once? A few busy positions make the engine's win
    search take a second or more: after ``cap`` seconds it is given up and taken as no
    (the evaluation's threat terms still count the catastrophes in reach); at the move's
    deadline it raises ``SearchTimeout``."""
    return _targeted(state, budget, cap, immediate_win) is not None


def _home_star_hit(state: GameState, budget: Budget, cap: float) -> Successor | None:
    """A turn of the player to move that destroys a star of the other's home, as a
    successor, or None (also when given up after ``cap`` seconds, as ``_win_now``).

    Such turns are usually a big yellow sacrifice moving three ships in, one group of
    tens of thousands of turns that the search cannot list at every node; the engine's
    targeted search finds one in milliseconds."""
    turn = _targeted(state, budget, cap, _find_home_star_turn)
    return None if turn is None else _successor(state, turn)


def _successor(state: GameState, turn: Turn) -> Successor:
    """One turn found outside the listing (a targeted search), as a successor."""
    after = state.copy()
    after.apply_turn(turn)
    return Successor(turn, canonical_key(after))


def _find_home_star_turn(state: GameState, should_stop: Callable[[], bool]) -> Turn | None:
    if state.result is not None or state.in_setup or home_stars_out_of_reach(
            state, 1 - state.to_move):
        return None
    return find_home_star_turn(state, should_stop=should_stop)


def _targeted(state: GameState, budget: Budget, cap: float,
              finder: Callable[[GameState, Callable[[], bool]], Turn | None]) -> Turn | None:
    clock = budget.clock
    give_up = clock() + cap
    gave_up = False

    def should_stop() -> bool:
        nonlocal gave_up
        if budget.expired():
            return True
        gave_up = clock() >= give_up
        return gave_up

    try:
        return finder(state, should_stop)
    except SearchInterrupted:
        budget.interrupted += 1
        if gave_up:
            return None
        raise SearchTimeout from None


class _SacrificeListing:
    """Which sacrifice groups an inner node lists: every red group (captures, the
    sharpest threats) that fits, then the other groups smallest estimate first until one
    does not fit. A group fits when the estimates listed stay within ``estimate_cap`` and
    its own estimate fits the time left (``Budget.fits``, asked as the listing goes)."""

    def __init__(self, state: GameState, budget: Budget, estimate_cap: int):
        #: (system, colour, estimate) of every group, red first, then smallest first
        self.groups = sorted(sacrifice_groups(state), key=lambda g: (g[1] != RED, g[2]))
        #: (system, colour) of the groups taken so far
        self.listed: set[tuple[str, int]] = set()
        self._budget = budget
        self._cap = estimate_cap
        self._used = 0

    def red(self) -> Iterator[tuple[str, int]]:
        for name, color, estimate in self.groups:
            if color != RED:
                return
            if self._take(name, color, estimate):
                yield name, color

    def others(self) -> Iterator[tuple[str, int]]:
        for name, color, estimate in self.groups:
            if color == RED:
                continue
            if not self._take(name, color, estimate):
                return
            yield name, color

    def complete(self) -> bool:
        return len(self.listed) == len(self.groups)

    def estimate(self, group: tuple[str, int]) -> int | None:
        return next((e for name, color, e in self.groups if (name, color) == group), None)

    def _take(self, name: str, color: int, estimate: int) -> bool:
        if self._used + estimate > self._cap or not self._budget.fits(estimate):
            return False
        self._used += estimate
        self.listed.add((name, color))
        return True


def _width(widths: tuple[int, ...], index: int) -> int:
    return widths[min(index, len(widths) - 1)]


def _by_distance(value: float, ply: int) -> float:
    """A decided ``value`` as a win (or loss) ``ply`` plies away, so nearer wins score
    higher; an undecided one as it is."""
    if value >= DECIDED:
        return WIN - ply
    if value <= -DECIDED:
        return -(WIN - ply)
    return value


def _table_value(entry: tuple, depth: int, alpha: float, beta: float) -> float | None:
    """The transposition table's value for a node searched ``depth`` deep, when the
    entry (depth, value, flag: 0 exact, 1 lower bound, -1 upper bound, best key) decides
    it within (alpha, beta); None to search it."""
    e_depth, e_value, e_flag, _ = entry
    if e_depth >= depth:
        if e_flag == 0 or (e_flag > 0 and e_value >= beta) or (e_flag < 0 and e_value <= alpha):
            return e_value
    return None


def _best_known_first(scored: list[tuple[float, Successor]], best_key: tuple
                      ) -> list[tuple[float, Successor]]:
    """``scored`` with the successor the table found best (key ``best_key``) moved first."""
    first = [p for p in scored if p[1].key == best_key]
    if first and first[0] is not scored[0]:
        scored = scored[:]
        scored.remove(first[0])
        scored.insert(0, first[0])
    return scored


class SearchPlayer:
    """The search. ``ComputerPlayer`` at the top level drives one of these.

    ``seed``: ties between equal turns are broken by a seeded generator. ``clock`` and
    ``node_limit``: see ``Budget`` (with a node limit and a generous time limit the
    player is deterministic). The player remembers the positions of the game it is
    playing (a new game is noticed when the ply count goes back), so that it can avoid
    repeating them when ahead; ``choose_turn(..., history=...)`` can pass them instead.
    """

    def __init__(self, settings: SearchSettings, seed: int | None = None,
                 clock: Callable[[], float] = time.monotonic, node_limit: int | None = None):
        self.settings = settings
        self.rng = random.Random(seed)
        self.clock = clock
        self.node_limit = node_limit
        self._evaluators: dict[str, SearchEvaluator] = {}
        self._seen: dict[tuple, int] = {}
        self._last_ply = -1
        self._table: dict[tuple, tuple] = {}
        self._expansions: dict[tuple, list[tuple[float, Successor]]] = {}
        #: The last move's budget (for tests and the benchmark).
        self.last_budget: Budget | None = None
        self.last_stats: dict[str, float] = {}

    def evaluator(self, state: GameState) -> SearchEvaluator:
        got = self._evaluators.get(state.rules.name)
        if got is None:
            got = self._evaluators[state.rules.name] = SearchEvaluator(state.rules,
                                                                       state.players)
        return got

    # ---- the game's positions, for repetition -------------------------------------

    def remember(self, state: GameState) -> None:
        """Count ``state`` as seen in the current game."""
        key = (canonical_key(state), state.to_move)
        self._seen[key] = self._seen.get(key, 0) + 1

    def _note_game(self, state: GameState, history: Iterable[GameState] | None) -> bool:
        """Remember ``state`` as a position of the game; True when it starts a new one."""
        new_game = state.ply <= self._last_ply
        if history is not None:
            self._seen = {}
            for earlier in history:
                self.remember(earlier)
        elif new_game:
            self._seen = {}  # a new game (or a take-back): forget the old positions
        self._last_ply = state.ply
        self.remember(state)
        return new_game

    # ---- the move -----------------------------------------------------------------

    def choose_turn(self, state: GameState, time_limit: float | None = None,
                    progress: Callable[[SearchProgress], None] | None = None,
                    history: Iterable[GameState] | None = None) -> Turn:
        """The turn to play in ``state`` (after setup, not over, two players)."""
        limit = self.settings.time_limit if time_limit is None else time_limit
        budget = Budget(limit, self.clock, self.node_limit)
        self.last_budget = budget
        if self._note_game(state, history) or len(self._table) > 200_000:
            self._table.clear()
        with _CollectorPaused():
            try:
                turn = self._search(state, budget, progress)
            finally:
                # Kept for the iterations of one move only: half a million objects
                # after thirty moves otherwise (and collector pauses, see above).
                self._expansions.clear()
        after = state.copy()
        after.apply_turn(turn)
        self.remember(after)
        self.last_stats["seconds"] = budget.elapsed()
        self.last_stats["nodes"] = float(budget.nodes)
        return turn

    def _static_scores(self, root: list[Successor], evaluator, me: int, penalty: float,
                       budget: Budget) -> tuple[list[Successor], dict[tuple, float]]:
        """Each root turn's static score for ``me`` (a tiny random tie-break; a turn that
        repeats an earlier position costs ``penalty``), and the turns scored before time
        ran out (the free turns come first, the rest go)."""
        static: dict[tuple, float] = {}
        for n, succ in enumerate(root):
            if n and n % 64 == 0 and budget.expired():
                root = root[:n]
                break
            score = evaluator.score_key(succ.key, me, 1 - me) + self.rng.random() * 1e-3
            static[succ.key] = score - (penalty if self._repeats(succ, me) else 0.0)
        return root, static

    def _search(self, state: GameState, budget: Budget,
                progress: Callable[[SearchProgress], None] | None) -> Turn:
        self.last_stats = {}
        win = self._win_in_one(state, budget, progress)
        if win is not None:
            return win
        root = self._expand(state, budget, self.settings.root_estimate, at_root=True)
        if not root:
            raise ValueError("no legal turn in this position")
        forced = self._forced_win(state, root, budget)
        if forced is not None:
            self.last_stats["forced_win"] = 1.0
            if progress is not None:
                progress(SearchProgress(2, budget.nodes, forced, WIN - 2, budget.elapsed()))
            return forced
        return self._deepen(state, root, budget, progress)

    def _win_in_one(self, state: GameState, budget: Budget,
                    progress: Callable[[SearchProgress], None] | None) -> Turn | None:
        try:
            win = immediate_win(state, budget.expired)
        except SearchInterrupted:
            budget.interrupted += 1
            return None  # out of time already: the static best is played
        if win is not None:
            self.last_stats["win_in_one"] = 1.0
            if progress is not None:
                progress(SearchProgress(1, 1, win, WIN, budget.elapsed()))
        return win

    def _deepen(self, state: GameState, root: list[Successor], budget: Budget,
                progress: Callable[[SearchProgress], None] | None) -> Turn:
        """Iterative deepening over the root's turns (the module doc, steps 2-5)."""
        me = state.to_move
        evaluator = self.evaluator(state)
        here = evaluator.score_key(canonical_key(state), me, me)
        penalty = self._repeat_penalty(here)
        root, static = self._static_scores(root, evaluator, me, penalty, budget)
        order = sorted(root, key=lambda s: -static[s.key])
        order = self._safe_first(state, order, static, budget)
        best, best_score, depth_done = order[0], static[order[0].key], 1
        self.last_stats["candidates"] = float(len(root))
        if progress is not None:
            progress(SearchProgress(1, budget.nodes, best.turn, best_score, budget.elapsed()))
        for depth in range(2, self.settings.max_depth + 1):
            if best_score >= DECIDED or budget.expired():
                break
            scores: dict[tuple, float] = {}
            try:
                found, found_score = self._root(state, order, depth, budget, scores, penalty)
            except SearchTimeout:
                found, found_score = self._partial_best(order, scores)
                if found is not None and found_score > -INF:
                    best, best_score = found, found_score
                break
            best, best_score, depth_done = found, found_score, depth
            # Searched turns first, by their new scores; the rest keep their static order.
            searched = [s for s in order if s.key in scores]
            searched.sort(key=lambda s: -scores[s.key])
            order = searched + [s for s in order if s.key not in scores]
            if progress is not None:
                progress(SearchProgress(depth, budget.nodes, best.turn, best_score,
                                        budget.elapsed()))
            if best_score <= -DECIDED and len(searched) == len(order):
                break  # every turn loses: deeper search cannot help
        self.last_stats.update(depth=float(depth_done), score=best_score)
        return best.turn

    def _forced_win(self, state: GameState, root: list[Successor],
                    budget: Budget) -> Turn | None:
        """A forced win in two among the root's turns, looked for within
        ``forced_win_share`` of the move's time; the turns that threaten most if the
        mover could move again (the evaluation with the mover to move) are tried first."""
        share = self.settings.forced_win_share
        if share <= 0 or budget.expired():
            return None
        clock = budget.clock
        give_up = clock() + share * (budget.deadline - budget.started)
        me = state.to_move
        score_key = self.evaluator(state).score_key
        order = sorted(root, key=lambda s: -score_key(s.key, me, me))

        def should_stop() -> bool:
            return budget.expired() or clock() >= give_up

        started = clock()
        try:
            return forced_win_in_two(state, order, should_stop=should_stop)
        except SearchInterrupted:
            return None
        finally:
            self.last_stats["forced_win_seconds"] = clock() - started

    def _safe_first(self, state: GameState, order: list[Successor],
                    static: dict[tuple, float], budget: Budget) -> list[Successor]:
        """The root turns with those that hand the opponent a win-in-one moved last
        (cheap, and what matters most if the deeper iterations get little time)."""
        checked = 0
        unsafe: set[tuple] = set()
        for succ in order:
            if checked >= self.settings.safety_checks or budget.expired():
                break
            after = state.copy()
            after.apply_turn(succ.turn)
            checked += 1
            try:
                loses = after.result is None and _win_now(after, budget,
                                                          self.settings.root_win_cap)
            except SearchTimeout:
                break
            if loses:
                unsafe.add(succ.key)
                static[succ.key] = -(WIN - 1)
            elif checked - len(unsafe) >= _width(self.settings.root_widths, 0):
                break  # enough safe turns for the first iteration
        if not unsafe:
            return order
        return [s for s in order if s.key not in unsafe] + [s for s in order if s.key in unsafe]

    @staticmethod
    def _partial_best(order: list[Successor], scores: dict[tuple, float]):
        """The best of an unfinished iteration, if it searched the previous best first
        (then anything scoring higher is better than what the last iteration found)."""
        if not order or order[0].key not in scores:
            return None, -INF
        best = max((s for s in order if s.key in scores), key=lambda s: scores[s.key])
        return best, scores[best.key]

    def _repeat_penalty(self, here: float) -> float:
        st = self.settings
        if here < st.repeat_ahead:
            return 0.0
        return min(st.repeat_base + st.repeat_share * max(here, 0.0), st.repeat_cap)

    def _repeats(self, succ: Successor, me: int) -> bool:
        if not self._seen:
            return False
        homes, _ = succ.key
        if any(h is None for h in homes):
            return False
        return (succ.key, 1 - me) in self._seen

    def _root(self, state: GameState, order: list[Successor], depth: int, budget: Budget,
              scores: dict[tuple, float], penalty: float) -> tuple[Successor, float]:
        st = self.settings
        me = state.to_move
        width = _width(st.root_widths, depth - 2)
        alpha = -INF
        best = order[0]
        widened = 0
        for i, succ in enumerate(order):
            if i >= width:
                if alpha > -DECIDED or widened >= width * st.widen_factor:
                    break
                widened += 1
            budget.check()
            after = state.copy()
            after.apply_turn(succ.turn)
            if after.result is not None:
                value = outcome_score(after, me)
            else:
                if i >= width and _win_now(after, budget, self.settings.inner_win_cap):
                    value = -(WIN - 1)
                else:
                    value = -self._negamax(after, depth - 1, -INF, -alpha, 1, budget)
                if penalty and value < DECIDED and self._repeats(succ, me):
                    value -= penalty
            scores[succ.key] = value
            if value > alpha:
                alpha, best = value, succ
        return best, alpha

    # ---- inside the tree ------------------------------------------------------------

    def _negamax(self, state: GameState, depth: int, alpha: float, beta: float, ply: int,
                 budget: Budget) -> float:
        budget.nodes += 1
        budget.check()
        if state.result is not None:
            return outcome_score(state, state.to_move)
        if _win_now(state, budget, self.settings.inner_win_cap):
            return WIN - ply
        me = state.to_move
        evaluator = self.evaluator(state)
        if depth <= 0:
            return evaluator.score_key(canonical_key(state), me, me)
        ckey = canonical_key(state)
        tt_key = (ckey, me)
        entry = self._table.get(tt_key)
        if entry is not None:
            known = _table_value(entry, depth, alpha, beta)
            if known is not None:
                return known
        threats = ply <= self.settings.threat_plies
        estimate = self.settings.reply_estimate if ply == 1 else self.settings.inner_estimate
        if depth == 1:
            value, complete = self._leaf_max(state, ckey, budget, estimate, beta, threats)
            value = _by_distance(value, ply + 1)
            self._table[tt_key] = (1, value, 0 if complete else 1, None)
            return value
        scored = self._scored_successors(state, ckey, budget, estimate, threats)
        if not scored:
            return evaluator.score_key(ckey, me, me)
        if entry is not None and entry[3] is not None:
            scored = _best_known_first(scored, entry[3])
        width = _width(self.settings.inner_widths, depth - 2)
        original_alpha = alpha
        best_value, best_key = -INF, None
        widened = 0
        for i, (_, succ) in enumerate(scored):
            if i >= width:
                if best_value > -DECIDED or widened >= width * self.settings.widen_factor:
                    break
                widened += 1
            budget.check()
            after = state.copy()
            after.apply_turn(succ.turn)
            value = self._child_value(after, me, depth, alpha, beta, best_value, ply, budget,
                                      widening=i >= width)
            if value > best_value:
                best_value, best_key = value, succ.key
            if value >= beta:
                break
        flag = 1 if best_value >= beta else (-1 if best_value <= original_alpha else 0)
        self._table[tt_key] = (depth, best_value, flag, best_key)
        return best_value

    def _child_value(self, after: GameState, me: int, depth: int, alpha: float, beta: float,
                     best_value: float, ply: int, budget: Budget, widening: bool) -> float:
        """A successor's value for ``me``, who made it. A successor tried past the width
        is given up at once when the other wins next."""
        if after.result is not None:
            value = outcome_score(after, me)
            return WIN - ply - 1 if value >= DECIDED else value
        if widening and _win_now(after, budget, self.settings.inner_win_cap):
            return -(WIN - ply - 2)
        return -self._negamax(after, depth - 1, -beta, -max(alpha, best_value), ply + 1, budget)

    def _leaf_max(self, state: GameState, ckey: tuple, budget: Budget, estimate: int,
                  beta: float, threats: bool = False) -> tuple[float, bool]:
        """The best successor's score for the player to move, and whether it is exact:
        successors are generated and scored group by group, sharpest first (captures, red
        sacrifices), and the scan stops at the first one reaching ``beta`` (the position
        is refuted; the score is then a lower bound)."""
        me = state.to_move
        got = self._expansions.get(self._memo_key(state, ckey, estimate, threats))
        if got is not None:
            return (got[0][0], True) if got else (self.evaluator(state).score_key(
                ckey, me, me), True)
        score_key = self.evaluator(state).score_key
        seen: set[tuple] = set()
        best = -INF
        for group in self._groups(state, budget, estimate, threats):
            for succ in group:
                key = succ.key
                if key in seen:
                    continue
                seen.add(key)
                value = score_key(key, me, 1 - me)
                if value > best:
                    best = value
                    if best >= beta:
                        return best, False
        hit = self._threat(state, budget)
        if hit is not None and hit.key not in seen:
            best = max(best, score_key(hit.key, me, 1 - me))
        if best == -INF:
            return self.evaluator(state).score_key(ckey, me, me), True
        return best, True

    def _groups(self, state: GameState, budget: Budget, estimate_cap: int,
                threats: bool = False):
        """Successor groups of an inner node, sharpest first: captures, red sacrifices,
        the other free turns, then sacrifice groups while their estimates fit (and with
        ``threats``, the group of a turn taking ships, ``_threat_group``)."""
        listing = _SacrificeListing(state, budget, estimate_cap)
        yield successors(state, first_kind=Capture)
        budget.check()
        for name, color in listing.red():
            yield successors(state, first_kind=Sacrifice, system=name, color=color)
            budget.check()
        for kind in FREE_KINDS:
            if kind is not Capture:
                yield successors(state, first_kind=kind)
                budget.check()
        for name, color in listing.others():
            yield successors(state, first_kind=Sacrifice, system=name, color=color)
            budget.check()
        if threats:
            yield self._threat_group(state, budget, listing)
            budget.check()

    @staticmethod
    def _memo_key(state: GameState, ckey: tuple, estimate: int, threats: bool) -> tuple:
        """The position with its system names: turns name systems, and two positions
        with one canonical key can give the same names to different systems."""
        named = tuple((s.name, tuple(s.stars), tuple(tuple(f) for f in s.ships), s.home_of)
                      for s in state.systems)
        return (ckey, state.to_move, estimate, threats, state.rules.name, named)

    def _scored_successors(self, state: GameState, ckey: tuple, budget: Budget,
                           estimate: int, threats: bool = False
                           ) -> list[tuple[float, Successor]]:
        """The successors of an inner node, best first for the player to move, kept
        for the iterations and moves that come back to the same position (the turns
        name systems, so the names are part of the key)."""
        me = state.to_move
        memo_key = self._memo_key(state, ckey, estimate, threats)
        got = self._expansions.get(memo_key)
        if got is not None:
            return got
        evaluator = self.evaluator(state)
        found = self._expand(state, budget, estimate, threats=threats)
        scored = [(evaluator.score_key(s.key, me, 1 - me), s) for s in found]
        scored.sort(key=lambda pair: -pair[0])
        budget.check()
        if len(self._expansions) > 20_000:
            self._expansions.clear()
        self._expansions[memo_key] = scored
        return scored

    def _expand(self, state: GameState, budget: Budget, estimate_cap: int,
                at_root: bool = False, threats: bool = False) -> list[Successor]:
        """Distinct successors: every free-action turn, then sacrifice groups, smallest
        estimate first, while their estimates fit ``estimate_cap`` and the budget lasts.
        At the root the free-action turns are always gathered (there must be a turn to
        play); elsewhere running out of time raises ``SearchTimeout``."""
        seen: set[tuple] = set()
        out: list[Successor] = []

        def take(found: Iterable[Successor]) -> None:
            for succ in found:
                if succ.key not in seen:
                    seen.add(succ.key)
                    out.append(succ)

        for kind in FREE_KINDS:
            if not at_root:
                budget.check()
            elif out and budget.expired():
                break  # there is a turn to play; out of time for more
            take(successors(state, first_kind=kind))
        listing = _SacrificeListing(state, budget, estimate_cap)
        for name, color in chain(listing.red(), listing.others()):
            if budget.expired():
                if at_root:
                    break  # (the root lists no threat group: ``listed`` is not asked)
                raise SearchTimeout
            take(successors(state, first_kind=Sacrifice, system=name, color=color))
        if threats:
            take(self._threat_group(state, budget, listing))
        if not at_root or not budget.expired():
            hit = self._threat_at(state, budget, at_root)
            if hit is not None:
                take((hit,))
        return out

    def _threat_at(self, state: GameState, budget: Budget, at_root: bool) -> Successor | None:
        """``_threat``; at the root, running out of time finds none instead of raising."""
        try:
            return self._threat(state, budget)
        except SearchTimeout:
            if not at_root:
                raise
            return None

    def _threat_group(self, state: GameState, budget: Budget,
                      listing: _SacrificeListing) -> Iterable[Successor]:
        """The sacrifice group of a turn taking ``threat_pips`` or more of the other's
        ships when the listing left it out (``SearchSettings.threat_estimate``), or that
        one turn when the group is too big for the time left; nothing when there is no
        such turn."""
        st = self.settings
        if not st.threat_estimate or listing.complete():
            return ()  # every sacrifice group is there already (and every free turn)

        def finder(position: GameState, should_stop: Callable[[], bool]) -> Turn | None:
            return find_material_turn(position, min_pips=st.threat_pips,
                                      should_stop=should_stop)

        turn = _targeted(state, budget, st.inner_win_cap, finder)
        if turn is None:
            return ()
        first = next((a for a in turn if not isinstance(a, Catastrophe)), None)
        if isinstance(first, Sacrifice):
            group = (first.system, int(first.piece.color))
            if group in listing.listed:
                return ()
            estimate = listing.estimate(group)
            if estimate is not None and estimate <= st.threat_estimate \
                    and budget.fits(estimate):
                return successors(state, first_kind=Sacrifice, system=group[0],
                                  color=group[1])
        return (_successor(state, turn),)

    def _threat(self, state: GameState, budget: Budget) -> Successor | None:
        """The sharpest turn a listing within the estimates may miss: one destroying a
        star of the other's home (``SearchSettings.home_star_threats``)."""
        if not self.settings.home_star_threats:
            return None
        return _home_star_hit(state, budget, self.settings.inner_win_cap)


__all__ = ["Budget", "SearchPlayer", "SearchProgress", "SearchSettings", "SearchTimeout"]

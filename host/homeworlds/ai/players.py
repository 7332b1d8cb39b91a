"""Computer players: ``ComputerPlayer`` (levels 1-4), ``LegacyPlayer``, and two baselines.

Every player has ``choose_turn(state) -> Turn``: a legal whole turn for the
player to move, which ``state.apply_turn`` accepts, setup turns included.
Players keep no game state of their own between calls (only a seeded random
generator), so one player object can serve any number of games.

Level 4, the top level, is the iterative-deepening alpha-beta search of
``ai.search``. Levels 1-3 play the one-reply look-ahead below, as they always
have, but within a hard time limit for the whole move; ``LegacyPlayer`` is that
look-ahead without the limit (today's level 3 as the benchmark's yardstick).

How levels 1-3 play (docs/computer-opponent.md):

1. a turn that wins at once is always played;
2. the candidate turns (distinct successors, within a time budget) are
   scored by the static evaluation (``evaluate.Evaluator``);
3. from the best down, a candidate after which the opponent could win at
   once is discarded, unless every candidate is;
4. the best few safe candidates (6, 12 or 24 by level) are looked at one
   reply deep: each is worth what is left after the opponent's best reply
   by the same evaluation, and the best of them is played.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from homeworlds.ai.candidates import candidate_successors
from homeworlds.ai.evaluate import WIN, Evaluator, MaterialEvaluator, outcome_score
from homeworlds.ai.openings import choose_homeworld, choose_setup_pick
from homeworlds.ai.search import Budget, SearchPlayer, SearchProgress, SearchSettings
from homeworlds.ai.wins import immediate_win, opponent_threatens_win
from homeworlds.rules import (
    GameState,
    Homeworld,
    HomeworldsError,
    Rules,
    SearchInterrupted,
    Successor,
    Turn,
    legal_actions,
    preset,
    successors,
)


@dataclass(frozen=True, slots=True)
class LevelSettings:
    """How hard a level thinks (seconds are soft targets on a 2-core x86 machine)."""

    #: Time to gather candidate turns; also the time spent gathering more safe candidates
    #: for the look-ahead once one safe candidate is known.
    candidate_budget: float
    #: Time to keep looking for a candidate that leaves no win-in-one to the opponent
    #: while none has been found (after it, the best-looking turn is played).
    safety_budget: float
    #: Safe candidates looked at one reply deep (0: no look-ahead).
    lookahead: int
    #: Time to gather the opponent's replies to one candidate.
    reply_budget: float
    #: Hard limit for the whole move in seconds (``ComputerPlayer``'s default;
    #: ``LegacyPlayer`` has none).
    time_limit: float = 3.0


LEVELS: dict[int, LevelSettings | SearchSettings] = {
    1: LevelSettings(candidate_budget=0.6, safety_budget=3.0, lookahead=6, reply_budget=0.1,
                     time_limit=1.0),
    2: LevelSettings(candidate_budget=0.8, safety_budget=4.0, lookahead=12, reply_budget=0.2,
                     time_limit=1.5),
    3: LevelSettings(candidate_budget=1.2, safety_budget=6.0, lookahead=24, reply_budget=0.4,
                     time_limit=2.0),
    4: SearchSettings(time_limit=1.8),
}
#: The strongest level (the search of ``ai.search``).
TOP_LEVEL = 4


def _player_name(state: GameState, seat: int, names: tuple[str, ...] | None) -> str:
    return names[seat] if names is not None else f"Player{seat + 1}"


def _setup_turn(state: GameState, rng: random.Random, names: tuple[str, ...] | None) -> Turn:
    name = _player_name(state, state.to_move, names)
    if state.rules.setup_mode == "alternating":
        return (choose_setup_pick(state, name, rng),)
    return (choose_homeworld(state, name, rng),)


def _check_playable(state: GameState) -> None:
    if state.result is not None:
        raise ValueError("the game is over: there is no turn to choose")
    if state.players != 2:
        raise ValueError("the computer players play two-player games only")


class RandomPlayer:
    """Uniform over the distinct successors (every reachable position equally likely).

    ``names``: home names for setup, by seat (default ``Player1``, ``Player2``).
    """

    def __init__(self, seed: int | None = None, names: tuple[str, ...] | None = None):
        self.rng = random.Random(seed)
        self.names = names

    def choose_turn(self, state: GameState) -> Turn:
        _check_playable(state)
        if state.in_setup:
            return _random_setup(state, self.rng, self.names)
        chosen: Successor | None = None
        # Reservoir sampling: one pass, no list of a possibly huge successor set.
        for n, succ in enumerate(successors(state), start=1):
            if self.rng.randrange(n) == 0:
                chosen = succ
        if chosen is None:
            raise ValueError("no legal turn")  # a whole-turn pass or a sacrifice always exists
        return chosen.turn


def _random_setup(state: GameState, rng: random.Random, names: tuple[str, ...] | None) -> Turn:
    """A random legal setup turn built from the bank (not uniform over anything subtle)."""
    name = _player_name(state, state.to_move, names)
    if state.rules.setup_mode == "alternating":
        return (choose_setup_pick(state, name, rng),)
    sizes = sorted(state.rules.setup_ship_sizes)
    for _ in range(1000):
        pieces = state.bank_pieces()
        stars = tuple(rng.sample(pieces, 2))
        ship = rng.choice([p for p in pieces if p.size in sizes])
        turn = (Homeworld(stars, ship, name),)
        try:
            state.copy().apply_turn(turn)
        except HomeworldsError:
            continue  # e.g. the bank ran short of a piece drawn twice
        return turn
    return _setup_turn(state, rng, names)


class GreedyPlayer:
    """One ply, material first: the successor with the best ``MaterialEvaluator`` score.

    It never looks at the opponent's reply — the baseline the computer must beat.
    """

    def __init__(self, seed: int | None = None, names: tuple[str, ...] | None = None,
                 budget: float = 0.8):
        self.rng = random.Random(seed)
        self.names = names
        self.budget = budget
        self._evaluators: dict[str, MaterialEvaluator] = {}

    def choose_turn(self, state: GameState) -> Turn:
        _check_playable(state)
        if state.in_setup:
            return _setup_turn(state, self.rng, self.names)
        evaluator = self._evaluators.get(state.rules.name)
        if evaluator is None:
            evaluator = self._evaluators[state.rules.name] = MaterialEvaluator(state.rules)
        me = state.to_move
        found = candidate_successors(state, self.budget).successors
        best = max(found, key=lambda s: (evaluator.score_key(s.key, me, 1 - me),
                                         self.rng.random()))
        return best.turn


class ComputerPlayer:
    """The table's computer opponent. See the module docstring and docs/computer-opponent.md.

    ``level``: 1 to 4 (``LEVELS``; 4 is the search, the strongest). Every level plays a
    win-in-one when there is one and avoids turns that leave the opponent one.
    ``time_limit``: seconds for the whole move (None: the level's default, see
    ``LEVELS``) — a hard limit: when it runs out, the best turn found so far is played.
    ``seed`` makes its choices between equal turns reproducible (up to the time limit,
    which cuts the search of busy positions; add ``node_limit`` for runs that do not
    depend on the machine's speed: levels 4 only). ``rules``: the preset (name or
    ``Rules``) the games use; positions of other rules are refused so that a table
    misconfiguration is not silently played under the wrong rules (None: whatever the
    position says). ``names``: home names for setup, by seat. ``clock``: the monotonic
    clock the time limit is measured on (tests inject one).
    """

    def __init__(self, level: int = 1, seed: int | None = None,
                 rules: Rules | str | None = None, names: tuple[str, ...] | None = None,
                 time_limit: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 node_limit: int | None = None):
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels are {', '.join(map(str, LEVELS))}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"the time limit must be a positive number of seconds, "
                             f"not {time_limit!r}")
        self.level = level
        self.settings = LEVELS[level]
        self.time_limit = self.settings.time_limit if time_limit is None else float(time_limit)
        self.rng = random.Random(seed)
        self.rules = preset(rules) if isinstance(rules, str) else rules
        self.names = names
        self.clock = clock
        self._evaluators: dict[str, Evaluator] = {}
        self._search_player: SearchPlayer | None = None
        if isinstance(self.settings, SearchSettings):
            self._search_player = SearchPlayer(self.settings, seed=seed, clock=clock,
                                               node_limit=node_limit)
        #: What the last ``choose_turn`` did (for the benchmark and for curious users).
        self.last_stats: dict[str, float] = {}
        #: The last move's budget (deadline checks and nodes; for tests).
        self.last_budget: Budget | None = None

    def evaluator(self, state: GameState) -> Evaluator:
        got = self._evaluators.get(state.rules.name)
        if got is None:
            got = self._evaluators[state.rules.name] = Evaluator(state.rules, state.players)
        return got

    def choose_turn(self, state: GameState,
                    progress: Callable[[SearchProgress], None] | None = None) -> Turn:
        """A legal whole turn for the player to move. ``progress``, if given, is called
        with a ``SearchProgress`` as the thinking goes on (depth, positions searched,
        the best turn so far, seconds) — for showing the computer thinking."""
        _check_playable(state)
        if self.rules is not None and state.rules.name != self.rules.name:
            raise ValueError(f"this computer player was set up for the {self.rules.name} "
                             f"rules, but the position is played under {state.rules.name}")
        started = self.clock()
        self.last_stats = {}
        if state.in_setup:
            return _setup_turn(state, self.rng, self.names)
        if self._search_player is not None:
            turn = self._search_player.choose_turn(state, self.time_limit, progress)
            self.last_budget = self._search_player.last_budget
            self.last_stats = dict(self._search_player.last_stats)
            return turn
        budget = Budget(self.time_limit, self.clock)
        self.last_budget = budget
        try:
            win = immediate_win(state, budget.expired)
        except SearchInterrupted:
            win = None  # out of time: the best-scored turn is played
        if win is not None:
            self.last_stats = {"win_in_one": 1.0, "seconds": self.clock() - started}
            return win
        turn = self._search(state, budget, progress)
        self.last_stats["seconds"] = self.clock() - started
        return turn

    # ---- the one-reply look-ahead of levels 1-3 ------------------------------------

    def _left(self, budget: Budget) -> float:
        return max(0.0, budget.deadline - budget.clock())

    def _search(self, state: GameState, budget: Budget,
                progress: Callable[[SearchProgress], None] | None) -> Turn:
        settings = self.settings
        assert isinstance(settings, LevelSettings)
        me = state.to_move
        evaluator = self.evaluator(state)
        # Candidates may take at most 40 % of the move: safety and the look-ahead follow.
        found = candidate_successors(state, min(settings.candidate_budget,
                                                0.4 * self._left(budget)))
        if not found.successors:
            raise ValueError("no legal turn in this position")
        # A little noise breaks ties between equal turns differently from game to game.
        scored = sorted(((evaluator.score_key(s.key, me, 1 - me) + self.rng.random() * 1e-3, s)
                         for s in found.successors), key=lambda pair: -pair[0])
        self.last_stats.update(candidates=float(len(scored)),
                               skipped_groups=float(len(found.skipped)))
        if progress is not None:
            progress(SearchProgress(1, len(scored), scored[0][1].turn, scored[0][0],
                                    budget.elapsed()))
        safe = self._safe_candidates(state, scored, max(1, settings.lookahead), budget)
        if not safe:
            # Every turn looked at lets the opponent win: play the best-looking one.
            self.last_stats["no_safe_turn"] = 1.0
            return scored[0][1].turn
        if settings.lookahead <= 1 or len(safe) == 1:
            return safe[0][1].turn
        return self._look_ahead(state, safe, evaluator, budget, progress)

    def _safe_candidates(self, state: GameState, scored: list[tuple[float, Successor]],
                         wanted: int, budget: Budget | None = None
                         ) -> list[tuple[float, Successor]]:
        """The best ``wanted`` candidates after which the opponent cannot win at once.

        Candidates are checked best first. Until one safe turn is found, only the safety
        budget (and the move's time limit) stops the search (a lone defensive move found
        late is worth the wait); after that, more safe turns (for the look-ahead) are
        gathered only while the candidate budget's worth of time lasts."""
        settings = self.settings
        assert isinstance(settings, LevelSettings)
        if budget is None:
            budget = Budget(self.time_limit, self.clock)
        started = budget.clock()
        deadline = min(started + settings.safety_budget, budget.deadline)
        # Once one safe turn is known, keep at least half the time left for the look-ahead.
        enough = min(started + settings.candidate_budget,
                     started + 0.5 * (budget.deadline - started))
        safe: list[tuple[float, Successor]] = []
        checked = 0
        for score, succ in scored:
            if score <= -WIN / 2:
                break  # the rest lose at once by their own evaluation
            budget.checks += 1
            now = budget.clock()
            if now > deadline or safe and (now > enough or checked >= wanted * 3):
                break
            after = state.copy()
            after.apply_turn(succ.turn)
            checked += 1
            if after.result is not None:
                ok = outcome_score(after, state.to_move) > -WIN / 2
            else:
                try:
                    ok = not opponent_threatens_win(after, budget.expired)
                except SearchInterrupted:
                    break
            if ok:
                safe.append((score, succ))
                if len(safe) >= wanted:
                    break
        self.last_stats["safety_checks"] = float(checked)
        return safe

    def _look_ahead(self, state: GameState, safe: list[tuple[float, Successor]],
                    evaluator: Evaluator, budget: Budget,
                    progress: Callable[[SearchProgress], None] | None) -> Turn:
        """Each safe candidate is worth the evaluation after the opponent's best reply;
        candidates not reached before the time limit keep their place behind those that
        were (the first, best-scored, is always examined or played)."""
        settings = self.settings
        assert isinstance(settings, LevelSettings)
        me = state.to_move
        best_value, best_turn = -2 * WIN, safe[0][1].turn
        for n, (_score, succ) in enumerate(safe):
            if n and budget.expired():
                break
            after = state.copy()
            after.apply_turn(succ.turn)
            if after.result is not None:
                value = evaluator.score_state(after, me)
            else:
                reply_budget = min(settings.reply_budget, self._left(budget))
                replies = candidate_successors(after, reply_budget).successors
                value = min((evaluator.score_key(r.key, me, me) for r in replies),
                            default=evaluator.score_state(after, me))
            value += self.rng.random() * 1e-3
            if value > best_value:
                best_value, best_turn = value, succ.turn
                if progress is not None:
                    progress(SearchProgress(2, n + 1, best_turn, best_value,
                                            budget.elapsed()))
        return best_turn


class LegacyPlayer(ComputerPlayer):
    """Levels 1-3 as they were before the search: the one-reply look-ahead with its soft
    budgets and no limit on the whole move (level 3 took up to 19 s on a busy machine).
    Kept as the yardstick of the strength benchmark ("beats the old level 3")."""

    def __init__(self, level: int = 3, seed: int | None = None,
                 rules: Rules | str | None = None, names: tuple[str, ...] | None = None):
        if level not in LEVELS or not isinstance(LEVELS[level], LevelSettings):
            raise ValueError(f"unknown legacy level {level!r}; legacy levels are 1, 2, 3")
        super().__init__(level, seed=seed, rules=rules, names=names, time_limit=float("inf"))


def random_legal_turn(state: GameState, rng: random.Random, max_actions: int = 4) -> Turn:
    """A random legal turn built action by action from ``legal_actions`` (not uniform)."""
    for _ in range(50):
        tip = state.begin_turn()
        for _ in range(rng.randint(1, max_actions)):
            options = list(legal_actions(tip))
            if not options:
                break
            tip.apply(rng.choice(options))
        if not tip.actions:
            continue
        try:
            tip.finish()
        except HomeworldsError:
            continue  # an illegal ending (e.g. suicide under strict rules): try another
        return tuple(tip.actions)
    raise ValueError("no random legal turn found")


def play_game(players: Iterable, state: GameState, max_turns: int = 200) -> GameState:
    """Let the players (by seat) play ``state`` out or up to ``max_turns`` turns."""
    seats = list(players)
    for _ in range(max_turns):
        if state.result is not None:
            break
        state.apply_turn(seats[state.to_move].choose_turn(state))
    return state

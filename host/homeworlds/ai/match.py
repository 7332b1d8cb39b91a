"""Seeded matches between players from varied openings: what the strength benchmarks play.

Players are named (``player_names()``): ``random`` and ``greedy`` (the baselines) and
``level1``, ``level2``, … — one per entry of ``homeworlds.ai.players.LEVELS``, so a level
added there can be benchmarked at once (and ``legacy1``… where the players module keeps a
``LegacyPlayer``); ``register_player`` adds any other factory.

Game ``index`` starts from opening ``index // 2`` (``match_opening``): the six standard
openings first, then homeworlds chosen by the computer's own setup advice with a seeded
random generator, so long runs keep meeting new positions. The player under test sits in
seat ``index % 2`` (seat 0 sets up and moves first), so each opening is played once with
it moving first and once second. Seeds are fixed (player under test ``index``, opponent
``10_000 + index``). A game still running after ``max_turns`` turns is recorded as
``"unfinished"``, not as a win.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from homeworlds.ai import players as _players
from homeworlds.ai.openings import OPENINGS, choose_homeworld, opening_homeworld
from homeworlds.ai.players import LEVELS, ComputerPlayer, GreedyPlayer, RandomPlayer
from homeworlds.rules import GameState, Homeworld, Turn, preset

#: The baselines every level is measured against.
BASELINES = ("random", "greedy")
NAMES = ("Player1", "Player2")
#: Default turn cap of a match game (the issue's figures against the C++ AI use 150).
MAX_TURNS = 150
#: Outcomes of a match game, from the side of the player under test.
OUTCOMES = ("win", "loss", "draw", "unfinished")

#: A game record: a MatchGame, or a benchmark's own with the same fields it counts.
Game = TypeVar("Game")

#: ``factory(seed, names)`` -> an object with ``choose_turn(state) -> Turn``.
PlayerFactory = Callable[[int, tuple[str, ...]], object]
_REGISTERED: dict[str, PlayerFactory] = {}


def register_player(name: str, factory: PlayerFactory) -> None:
    """Make ``name`` a player the benchmarks can select (e.g. an experimental search)."""
    if not name or any(ch.isspace() for ch in name):
        raise ValueError(f"a player name is one word, not {name!r}")
    _REGISTERED[name] = factory


def _legacy_levels() -> list[int]:
    """Levels a ``LegacyPlayer`` (the look-ahead without a move time limit, kept as a
    yardstick once the levels changed) can play, where the players module has one."""
    if getattr(_players, "LegacyPlayer", None) is None:
        return []
    settings = getattr(_players, "LevelSettings", ())
    return [n for n in sorted(LEVELS) if isinstance(LEVELS[n], settings)]


def player_names() -> tuple[str, ...]:
    """Every selectable player: the baselines, one per computer level (and ``legacyN``
    where a ``LegacyPlayer`` exists), then registered ones."""
    levels = tuple(f"level{n}" for n in sorted(LEVELS))
    legacy = tuple(f"legacy{n}" for n in _legacy_levels())
    builtin = (*BASELINES, *levels, *legacy)
    return (*builtin, *(n for n in _REGISTERED if n not in builtin))


def make_player(name: str, seed: int, names: tuple[str, ...] = NAMES):
    """A fresh player by its benchmark name (``level3``, ``greedy``, …)."""
    if name in _REGISTERED:
        return _REGISTERED[name](seed, names)
    if name == "random":
        return RandomPlayer(seed=seed, names=names)
    if name == "greedy":
        return GreedyPlayer(seed=seed, names=names)
    if name.startswith("level") and name[5:].isdigit() and int(name[5:]) in LEVELS:
        return ComputerPlayer(int(name[5:]), seed=seed, names=names)
    if name.startswith("legacy") and name[6:].isdigit() and int(name[6:]) in _legacy_levels():
        return _players.LegacyPlayer(int(name[6:]), seed=seed, names=names)
    raise ValueError(f"unknown player {name!r}; known: {', '.join(player_names())}")


def match_opening(number: int, rules: str = "looney",
                  names: tuple[str, ...] = NAMES) -> tuple[Homeworld, Homeworld]:
    """The two homeworlds of opening ``number``: a standard one, or a seeded sound one."""
    if number < len(OPENINGS):
        first, second = OPENINGS[number]
        return opening_homeworld(first, names[0]), opening_homeworld(second, names[1])
    rng = random.Random(number)
    state = GameState(preset(rules))
    first_home = choose_homeworld(state, names[0], rng)
    state.apply_turn((first_home,))
    return first_home, choose_homeworld(state, names[1], rng)


def opened_state(index: int, rules: str = "looney",
                 names: tuple[str, ...] = NAMES) -> GameState:
    """The position after both setups of match game ``index``; seat 0 to move."""
    state = GameState(preset(rules))
    for home in match_opening(index // 2, rules, names):
        state.apply_turn((home,))
    return state


@dataclass(frozen=True, slots=True)
class MatchGame:
    """How one game went, from the side of the player under test."""

    index: int
    opponent: str
    #: "win", "loss", "draw" or "unfinished" (still running at the turn cap).
    outcome: str
    turns: int
    #: The player's thinking time for each of its turns, in seconds.
    times: tuple[float, ...]
    player: str = "level1"
    #: The player's seat (0 moves first).
    seat: int = 0
    #: The opponent's thinking time for each of its turns, in seconds.
    opponent_times: tuple[float, ...] = ()
    #: Every turn of the game in order, both sides' (for study: ``strength.py --jsonl``).
    turn_log: tuple[Turn, ...] = field(default=(), repr=False)


def play_match_game(index: int, opponent: str, rules: str = "looney", level: int = 1,
                    max_turns: int = MAX_TURNS, player: str | None = None) -> MatchGame:
    """Play game ``index`` of ``player`` (default ``level{level}``) against ``opponent``."""
    player = player or f"level{level}"
    state = opened_state(index, rules)
    seat = index % 2
    seats = [make_player(opponent, 10_000 + index), make_player(opponent, 10_000 + index)]
    seats[seat] = make_player(player, index)
    times: tuple[list[float], list[float]] = ([], [])
    played: list[Turn] = []
    while state.result is None and len(played) < max_turns:
        mover = state.to_move
        started = time.perf_counter()
        turn = seats[mover].choose_turn(state)
        times[mover].append(time.perf_counter() - started)
        state.apply_turn(turn)
        played.append(turn)
    result = state.result
    if result is None:
        outcome = "unfinished"
    elif not result.winners:
        outcome = "draw"
    else:
        outcome = "win" if seat in result.winners else "loss"
    return MatchGame(index, opponent, outcome, len(played), tuple(times[seat]), player, seat,
                     tuple(times[1 - seat]), tuple(played))


def play_match_job(job: tuple) -> MatchGame:
    """``play_match_game`` on one tuple of arguments (for process pools)."""
    return play_match_game(*job)


def think_time_figures(times: list[float]) -> dict:
    """Think time per turn in seconds: count, mean, p50, p99 and max."""
    if not times:
        return {"moves": 0}
    ordered = sorted(times)
    return {"moves": len(ordered), "mean": statistics.fmean(ordered),
            "p50": ordered[len(ordered) // 2],
            "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1]}


def play_games(job: Callable[[tuple], Game], jobs: Sequence[tuple], workers: int = 1,
               on_game: Callable[[Game], None] | None = None) -> list[Game]:
    """``job`` on every tuple of ``jobs``, in ``workers`` processes when more than one;
    the records in the order of ``jobs``, ``on_game`` told of each as it comes."""
    if workers <= 1:
        return _collect(map(job, jobs), on_game)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return _collect(pool.map(job, jobs, chunksize=1), on_game)


def _collect(games: Iterable[Game], on_game: Callable[[Game], None] | None) -> list[Game]:
    done: list[Game] = []
    for game in games:
        done.append(game)
        if on_game:
            on_game(game)
    return done


def outcome_figures(games: Iterable, outcomes: Sequence[str] = OUTCOMES,
                    others: Sequence[str] = ()) -> dict:
    """How a set of games went for the player under test: the number of games, a count
    of each outcome (``outcomes`` and ``others``, e.g. a benchmark's faults), won / lost /
    unfinished by seat (``by_seat[0]``: moving first) and the mean length of the games
    whose outcome is one of ``outcomes``. Each game has ``outcome``, ``seat``, ``turns``."""
    games = list(games)
    scored = [g for g in games if g.outcome in outcomes]
    return {"games": len(games),
            **{k: sum(1 for g in games if g.outcome == k) for k in (*outcomes, *others)},
            "by_seat": [{k: sum(1 for g in games if g.seat == seat and g.outcome == k)
                         for k in ("win", "loss", "unfinished")} for seat in (0, 1)],
            "mean_turns": statistics.fmean(g.turns for g in scored) if scored else 0.0}


def match_figures(games: Iterable, opponent_times: Callable[[Any], Sequence[float]],
                  outcomes: Sequence[str] = OUTCOMES, others: Sequence[str] = ()) -> dict:
    """A match's figures, as both strength benchmarks report them: ``outcome_figures`` and
    the think times of the player under test (``player_seconds``, from each game's
    ``times``) and of its opponent (``opponent_seconds``, ``opponent_times(game)``)."""
    games = list(games)
    return {**outcome_figures(games, outcomes, others),
            "player_seconds": think_time_figures([t for g in games for t in g.times]),
            "opponent_seconds": think_time_figures([t for g in games
                                                    for t in opponent_times(g)])}


def outcome_text(figures: dict) -> str:
    """``outcome_figures``' counts in words: "3 won, 1 lost, 0 drawn, 0 unfinished"."""
    return (f"{figures['win']} won, {figures['loss']} lost, {figures['draw']} drawn, "
            f"{figures['unfinished']} unfinished")


def think_time_text(times: dict) -> str:
    """``think_time_figures`` in words: "p50 0.012 s, p99 0.340 s, max 0.51 s (120 turns)"."""
    if not times["moves"]:
        return "no turns"
    return (f"p50 {times['p50']:.3f} s, p99 {times['p99']:.3f} s, max {times['max']:.2f} s "
            f"({times['moves']} turns)")


def seats_text(by_seat: list[dict]) -> str:
    """``outcome_figures``' by-seat counts in words."""
    first, second = by_seat
    return (f"moving first: {first['win']} won, {first['loss']} lost, {first['unfinished']} "
            f"unfinished; moving second: {second['win']} won, {second['loss']} lost, "
            f"{second['unfinished']} unfinished")

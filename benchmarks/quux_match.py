"""The computer against a reference opponent outside the project: the AI of the C++ engine
Quuxplusone/Homeworlds (a 1-ply search with a fixed evaluation), with this project's
engine as the referee.

The C++ engine is fetched and built OUTSIDE the repository (none of its code enters the
project; docs/computer-opponent.md, "Against the C++ reference AI")::

    git clone https://github.com/Quuxplusone/Homeworlds /work/ext/quux
    make -C /work/ext/quux homeworlds-cli CXXFLAGS="-std=c++14 -include utility"
    QUUX_DIR=/work/ext/quux .venv/bin/python benchmarks/quux_match.py --player level1 --games 30

Without ``QUUX_DIR`` the script says how to get a build and exits 0 (``make bench`` shows
that line and goes on).

How a game is refereed: the C++ program runs as ``homeworlds-cli --auto --seed N`` fed
the opening position in its "cooked" notation, then switched to verbose mode; the
player under test's turns are written to it in cooked notation (it must answer
``Okay.``), and its AI's turns are asked for with ``ai_move`` (it answers ``AI for NAME
chooses: TURN``). Every C++ turn is parsed by ``homeworlds.notation.cooked`` and applied
by ``homeworlds.rules`` under the ``strict`` preset (the C++ engine's rules); after every
turn both engines' positions are compared. Anything else ends the game with a verdict of
its own, counted and reported with the turn text and position, never scored as a win or
a loss:

* ``reference-illegal``: a C++ turn our engine refuses;
* ``reference-unparseable``: C++ output that is not a turn in cooked notation;
* ``reference-refused``: the C++ engine refused a turn our engine accepted;
* ``position-mismatch``: the two engines disagree about the position after a turn;
* ``reference-fault``: the program exited, or did not answer within ``--move-timeout``.

Game ``index`` uses the opening and seat of ``homeworlds.ai.match`` (standard openings,
then seeded ones; the player under test in seat ``index % 2``), the C++ program seeded
with ``index``.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from homeworlds.ai.match import (  # noqa: E402
    NAMES,
    OUTCOMES,
    make_player,
    match_figures,
    opened_state,
    outcome_text,
    play_games,
    player_names,
    seats_text,
    think_time_text,
)
from homeworlds.event.hub import material  # noqa: E402
from homeworlds.notation import CookedSystem, format_cooked_turn, parse_cooked_turn
from homeworlds.rules import GameState, HomeworldsError, InvalidNotation  # noqa: E402
from homeworlds.store.records import cooked_systems, position_to_json  # noqa: E402

#: The program's name in a build; ``annotate`` is its name before 2019.
PROGRAMS = ("homeworlds-cli", "annotate")
#: Outcomes that are a verdict on the game (from the player under test's side).
GAME_OUTCOMES = OUTCOMES
#: Outcomes that are a fault of the reference or a disagreement between the engines.
FAULTS = ("reference-illegal", "reference-unparseable", "reference-refused",
          "position-mismatch", "reference-fault")
HOW_TO_BUILD = """\
quux_match: skipped: set QUUX_DIR to a build of the C++ engine Quuxplusone/Homeworlds
(outside this repository), e.g.
    git clone https://github.com/Quuxplusone/Homeworlds /work/ext/quux
    make -C /work/ext/quux homeworlds-cli CXXFLAGS="-std=c++14 -include utility"
    QUUX_DIR=/work/ext/quux .venv/bin/python benchmarks/quux_match.py"""
QUICK_GAMES = 4
DEFAULT_TIMEOUT = 120.0
#: Seconds the program may take to start and read the position (not a move).
STARTUP_TIMEOUT = 60.0


class ReferenceError_(Exception):
    """The C++ program misbehaved. ``kind`` is one of ``FAULTS``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def find_program(quux_dir: str | os.PathLike[str]) -> Path:
    """The CLI program of a build in ``quux_dir``; ValueError naming what is missing."""
    folder = Path(quux_dir)
    for name in PROGRAMS:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise ValueError(f"QUUX_DIR={folder}: no executable {' or '.join(PROGRAMS)} there; "
                     "build it with: make -C " f"{folder} homeworlds-cli "
                     "CXXFLAGS=\"-std=c++14 -include utility\"")


class ReferenceEngine:
    """One game's conversation with the C++ program (its verbose CLI mode)."""

    def __init__(self, program: Path, seed: int, timeout: float = DEFAULT_TIMEOUT):
        self.timeout = timeout
        self.process = subprocess.Popen(
            [str(program), "--auto", "--seed", str(seed)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        #: Every line the program wrote (the last ones go into fault reports).
        self.transcript: list[str] = []
        self._asked = time.monotonic()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _send(self, text: str) -> None:
        self._asked = time.monotonic()
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(text + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ReferenceError_("reference-fault", f"the C++ program exited (status "
                                  f"{self.process.poll()}) before reading {text!r}") from None

    def _next_line(self, waiting_for: str, deadline: float) -> str:
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, left))
        except queue.Empty:
            raise ReferenceError_("reference-fault", f"no answer to {waiting_for} within "
                                  f"{deadline - self._asked:.0f} s") from None
        if line is None:
            self._lines.put(None)
            status = self.process.wait(timeout=5)
            raise ReferenceError_("reference-fault", f"the C++ program exited (status "
                                  f"{status}) while we waited for {waiting_for}"
                                  + self._tail())
        self.transcript.append(line)
        return line

    def _tail(self) -> str:
        if not self.transcript:
            return "; it wrote nothing"
        return "; its last lines: " + " | ".join(self.transcript[-3:])

    def start(self, state: GameState) -> None:
        """Give the program the opening position and switch it to verbose mode."""
        position = "\n".join(s.to_text() for s in our_systems(state))
        self._send(position + "\n")
        self._send("verbose")
        deadline = time.monotonic() + max(self.timeout, STARTUP_TIMEOUT)
        while "verbose mode" not in self._next_line("the switch to verbose mode", deadline):
            pass

    def tell(self, turn_text: str) -> None:
        """Play a turn of the player under test; ReferenceError_ if it is refused."""
        self._send(turn_text)
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._next_line(f"the answer to {turn_text!r}", deadline)
            if line.endswith("Okay."):
                return
            if "did not parse" in line or "The move as parsed" in line:
                reason = line.split("> ")[-1]
                raise ReferenceError_("reference-refused", f"the C++ engine refused "
                                      f"{turn_text!r}: {reason}")

    def ai_move(self) -> str:
        """The text of the turn the program's AI chooses (and plays on its side)."""
        self._send("ai_move")
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._next_line("its AI's turn", deadline)
            head, found, turn = line.partition(" chooses: ")
            if found and "AI for " in head:
                return turn.strip()
            if "'s move? > " in line and line.split("'s move? > ", 1)[1].strip() == "":
                continue
            if "'s move? > " in line:
                # Whatever follows the prompt is its answer to ai_move: not a turn.
                raise ReferenceError_("reference-unparseable", "the C++ program answered "
                                      f"ai_move with {line.split('> ', 1)[1]!r}")

    def position(self) -> list[CookedSystem]:
        """The program's idea of the position (its ``state`` command)."""
        self._send("state")
        self._send("stash")  # its first line ends the list of systems
        deadline = time.monotonic() + self.timeout
        while "The current state is:" not in self._next_line("its position", deadline):
            pass
        systems = []
        while True:
            line = self._next_line("its position", deadline)
            if "The current stash is:" in line:
                self._next_line("its stash", deadline)
                return systems
            try:
                systems.append(CookedSystem.from_text(line.split("> ")[-1]))
            except InvalidNotation as exc:
                raise ReferenceError_("reference-unparseable",
                                      f"a line of its position is not a system: {exc}") from None

    def close(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=1)  # end of input is its "quit"
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def our_systems(state: GameState) -> tuple[CookedSystem, ...]:
    """Our position in the cooked format (``store.records.cooked_systems``)."""
    systems = cooked_systems(position_to_json(state))
    assert systems is not None  # the C++ engine seats two players
    return systems


def position_key(systems: Sequence[CookedSystem]) -> frozenset:
    """Systems compared by name (case-insensitively), home, stars and each side's ships."""
    def pieces(ps) -> tuple[int, ...]:
        return tuple(sorted(p.index for p in ps))
    return frozenset((s.name.casefold(), s.home_of, pieces(s.stars), pieces(s.ships[0]),
                      pieces(s.ships[1])) for s in systems)


@dataclass(frozen=True)
class QuuxGame:
    """One refereed game, from the player under test's side."""

    index: int
    player: str
    seat: int
    #: One of GAME_OUTCOMES or FAULTS.
    outcome: str
    turns: int
    times: tuple[float, ...]
    reference_times: tuple[float, ...]
    #: For a fault: what happened, the turn text, and the position before it.
    detail: str = ""
    #: Ship pips (sizes summed) of the player under test and of the C++ side at the end.
    material: tuple[int, int] = (0, 0)
    turn_log: tuple[str, ...] = field(default=(), repr=False)


def play_quux_game(program: Path, index: int, player: str = "level1", rules: str = "strict",
                   max_turns: int = 150, timeout: float = DEFAULT_TIMEOUT,
                   check_positions: bool = True) -> QuuxGame:
    """Play match game ``index`` of ``player`` against the C++ AI, refereed by our engine."""
    state = opened_state(index, rules, NAMES)
    seat = index % 2
    computer = make_player(player, index, NAMES)
    engine = ReferenceEngine(program, index, timeout)
    times: tuple[list[float], list[float]] = ([], [])
    log: list[str] = []
    turns = 0
    outcome, detail = "", ""

    def finish(result_outcome: str, result_detail: str = "") -> QuuxGame:
        engine.close()
        pips = material(state)
        return QuuxGame(index, player, seat, result_outcome, turns, tuple(times[seat]),
                        tuple(times[1 - seat]), result_detail,
                        (pips[seat], pips[1 - seat]), tuple(log))

    try:
        engine.start(state)
        while state.result is None and turns < max_turns:
            mover = state.to_move
            before = "\n".join(s.to_text() for s in our_systems(state))
            if mover == seat:
                started = time.perf_counter()
                turn = computer.choose_turn(state)
                times[mover].append(time.perf_counter() - started)
                state.apply_turn(turn)
                text = format_cooked_turn(turn)
                log.append(text)
                engine.tell(text)
            else:
                started = time.perf_counter()
                text = engine.ai_move()
                times[mover].append(time.perf_counter() - started)
                log.append(text)
                try:
                    reference_turn = parse_cooked_turn(text)
                except InvalidNotation as exc:
                    raise ReferenceError_("reference-unparseable",
                                          f"turn {turns + 1}: {text!r} is not a turn in "
                                          f"cooked notation ({exc}); position before it:\n"
                                          f"{before}") from None
                try:
                    state.apply_turn(reference_turn)
                except HomeworldsError as exc:
                    raise ReferenceError_("reference-illegal",
                                          f"turn {turns + 1}: {text!r} is illegal under the "
                                          f"{rules} rules: {exc}; position before it:\n"
                                          f"{before}") from None
            turns += 1
            if check_positions and state.result is None:
                # (At the end our engine no longer marks the lost home as a home.)
                theirs = engine.position()
                if position_key(theirs) != position_key(our_systems(state)):
                    raise ReferenceError_(
                        "position-mismatch",
                        f"after turn {turns} ({text!r}) the engines disagree; ours:\n"
                        + "\n".join(s.to_text() for s in our_systems(state))
                        + "\nthe C++ engine's:\n" + "\n".join(s.to_text() for s in theirs))
    except ReferenceError_ as exc:
        return finish(exc.kind, str(exc))
    result = state.result
    if result is None:
        outcome = "unfinished"
    elif not result.winners:
        outcome = "draw"
    else:
        outcome = "win" if seat in result.winners else "loss"
    return finish(outcome, detail)


def _job(args: tuple) -> QuuxGame:
    return play_quux_game(*args)



def _cycling(turn_log: tuple[str, ...]) -> bool:
    """The game ended in an exact four-turn cycle (the same two turns each, twice)."""
    return len(turn_log) >= 8 and turn_log[-4:] == turn_log[-8:-4]


def summarize(games: list[QuuxGame]) -> dict:
    """Counts of every outcome, mean length, think times of both sides."""
    unfinished = [g for g in games if g.outcome == "unfinished"]
    return {**match_figures(games, lambda g: g.reference_times, GAME_OUTCOMES, FAULTS),
            "unfinished_ahead": sum(1 for g in unfinished if g.material[0] > g.material[1]),
            "unfinished_cycling": sum(1 for g in unfinished if _cycling(g.turn_log)),
            "faults": [f"game {g.index}: {g.outcome}: {g.detail}" for g in games
                       if g.outcome in FAULTS]}


def run_match(program: Path, player: str, games: int, *, first: int = 0, rules: str = "strict",
              max_turns: int = 150, workers: int = 1, timeout: float = DEFAULT_TIMEOUT,
              on_game: Callable[[QuuxGame], None] | None = None) -> list[QuuxGame]:
    jobs = [(program, i, player, rules, max_turns, timeout)
            for i in range(first, first + games)]
    return play_games(_job, jobs, workers, on_game)


def format_report(player: str, summary: dict, *, rules: str, max_turns: int) -> list[str]:
    s = summary
    lines = [f"{player} vs C++ AI ({s['games']} games, {rules} rules, cap {max_turns} turns): "
             f"{outcome_text(s)} ({s['unfinished_ahead']} of them ahead in ship material, "
             f"{s['unfinished_cycling']} ending in a four-turn cycle); "
             f"mean length {s['mean_turns']:.1f} turns"]
    lines.append("  " + seats_text(s["by_seat"]))
    faults = sum(s[k] for k in FAULTS)
    lines.append("  reference faults: " + (", ".join(f"{s[k]} {k}" for k in FAULTS if s[k])
                                            if faults else "none"))
    for label, key in ((player, "player_seconds"), ("C++ AI", "opponent_seconds")):
        if s[key]["moves"]:
            lines.append(f"  think time {label}: {think_time_text(s[key])}")
    lines.extend(f"  {fault}" for fault in s["faults"])
    return lines


def load_games(path: Path) -> list[QuuxGame]:
    """Games recorded with ``--jsonl`` (one JSON object a line)."""
    games = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            record["times"] = tuple(record["times"])
            record["reference_times"] = tuple(record["reference_times"])
            record["material"] = tuple(record["material"])
            record["turn_log"] = tuple(record.get("turn_log", ()))
            games.append(QuuxGame(**record))
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path}, line {number}: not a recorded game ({exc})") from None
    return games


def summarize_file(path: Path, rules: str, max_turns: int) -> int:
    try:
        games = load_games(path)
    except (OSError, ValueError) as exc:
        print(f"quux_match: {exc}", file=sys.stderr)
        return 2
    by_player: dict[str, list[QuuxGame]] = {}
    for game in games:
        by_player.setdefault(game.player, []).append(game)
    for player, mine in by_player.items():
        for line in format_report(player, summarize(mine), rules=rules, max_turns=max_turns):
            print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default="level1",
                        help=f"player under test (one of {', '.join(player_names())}; "
                        "default level1)")
    parser.add_argument("--games", type=int, default=QUICK_GAMES,
                        help=f"games (default {QUICK_GAMES}; half with each seat)")
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--rules", default="strict",
                        help="rules preset of the referee (default strict, the C++ engine's)")
    parser.add_argument("--max-turns", type=int, default=150)
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1)")
    parser.add_argument("--move-timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds the C++ program may take for one answer")
    parser.add_argument("--jsonl", type=Path, default=None,
                        help="append one JSON record per finished game to this file")
    parser.add_argument("--summarize", type=Path, default=None, metavar="JSONL",
                        help="print the report of games recorded by --jsonl (no games played)")
    args = parser.parse_args(argv)
    if args.summarize:
        return summarize_file(args.summarize, args.rules, args.max_turns)
    quux_dir = os.environ.get("QUUX_DIR")
    if not quux_dir:
        print(HOW_TO_BUILD)
        return 0
    if args.player not in player_names():
        parser.error(f"unknown player {args.player!r}; known: {', '.join(player_names())}")
    try:
        program = find_program(quux_dir)
    except ValueError as exc:
        print(f"quux_match: {exc}", file=sys.stderr)
        return 2

    def record(game: QuuxGame) -> None:
        print(f"  game {game.index} (seat {game.seat}): {game.outcome} after {game.turns} "
              f"turns, material {game.material[0]} v {game.material[1]}", flush=True)
        if args.jsonl:
            with args.jsonl.open("a", encoding="utf-8") as out:
                out.write(json.dumps(asdict(game)) + "\n")

    started = time.perf_counter()
    games = run_match(program, args.player, args.games, first=args.first, rules=args.rules,
                      max_turns=args.max_turns, workers=args.workers,
                      timeout=args.move_timeout, on_game=record)
    for line in format_report(args.player, summarize(games), rules=args.rules,
                              max_turns=args.max_turns):
        print(line)
    print(f"  ({time.perf_counter() - started:.0f} s wall, load average "
          f"{os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

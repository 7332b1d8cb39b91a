"""The win probability's calibration on real games (docs/analysis.md).

Every two-player game of ../shared/games/expected.tsv that is legal under the archive's
rules and has a result (``winner_line``: the player who set up first or second; resigned
and timed-out games count, their result is the only record) is replayed; every position
after setup and before the end is one example, labelled by who won the game. Games are
split by their SDG number: numbers divisible by 5 are the held-out games, the rest fit.

    python benchmarks/win_calibration.py            # figures of the bundled model
    python benchmarks/win_calibration.py --write    # refit, write the package's model file
    python benchmarks/win_calibration.py --sample 20  # every 20th game only (quick)
    python benchmarks/win_calibration.py --cpp-engine /tmp/hw-cpp/homeworlds-cli

Prints, per game phase, the Brier score and log loss on the held-out games of the model
(``homeworlds.ai.analysis``) and of the material-count baseline, and exits 1 unless the
model beats the baseline at every phase on both scores.

With ``--cpp-engine`` (or ``QUUX_DIR``, as for ``quux_match.py``) naming a build of the
C++ reference engine Quuxplusone/Homeworlds (built outside the repository: docs/analysis.md),
the same held-out positions are also scored by its static evaluation ``rate_position``,
mapped to a probability by a logistic fit per phase on the fitting games (the way the
material baseline is), and the model must beat that too. Without a build that column is
skipped with a line saying how to get one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from homeworlds.ai.analysis import (
    BASELINE_FEATURES,
    FEATURES,
    MODEL_RESOURCE,
    PHASES,
    WinModel,
    bundled_model,
    features,
    phase_of,
)
from homeworlds.ai.calibration import brier, fit_logistic, log_loss, predict
from homeworlds.display.steps import load_game_file
from homeworlds.rules import GameState
from homeworlds.store.records import cooked_systems, position_to_json

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
MODEL_FILE = REPO / "host" / "homeworlds" / "data" / MODEL_RESOURCE
COMMAND = "python benchmarks/win_calibration.py --write"
#: Games whose SDG number is divisible by this are held out.
HOLD_OUT = 5


def result_games(shared: Path) -> dict[str, int]:
    """Game number -> 1 when the player who set up first won, 0 when the second did."""
    import csv

    games = {}
    with (shared / "games" / "expected.tsv").open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["sdg_rules"] != "legal" or row["winner_line"] not in ("first", "second"):
                continue
            games[row["game"]] = 1 if row["winner_line"] == "first" else 0
    return games


def positions(shared: Path, names: list[str]) -> Iterator[tuple[str, list[GameState]]]:
    """(game, its judged positions) of the named games: after setup, before the end."""
    for name in names:
        game = load_game_file(shared / "games" / "sdg" / f"{name}.raw")
        if game.error is not None:
            continue
        yield name, [step.state for step in game.steps if not (
            step.state.in_setup or step.state.is_over or step.state.players != 2)]


def examples(shared: Path, names: list[str], labels: dict[str, int]
             ) -> Iterator[tuple[str, dict[str, float], int]]:
    """(phase, features, label) of every judged position of the named games."""
    for name, states in positions(shared, names):
        for state in states:
            yield phase_of(state), features(state), labels[name]


def split(labels: dict[str, int], sample: int) -> tuple[list[str], list[str]]:
    names = sorted(labels, key=int)[::sample]
    fit = [n for n in names if int(n) % HOLD_OUT]
    held = [n for n in names if not int(n) % HOLD_OUT]
    return fit, held


#: How to get a build of the C++ engine (printed when none is given; docs/analysis.md).
CPP_HOW_TO = """\
    git clone https://github.com/Quuxplusone/Homeworlds /tmp/hw-cpp
    make -C /tmp/hw-cpp homeworlds-cli CXXFLAGS="-std=c++14 -include utility"
    python benchmarks/win_calibration.py --cpp-engine /tmp/hw-cpp/homeworlds-cli"""
#: ``rate_position`` answers in hundredths of a ship, roughly (a decided position is
#: +-9999); the logistic sees it in these units, clipped.
RATING_SCALE = 100.0
RATING_CLIP = 20.0
#: Seconds one ``rate_position`` may take (it is a static evaluation: milliseconds).
RATING_TIMEOUT = 20.0


class CppEngineError(Exception):
    """The C++ program did not rate a position: the reason, its output quoted."""


def cpp_program(path: str | os.PathLike[str]) -> Path:
    """The C++ CLI program given as itself or as its build directory; ValueError naming
    what is missing and how to build it."""
    program = Path(path)
    if program.is_dir():
        program = program / "homeworlds-cli"
    if not (program.is_file() and os.access(program, os.X_OK)):
        raise ValueError(f"--cpp-engine {path}: no executable homeworlds-cli there; build "
                         f"it outside the repository:\n{CPP_HOW_TO}")
    return program


def rate_position_input(state: GameState) -> str:
    """What the C++ program (``homeworlds-cli --auto``) is fed to rate ``state`` from seat
    0's point of view: the position in cooked notation and a blank line (it then has seat 0
    to move), ``pass`` when seat 1 is to move, then ``rate_position``, which rates the
    position for the player who moved last, the other being to move."""
    systems = cooked_systems(position_to_json(state))
    if systems is None:
        raise CppEngineError("the C++ engine seats two players only")
    lines = [s.to_text() for s in systems] + [""]
    lines += (["pass"] if state.to_move == 1 else []) + ["rate_position"]
    return "\n".join(lines) + "\n"


def parse_rating(output: str, state: GameState) -> float:
    """Seat 0's rating from the program's output to ``rate_position_input(state)``."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    try:
        rating = int(lines[-1])
    except (IndexError, ValueError):
        raise CppEngineError(f"rate_position answered {output[-200:]!r}, not a number") \
            from None
    # With seat 0 to move the rating is seat 1's (it moved last).
    return float(rating if state.to_move == 1 else -rating)


def cpp_rating(program: Path, state: GameState, timeout: float = RATING_TIMEOUT) -> float:
    """``rate_position`` of ``state`` from seat 0's point of view; CppEngineError when the
    program fails, hangs or answers something else."""
    text = rate_position_input(state)
    try:
        done = subprocess.run([str(program), "--auto"], input=text, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise CppEngineError(f"no rating within {timeout:.0f} s") from None
    except OSError as exc:
        raise CppEngineError(f"{program} could not be run: {exc}") from None
    if done.returncode != 0:
        raise CppEngineError(f"{program.name} exited with status {done.returncode}: "
                             f"{(done.stdout + done.stderr)[-200:]!r}")
    return parse_rating(done.stdout, state)


def cpp_features(rating: float, state: GameState) -> list[float]:
    """The C++ baseline's features: the rating (scaled, clipped) and whose turn it is
    (the rating is the last mover's view, which it favours: the tempo term corrects it)."""
    scaled = max(-RATING_CLIP, min(RATING_CLIP, rating / RATING_SCALE))
    return [scaled, 1.0 if state.to_move == 0 else -1.0]


class CppBaseline:
    """``rate_position`` as a probability: a logistic per phase on ``cpp_features``.

    (A plain class: the tests load this script by path, where a dataclass cannot be.)"""

    def __init__(self, program: Path, phases: dict[str, tuple[float, ...]] | None = None,
                 workers: int = 2):
        self.program = program
        self.phases = dict(phases or {})
        self.workers = workers
        #: Positions it could not rate: (game, ply, reason); left out of every column.
        self.failures: list[tuple[str, int, str]] = []

    def rated(self, shared: Path, names: list[str], labels: dict[str, int]
              ) -> Iterator[tuple[GameState, list[float] | None, int]]:
        """(position, its C++ features or None when it could not be rated, label)."""
        def one(state: GameState) -> list[float] | str:
            try:
                return cpp_features(cpp_rating(self.program, state), state)
            except CppEngineError as exc:
                return str(exc)

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for name, states in positions(shared, names):
                for state, got in zip(states, pool.map(one, states), strict=True):
                    if isinstance(got, str):
                        self.failures.append((name, state.ply, got))
                        yield state, None, labels[name]
                    else:
                        yield state, got, labels[name]

    def fit(self, shared: Path, names: list[str], labels: dict[str, int]) -> None:
        rows: dict[str, list[list[float]]] = {p: [] for p, _ in PHASES}
        ys: dict[str, list[int]] = {p: [] for p, _ in PHASES}
        for state, values, label in self.rated(shared, names, labels):
            if values is not None:
                rows[phase_of(state)].append(values)
                ys[phase_of(state)].append(label)
        self.phases = {p: tuple(fit_logistic(rows[p], ys[p])) for p, _ in PHASES if ys[p]}


def fit(shared: Path, names: list[str], labels: dict[str, int], sample: int) -> WinModel:
    rows: dict[str, list[dict[str, float]]] = {p: [] for p, _ in PHASES}
    ys: dict[str, list[int]] = {p: [] for p, _ in PHASES}
    for phase, values, label in examples(shared, names, labels):
        rows[phase].append(values)
        ys[phase].append(label)
    phases, baseline = {}, {}
    for phase, _ in PHASES:
        data = rows[phase]
        phases[phase] = tuple(fit_logistic([[v[f] for f in FEATURES] for v in data],
                                           ys[phase]))
        baseline[phase] = tuple(fit_logistic([[v[f] for f in BASELINE_FEATURES]
                                              for v in data], ys[phase]))
    first = sum(labels[n] for n in names) / len(names)
    return WinModel(FEATURES, phases, BASELINE_FEATURES, baseline, first,
                    {"command": COMMAND, "fitted_on": f"{len(names)} games of "
                     f"../shared/games (SDG numbers not divisible by {HOLD_OUT})"
                     + (f", every {sample}th" if sample > 1 else ""),
                     "positions": {p: len(ys[p]) for p, _ in PHASES}})


def _judged(model: WinModel, shared: Path, names: list[str], labels: dict[str, int],
            cpp: CppBaseline | None) -> Iterator[tuple[str, list[float], int]]:
    """(phase, [model, material, C++ if given] probabilities, label) per position; with
    ``cpp``, the positions it could not rate are left out (``cpp.failures``)."""
    if cpp is None:
        for phase, values, label in examples(shared, names, labels):
            yield phase, [predict(model.phases[phase], [values[f] for f in model.features]),
                          predict(model.baseline[phase],
                                  [values[f] for f in model.baseline_features])], label
        return
    for state, rated, label in cpp.rated(shared, names, labels):
        if rated is None:
            continue
        phase, values = phase_of(state), features(state)
        if phase not in cpp.phases:
            raise ValueError(f"rate_position was not fitted in the {phase}: no fitting "
                             "game reaches it")
        yield phase, [predict(model.phases[phase], [values[f] for f in model.features]),
                      predict(model.baseline[phase],
                              [values[f] for f in model.baseline_features]),
                      predict(cpp.phases[phase], rated)], label


def report(model: WinModel, shared: Path, names: list[str], labels: dict[str, int],
           cpp: CppBaseline | None = None) -> dict:
    """Per phase (and over all): positions, Brier and log loss of model and baseline (and
    of ``rate_position`` when ``cpp`` is given)."""
    columns = 3 if cpp is not None else 2
    got: dict[str, tuple[list[list[float]], list[int]]] = {
        p: ([[] for _ in range(columns)], []) for p, _ in PHASES}
    for phase, probabilities, label in _judged(model, shared, names, labels, cpp):
        forecasts, ys = got[phase]
        for column, p in zip(forecasts, probabilities, strict=True):
            column.append(p)
        ys.append(label)
    figures = {}
    every: tuple[list[list[float]], list[int]] = ([[] for _ in range(columns)], [])
    for phase, _ in PHASES:
        forecasts, ys = got[phase]
        for total, column in zip(every[0], forecasts, strict=True):
            total += column
        every[1].extend(ys)
        if ys:
            figures[phase] = _scores(forecasts, ys)
    if every[1]:
        figures["all"] = _scores(*every)
    return figures


def _scores(forecasts: list[list[float]], ys: list[int]) -> dict:
    ours, base = forecasts[0], forecasts[1]
    scores = {"positions": len(ys),
              "brier": round(brier(ours, ys), 4), "brier_material": round(brier(base, ys), 4),
              "log_loss": round(log_loss(ours, ys), 4),
              "log_loss_material": round(log_loss(base, ys), 4)}
    if len(forecasts) > 2:
        scores["brier_cpp"] = round(brier(forecasts[2], ys), 4)
        scores["log_loss_cpp"] = round(log_loss(forecasts[2], ys), 4)
    return scores


def beats_baseline(figures: dict, baseline: str = "material") -> list[str]:
    """The phases where the model does not beat the baseline (``material`` or ``cpp``) on
    both scores."""
    return [phase for phase, f in figures.items()
            if not (f["brier"] < f[f"brier_{baseline}"]
                    and f["log_loss"] < f[f"log_loss_{baseline}"])]


def run(shared: Path = SHARED, sample: int = 1) -> dict:
    """Figures of the bundled model on the held-out games (``make bench``)."""
    if not (shared / "games" / "expected.tsv").is_file():
        return {"skipped": f"{shared}/games not found"}
    labels = result_games(shared)
    _, held = split(labels, sample)
    figures = report(bundled_model(), shared, held, labels)
    out: dict = {"held_out_games": len(held)}
    for phase, f in figures.items():
        out[phase] = (f"{f['positions']} positions: Brier {f['brier']} (material "
                      f"{f['brier_material']}), log loss {f['log_loss']} (material "
                      f"{f['log_loss_material']})")
    out["beats_material_everywhere"] = not beats_baseline(figures)
    out["rate_position"] = ("skipped here (one C++ process per position, minutes): "
                            "python benchmarks/win_calibration.py --cpp-engine PATH")
    return out


def cpp_baseline(args: argparse.Namespace, shared: Path, fitting: list[str],
                 labels: dict[str, int]) -> CppBaseline | None:
    """The fitted ``rate_position`` baseline when a build is given, else None (and a line
    saying how to get one)."""
    if not args.cpp_engine:
        print("win_calibration: the C++ engine's rate_position is skipped: no build given "
              f"(--cpp-engine PATH or QUUX_DIR); to get one:\n{CPP_HOW_TO}", file=sys.stderr)
        return None
    cpp = CppBaseline(cpp_program(args.cpp_engine), workers=args.workers)
    names = fitting[::args.cpp_fit_sample]
    t0 = time.perf_counter()
    cpp.fit(shared, names, labels)
    every = f" (every {args.cpp_fit_sample}th)" if args.cpp_fit_sample > 1 else ""
    print(f"rate_position fitted on {len(names)} fitting games{every} in "
          f"{time.perf_counter() - t0:.0f} s: "
          + "; ".join(f"{p} {[round(w, 3) for w in ws]}" for p, ws in cpp.phases.items()),
          file=sys.stderr)
    return cpp


def print_table(figures: dict, held: list[str], cpp: CppBaseline | None) -> None:
    print(f"held-out games: {len(held)} (SDG numbers divisible by {HOLD_OUT})")
    extra = f" {'C++':>7}" if cpp else ""
    print(f"{'phase':<12} {'positions':>9} {'Brier':>7} {'material':>9}{extra} "
          f"{'log loss':>9} {'material':>9}{extra}")
    for phase, f in figures.items():
        brier_cpp = f" {f['brier_cpp']:>7.4f}" if cpp else ""
        loss_cpp = f" {f['log_loss_cpp']:>7.4f}" if cpp else ""
        print(f"{phase:<12} {f['positions']:>9} {f['brier']:>7.4f} "
              f"{f['brier_material']:>9.4f}{brier_cpp} {f['log_loss']:>9.4f} "
              f"{f['log_loss_material']:>9.4f}{loss_cpp}")
    if cpp and cpp.failures:
        name, ply, reason = cpp.failures[0]
        print(f"{len(cpp.failures)} positions the C++ engine could not rate were left out "
              f"(first: game {name}, ply {ply}: {reason})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--write", action="store_true",
                        help=f"refit on the fitting games and write {MODEL_FILE.name}")
    parser.add_argument("--sample", type=int, default=1, metavar="N",
                        help="every Nth game only (default: all)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument("--cpp-engine", default=os.environ.get("QUUX_DIR"), metavar="PATH",
                        help="a build of the C++ engine (its homeworlds-cli or its "
                        "directory; default $QUUX_DIR): also score its rate_position")
    parser.add_argument("--cpp-fit-sample", type=int, default=4, metavar="N",
                        help="fit rate_position's logistic on every Nth fitting game "
                        "(default 4: one C++ process per position)")
    parser.add_argument("--workers", type=int, default=2,
                        help="C++ processes at once (default 2)")
    args = parser.parse_args(argv)
    if not (args.shared / "games" / "expected.tsv").is_file():
        print(f"win_calibration: {args.shared}/games/expected.tsv not found", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    labels = result_games(args.shared)
    fitting, held = split(labels, args.sample)
    if args.write:
        model = fit(args.shared, fitting, labels, args.sample)
        MODEL_FILE.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE.relative_to(REPO)} ({len(fitting)} games)", file=sys.stderr)
    else:
        model = bundled_model()
    try:
        cpp = cpp_baseline(args, args.shared, fitting, labels)
    except ValueError as exc:
        print(f"win_calibration: {exc}", file=sys.stderr)
        return 2
    figures = report(model, args.shared, held, labels, cpp)
    if args.json:
        print(json.dumps({"held_out_games": len(held), "phases": figures,
                          "cpp_unrated": len(cpp.failures) if cpp else None}, indent=1))
    else:
        print_table(figures, held, cpp)
    worse = beats_baseline(figures)
    worse_cpp = beats_baseline(figures, "cpp") if cpp else []
    print(f"({time.perf_counter() - t0:.0f} s)" + (
        f"; the model does NOT beat the material baseline in: {', '.join(worse)}"
        if worse else "; the model beats the material baseline at every phase") + (
        "" if cpp is None else
        f"; the model does NOT beat rate_position in: {', '.join(worse_cpp)}" if worse_cpp
        else "; the model beats rate_position at every phase"), file=sys.stderr)
    return 1 if worse or worse_cpp else 0


if __name__ == "__main__":
    sys.exit(main())

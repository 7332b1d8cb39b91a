"""The win probability's calibration on real games (docs/analysis.md).

Every two-player game of ../shared/games/expected.tsv that is legal under the archive's
rules and has a result (``winner_line``: the player who set up first or second; resigned
and timed-out games count, their result is the only record) is replayed; every position
after setup and before the end is one example, labelled by who won the game. Games are
split by their SDG number: numbers divisible by 5 are the held-out games, the rest fit.

    python benchmarks/win_calibration.py            # figures of the bundled model
    python benchmarks/win_calibration.py --write    # refit, write the package's model file
    python benchmarks/win_calibration.py --sample 20  # every 20th game only (quick)

Prints, per game phase, the Brier score and log loss on the held-out games of the model
(``homeworlds.ai.analysis``) and of the material-count baseline, and exits 1 unless the
model beats the baseline at every phase on both scores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
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


def examples(shared: Path, names: list[str], labels: dict[str, int]
             ) -> Iterator[tuple[str, dict[str, float], int]]:
    """(phase, features, label) of every judged position of the named games."""
    for name in names:
        game = load_game_file(shared / "games" / "sdg" / f"{name}.raw")
        if game.error is not None:
            continue
        for step in game.steps:
            state = step.state
            if state.in_setup or state.is_over or state.players != 2:
                continue
            yield phase_of(state), features(state), labels[name]


def split(labels: dict[str, int], sample: int) -> tuple[list[str], list[str]]:
    names = sorted(labels, key=int)[::sample]
    fit = [n for n in names if int(n) % HOLD_OUT]
    held = [n for n in names if not int(n) % HOLD_OUT]
    return fit, held


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


def report(model: WinModel, shared: Path, names: list[str], labels: dict[str, int]) -> dict:
    """Per phase (and over all): positions, Brier and log loss of model and baseline."""
    got: dict[str, tuple[list[float], list[float], list[int]]] = {
        p: ([], [], []) for p, _ in PHASES}
    for phase, values, label in examples(shared, names, labels):
        ours, base, ys = got[phase]
        ours.append(predict(model.phases[phase], [values[f] for f in model.features]))
        base.append(predict(model.baseline[phase],
                            [values[f] for f in model.baseline_features]))
        ys.append(label)
    figures = {}
    all_ours: list[float] = []
    all_base: list[float] = []
    all_ys: list[int] = []
    for phase, _ in PHASES:
        ours, base, ys = got[phase]
        all_ours += ours
        all_base += base
        all_ys += ys
        if ys:
            figures[phase] = _scores(ours, base, ys)
    if all_ys:
        figures["all"] = _scores(all_ours, all_base, all_ys)
    return figures


def _scores(ours: list[float], base: list[float], ys: list[int]) -> dict:
    return {"positions": len(ys),
            "brier": round(brier(ours, ys), 4), "brier_material": round(brier(base, ys), 4),
            "log_loss": round(log_loss(ours, ys), 4),
            "log_loss_material": round(log_loss(base, ys), 4)}


def beats_baseline(figures: dict) -> list[str]:
    """The phases where the model does not beat the baseline on both scores."""
    return [phase for phase, f in figures.items()
            if not (f["brier"] < f["brier_material"] and f["log_loss"] < f["log_loss_material"])]


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
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--write", action="store_true",
                        help=f"refit on the fitting games and write {MODEL_FILE.name}")
    parser.add_argument("--sample", type=int, default=1, metavar="N",
                        help="every Nth game only (default: all)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
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
    figures = report(model, args.shared, held, labels)
    if args.json:
        print(json.dumps({"held_out_games": len(held), "phases": figures}, indent=1))
    else:
        print(f"held-out games: {len(held)} (SDG numbers divisible by {HOLD_OUT})")
        print(f"{'phase':<12} {'positions':>9} {'Brier':>7} {'material':>9} "
              f"{'log loss':>9} {'material':>9}")
        for phase, f in figures.items():
            print(f"{phase:<12} {f['positions']:>9} {f['brier']:>7.4f} "
                  f"{f['brier_material']:>9.4f} {f['log_loss']:>9.4f} "
                  f"{f['log_loss_material']:>9.4f}")
    worse = beats_baseline(figures)
    print(f"({time.perf_counter() - t0:.0f} s)" + (
        f"; the model does NOT beat the material baseline in: {', '.join(worse)}"
        if worse else "; the model beats the material baseline at every phase"),
        file=sys.stderr)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())

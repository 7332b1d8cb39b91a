"""Validation against the real game archive (../shared/games): the engine's ground truth.

Used by the tests (a sample) and by ``make corpus`` (everything), which prints every
disagreement and must print none.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from homeworlds.notation.cooked import read_cooked_file
from homeworlds.notation.sdg import read_sdg_file
from homeworlds.replay.transcript import ReplayResult, replay_game
from homeworlds.rules import AmbiguousAction, GameState, IllegalAction, preset


@dataclass(frozen=True, slots=True)
class Expected:
    game: str
    legal: bool
    #: "opponent-eliminated", "self-eliminated" or "none"
    board_end: str
    end_turn: int | None
    #: 0 = the player who set up first, 1 = second, None = no board result
    board_winner: int | None


def load_expected(path: Path) -> dict[str, Expected]:
    rows = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            end, _, turn = row["board_end"].partition("@")
            rows[row["game"]] = Expected(
                game=row["game"],
                legal=row["sdg_rules"] == "legal",
                board_end=end if end not in ("-", "") else "none",
                end_turn=int(turn) if turn else None,
                board_winner={"first": 0, "second": 1}.get(row["board_winner"]),
            )
    return rows


def disagreement(result: ReplayResult, want: Expected) -> str | None:
    """What differs between a replay and the archive's expected row (None: they agree)."""
    if result.legal != want.legal:
        why = f" ({result.error.reason} at turn {result.error.turn})" if result.error else ""
        return f"legal={result.legal}{why}, expected legal={want.legal}"
    if not want.legal:
        return None
    got = (result.board_end, result.end_turn, result.board_winner)
    expected = (want.board_end, want.end_turn, want.board_winner)
    if got != expected:
        return f"board end {got}, expected {expected}"
    return None


def sdg_disagreements(shared: Path, games: list[str] | None = None,
                      rules: str = "sdg") -> Iterator[tuple[str, str]]:
    """(game, what differs) for every two-player game of expected.tsv (or those named)."""
    expected = load_expected(shared / "games" / "expected.tsv")
    for name in games if games is not None else sorted(expected, key=int):
        result = replay_game(read_sdg_file(shared / "games" / "sdg" / f"{name}.raw"),
                             preset(rules), file=f"{name}.raw")
        problem = disagreement(result, expected[name])
        if problem:
            yield name, problem


def replay_cooked(path: Path, rules: str = "strict") -> tuple[GameState, int, str | None]:
    """Replay a cooked game from its starting position: (final state, turns applied,
    the first error or None)."""
    game = read_cooked_file(path)
    state = GameState.from_position(game.systems, preset(rules))
    for k, turn in enumerate(game.turns):
        try:
            state.apply_turn(turn)
        except (IllegalAction, AmbiguousAction) as exc:
            return state, k, f"turn {k + 1} after setup: {exc}"
    return state, len(game.turns), None


def cooked_disagreements(shared: Path, games: list[str] | None = None,
                         rules: str = "strict") -> Iterator[tuple[str, str]]:
    folder = shared / "games" / "cooked"
    names = games if games is not None else sorted((p.stem for p in folder.glob("*.cooked")),
                                                   key=int)
    for name in names:
        _, _, error = replay_cooked(folder / f"{name}.cooked", rules)
        if error:
            yield name, error

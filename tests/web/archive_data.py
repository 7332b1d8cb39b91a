"""Stores holding real archive games, recorded as the table records them (GameRecorder)."""

from __future__ import annotations

from pathlib import Path

from homeworlds.notation import read_sdg_file
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState
from homeworlds.store import GameRecorder
from tests.shared import DATA

SDG_DIR = DATA / "games" / "sdg"
COOKED_DIR = DATA / "games" / "cooked"


def engine_positions(path: Path) -> tuple[tuple[str, ...], list[GameState]]:
    """The players and the engine's position before the first turn and after each turn of
    a two-player SDG transcript, replayed here independently of the viewer."""
    game = read_sdg_file(path)
    state = GameState(rules_for_game(game, None), 2, first_to_move=game.turns[0].seat)
    out = [state.copy()]
    for turn in game.turns:
        state.apply_turn(turn.actions)
        out.append(state.copy())
        if state.is_over:
            break
    return game.players, out


def record_games(store: Path, names: list[str], table: str = "club-1") -> None:
    """Record each SDG game of tests/data (by file name) into ``store``, with its result."""
    recorder = GameRecorder(store, table=table, layout="standard-2p")
    recorder.open()
    try:
        for name in names:
            game = read_sdg_file(SDG_DIR / name)
            rules = rules_for_game(game, None)
            recorder.start_game(rules, game.players, first_seat=game.turns[0].seat)
            state = GameState(rules, 2, first_to_move=game.turns[0].seat)
            for number, turn in enumerate(game.turns, start=1):
                seat = state.to_move
                state.apply_turn(turn.actions)
                recorder.turn(number, seat, turn.actions, state, game.players, {})
                if state.is_over:
                    result = state.result
                    recorder.finish(result.kind, result.winners, None, number)
                    break
        assert recorder.flush(), "the recorder could not write the store"
    finally:
        recorder.close()

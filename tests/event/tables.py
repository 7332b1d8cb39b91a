"""A table's store filled as the table host fills it, and the messages it publishes."""

from __future__ import annotations

from pathlib import Path

from homeworlds.event.payloads import encode, result_message, turn_message
from homeworlds.event.simtable import legal_record
from homeworlds.event.topics import table_topic
from homeworlds.rules import GameState, preset
from homeworlds.store import GameRecorder, GameStore


def played_store(path: Path, game_file: Path, table: str, turns: int | None = None,
                 players: tuple[str, ...] | None = None, finish: bool = True) -> Path:
    """A game played into the store at ``path`` (a new one after any it holds); finished
    (resigned when the archive game stops short of the end) unless ``finish`` is False."""
    names, rules_name, record = legal_record(game_file, turns)
    players = players or names
    recorder = GameRecorder(path, table=table, layout="simulated")
    recorder.open()
    rules = preset(rules_name)
    state = GameState(rules, 2, first_to_move=record[0][0])
    recorder.start_game(rules, players, record[0][0])
    for number, (seat, turn) in enumerate(record, 1):
        state.push(turn)
        recorder.turn(number, seat, turn, state, players, {})
    if finish and not state.is_over:
        recorder.finish("resigned", [1 - state.to_move], state.to_move, len(record))
    assert recorder.flush()
    recorder.close()
    return path


def messages(path: Path, event: str, table: str) -> list[tuple[str, bytes]]:
    """(topic, payload) of every turn and the result, in order, as the publisher sends."""
    store = GameStore.open(path)
    try:
        out = []
        for game in store.games(table):
            for turn in store.turns(game.id):
                out.append((table_topic(event, table, "turns"),
                            encode(turn_message(table, game, turn))))
            result = store.result(game.id)
            if result is not None:
                out.append((table_topic(event, table, "result"),
                            encode(result_message(table, game, result))))
        return out
    finally:
        store.close()

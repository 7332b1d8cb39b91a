"""A table's store filled as the table host fills it, its key, and the messages it
publishes (signed as the publisher signs them)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from homeworlds.event.identity import issue_key
from homeworlds.event.payloads import encode, result_message, turn_message
from homeworlds.event.simtable import legal_record
from homeworlds.event.topics import table_topic
from homeworlds.identity import Signer, TableKey
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


def issue(hub_store: Path, table: str, directory: Path | None = None) -> TableKey:
    """A key for ``table`` issued in the hub's store (and written to
    ``directory/<table>.key`` when given)."""
    store = GameStore.open(hub_store)
    try:
        key = issue_key(store, table)
    finally:
        store.close()
    if directory is not None:
        (directory / f"{table}.key").write_text(key.to_text())
    return key


def key_file(directory: Path, table: str, hub_store: Path | None = None) -> str:
    """A key for ``table`` issued in ``hub_store`` (default ``directory/hub.sqlite``),
    written to ``directory/<table>.key``; its path for ``[event] key_file``."""
    issue(hub_store or directory / "hub.sqlite", table, directory)
    return str(directory / f"{table}.key")


class TableSigner:
    """Signs as a table's publisher does, with numbers from memory."""

    def __init__(self, key: TableKey, first: int = 1):
        numbers = itertools.count(first, 256)
        self.signer = Signer(key, lambda count: next(numbers))

    def __call__(self, topic: str, payload: bytes | dict) -> bytes:
        if isinstance(payload, dict):
            payload = json.dumps(payload).encode()
        return self.signer.sign(topic, payload)


def messages(path: Path, event: str, table: str, sign: TableSigner | None = None
             ) -> list[tuple[str, bytes]]:
    """(topic, payload) of every turn and the result, in order, as the publisher sends
    (signed by ``sign`` when given)."""
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
        if sign is not None:
            out = [(topic, sign(topic, payload)) for topic, payload in out]
        return out
    finally:
        store.close()

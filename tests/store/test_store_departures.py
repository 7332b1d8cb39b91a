"""Players who left a game of three or more, and turns missed, are kept in the store
(schema version 3): a restarted table goes on without the players who left, and an undo
withdraws the departures after the withdrawn turn (issue 28, item 6)."""

from __future__ import annotations

from homeworlds.rules import GameState, preset
from homeworlds.store import GameRecorder
from homeworlds.store.records import turn_from_sdg
from homeworlds.table.layout import builtin_layout
from homeworlds.table.tracker import TurnTracker

THREE = ("Ann", "Bob", "Cat")
OPENING = ["Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B1 B2", "Build R1 Ann"]


def _play(recorder, texts, first=1, state=None):
    state = state or GameState(preset("last-standing"), 3)
    record = []
    for number, text in enumerate(texts, start=first):
        seat = state.to_move
        turn = turn_from_sdg(text, seat, THREE)
        state.push(turn)
        record.append((seat, turn))
        recorder.turn(number, seat, turn, state.copy(), THREE, {})
    return state, record


def test_a_resignation_is_stored_and_a_resumed_table_goes_on_without_the_player(tmp_path):
    """000 (HOMEWORLDS FOR MORE THAN TWO): "You can fight to the last captain standing" —
    the one who left stays out after a restart."""
    path = tmp_path / "games.sqlite"
    recorder = GameRecorder(path, table="t", layout="four-seat")
    recorder.open()
    recorder.start_game(preset("last-standing"), THREE)
    _play(recorder, OPENING)
    recorder.departure(4, "resigned", 1)  # Bob leaves; Cat is to move
    recorder.close()
    again = GameRecorder(path, table="t", layout="four-seat")
    again.open()
    point = again.resume_point()
    assert point.departures == ((4, "resigned", 1),)
    tracker = TurnTracker(builtin_layout("four-seat"), preset("last-standing"), THREE)
    tracker.resume(list(point.record), point.star_tags, point.departures)
    assert tracker.state.eliminated == [False, True, False] and tracker.state.to_move == 2
    again.close()


def test_an_undo_withdraws_the_departures_after_the_withdrawn_turn(tmp_path):
    path = tmp_path / "games.sqlite"
    recorder = GameRecorder(path, table="t", layout="four-seat")
    recorder.open()
    recorder.start_game(preset("last-standing"), THREE)
    state, _ = _play(recorder, OPENING[:3])
    recorder.departure(3, "skipped", 0)  # Ann misses turn 4: kept
    state.to_move = 1
    _play(recorder, ["Build G1 Bob"], first=4, state=state)
    recorder.departure(4, "skipped", 2)  # after turn 4: withdrawn with it
    recorder.withdraw(4)
    assert recorder.resume_point().departures == ((3, "skipped", 0),)
    recorder.close()

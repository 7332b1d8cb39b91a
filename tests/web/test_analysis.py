"""Live analysis for spectators: the display's worker, the feed's analysis event, the hub
(docs/analysis.md). The browser side is in test_analysis_browser.py."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from homeworlds.ai.threats import is_forced_win_in_two
from homeworlds.feed import (
    AnalysisEvent,
    FeedError,
    FeedHub,
    GameInfo,
    Hints,
    SnapshotEvent,
    event_from_json,
)
from homeworlds.notation import parse_sdg_action
from homeworlds.web.analysis import AnalysisWorker, analyse, position_for_analysis
from tests.ai.test_threats import GAME_1190
from tests.positions import position

POSITION = "\n".join(line.strip() for line in GAME_1190.strip().splitlines())
#: The same position with the seats' places exchanged (the table's seat 1 set up first).
SWAPPED = """TwoShort (1, y1b2) -g1g3
Laurie_Menke (0, y3b2) g3-
Troublemaker (y1) -y2g1g2g3
Oceania (b3) -r1y1g1g2g2"""


def snapshot(text: str = POSITION, *, first_seat: int = 0, to_move: int = 0, seq: int = 7,
             turn_number: int = 29, partial: tuple[str, ...] = (),
             players=("TwoShort", "Laurie_Menke"), uid: str = "g1") -> SnapshotEvent:
    game = GameInfo(uid, "sdg", players, first_seat, to_move, turn_number, None, False)
    return SnapshotEvent("club", seq, 1.0, game, text, {}, (), Hints(), True, None, partial)


def test_the_analysis_of_a_position_with_a_forced_win():
    # No wall-clock limit on the forced-win search and a node budget for the suggestion:
    # the same answer however loaded the machine is.
    event = analyse(snapshot(), think_s=120, forced_s=None, node_limit=300)
    assert event is not None
    assert event.turn_number == 29 and event.seq == 7 and event.game_uid == "g1"
    assert sum(event.win) == pytest.approx(1.0)
    kinds = [t["kind"] for t in event.threats]
    assert kinds[0] == "forced-win" and event.threats[0]["seat"] == 0
    assert event.threats[0]["words"].startswith("TwoShort has a forced win")
    assert event.phase == "middle game"  # 28 turns played, 26 after setup
    assert event.suggested is not None and event.suggested["seat"] == 0
    assert not event.hidden
    # The computer suggests the forced win itself.
    state = position(GAME_1190, rules="sdg")
    turn = tuple(parse_sdg_action(t, player="TwoShort")
                 for t in event.suggested["turn"].split("; "))
    assert is_forced_win_in_two(state, turn)


def test_tournament_mode_hides_the_suggestion():
    event = analyse(snapshot(), suggestions=False, forced_s=0.1)
    assert event is not None and event.suggested is None and event.hidden


def test_the_player_who_set_up_first_is_the_models_first_player():
    plain = analyse(snapshot(), suggestions=False, forced_s=0)
    swapped = analyse(snapshot(SWAPPED, first_seat=1, to_move=1,
                               players=("Laurie_Menke", "TwoShort")),
                      suggestions=False, forced_s=0)
    assert plain is not None and swapped is not None
    assert swapped.win == pytest.approx(plain.win[::-1])
    danger = [t for t in swapped.threats if t["kind"] == "home-in-danger"]
    assert danger and danger[0]["seat"] == 1  # TwoShort's home, TwoShort at seat 1 here


def test_nothing_to_analyse_during_a_turn_in_setup_or_after_the_end():
    assert position_for_analysis(snapshot(partial=("Move G3 Troublemaker Laurie_Menke",))) \
        is None
    setup = GameInfo("g", "sdg", ("a", "b"), 0, 1, 2, None, True)
    assert position_for_analysis(SnapshotEvent("t", 1, 0.0, setup, "", {}, (), Hints(),
                                               True)) is None


def test_the_analysis_event_round_trips_and_bad_fields_are_named():
    event = analyse(snapshot(), suggestions=False, forced_s=0.1)
    assert event is not None
    data = json.loads(json.dumps(event.to_json()))
    assert event_from_json(data) == event
    for key, value, message in (
            ("win", [1.5, -0.5], "analysis.win"),
            ("threats", [{"kind": "bomb", "words": "x"}], "threats[0].kind"),
            ("threats", [{"kind": "overpopulation", "words": "x"}] * 33, "more than 32"),
            ("suggested", {"seat": "0", "turn": "Pass"}, "analysis.suggested.seat"),
            ("hidden", "no", "analysis.hidden")):
        with pytest.raises(FeedError, match=message.replace("[", r"\[").replace("]", r"\]")):
            event_from_json({**data, key: value})


def test_a_new_spectator_gets_the_snapshot_then_its_analysis():
    hub = FeedHub()
    snap = snapshot()
    analysis = AnalysisEvent("club", 7, "g1", 29, 0, POSITION, "endgame", (0.6, 0.4), (),
                             None, True, 0.1)
    other_game = AnalysisEvent("club", 3, "old", 5, 0, POSITION, "opening", (0.5, 0.5), (),
                               None, True, 0.1)

    async def main():
        hub.attach(asyncio.get_running_loop())
        hub.publish(other_game)
        hub.publish(snap)
        first = hub.subscribe()
        hub.publish(analysis)
        second = hub.subscribe()
        return ([await first.get() for _ in range(2)], [await second.get() for _ in range(2)])

    first, second = asyncio.run(main())
    assert first == [snap, analysis]  # the old game's analysis is not sent with it
    assert second == [snap, analysis]


def test_the_worker_analyses_each_committed_position_once_off_the_callers_thread():
    published: list = []
    done = threading.Event()

    def publish(event):
        published.append((event, threading.current_thread().name))
        done.set()

    worker = AnalysisWorker(publish, suggestions=False, forced_s=0.1).start()
    try:
        worker.observe(snapshot(partial=("Build G1 TwoShort",)))  # a turn in progress
        worker.observe(snapshot())
        assert done.wait(30)
        worker.observe(snapshot(seq=8))  # the same position again (a clock changed)
        worker.observe(snapshot("not a position", seq=9, turn_number=30))
        for _ in range(300):
            if worker.failures:
                break
            threading.Event().wait(0.05)
    finally:
        worker.stop()
    assert [(e.seq, name) for e, name in published] == [(7, "analysis")]
    assert worker.failures == 1


@pytest.mark.parametrize("suggestions", [True, False])
def test_the_display_process_publishes_analyses_on_its_feed(suggestions):
    """``play``'s display runs in a process of its own: the analysis runs there, and its
    events reach the spectators' streams (tournament mode: no suggestion)."""
    import time
    import urllib.request

    from homeworlds.session import ControlQueue
    from homeworlds.web.process import DisplayProcess

    process = DisplayProcess(ControlQueue(), host="127.0.0.1", port=0,
                             admin_token="analysis-test-token-0123456789",
                             table_name="club", analysis=True,
                             suggestions=suggestions).start()
    try:
        snap = snapshot()
        process.publish(SnapshotEvent(snap.table, snap.seq, time.time(), snap.game,
                                      snap.position, snap.bank, snap.turn_log, snap.hints,
                                      True))
        with urllib.request.urlopen(process.url + "feed", timeout=60) as stream:
            found = None
            for raw in stream:
                line = raw.decode()
                if line.startswith("data:") and '"type":"analysis"' in line:
                    found = event_from_json(line[5:])
                    break
    finally:
        process.stop()
    assert isinstance(found, AnalysisEvent) and found.turn_number == 29
    assert found.hidden is (not suggestions)
    assert (found.suggested is not None) is suggestions

"""Undo of the last committed turn: the tracker goes back one turn and waits for the table;
the store keeps the withdrawn turn; a restarted host resumes without it."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.request

from homeworlds.notation import read_sdg_file
from homeworlds.rules import Piece
from homeworlds.session import AdminCommand
from homeworlds.table.layout import builtin_layout
from tests.integration.play_host import PlayHost, sdg_turn, simulated_table
from tests.store.helpers import wait_for
from tests.web.live_table import LiveTable
from tests.web.server import free_port

LAYOUT = builtin_layout("standard-2p")
TOKEN = "undo-test-token-abcdefghijklmnop"


def _ticks(sim, n=30):
    for _ in range(n):
        for event in sim.link.poll(0.005):
            sim.session.handle(event)
        sim.session.tick()


def test_after_an_undo_the_token_left_on_the_next_pad_does_not_commit_the_turn_again():
    with LiveTable() as live:
        for _ in range(4):
            live.play_turn()
        sim = live.sim
        tracker = sim.session.tracker
        assert live.control(AdminCommand("undo")).startswith("turn 4 withdrawn")
        _ticks(sim)
        # The table still shows turn 4 and the token lies at Aaron's pad: nothing commits.
        assert len(tracker.record) == 3
        assert tracker.state.to_move == 1
        snap = live.producer.latest
        assert snap.hints.guidance["withdrawn_turn"] == 4
        assert "turn token back to MatrixFrog" in snap.hints.message
        # MatrixFrog puts the built r1 back in the bank and takes the token back...
        home = tracker.slot_of_system(sim.session.observation)["MatrixFrog"]
        zone = LAYOUT.slots[home].ship_zone(1)
        built = next(u for u in sim.table.tags_on(zone)
                     if sim.registry.lookup(u).piece == Piece.from_text("r1"))
        sim.table.to_bank(built)
        sim.table.move_token(1)
        sim.settle()
        _ticks(sim)
        assert len(tracker.record) == 3
        assert live.producer.latest.hints.guidance is None  # the table shows turn 3 again
        # ...and plays the turn again (a build is MatrixFrog's one legal kind here).
        ship = sim.table.take_from_bank(Piece.from_text("r1"))
        sim.table.place(ship, zone)
        sim.settle()
        assert sim.hand_over_and_wait(0), sim.session.status.message
        assert len(tracker.record) == 4
        assert tracker.record[-1][1][0].piece == Piece.from_text("r1")


def test_after_an_undo_the_lights_guide_the_players_back_step_by_step_and_play_goes_on():
    """Turn 6 discovers a system; after its undo the LEDs show one restore step at a time
    (the feed names it with the withdrawn turn), the players follow them until the table
    shows turn 5's position again, hand the token back, and play the turn once more."""
    from homeworlds.sim import compare_table
    from tests.integration.seat_helpers import (
        check_lights,
        do_step,
        in_step,
        resync_driver,
        wait_for,
    )

    with LiveTable() as live:
        for _ in range(5):
            live.play_turn()
        sim = live.sim
        session = sim.session
        tracker = session.tracker
        before = tracker.state.copy()
        slots = tracker.slot_of_system(session.observation)
        live.play_turn()
        assert live.control(AdminCommand("undo")).startswith("turn 6 withdrawn")
        steps = []
        for _ in range(20):
            wait_for(sim, lambda: in_step(sim), "the table seen")
            if session.computer.restore_guidance is None:
                break
            shown = session.guidance_shown()
            assert shown is not None and shown.phase == "guiding" and shown.restore
            check_lights(sim, shown)  # the LED frame shows the restore step
            guidance = live.producer.latest.hints.guidance
            assert guidance["phase"] == "restore" and guidance["withdrawn_turn"] == 6
            assert guidance["sdg"].startswith("Discover R1 MatrixFrog B1 ")
            assert guidance["text"] == shown.text and guidance["steps_left"] >= 1
            steps.append(shown.text)
            do_step(sim, shown)
            sim.settle()
        else:
            raise AssertionError(f"the table was not guided back: {steps}")
        assert steps and any("return it to the bank" in s for s in steps), steps
        assert "the table shows the earlier position again" in session.notices
        assert compare_table(sim.table, before, slots) == []
        # The turn token goes back to MatrixFrog: the display's restore guidance ends.
        sim.table.move_token(1)
        sim.settle()
        _ticks(sim)
        assert len(tracker.record) == 5
        assert live.producer.latest.hints.guidance is None
        # ...and MatrixFrog plays the turn again.
        resync_driver(sim)
        live.next_turn = 5
        assert live.play_turn() == 6
        assert live.producer.latest.turn_log[-1].startswith("Discover R1 MatrixFrog B1 ")


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return json.loads(r.read())
    except OSError:
        return None


def _post(url, token):
    request = urllib.request.Request(url, method="POST", data=b"",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.status, json.loads(r.read())


def test_undo_through_play_is_kept_in_the_store_and_a_restart_does_not_bring_the_turn_back(
        tmp_path):
    record = tmp_path / "game.raw"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    turns = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann"]
    with simulated_table(tmp_path, sections=f'[display]\nenabled = true\nport = {port}\n'
                         f'admin_token = "{TOKEN}"\n') as sim:
        config = sim.config
        driver = sim.driver()
        host = PlayHost(config, record, store=None, listen=None)
        try:
            for k, text in enumerate(turns):
                time.sleep(0.3)
                driver.play_turn(sdg_turn(text, ("Ann", "Bob")[k % 2]))
                wait_for(lambda n=k + 1: (_get(url + "/api/snapshot") or {}).get(
                    "turn_log", []).__len__() == n)
            status, answer = _post(url + "/admin/undo", TOKEN)
            assert status == 200 and "withdrawn" in answer["message"]
            wait_for(lambda: len(_get(url + "/api/snapshot")["turn_log"]) == 2)
            time.sleep(0.5)  # the token still lies on Bob's pad: the turn must stay withdrawn
            assert len(_get(url + "/api/snapshot")["turn_log"]) == 2
            assert len(read_sdg_file(record).turns) == 2
        finally:
            host.close()
        store = sqlite3.connect(tmp_path / "games.sqlite")
        assert store.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 2
        withdrawn = store.execute("SELECT number, sdg FROM withdrawn_turns").fetchall()
        assert withdrawn == [(3, "Build G1 Ann")]
        store.close()
        # The host restarts: it resumes after turn 2, and the journalled hand-over of the
        # withdrawn turn does not commit it again.
        host = PlayHost(config, record, store=None, listen=f"127.0.0.1:{port}")
        try:
            wait_for(lambda: _get(url + "/api/snapshot") is not None)
            time.sleep(0.5)
            snap = _get(url + "/api/snapshot")
            assert snap["turn_log"] == turns[:2]
            assert snap["game"]["to_move"] == 0
        finally:
            host.close()

"""Game clocks end to end: the simulated table over a pty with the host session (its time
injected), and ``homeworlds play`` with a [clock] section recording into its store."""

from __future__ import annotations

import json
import sqlite3
import time

from homeworlds.clock import ClockSpec, TurnTime, format_clock
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.table.layout import builtin_layout
from tests.integration.play_host import PlayHost, play_turns, sdg_turn
from tests.store.helpers import wait_for

PLAYERS = ("Ann", "Bob")
SETUP = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3"]
LAYOUT = builtin_layout("standard-2p")


class Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def _play(sim, text):
    player = PLAYERS[sim.driver.state.to_move]
    after = sim.driver.play_turn(sdg_turn(text, player), hand_over=False)
    sim.settle()
    assert sim.hand_over_and_wait(after.to_move), sim.session.status


def _sim(clock, **control):
    return SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.05, seed=5, clock=clock,
                              clock_spec=ClockSpec.from_dict(control), heartbeat_timeout=0.5)


def test_a_link_loss_on_the_real_link_pauses_the_clock():
    clock = Clock()
    with _sim(clock, mode="sudden-death", initial_s=600) as sim:
        session = sim.session
        for text in SETUP:
            _play(sim, text)
        clock.now += 10
        sim.settle()
        assert session.clocks.remaining_ms(0, clock.now) == 590_000
        sim.table.unplug()  # the cable is pulled: the link goes silent
        sim.host.pump(lambda: not session.link_up, "notice the link is down")
        clock.now += 100
        session.tick()
        assert session.clocks_feed()["paused"] == "link-down"
        assert session.clocks.remaining_ms(0, clock.now) == 590_000
        sim.table.replug()
        sim.host.pump(lambda: session.link_up and sim.host.in_step(), "reconnect")
        assert session.clocks_feed()["paused"] is None
        clock.now += 5
        _play(sim, "Build G1 Ann")
        assert session.last_turn_time == TurnTime(0, 15_000, 585_000)
        assert session.clocks_feed()["seats"][1] == {"remaining_ms": 600_000,
                                                     "running": True, "flagged": False,
                                                     "delay_ms": 0}


def test_a_flag_falls_on_the_simulated_table_and_the_game_ends():
    clock = Clock()
    with _sim(clock, mode="fischer", initial_s=30, increment_s=2) as sim:
        session = sim.session
        for text in SETUP:
            _play(sim, text)
        clock.now += 10
        _play(sim, "Build G1 Ann")
        assert session.clocks.remaining_ms(0, clock.now) == 22_000
        clock.now += 29.9  # Bob thinks
        session.tick()
        assert not session.tracker.is_over
        clock.now += 0.2
        session.tick()
        tracker = session.tracker
        assert tracker.is_over and tracker.state.result.kind == "flag"
        assert tracker.state.result.winners == (0,)
        frame = session.render()
        flag_led = LAYOUT.seats[1].bar[-1]
        assert frame[flag_led][0] > 0 and frame[flag_led][1:] == (0, 0)  # red


# ---------------------------------------------------------------------- homeworlds play


def _query(store, sql):
    if not store.exists():
        return []
    conn = sqlite3.connect(store)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def test_play_records_each_turns_time_loses_on_the_flag_and_resumes_the_clocks(tmp_path,
                                                                               capsys,
                                                                               sim_table):
    sim = sim_table(sections='[clock]\nmode = "fischer"\ninitial_s = 4\nincrement_s = 1\n')
    store = tmp_path / "games.sqlite"
    turns = "SELECT number, elapsed_ms, clock_ms FROM turns ORDER BY number"
    host = PlayHost(sim.config, tmp_path / "game.raw")
    try:
        play_turns(sim.driver(), SETUP + ["Build G1 Ann"],
                   lambda n: len(_query(store, turns)) == n)
    finally:
        host.close()
    rows = _query(store, turns)
    assert [r[1:] for r in rows[:2]] == [(None, None), (None, None)]  # setup: untimed
    number, elapsed, left = rows[2]
    assert 0 < elapsed < 4_000 and abs(left - (4_000 + 1_000 - elapsed)) <= 1  # ms rounding
    # The host restarts: Bob's clock is whole, Ann's as stored; Bob runs out of time
    # (the time the host was down is not charged to him).
    time.sleep(1.0)
    restarted = time.monotonic()
    host = PlayHost(sim.config, tmp_path / "game.raw")
    try:
        wait_for(lambda: _query(store, "SELECT kind, winners, by_seat FROM results"))
        flag_after = time.monotonic() - restarted
    finally:
        host.close()
    out = capsys.readouterr().out
    assert f"clocks restored from the store (time while the host was down is not charged): " \
        f"clocks: Ann {format_clock(left)} | Bob 4.0" in out
    assert "game over: Bob's flag fell (out of time)" in out
    assert flag_after >= 4.0  # Bob had his whole main time after the restart
    assert _query(store, "SELECT kind, winners, by_seat FROM results") == [("flag", "[0]", 1)]
    assert _query(store, "SELECT status, clock FROM games")[0][0] == "won"
    assert json.loads(_query(store, "SELECT clock FROM games")[0][0]) == {
        "mode": "fischer", "initial_s": 4.0, "increment_s": 1.0, "on_flag": "loss",
        "timed_setup": False}


def test_casual_play_shows_the_flag_and_plays_on(tmp_path, sim_table):
    sim = sim_table(sections='[clock]\nmode = "sudden-death"\ninitial_s = 1\n'
                             'on_flag = "none"\n')
    store = tmp_path / "games.sqlite"
    driver = sim.driver()
    host = PlayHost(sim.config, tmp_path / "game.raw")
    try:
        play_turns(driver, SETUP, lambda n: len(_query(store, "SELECT 1 FROM turns")) == n)
        time.sleep(1.5)  # Ann's flag falls
        driver.play_turn(sdg_turn("Build G1 Ann", "Ann"))
        wait_for(lambda: len(_query(store, "SELECT 1 FROM turns")) == 3)
    finally:
        host.close()
    assert _query(store, "SELECT status FROM games") == [("playing",)]
    assert _query(store, "SELECT * FROM results") == []
    elapsed, left = _query(store, "SELECT elapsed_ms, clock_ms FROM turns WHERE number = 3")[0]
    assert elapsed >= 1_500 and left == 0

"""Admin commands on the table loop: settings reach the LEDs, commands from other threads
run only on the loop, a failing command never stops it."""

from __future__ import annotations

import threading

import pytest

from homeworlds.pixels import MemorySink, PixelOutput
from homeworlds.pixels.correction import ColorCorrection
from homeworlds.rules import preset
from homeworlds.session import AdminCommand, ControlError, ControlQueue, TableControl, new_session
from homeworlds.sim import make_registry
from homeworlds.table.layout import builtin_layout

LAYOUT = builtin_layout("standard-2p")


def _session(brightness=0.6):
    sink = MemorySink(LAYOUT.pixel_count)
    output = PixelOutput(sink, ColorCorrection(brightness=brightness), max_fps=None)
    session = new_session(LAYOUT, make_registry(LAYOUT, 2), preset("sdg"), ("Ann", "Bob"),
                          output=output)
    return session, sink


def _brightest(frame) -> int:
    return max(max(px) for px in frame)


def test_brightness_from_the_admin_page_dims_the_leds_at_the_next_frame():
    session, sink = _session()
    control = TableControl(session, max_brightness=0.6)
    session.tick()
    before = _brightest(sink.frames[-1])
    assert before > 0
    assert control(AdminCommand("settings", brightness=0.1)) == "settings: brightness 0.1"
    session.tick()
    after = _brightest(sink.frames[-1])
    assert 0 < after < before / 3
    with pytest.raises(ControlError, match="0.6"):
        control(AdminCommand("settings", brightness=0.8))
    assert session.output.correction.brightness == 0.1


def test_the_warnings_hint_level_hides_the_move_hints_of_a_lifted_ship():
    from tests.web.live_table import LiveTable

    with LiveTable() as live:
        for _ in range(4):
            live.play_turn()
        sim = live.sim
        session = sim.session
        home = session.tracker.slot_of_system(session.observation)["Aaron"]
        zone = LAYOUT.slots[home].ship_zone(0)
        sim.table.lift(sim.table.tags_on(zone)[0])
        sim.settle()
        assert session.hint_view().lifted is not None
        full = session.render(now=0.0)
        live.control(AdminCommand("settings", hint_level="warnings"))
        assert session.hint_view().lifted is None
        assert session.render(now=0.0) != full  # the spinner and connections are gone
        live.control(AdminCommand("settings", hint_level="full"))
        assert session.render(now=0.0) == full


def test_commands_run_only_when_the_loop_runs_them_and_errors_come_back_as_answers():
    session, _ = _session()
    queue = ControlQueue()
    control = TableControl(session)
    answers = []

    def web_thread():
        future = queue.submit(AdminCommand("undo"))
        try:
            answers.append(future.result(5))
        except ControlError as exc:
            answers.append(exc)

    thread = threading.Thread(target=web_thread)
    thread.start()
    while queue._queue.empty():
        pass
    assert not answers  # nothing happens until the table loop takes it
    assert queue.run_pending(control) == 1
    thread.join(5)
    assert isinstance(answers[0], ControlError) and "no committed turn" in str(answers[0])


def test_a_bug_in_a_command_is_an_answer_not_a_crash_of_the_table_loop():
    queue = ControlQueue()
    future = queue.submit(AdminCommand("draw"))

    def broken(command):
        raise KeyError("boom")

    assert queue.run_pending(broken) == 1
    with pytest.raises(ControlError, match="could not do it"):
        future.result(1)


def test_an_unknown_verb_is_refused_when_the_command_is_made():
    with pytest.raises(ControlError, match="unknown action"):
        AdminCommand("reboot")


def test_a_bug_in_the_feed_never_stops_the_table_loop(capsys):
    from homeworlds.web.live import attach_feed

    session, sink = _session()
    hub, producer, control, commands = attach_feed(session, table="t", rules_name="sdg")

    def broken(event):
        raise RuntimeError("feed sink exploded")

    producer.sinks.append(broken)
    producer._key = None
    for _ in range(3):
        session.tick()  # no exception reaches the loop
    session.watch.link_up = True
    session.tick()
    assert sink.frames  # the LEDs still get their frames
    err = capsys.readouterr().err
    assert err.count("feed sink exploded") == 1 and "the table goes on" in err

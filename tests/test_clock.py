"""Game clocks as values: every time control, pauses, flag fall, restore, the spec's JSON."""

from __future__ import annotations

import json

import pytest

from homeworlds.clock import ClockSpec, ClockSpecError, GameClocks, TurnTime, format_clock


def spec(**data) -> ClockSpec:
    return ClockSpec.from_dict(data)


SUDDEN = spec(mode="sudden-death", initial_s=60)
FISCHER = spec(mode="fischer", initial_s=60, increment_s=5)
DELAY = spec(mode="delay", initial_s=60, delay_s=5)


def test_sudden_death_charges_the_seat_to_move_only():
    clocks = GameClocks.new(SUDDEN, 2).start(0, now=100.0)
    assert clocks.remaining_ms(0, 112.5) == 47_500
    assert clocks.remaining_ms(1, 112.5) == 60_000
    clocks, time = clocks.hand_over(1, now=112.5)
    assert time == TurnTime(seat=0, elapsed_ms=12_500, clock_ms=47_500)
    assert clocks.remaining_ms(0, 200.0) == 47_500  # stopped while the other thinks
    assert clocks.remaining_ms(1, 130.0) == 42_500


def test_fischer_adds_the_increment_after_the_move():
    clocks = GameClocks.new(FISCHER, 2).start(0, now=0.0)
    assert clocks.remaining_ms(0, 3.0) == 57_000  # no increment before the move
    clocks, time = clocks.hand_over(1, now=3.0)
    assert time.clock_ms == 62_000 and time.elapsed_ms == 3_000
    assert clocks.remaining_ms(0, 50.0) == 62_000
    assert clocks.fraction(0, 50.0) == 1.0  # above the main time the bar is full


def test_simple_delay_is_not_charged_and_not_banked():
    clocks = GameClocks.new(DELAY, 2).start(0, now=0.0)
    assert clocks.remaining_ms(0, 4.9) == 60_000 and clocks.in_delay(4.9)
    assert clocks.remaining_ms(0, 8.0) == 57_000 and not clocks.in_delay(8.0)
    clocks, time = clocks.hand_over(1, now=8.0)
    assert time == TurnTime(0, 8_000, 57_000)
    clocks, time = clocks.hand_over(0, now=10.0)  # a quick turn: the unused delay is lost
    assert time == TurnTime(1, 2_000, 60_000)
    assert clocks.remaining_ms(0, 14.0) == 57_000  # a fresh delay for the new turn
    assert clocks.remaining_ms(0, 16.0) == 56_000


def test_the_feed_gives_the_delay_left_so_a_display_can_count_down_by_itself():
    clocks = GameClocks.new(DELAY, 2).start(0, now=0.0)
    seats = clocks.feed(2.0)["seats"]
    assert seats[0]["delay_ms"] == 3_000 and seats[0]["remaining_ms"] == 60_000
    assert seats[1]["delay_ms"] == 0  # not running
    assert clocks.feed(7.0)["seats"][0]["delay_ms"] == 0
    paused = clocks.pause("link-down", now=1.0)
    assert paused.feed(9.0)["seats"][0]["delay_ms"] == 0  # a paused clock does not count
    assert paused.state_key() != clocks.state_key()
    assert clocks.at(30.0).state_key() == clocks.state_key()  # time passing is no change


def test_a_pause_stops_the_clock_and_keeps_the_delay():
    clocks = GameClocks.new(DELAY, 2).start(0, now=0.0)
    clocks = clocks.pause("link-down", now=2.0)
    assert clocks.remaining_ms(0, 500.0) == 60_000
    clocks = clocks.pause("mistake", now=10.0).resume("link-down", now=20.0)
    assert clocks.pause_reason() == "mistake"
    assert clocks.remaining_ms(0, 600.0) == 60_000
    clocks = clocks.resume("mistake", now=600.0)
    assert clocks.pause_reason() is None
    assert clocks.remaining_ms(0, 603.0) == 60_000  # 3 of the 5 s delay were left
    assert clocks.remaining_ms(0, 610.0) == 53_000
    _, time = clocks.hand_over(1, now=610.0)
    assert time.elapsed_ms == 12_000  # 2 s before the pause, 10 s after


def test_pause_and_resume_are_idempotent_and_named_by_importance():
    clocks = GameClocks.new(SUDDEN, 2).start(1, now=0.0)
    clocks = clocks.pause("mistake", 1.0).pause("mistake", 5.0).pause("link-down", 6.0)
    assert clocks.pause_reason() == "link-down"
    assert clocks.feed(50.0) == {
        "seats": [{"remaining_ms": 60_000, "running": False, "flagged": False, "delay_ms": 0},
                  {"remaining_ms": 59_000, "running": False, "flagged": False,
                   "delay_ms": 0}],
        "paused": "link-down"}
    assert clocks.resume("reader-fault", 7.0) is clocks


def test_the_flag_falls_at_zero_and_only_for_the_seat_to_move():
    clocks = GameClocks.new(SUDDEN, 2).start(0, now=0.0)
    assert clocks.fallen(59.999) is None
    assert clocks.fallen(60.0) == 0
    flagged = clocks.flag(61.0)
    assert flagged.flagged == (0,)
    assert flagged.remaining_ms(0, 70.0) == 0
    assert flagged.fallen(80.0) is None  # it fell once
    feed = flagged.feed(70.0)
    assert feed["seats"][0] == {"remaining_ms": 0, "running": False, "flagged": True,
                                "delay_ms": 0}
    # casual play goes on: the turn is still timed for the record, no increment is given
    after, time = flagged.hand_over(1, now=75.0)
    assert time == TurnTime(0, 75_000, 0)
    assert after.remaining_ms(1, 80.0) == 55_000


def test_a_seat_whose_flag_fell_gets_no_fischer_increment():
    clocks = GameClocks.new(FISCHER, 2).start(0, now=0.0)
    flagged = clocks.flag(61.0)
    assert flagged.flagged == (0,)
    # Casual play: the flagged seat finishes its turn; a Fischer clock would add 5 s
    after, time = flagged.hand_over(1, now=75.0)
    assert time == TurnTime(0, 75_000, 0)
    assert after.remaining_ms(0, 80.0) == 0 and after.fraction(0, 80.0) == 0.0
    # the other seat moves in time and gets its increment; the flagged one never does
    after, time = after.hand_over(0, now=78.0)
    assert time == TurnTime(1, 3_000, 62_000)
    after, time = after.hand_over(1, now=79.0)
    assert time.clock_ms == 0 and after.remaining_ms(0, 100.0) == 0


def test_a_paused_clock_cannot_flag():
    clocks = GameClocks.new(SUDDEN, 2).start(0, now=0.0).pause("reader-fault", 30.0)
    assert clocks.fallen(1000.0) is None


def test_the_game_end_stops_every_clock():
    clocks = GameClocks.new(FISCHER, 2).start(0, now=0.0)
    stopped, time = clocks.hand_over(None, now=10.0)
    assert time == TurnTime(0, 10_000, 55_000)
    assert not stopped.started and stopped.ended
    assert [stopped.remaining_ms(s, 99.0) for s in (0, 1)] == [55_000, 60_000]


def test_events_dated_before_the_last_account_are_not_charged_twice():
    clocks = GameClocks.new(SUDDEN, 2).start(0, now=10.0).pause("mistake", 12.0)
    clocks = clocks.resume("mistake", 20.0)
    # the hand-over happened at 19.9 (the table settled later): nothing runs backwards
    clocks, time = clocks.hand_over(1, now=19.9)
    assert time == TurnTime(0, 2_000, 58_000)


def test_restored_clocks_start_from_the_stored_times():
    clocks = GameClocks.restored(FISCHER, (41_000, None))
    assert not clocks.started
    assert [clocks.remaining_ms(s, 0.0) for s in (0, 1)] == [41_000, 60_000]
    assert GameClocks.restored(SUDDEN, (0, 5_000)).flagged == (0,)


def test_handing_over_before_the_clocks_start_is_an_error():
    with pytest.raises(ValueError, match="start the clocks first"):
        GameClocks.new(SUDDEN, 2).hand_over(1, 0.0)
    with pytest.raises(ValueError, match="no seat 2"):
        GameClocks.new(SUDDEN, 2).start(2, 0.0)
    with pytest.raises(ValueError, match="no clocks"):
        GameClocks.new(ClockSpec(), 2)


@pytest.mark.parametrize("control", [SUDDEN, FISCHER, DELAY, ClockSpec(),
                                     spec(mode="fischer", initial_s=900.5, increment_s=0.5,
                                          on_flag="none", timed_setup=True)])
def test_a_spec_travels_as_json(control):
    assert ClockSpec.from_dict(json.loads(json.dumps(control.to_dict()))) == control


@pytest.mark.parametrize("data, key, words", [
    ({"mode": "blitz"}, "mode", "not a clock mode"),
    ({"mode": "fischer", "initial_s": 300}, "increment_s", "missing"),
    ({"mode": "delay", "initial_s": 300}, "delay_s", "missing"),
    ({"mode": "sudden-death"}, "initial_s", "missing"),
    ({"mode": "sudden-death", "initial_s": 300, "increment_s": 2}, "increment_s",
     "only mode = \"fischer\""),
    ({"mode": "fischer", "initial_s": 300, "delay_s": 2, "increment_s": 1}, "delay_s",
     "only mode = \"delay\""),
    ({"initial_s": 300}, "initial_s", "has no clock"),
    ({"mode": "sudden-death", "initial_s": 0}, "initial_s", "out of range"),
    ({"mode": "sudden-death", "initial_s": float("inf")}, "initial_s", "not a number"),
    ({"mode": "sudden-death", "initial_s": True}, "initial_s", "not a number"),
    ({"mode": "sudden-death", "initial_s": "10m"}, "initial_s", "not a number"),
    ({"mode": "fischer", "initial_s": 60, "increment_s": -1}, "increment_s", "out of range"),
    ({"mode": "delay", "initial_s": 60, "delay_s": 4000}, "delay_s", "out of range"),
    ({"mode": "sudden-death", "initial_s": 60, "on_flag": "draw"}, "on_flag", "\"loss\""),
    ({"mode": "sudden-death", "initial_s": 60, "timed_setup": "yes"}, "timed_setup",
     "true or false"),
    ({"mode": "sudden-death", "initial_s": 60, "increment": 2}, "increment", "unknown key"),
])
def test_bad_specs_name_the_key(data, key, words):
    with pytest.raises(ClockSpecError) as caught:
        ClockSpec.from_dict(data, source="event.json", prefix="clock.")
    assert caught.value.key == f"clock.{key}"
    assert str(caught.value).startswith(f"event.json: clock.{key}: ")
    assert words in caught.value.reason


def test_compact_time_controls():
    assert ClockSpec.parse("600") == spec(mode="sudden-death", initial_s=600)
    assert ClockSpec.parse("300+5") == spec(mode="fischer", initial_s=300, increment_s=5)
    assert ClockSpec.parse("300d5") == spec(mode="delay", initial_s=300, delay_s=5)
    assert ClockSpec.parse("none") == ClockSpec()
    with pytest.raises(ClockSpecError, match="forms: none, 600, 300\\+5, 300d5"):
        ClockSpec.parse("five minutes")


def test_clock_text():
    assert [format_clock(ms) for ms in (0, 9_999, 10_000, 299_000, 3_600_000, 3_725_000)] == \
        ["0.0", "9.9", "0:10", "4:59", "1:00:00", "1:02:05"]


def test_a_stored_clock_beyond_any_clock_is_not_restored_as_given():
    from homeworlds.clock import MAX_REMAINING_S

    clocks = GameClocks.restored(SUDDEN, (10**12, 41_000))
    assert clocks.remaining == (SUDDEN.initial_s, 41.0)
    assert GameClocks.restored(SUDDEN, (round(MAX_REMAINING_S * 1000), None)).remaining[0] \
        == MAX_REMAINING_S


def test_clocks_adopt_another_tables_reading_and_charge_the_mover_what_ran_since():
    spec = ClockSpec.parse("300d5")
    clocks = GameClocks.new(spec, 2).start(0, 100.0)
    clocks, _ = clocks.hand_over(1, 140.0)
    clocks = clocks.pause("mistake", 141.0)
    # The other table read 250 s and 290 s at its commit; seat 1's clock ran 8 s here since.
    adopted = clocks.adopt((250_000, 290_000), 8.0, 141.0)
    assert adopted.remaining_ms(0, 141.0) == 250_000
    assert adopted.remaining_ms(1, 141.0) == 287_000  # the 5 s delay first, then 3 s
    assert adopted.paused == {"mistake"} and adopted.to_move == 1
    assert not adopted.in_delay(141.0)
    resumed = adopted.resume("mistake", 150.0)
    assert resumed.remaining_ms(1, 152.0) == 285_000
    with pytest.raises(ValueError, match="3 clocks for 2 seats"):
        clocks.adopt((1, 2, 3), 0.0, 141.0)

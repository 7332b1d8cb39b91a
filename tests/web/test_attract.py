"""Attract mode on an injected clock: it starts after the idle time, replays the archive
with captions, and stops the moment a piece is placed or a game is on."""

from __future__ import annotations

import pytest

from homeworlds.display.steps import caption, load_game_file
from homeworlds.link import SnapshotReceived, ZoneChanged
from homeworlds.table.layout import builtin_layout
from homeworlds.web.attract import AttractLeds, AttractMode, game_in_progress
from tests.display.svg_check import assert_svg_shows
from tests.web.archive_data import SDG_DIR


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


GAMES = [load_game_file(SDG_DIR / name) for name in ("28841.raw", "3426.raw")]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def mode(clock):
    return AttractMode(lambda: GAMES, idle_after_s=60, step_s=2, end_pause_s=5, clock=clock)


def test_it_starts_after_the_idle_time_and_steps_through_the_games(mode, clock):
    clock.now += 59.9
    assert not mode.active and mode.frame() is None
    assert mode.seconds_until_start() == pytest.approx(0.1)
    clock.now += 0.1
    assert mode.active
    frame = mode.frame()
    assert (frame.game, frame.step) == (GAMES[0], 0)
    clock.now += 2 * 5 + 1  # five steps later
    frame = mode.frame()
    assert frame.step == 5
    # In words, whatever abbreviations the file used ("D G1 ...").
    assert frame.caption == ("Turn 5: kanzenryu discovered Mid (a medium yellow star) with "
                             "a small green from kanzenryu's home")
    assert_svg_shows(frame.svg(), GAMES[0].steps[5].state, "the replay's step 5")
    first_length = len(GAMES[0].steps) * 2 + 5
    clock.now += first_length - 11 - 1  # the pause on the last position
    assert mode.frame().step == len(GAMES[0].steps) - 1
    assert "kanzenryu wins" in mode.frame().caption
    clock.now += 1
    frame = mode.frame()
    assert (frame.game, frame.step, frame.position) == (GAMES[1], 0, 1)
    clock.now += len(GAMES[1].steps) * 2 + 5  # and round again
    assert (mode.frame().game, mode.frame().step) == (GAMES[0], 0)
    assert mode.starts == 1 and mode.stops == 0


def test_a_piece_placed_stops_it_at_once_and_the_idle_time_starts_again(mode, clock):
    mode.observe(SnapshotReceived({0: frozenset(), 1: frozenset({"04A1"})}, (0, 1), at=0))
    clock.now += 61
    assert mode.active  # the first picture is only learnt, it places nothing
    assert mode.observe(ZoneChanged(0, frozenset({"04B2"}), at=0)) is True
    assert not mode.active and mode.frame() is None and mode.stops == 1
    clock.now += 59
    assert not mode.active
    clock.now += 1
    assert mode.active and mode.frame().step == 0  # a new replay from the start
    # A snapshot that differs from the picture (a piece placed while the link was down).
    assert mode.observe(SnapshotReceived({0: frozenset({"04B2"}), 1: frozenset({"04A1", "77"})},
                                         (1,), at=0)) is True
    assert not mode.active
    clock.now += 60
    # A snapshot with the same picture (a reconnect) changes nothing.
    assert mode.observe(SnapshotReceived({0: frozenset({"04B2"}), 1: frozenset({"04A1", "77"})},
                                         (0, 1), at=0)) is False
    assert mode.active


def test_no_replay_while_a_game_is_in_progress(mode, clock):
    playing = {"type": "snapshot", "game": {"uid": "g1", "in_setup": False, "turn_number": 7,
                                            "result": None}}
    mode.observe(playing)
    clock.now += 3600
    assert not mode.active and mode.seconds_until_start() is None
    over = {"type": "snapshot", "game": {"uid": "g1", "in_setup": False, "turn_number": 30,
                                         "result": {"kind": "resigned", "winners": [0]}}}
    mode.observe(over)
    clock.now += 59
    assert not mode.active
    clock.now += 1
    assert mode.active
    assert mode.observe(playing) is True
    assert not mode.active


def test_what_counts_as_a_game_in_progress():
    assert not game_in_progress(None)
    assert not game_in_progress({"uid": None})
    # The feed's turn_number is the turn being played: 1 before the first homeworld.
    assert not game_in_progress({"uid": "a", "in_setup": True, "turn_number": 1,
                                 "result": None})
    assert game_in_progress({"uid": "a", "in_setup": True, "turn_number": 2, "result": None})
    assert not game_in_progress({"uid": "a", "in_setup": False, "turn_number": 9,
                                 "result": {"kind": "draw"}})


def test_an_empty_archive_replays_nothing(clock):
    mode = AttractMode(lambda: [], idle_after_s=1, clock=clock)
    clock.now += 2
    assert mode.active and mode.frame() is None


def test_the_captions_name_red_alert_catastrophes_and_the_win():
    game = GAMES[0]
    captions = [caption(game, k) for k in range(len(game.steps))]
    text = "\n".join(captions)
    assert "catastrophe" in text
    assert "Red Alert for" in text
    assert "kanzenryu wins" in captions[-1]


def test_the_leds_replay_through_the_hints_renderer(mode, clock):
    layout = builtin_layout("standard-2p")
    leds = AttractLeds(layout)
    clock.now += 60 + 2 * 10
    frame = mode.frame()
    pixels = leds.frame(frame, clock.now)
    assert len(pixels) == layout.pixel_count
    assert any(p != (0, 0, 0) for p in pixels)
    state = frame.game.steps[frame.step].state
    system_at = leds.system_at(state)
    assert sorted(system_at.values()) == sorted(s.name for s in state.systems)
    for seat in layout.seats:
        home = next(s.name for s in state.systems if s.home_of == seat.index)
        if seat.home_slot is not None:
            assert system_at[seat.home_slot] == home
    # The rings of slots holding a replayed system light; the others stay dark.
    lit = {slot.index for slot in layout.slots if any(pixels[i] != (0, 0, 0)
                                                     for i in slot.ring)}
    assert lit == set(system_at)


def test_the_attract_page_replays_and_goes_quiet_when_a_piece_is_placed(page, live_server,
                                                                         screenshot_dir,
                                                                         clock):
    from starlette.applications import Starlette

    from homeworlds.web.archive import Archive
    from homeworlds.web.attract import attract_routes
    from tests.web.pixels import assert_not_blank

    archive = Archive(None, [SDG_DIR / "28841.raw"])
    mode = AttractMode(lambda: [archive.file(0)], idle_after_s=60, step_s=2, clock=clock)
    server = live_server(Starlette(routes=attract_routes(archive, attract=mode)))
    page.goto(server.url + "/attract")
    page.wait_for_selector('body[data-active="no"]')
    assert page.locator("#waiting").is_visible()
    clock.now += 60 + 2 * 3  # idle long enough: the replay is at its turn 3
    page.wait_for_selector('body[data-active="yes"]', timeout=10_000)
    page.wait_for_function("() => document.querySelector('#caption').textContent"
                           ".startsWith('Turn 3: kanzenryu')", timeout=10_000)
    clock.now += 2 * 9  # turn 12, the picture of docs/display.md
    page.wait_for_function("() => document.querySelector('#caption').textContent"
                           ".startsWith('Turn 12: Felix')", timeout=10_000)
    assert page.locator("#waiting").is_hidden()
    svg = page.evaluate("() => new XMLSerializer().serializeToString("
                        "document.querySelector('#map svg'))")
    assert_svg_shows(svg, archive.file(0).steps[12].state, "the attract page at turn 12")
    shot = page.screenshot(path=str(screenshot_dir / "attract.png"))
    assert_not_blank(shot, "the attract page", page=page)
    mode.observe(ZoneChanged(3, frozenset({"04AB"}), at=0))  # a piece placed
    page.wait_for_selector('body[data-active="no"]', timeout=10_000)
    assert page.locator("#map svg").count() == 0
    assert page.locator("#waiting").is_visible()


def test_the_table_loop_shows_the_replay_on_the_leds_until_a_piece_is_placed(clock):
    from homeworlds.pixels import MemorySink, PixelOutput
    from homeworlds.rules import preset
    from homeworlds.session import new_session
    from homeworlds.sim import make_registry
    from homeworlds.web.attract import AttractTable

    layout = builtin_layout("standard-2p")
    sink = MemorySink(layout.pixel_count, clock=clock)
    output = PixelOutput(sink, max_fps=None, clock=clock)
    session = new_session(layout, make_registry(layout, 2), preset("sdg"), ("Ann", "Bob"),
                          output=output, clock=clock, settle_s=0.0)
    session.watch.link_up = True
    mode = AttractMode(lambda: GAMES, idle_after_s=60, step_s=2, end_pause_s=5, clock=clock)
    leds = AttractLeds(layout)
    table = AttractTable(session, mode, leds)
    table.handle(SnapshotReceived({z: frozenset() for z in range(4)}, (), at=0))
    table.tick()
    own = sink.last
    assert own == session.render()  # idle: the table's own frame
    clock.now += 60 + 2 * 6
    table.tick()
    replay = mode.frame()
    assert sink.last == leds.frame(replay, clock.now) != own
    assert session.tracker.state.ply == 0  # the tracker's game is untouched
    table.handle(ZoneChanged(layout.slots[0].star_zone, frozenset({"04AA"}), at=0))
    table.tick()
    assert not mode.active
    assert sink.last == session.render()


def test_captions_say_the_turn_in_words_where_the_file_abbreviates():
    game = GAMES[0]  # 28841.raw says "12) Felix: T G3 R3 Felix"
    assert caption(game, 12, alerts=False) == \
        "Turn 12: Felix traded a large green for a large red at Felix's home"
    assert game.steps[12].text == "Trade G3 R3 Felix"  # the record keeps SDG's full words

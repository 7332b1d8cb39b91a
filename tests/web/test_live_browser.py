"""The live view in a real browser (Debian's Chromium through Playwright): a simulated game
over the pty, the star map checked after every turn against the engine's position, hints,
screenshots for docs/display.md, the admin token, and reconnection after a host restart."""

from __future__ import annotations

import pytest

from homeworlds.rules import PIECES
from homeworlds.store.records import turn_to_sdg
from tests.web.live_table import TOKEN, LiveTable
from tests.web.pixels import assert_not_blank

#: Turns of the bundled game (SDG #608) followed in the browser: setup, builds, trades,
#: discoveries, moves.
FOLLOWED = 18

MAP_JS = """() => Array.from(document.querySelectorAll('#map g.system')).map(g => ({
  name: g.dataset.system, stars: g.dataset.stars, home: g.dataset.homeOf ?? null,
  starsDrawn: g.querySelectorAll('.stars g.piece[data-role=star]').length,
  fleets: Array.from(g.querySelectorAll('g.fleet')).map(f => ({
    owner: f.dataset.owner, ships: f.dataset.ships,
    drawn: Array.from(f.querySelectorAll('g.piece[data-role=ship]')).map(p => p.dataset.piece)
             .join('')}))}))"""


def _engine_map(state):
    out = {}
    for s in state.systems:
        fleets = {}
        for seat in range(state.players):
            ships = "".join(PIECES[i].to_text() for i in range(12)
                            for _ in range(s.ships[seat][i]))
            fleets[str(seat)] = ships
        out[s.name] = {"stars": "".join(PIECES[i].to_text() for i in sorted(s.stars)),
                       "home": None if s.home_of is None else str(s.home_of),
                       "fleets": fleets, "star_count": len(s.stars)}
    return out


def _page_map(page):
    out = {}
    for g in page.evaluate(MAP_JS):
        fleets = {}
        for f in g["fleets"]:
            assert sorted(f["drawn"][k:k + 2] for k in range(0, len(f["drawn"]), 2)) == \
                sorted(f["ships"][k:k + 2] for k in range(0, len(f["ships"]), 2)), \
                f"{g['name']}: the ships drawn differ from the fleet's attribute"
            fleets[f["owner"]] = f["ships"]
        out[g["name"]] = {"stars": g["stars"], "home": g["home"], "fleets": fleets,
                          "star_count": g["starsDrawn"]}
    return out


def _in_view(page, selector: str, box: str) -> bool:
    """Whether ``selector`` lies inside the scroll box ``box`` as shown (and on screen)."""
    return page.evaluate("""([sel, box]) => {
      const a = document.querySelector(sel).getBoundingClientRect();
      const b = document.querySelector(box).getBoundingClientRect();
      return a.top >= b.top - 1 && a.bottom <= b.bottom + 1 && b.bottom <= innerHeight;
    }""", [selector, box])


def _wait_turn(page, number: int) -> None:
    page.wait_for_function(f"() => document.body.dataset.turnNumber === '{number}'",
                           timeout=10_000)


@pytest.fixture
def table():
    with LiveTable() as t:
        yield t


def test_the_page_follows_a_game_and_draws_every_position_as_the_engine_has_it(
        table, page, screenshot_dir):
    page.goto(table.url + "/")
    page.wait_for_function("() => document.body.dataset.seq !== '0'")
    tracker = table.sim.session.tracker
    players = table.game.players
    for _ in range(FOLLOWED):
        committed = table.play_turn()
        _wait_turn(page, committed + 1)
        state = tracker.state
        assert _page_map(page) == _engine_map(state), f"after turn {committed}"
        bank = {cell.get_attribute("data-piece"): int(cell.inner_text())
                for cell in page.locator("#bank td").all()}
        assert bank == {PIECES[i].to_text(): state.bank[i] for i in range(12)}
        # The record names the mover and shows each action apart, the newest in view.
        assert page.locator("#log li").count() == committed
        seat, turn = tracker.record[-1]
        last = page.locator("#log li.last")
        assert last.locator(".who").inner_text() == players[seat]
        assert last.locator(".act").all_inner_texts() == \
            turn_to_sdg(turn, players).splitlines()
        assert _in_view(page, "#log li.last", "#log-box"), f"turn {committed} out of view"
        # What the turn did: its systems marked on the map, a caption naming the mover.
        assert page.locator("#map g.system.touched").count() >= 1, f"turn {committed}"
        assert page.locator("#story").inner_text().startswith(f"Last turn: {players[seat]} ")
        assert page.locator("#turn").inner_text().startswith(players[state.to_move])
    # An untimed game: no clock in the header (a "0:00" there reads as a game clock).
    assert page.locator("#turn-timer").is_hidden() and page.locator("#clocks").is_hidden()
    assert ":" not in page.locator("#top").inner_text()
    assert page.locator("#hints-box").is_hidden(), "an empty hints panel is shown"
    assert page.evaluate("() => document.documentElement.scrollHeight") <= 1080, \
        "the live view does not fit a 1920x1080 screen"
    shot = page.screenshot(path=str(screenshot_dir / "live-view.png"))
    assert_not_blank(shot, "the live view at 1920x1080")
    # The named elements are on screen, not only in the page.
    for selector in ("#map svg", "#bank", "#log", "#turn", "#story"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 20, selector
    page.set_viewport_size({"width": 390, "height": 844})
    phone = page.screenshot(path=str(screenshot_dir / "live-view-phone.png"), full_page=True)
    assert_not_blank(phone, "the live view on a phone")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, "the phone view scrolls sideways"


def test_hints_show_the_lifted_ship_its_destinations_and_a_mistake_with_its_slot(
        table, page, screenshot_dir):
    for _ in range(FOLLOWED):  # Aaron to move; Capella (b3) is connected to his home
        table.play_turn()
    page.goto(table.url + "/")
    _wait_turn(page, FOLLOWED + 1)
    sim = table.sim
    session = sim.session
    seat = session.tracker.state.to_move
    where = session.tracker.slot_of_system(session.observation)
    home = session.tracker.state.home_of(seat).name
    zone = sim.layout.slots[where[home]].ship_zone(seat)
    uid = sim.table.tags_on(zone)[0]
    sim.table.lift(uid)
    sim.settle()
    session.tick()
    lifted = page.locator("#hints li.lifted")
    lifted.wait_for()
    piece = sim.registry.lookup(uid).piece.to_text()
    assert f"lifted {piece} from {home}" in lifted.inner_text()
    page.locator(f'#map g.system.origin[data-system="{home}"]').wait_for()
    destinations = table.producer.latest.hints.legal_destinations
    assert "Capella" in destinations
    for name in destinations:
        assert page.locator(f'#map g.system.destination[data-system="{name}"]').count() == 1
        assert name in lifted.inner_text()
    page.screenshot(path=str(screenshot_dir / "live-hints.png"))
    sim.table.place(uid, zone)
    # A piece from the bank dropped on the home star pad: no legal turn leads there.
    extra = sim.table.take_from_bank(next(p for k, p in enumerate(PIECES)
                                          if session.tracker.state.bank[k]))
    sim.table.place(extra, sim.layout.slots[where[home]].star_zone)
    sim.settle()
    session.tick()
    mistake = page.locator("#hints li.mistake")
    mistake.wait_for()
    assert sim.layout.slots[where[home]].title in mistake.inner_text()
    shot = page.screenshot(path=str(screenshot_dir / "live-mistake.png"))
    assert_not_blank(shot, "the live view showing a mistake")


def test_admin_actions_need_the_token_in_the_browser_and_a_forged_form_changes_nothing(
        table, browser, page, live_server):
    for _ in range(4):
        table.play_turn()
    table.pump()
    try:
        page.goto(table.url + "/admin")
        assert page.locator("#need-token").is_visible()
        assert page.locator("form").count() == 0
        # A page of another site posts the admin form with the visitor's cookies.
        page.goto(f"{table.url}/admin?token={TOKEN}")
        assert page.locator("#do-undo").is_visible()
        assert "token" not in page.url
        evil = live_server(_forging_app(table.url))
        response_codes = []
        page.on("response", lambda r: response_codes.append((r.url, r.status)))
        page.goto(evil.url + "/")
        page.wait_for_load_state()
        page.wait_for_timeout(300)
        assert (f"{table.url}/admin/draw", 403) in response_codes
        assert not table.sim.session.tracker.is_over
        # The real form works.
        page.goto(table.url + "/admin")
        page.click("#do-undo")
        assert "Withdraw the last committed turn?" in page.locator("#question").inner_text()
        assert len(table.sim.session.tracker.record) == 4  # asked first, nothing done
        page.click("#do-confirm")
        flash = page.locator("#flash")
        flash.wait_for()
        assert "withdrawn" in flash.inner_text()
        assert len(table.sim.session.tracker.record) == 3
        # A fresh browser without the cookie cannot do it.
        other = browser.new_context()
        try:
            answer = other.request.post(f"{table.url}/admin/undo", form={"csrf": "x"})
            assert answer.status == 403
        finally:
            other.close()
        assert len(table.sim.session.tracker.record) == 3
    finally:
        table.stop_pumping()


def _forging_app(target: str):
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    html = (f'<html><body><form id="f" method="post" action="{target}/admin/draw">'
            '<input name="csrf" value="guess"></form>'
            '<script>document.getElementById("f").submit()</script></body></html>')

    async def home(request):
        return HTMLResponse(html)

    return Starlette(routes=[Route("/", home)])


def test_the_page_reconnects_after_the_host_restarts_and_resyncs(table, page):
    table.play_turn()
    table.play_turn()
    page.goto(table.url + "/")
    _wait_turn(page, 3)
    page.evaluate("() => { window.notReloaded = true; }")
    table.stop_server()
    page.wait_for_function("() => document.body.dataset.connected === 'false'")
    assert "reconnecting" in page.locator("#link").inner_text()
    # The table plays on while the display is down.
    table.play_turn()
    table.play_turn()
    table.start_server()
    _wait_turn(page, 5)
    assert page.evaluate("() => window.notReloaded") is True
    assert page.locator("#log li").count() == 4
    assert "connected" in page.locator("#link").inner_text()


#: A timed game: its header shows the seats' clocks and how long the turn has lasted.
TIMED = {"mode": "sudden-death", "initial_s": 3600}


@pytest.fixture
def timed_table():
    from homeworlds.clock import ClockSpec

    with LiveTable(clock_spec=ClockSpec.from_dict(TIMED)) as t:
        yield t


def test_the_turn_timer_counts_by_the_hosts_clock_even_when_the_spectators_is_wrong(
        timed_table, browser):
    import time

    table = timed_table
    table.play_turn()
    table.play_turn()
    # The turn began 125 s ago on the host, and nothing changed on the table for 100 s:
    # the snapshot a new spectator gets is that old.
    producer = table.producer
    producer._marks.started_at -= 125
    producer._key = None
    wall, producer._wall = producer._wall, lambda: time.time() - 100
    try:
        table.sim.session.tick()
    finally:
        producer._wall = wall
    context = browser.new_context()
    try:
        page = context.new_page()
        # This phone's clock is an hour and a half fast.
        page.clock.install(time=time.time() + 5400)
        page.clock.resume()
        page.goto(table.url + "/")
        _wait_turn(page, 3)
        page.wait_for_function("() => document.getElementById('turn-timer').textContent"
                               " !== '–'")
        minutes, seconds = page.locator("#turn-timer").inner_text().split(":")
        assert minutes == "2" and 5 <= int(seconds) <= 15
    finally:
        context.close()


def _clock_ms(text: str) -> int:
    """Milliseconds from the page's clock text (m:ss, h:mm:ss or s.t)."""
    if ":" not in text:
        seconds, tenths = text.split(".")
        return int(seconds) * 1000 + int(tenths) * 100
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total * 1000


def test_the_clocks_count_down_in_the_page_pause_and_an_undo_shows_its_restore_step(
        browser, screenshot_dir):
    import time

    from homeworlds.clock import ClockSpec
    from homeworlds.link import LinkDown
    from homeworlds.session import AdminCommand

    spec = ClockSpec.from_dict({"mode": "sudden-death", "initial_s": 300})
    with LiveTable(clock_spec=spec) as table:
        for _ in range(5):
            table.play_turn()
        session = table.sim.session
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        try:
            page = context.new_page()
            page.goto(table.url + "/")
            _wait_turn(page, 6)
            mover = session.tracker.state.to_move
            running = page.locator(f"#clocks .clock[data-seat='{mover}']")
            other = page.locator(f"#clocks .clock[data-seat='{1 - mover}']")
            page.wait_for_function(
                f"() => document.querySelector(\"#clocks .clock[data-seat='{mover}']\")"
                "?.dataset.running === 'true'")
            assert page.locator("#clocks").is_visible()
            assert table.game.players[mover] in running.inner_text()
            first = _clock_ms(running.locator(".time").inner_text())
            waiting = _clock_ms(other.locator(".time").inner_text())
            time.sleep(2.2)  # the table is idle: no snapshot comes, the page counts down
            later = _clock_ms(running.locator(".time").inner_text())
            assert 1000 <= first - later <= 4000, (first, later)
            assert _clock_ms(other.locator(".time").inner_text()) == waiting
            host_left = session.clocks.remaining_ms(mover, session.clock())
            assert abs(later - host_left) <= 1500, (later, host_left)
            # The link goes down: the host pauses the clocks and the page says why.
            session.handle(LinkDown("unplugged", 1.0, at=session.clock()))
            session.tick()
            paused = page.locator("#clocks .paused")
            page.wait_for_function("() => document.querySelector('#clocks .paused')"
                                   ".dataset.reason === 'link-down'")
            assert paused.inner_text() == "clocks paused: the table's link is down"
            assert running.get_attribute("data-running") == "false"
            stopped = _clock_ms(running.locator(".time").inner_text())
            time.sleep(1.2)
            assert _clock_ms(running.locator(".time").inner_text()) == stopped
            # An undo: the banner shows the LEDs' restore step, in words and counted.
            for event in table.sim.link.poll(0.5):
                session.handle(event)
            session.tick()
            assert table.control(AdminCommand("undo")).startswith("turn 5 withdrawn")
            session.tick()
            shown = session.guidance_shown()
            assert shown is not None and shown.restore
            page.wait_for_function("() => document.getElementById('guidance').dataset.phase"
                                   " === 'restore'")
            banner = page.locator("#guidance")
            assert banner.is_visible()
            words = banner.inner_text()
            assert words.startswith("Undo of turn 5 (")
            assert "step 1 of " in words and shown.text in words
            # The undo gave no one their time back whole: the clocks read as before it.
            page.wait_for_function(f"() => document.querySelector(\"#clocks .clock[data-seat="
                                   f"'{mover}'] .time\").textContent !== '5:00'")
            assert _clock_ms(running.locator(".time").inner_text()) <= stopped
            page.screenshot(path=str(screenshot_dir / "live-undo-clocks.png"))
        finally:
            context.close()


def test_the_guidance_banner_shows_the_computer_thinking_a_hint_and_a_flag(
        live_server, page):
    """The page's side of ``hints.guidance`` and ``clocks`` (the feed's side is
    tests/web/test_feed_wiring.py): snapshots published straight into the hub."""
    import time

    from homeworlds.feed import FeedHub, GameInfo, Hints, SnapshotEvent
    from homeworlds.web.app import DisplayState, create_app

    hub = FeedHub()
    server = live_server(create_app(DisplayState(hub, None, TOKEN, "t")))
    seq = [0]

    def publish(guidance, clocks=None, shown=True):
        seq[0] += 1
        game = GameInfo("g", "sdg", ("Ann", "Hal"), 0, 1, 7, time.time(), False)
        hub.publish_threadsafe(SnapshotEvent("t", seq[0], time.time(), game, "", {}, (),
                                        Hints(guidance=guidance), True, clocks))
        if shown:
            page.wait_for_function(f"() => document.body.dataset.seq === '{seq[0]}'")

    publish(None, shown=False)
    page.goto(server.url + "/")
    page.wait_for_function("() => document.body.dataset.seq === '1'")
    banner = page.locator("#guidance")
    assert banner.is_hidden() and page.locator("#clocks").is_hidden()
    publish({"phase": "thinking", "seat": 1, "hint": False,
             "text": "Hal (the computer) is thinking…"})
    assert banner.is_visible() and banner.get_attribute("data-phase") == "thinking"
    assert banner.get_attribute("data-seat") == "1"
    assert "Hal (the computer) is thinking" in banner.inner_text()
    publish({"phase": "guiding", "seat": 0, "hint": True, "kind": "move",
             "text": "Lift the small red ship from slot S3 and put it on slot 5",
             "steps_total": 3, "steps_left": 2, "mistakes": []})
    words = banner.inner_text()
    assert banner.locator(".badge").inner_text() == "HINT" and "hint" in banner.get_attribute(
        "class")
    assert "Ann" in words and "step 2 of 3" in words and "Lift the small red ship" in words
    # A seat played at another table (or from a phone) waits, and its turn is laid out
    # here: never called the computer.
    publish({"phase": "thinking", "seat": 1, "hint": False, "played_from": "the other table",
             "text": "Hal: waiting for the turn from the other table…"})
    assert banner.inner_text().startswith("Hal: waiting for the turn from the other table")
    publish({"phase": "guiding", "seat": 1, "hint": False, "kind": "move",
             "played_from": "the other table",
             "text": "Lift the small red ship from slot S3 and put it on slot 5",
             "steps_total": 3, "steps_left": 3, "mistakes": []})
    words = banner.inner_text()
    assert "Hal (from the other table)" in words and "step 1 of 3" in words
    assert "computer" not in words
    publish(None, {"seats": [{"remaining_ms": 0, "running": False, "flagged": True,
                              "delay_ms": 0},
                             {"remaining_ms": 95_000, "running": False, "flagged": False,
                              "delay_ms": 0}], "paused": None})
    assert banner.is_hidden()
    flagged = page.locator("#clocks .clock[data-seat='0']")
    assert flagged.get_attribute("data-flagged") == "true"
    assert "flag fell" in flagged.inner_text() and "0.0" in flagged.inner_text()
    assert page.locator("#clocks .clock[data-seat='1'] .time").inner_text() == "1:35"
    # A player who left a game of three or more: their time stands, marked as left.
    publish(None, {"seats": [{"remaining_ms": 60_000, "running": True, "flagged": False,
                              "delay_ms": 0},
                             {"remaining_ms": 95_000, "running": False, "flagged": False,
                              "delay_ms": 0, "left": True}], "paused": None})
    left = page.locator("#clocks .clock[data-seat='1']")
    assert left.get_attribute("data-left") == "true" and "left the game" in left.inner_text()
    assert left.locator(".time").inner_text() == "1:35"
    assert page.locator("#clocks .clock[data-seat='0']").get_attribute("data-left") == "false"


def test_a_step_of_the_spectators_wall_clock_moves_neither_timer_nor_clock(timed_table,
                                                                           browser):
    """Issue 27, defect 9: the page counts on with ``performance.now()``, so a wall-clock
    step of an hour on the spectator's machine neither blanks a clock nor adds an hour to
    the turn timer."""
    import time

    table = timed_table
    table.play_turn()
    table.play_turn()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.clock.install(time=time.time())
        page.clock.resume()
        page.goto(table.url + "/")
        _wait_turn(page, 3)
        page.wait_for_function("() => document.getElementById('turn-timer').textContent"
                               " !== '–'")
        page.clock.set_system_time(time.time() + 3600)  # date -s '+1 hour'
        page.wait_for_timeout(2500)
        minutes, _seconds = page.locator("#turn-timer").inner_text().split(":")
        assert minutes == "0", "the turn timer jumped with the wall clock"
    finally:
        context.close()

"""Issue 30 item 2 in Chromium: a phone (390×844) claims a seat of a simulated table with
the code the table shows and plays its turns from the page; the table's person lays each
one out by the lights and the table commits it; the store holds the phone's turns. A wrong
code and a second phone are refused; the claim survives a reload."""

from __future__ import annotations

import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("playwright")

from playwright.sync_api import expect  # noqa: E402

from homeworlds.web.phone import PhoneServer  # noqa: E402
from tests.remote.phone_table import PhoneTable  # noqa: E402
from tests.web.conftest import FULL_HD, PHONE  # noqa: E402

CODE = "K7MQ2XPD"
#: The phone plays Danner (seat 1) of archive game 3426; the table's person plays jeep.
TURNS = 8


def wait_for_my_turn(table, page, number):
    table.pump_until(lambda: table.phone.view().number == number
                     and table.phone.my_turn(table.phone.view()) is None,
                     f"the table is at turn {number}")
    # The page loads itself again when the table moves on.
    expect(page.locator("h1")).to_have_text(re.compile(f"turn {number}$"), timeout=15_000)
    expect(page.locator("#status")).to_have_text(re.compile("^your turn: "))


def type_action(page, text):
    page.fill("#action", text)
    page.click("#add")
    page.wait_for_load_state()


def test_a_phone_claims_a_seat_and_plays_against_the_table(tmp_path, browser, screenshot_dir):
    table = PhoneTable(tmp_path, 1, code=CODE)
    # As the table serves it: a port of its own, under the display's connection limits.
    server = PhoneServer(table.phone, port=0, table_name="club").start()
    phone = browser.new_context(viewport=PHONE, is_mobile=True)
    other = browser.new_context(viewport=PHONE, is_mobile=True)
    phone.set_default_timeout(15_000)
    other.set_default_timeout(15_000)
    try:
        page = phone.new_page()
        # A wrong code is refused and claims nothing.
        page.goto(server.url + "phone")
        page.fill("#code", "WRONG234")
        page.click("#claim-button")
        assert "wrong code" in page.locator("#error").inner_text()
        assert not table.phone.claimed
        # The QR code's link fills the code in; the player confirms.
        page.goto(f"{server.url}phone?code={CODE}")
        page.click("#claim-button")
        assert "waiting for jeep's turn" in page.locator("#status").inner_text()
        assert page.locator("svg.hw-map").count() == 1
        # A second phone with the same code cannot take the seat.
        second = other.new_page()
        second.goto(f"{server.url}phone?code={CODE}")
        second.click("#claim-button")
        assert "already played from another phone" in second.locator("#error").inner_text()

        game = table.game
        sent = []
        for index in range(TURNS):
            if game.turns[index].seat == 0:
                table.play_table_turn(index)
                continue
            wait_for_my_turn(table, page, index + 1)
            assert any("Danner: waiting for the turn from the phone" in note
                       for note in table.session.notices), list(table.session.notices)[-3:]
            if index == 3:
                # A mistake: the page gives the table's reason and the rulebook's sentence.
                type_action(page, "Build B1 Danner")
                assert "this action is refused" in page.locator("#mistake").inner_text()
                assert "—" in page.locator("#rule").inner_text()
                page.screenshot(path=str(screenshot_dir / "phone-mistake.png"))
                # The legal next actions are offered as buttons.
                page.click("button.offer:text-is('Build R1 Danner')")
                page.wait_for_load_state()
            else:
                names = table_names(table.reference_before(index), table.phone.view().state)
                for action in game.turns[index].actions:
                    text = " ".join(names.get(word, word)
                                    for word in _sdg(action, game.players).split())
                    type_action(page, text)
                    assert page.locator("#mistake").count() == 0, (
                        index, page.locator("#mistake").inner_text(),
                        [s.name for s in table.phone.view().state.systems])
            if index == 5:
                page.reload()  # a reconnect: the claim holds, the turn built is kept
                assert page.locator("#draft li").count() == len(game.turns[index].actions)
            page.click("#send")
            sent.append(table.phone.wait_for_turn(index + 1, 5.0))
            assert "your turn was sent" in page.locator("#status").inner_text(), \
                (index, page.locator("#mistake").all_inner_texts())
            steps = table.follow_phone_turn()
            assert steps, "the table's lights led the person through the phone's turn"

        stored = table.stored_turns()
        assert len(stored) == TURNS
        phone_turns = [(n, s, sdg) for n, s, sdg in stored if s == 1]
        assert [n for n, _, _ in phone_turns] == [2, 4, 6, 8]
        sent_text = ["\n".join(_sdg(a, game.players) for a in turn) for turn in sent]
        assert sent_text[2] == "Discover R1 Danner B3 Tradecenter"
        # The table names a system discovered after a star of its own list (as for the
        # computer's turns); the phone's next turn used that name.
        named = phone_turns[2][2].split()[-1]
        assert named in {s.name for s in table.phone.view().state.systems}
        assert sent_text[3] == f"Trade R1 G1 {named}"
        assert [sdg for _, _, sdg in phone_turns] == [
            "Homeworld Y1 G1 R3", "Build R1 Danner", f"Discover R1 Danner B3 {named}",
            f"Trade R1 G1 {named}"]
        # The page follows the table: it is jeep's turn again.
        expect(page.locator("#status")).to_contain_text("waiting for jeep's turn",
                                                        timeout=15_000)
        page.screenshot(path=str(screenshot_dir / "phone-seat.png"))
    finally:
        phone.close()
        other.close()
        server.stop()
        table.close()


def play_phone_turn(table, page, index):
    """The phone's player types the transcript's turn ``index`` into the page action by
    action (in the table's system names), sends it, and the table's person lays it out."""
    game = table.game
    state = table.phone.view().state
    names = table_names(table.reference_before(index), state)
    # A system the transcript discovers under a name the table already gave another
    # system: the phone's player names it anew (the table refuses a second system of a name).
    taken = {system.name for system in state.systems} - set(names)
    for action in game.turns[index].actions:
        type_action(page, " ".join(
            names.get(word, word + "-new" if word in taken else word)
            for word in _sdg(action, game.players).split()))
        assert page.locator("#mistake").count() == 0, (
            index, page.locator("#mistake").inner_text())
    sent_at = time.monotonic()
    page.click("#send")
    assert table.phone.wait_for_turn(index + 1, 5.0) is not None
    table.pump_until(lambda: (g := table.session.guidance_shown()) is not None
                     and g.phase == "guiding", "the lights' first step of the phone's turn")
    latency = time.monotonic() - sent_at
    assert table.follow_phone_turn(), "the lights led the person through the turn"
    return latency


def assert_store_holds_the_transcript(table):
    """The table's store holds the transcript turn by turn: the same seats, and each stored
    turn replayed leads to the board the transcript's turn leads to (the table names
    discovered systems its own way), to the same winners."""
    from homeworlds.rules import GameState
    from homeworlds.rules.inference import board_key
    from homeworlds.store.records import turn_from_sdg

    game = table.game
    stored = table.stored_turns()
    assert [(n, s) for n, s, _ in stored] == [(k + 1, t.seat) for k, t in enumerate(game.turns)]
    played = GameState(table.rules, 2, first_to_move=game.turns[0].seat)
    replayed = GameState(table.rules, 2, first_to_move=game.turns[0].seat)
    for (number, seat, sdg), turn in zip(stored, game.turns, strict=True):
        played.apply_turn(turn.actions)
        replayed.apply_turn(turn_from_sdg(sdg, seat, game.players))
        assert board_key(replayed) == board_key(played), f"turn {number}: {sdg}"
    assert (replayed.result is None) == (played.result is None)
    if played.result is not None:
        assert replayed.result.winners == played.result.winners


def table_names(reference, state) -> dict[str, str]:
    """The transcript's system names -> the table's (the table names a discovered system
    after a star of its own list; the phone plays in the table's names)."""
    def content(system):
        return (tuple(sorted(system.stars)), tuple(map(tuple, system.ships)))

    by_content: dict = {}
    for system in state.systems:  # systems alike are interchangeable: one name each
        by_content.setdefault(content(system), []).append(system.name)
    return {system.name: by_content[content(system)].pop() for system in reference.systems}


def _sdg(action, players):
    from homeworlds.notation import format_sdg_action

    return format_sdg_action(action, players=players)


def test_a_phone_plays_a_whole_archive_game_against_the_table(tmp_path, browser,
                                                              screenshot_dir):
    """Issue 30 item 4 (phone): the phone plays jeep's side of archive game 3426 (17 turns,
    a sacrifice and the winning catastrophe among them) action by action through the page,
    in a timed game; the table's person plays Danner's turns with their hands and lays the
    phone's out by the lights. The phone's clocks read what the table's read; a draw the
    phone offers is declined at the table. At the end the table's store holds the
    transcript turn by turn (the same seats and, turn after turn, the same board)."""
    from homeworlds.clock import ClockSpec, format_clock

    table = PhoneTable(tmp_path, 0, code=CODE, clock_spec=ClockSpec.parse("600+5"))
    server = PhoneServer(table.phone, port=0, table_name="club").start()
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    context.set_default_timeout(15_000)
    game = table.game
    latencies = []
    try:
        page = context.new_page()
        page.goto(f"{server.url}phone?code={CODE}")
        page.click("#claim-button")
        for index, turn in enumerate(game.turns):
            if turn.seat == 1:
                table.play_table_turn(index)
                continue
            wait_for_my_turn(table, page, index + 1)
            if index == 4:
                # The clocks run (the setup is untimed): the page shows the table's reading;
                # Danner's clock stands while jeep thinks, so it reads exactly the same.
                clocks = table.session.timekeeper.clocks
                now = table.session.clock()
                assert page.locator("#clocks .seat-0").get_attribute("class").endswith(
                    "running")
                assert page.locator("#clocks .seat-1 .time").inner_text() == \
                    format_clock(clocks.remaining_ms(1, now))
                page.screenshot(path=str(screenshot_dir / "phone-clocks.png"))
            if index == 8:
                # A draw offered from the phone, declined at the table (its `decline`).
                page.click("#offer-draw")
                expect(page.locator("#draw")).to_contain_text("you offered a draw")
                table.pump_until(lambda: any("jeep offers a draw from the phone" in n
                                             for n in table.session.notices),
                                 "the table tells its person of the offer")
                table.phone.decline_draw()
                expect(page.locator("#draw")).to_contain_text("the table declined your "
                                                              "draw offer", timeout=15_000)
            latencies.append(play_phone_turn(table, page, index))

        latencies.sort()
        print(f"\nphone's Send -> the table's first guidance step: p50 "
              f"{latencies[len(latencies) // 2] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} "
              f"ms over {len(latencies)} turns")
        assert table.session.tracker.state.result is not None
        expect(page.locator("#status")).to_have_text("the game is over: jeep won",
                                                     timeout=15_000)
        assert_store_holds_the_transcript(table)
    finally:
        context.close()
        server.stop()
        table.close()


def test_the_phone_resigns_after_confirming_and_the_admin_page_shows_the_code(
        tmp_path, browser, screenshot_dir, live_server):
    """Resign asks again; confirmed, the table ends the game and records it as its own
    ``resign`` does, and the page says who won. The display's admin page (as the table's
    person sees it, 1920×1080 and 390×844) shows the seat's code and QR code until a phone
    claims it. The play page at 1920×1080 keeps its one column."""
    from homeworlds.feed import FeedHub
    from homeworlds.web.app import DisplayState, create_app, phone_info

    table = PhoneTable(tmp_path, 1, code=CODE)
    server = PhoneServer(table.phone, port=0, table_name="club").start()
    table.phone.base_url = server.url
    from homeworlds.feed import FeedProducer

    hub = FeedHub()
    # The table's snapshot as the display gets it: the players in the admin page's forms.
    FeedProducer(table.session, table="club", rules_name=table.rules.name,
                 sinks=[hub.publish_threadsafe]).tick()
    state = DisplayState(hub, None, "correct-horse-battery-staple-42", "club")
    table.phone.on_admin_info = lambda info: setattr(state, "phone", phone_info(info))
    display = live_server(create_app(state))
    desk = browser.new_context(viewport=FULL_HD)
    phone = browser.new_context(viewport=PHONE, is_mobile=True)
    desk.set_default_timeout(15_000)
    phone.set_default_timeout(15_000)
    try:
        table.pump_until(lambda: state.phone is not None, "the admin page's information")
        admin = desk.new_page()
        admin.goto(f"{display.url}/admin?token=correct-horse-battery-staple-42")
        expect(admin.locator("#phone-code")).to_have_text(CODE)
        assert admin.locator("#phone svg.qr").bounding_box()["width"] >= 200
        admin.screenshot(path=str(screenshot_dir / "phone-admin.png"))
        small = phone.new_page()
        small.goto(f"{display.url}/admin?token=correct-horse-battery-staple-42")
        box = small.locator("#phone svg.qr").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        small.screenshot(path=str(screenshot_dir / "phone-admin-phone.png"))
        small.close()

        page = phone.new_page()
        page.goto(admin.locator("#phone-link").get_attribute("href"))
        page.click("#claim-button")
        table.pump_until(lambda: state.phone["claimed"], "the table's loop sees the claim")
        admin.reload()
        expect(admin.locator("#phone-claimed")).to_contain_text("Danner is played from a phone")
        assert admin.locator("#phone-code").count() == 0

        table.play_table_turn(0)
        wait_for_my_turn(table, page, 2)
        wide = desk.new_page()
        wide.context.add_cookies(phone.cookies())
        wide.goto(server.url + "phone")
        expect(wide.locator("#status")).to_have_text(re.compile("^your turn"))
        wide.screenshot(path=str(screenshot_dir / "phone-desktop.png"))
        wide.close()

        page.click("#resign")
        expect(page.locator("#question")).to_contain_text("Resign the game?")
        page.screenshot(path=str(screenshot_dir / "phone-resign.png"))
        page.click("#cancel")  # not yet: the game goes on
        expect(page.locator("#status")).to_have_text(re.compile("^your turn"))
        assert not table.phone.view().resigning
        page.click("#resign")
        page.click("#do-confirm")
        table.pump_until(lambda: table.session.tracker.state.result is not None,
                         "the table ends the game")
        expect(page.locator("#status")).to_have_text(
            "the game is over: jeep won by resignation", timeout=15_000)
        assert page.locator("#resign").count() == 0
        result = table.stored_result()
        assert (result.kind, result.winners, result.by_seat) == ("resigned", (0,), 1)
    finally:
        desk.close()
        phone.close()
        server.stop()
        table.close()


@pytest.mark.corpus
@pytest.mark.parametrize("name, phone_seat", [("11436", 0), ("1065", 1), ("14002", 0)])
def test_a_phone_plays_longer_archive_games(tmp_path, browser, shared_dir, name, phone_seat):
    """``make corpus``: longer two-player archive games of ../shared (44 and 30 turns)
    played from the phone, the store equal to the transcript at the end."""
    table = PhoneTable(tmp_path, phone_seat, code=CODE,
                       game_path=shared_dir / "games" / "sdg" / f"{name}.raw")
    server = PhoneServer(table.phone, port=0, table_name="club").start()
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        page.goto(f"{server.url}phone?code={CODE}")
        page.click("#claim-button")
        for index, turn in enumerate(table.game.turns):
            if turn.seat != phone_seat:
                table.play_table_turn(index)
                continue
            wait_for_my_turn(table, page, index + 1)
            play_phone_turn(table, page, index)
        assert_store_holds_the_transcript(table)
    finally:
        context.close()
        server.stop()
        table.close()


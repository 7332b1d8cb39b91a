"""The archive viewer in Chromium: step with the keyboard and the buttons, the SVG after each
step is the engine's position, the export link returns the SDG; screenshots for the docs."""

from __future__ import annotations

import urllib.request

import pytest

from homeworlds.notation import read_sdg
from tests.display.svg_check import assert_svg_shows
from tests.web.archive_data import COOKED_DIR, SDG_DIR, engine_positions, record_games
from tests.web.conftest import PHONE
from tests.web.pixels import assert_not_blank

pytest.importorskip("starlette")

SVG_OF_MAP = "() => new XMLSerializer().serializeToString(document.querySelector('#map svg'))"


@pytest.fixture
def viewer(tmp_path, live_server):
    from homeworlds.commands.archive_view import build_app

    store = tmp_path / "games.sqlite"
    record_games(store, ["28841.raw", "6980.raw"])
    return live_server(build_app(str(store), [str(COOKED_DIR / "3426.cooked")]))


def _at_step(page, k: int) -> str:
    page.wait_for_selector(f'body[data-step="{k}"]')
    return page.evaluate(SVG_OF_MAP)


def test_step_through_a_stored_game_with_keys_and_buttons(page, viewer, screenshot_dir):
    _, positions = engine_positions(SDG_DIR / "28841.raw")
    page.goto(viewer.url + "/")
    page.click('a[href="/archive/game/1"]')
    assert_svg_shows(_at_step(page, 0), positions[0], "the start")
    last = len(positions) - 1
    for k in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        assert_svg_shows(_at_step(page, k), positions[k], f"after ArrowRight to step {k}")
        assert page.locator("#step-index").inner_text() == str(k)
        assert page.locator("#log li.current").get_attribute("data-step") == str(k)
    page.keyboard.press("ArrowRight")  # past the end: stays
    assert_svg_shows(_at_step(page, last), positions[last], "past the end")
    assert "kanzenryu wins" in page.locator("#map svg").text_content()
    page.keyboard.press("Home")
    assert_svg_shows(_at_step(page, 0), positions[0], "Home")
    page.keyboard.press("End")
    assert_svg_shows(_at_step(page, last), positions[last], "End")
    assert page.url.endswith(f"?turn={last}"), "the address is not the turn shown"
    page.keyboard.press("ArrowLeft")
    _at_step(page, last - 1)
    assert page.url.endswith(f"?turn={last - 1}")
    page.keyboard.press("End")
    _at_step(page, last)
    assert page.locator("#log-heading").inner_text() == "Turns (SDG)"
    page.click("#prev")
    assert_svg_shows(_at_step(page, last - 1), positions[last - 1], "the Back button")
    page.click("#first")
    assert_svg_shows(_at_step(page, 0), positions[0], "the Start button")
    for k in (1, 2, 3):
        page.click("#next")
        assert_svg_shows(_at_step(page, k), positions[k], f"the Next button to {k}")
    page.click("#last")
    assert_svg_shows(_at_step(page, last), positions[last], "the End button")
    page.click('#log li[data-step="12"] a')
    assert_svg_shows(_at_step(page, 12), positions[12], "a turn of the log")
    assert page.url.endswith("?turn=12")
    page.reload()  # the address keeps the step
    assert_svg_shows(_at_step(page, 12), positions[12], "after a reload")
    shot = page.screenshot(path=str(screenshot_dir / "archive-viewer.png"))
    assert_not_blank(shot, "the archive viewer at 1920x1080", page=page)


def test_the_export_link_returns_the_games_sdg(page, viewer, tmp_path):
    page.goto(viewer.url + "/archive/game/2")
    href = page.get_attribute("#export", "href")
    with urllib.request.urlopen(viewer.url + href, timeout=10) as reply:
        text = reply.read().decode()
    exported = tmp_path / "exported.sdg"
    exported.write_text(text)
    players, positions = engine_positions(exported)
    want_players, want = engine_positions(SDG_DIR / "6980.raw")
    assert players == want_players
    assert [p.describe() for p in positions] == [p.describe() for p in want]
    assert read_sdg(text).winner == "TwoShort"


def test_a_file_from_the_command_line_on_a_phone(browser, viewer, screenshot_dir):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    try:
        page = context.new_page()
        page.goto(viewer.url + "/archive")
        page.click('a[href="/archive/file/0"]')
        page.wait_for_selector('body[data-step="0"]')
        for _ in range(9):
            page.click("#next")
        page.wait_for_selector('body[data-step="9"]')
        box = page.locator("#map svg").bounding_box()
        assert box["width"] <= PHONE["width"] and box["width"] > 0.8 * PHONE["width"]
        _, _, width, height = map(float, page.get_attribute("#map svg", "viewBox").split())
        assert height > width  # laid out from top to bottom for a phone held upright
        shot = page.screenshot(path=str(screenshot_dir / "archive-phone.png"))
        assert_not_blank(shot, "the archive viewer on a phone", page=page)
    finally:
        context.close()

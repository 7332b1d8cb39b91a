"""The browser-test infrastructure itself: Chromium starts, a served app is reached, a server
stops and starts again on its port, and a blank screenshot is told from a drawn one."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.web.pixels import assert_not_blank, luminance_stats, luminance_stats_in_browser


def _app(text: str):
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    async def home(request):
        return HTMLResponse(f"<!doctype html><title>t</title><p id='what'>{text}</p>")
    return Starlette(routes=[Route("/", home)])


def test_chromium_renders_a_served_page_and_the_server_restarts_on_its_port(page, live_server):
    server = live_server(_app("first"))
    page.goto(server.url + "/")
    assert page.locator("#what").inner_text() == "first"
    port = server.port
    server.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(server.url + "/", timeout=2)
    server.start(_app("second"))
    assert server.port == port
    page.reload()
    assert page.locator("#what").inner_text() == "second"


def test_a_blank_screenshot_is_told_from_a_drawn_one(page):
    page.set_viewport_size({"width": 480, "height": 320})
    page.set_content("<body style='margin:0;background:#fff'></body>")
    blank = page.screenshot()
    _, variance, colours = luminance_stats(blank)
    assert variance == 0 and colours == 1
    with pytest.raises(AssertionError, match="looks blank"):
        assert_not_blank(blank, "the empty page")
    with pytest.raises(AssertionError, match="looks blank"):
        assert_not_blank(blank, "the empty page", page=page)
    page.set_content("<body style='margin:0;background:#fff'>"
                     "<svg viewBox='0 0 10 10' width='100%' height='100%'>"
                     "<rect x='0' y='0' width='5' height='5' fill='#c00'/>"
                     "<circle cx='7' cy='7' r='2' fill='#03c'/></svg>"
                     "<p style='font-size:40px'>Homeworlds</p></body>")
    drawn = page.screenshot()
    assert_not_blank(drawn, "the drawn page")
    assert_not_blank(drawn, "the drawn page", page=page)
    # Python's decoder and the browser's agree.
    ours, theirs = luminance_stats(drawn), luminance_stats_in_browser(page, drawn)
    assert ours[2] == theirs[2]
    assert ours[0] == pytest.approx(theirs[0], abs=0.5)
    assert ours[1] == pytest.approx(theirs[1], rel=0.01)

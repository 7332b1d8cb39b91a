"""The hub's admin sign-in in Chromium with JavaScript turned off (issue 29's leftover):
the organiser signs in with a plain form post, names the players and signs out — on a
screen and on a phone."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402
from tests.web.pixels import assert_not_blank  # noqa: E402

TOKEN = "organiser-token-0123456789"


@pytest.mark.parametrize("viewport", [{"width": 1920, "height": 1080},
                                      {"width": 390, "height": 844}])
def test_the_organiser_signs_in_and_acts_without_javascript(tmp_path, browser, live_server,
                                                           viewport):
    store = GameStore.open(tmp_path / "hub.sqlite")
    context = browser.new_context(viewport=viewport, java_script_enabled=False)
    context.set_default_timeout(10_000)
    try:
        book = EventBook(store, "swiss")
        pages = HubPages(HubIngest(store, "club"), tmp_path / "hub.sqlite", book,
                         admin_token=TOKEN, event="club")
        server = live_server(build_app(pages))
        page = context.new_page()
        page.goto(server.url + "/admin")
        page.screenshot(path=str(tmp_path / "signed-out.png"))
        assert page.locator("#signed").inner_text() == "not signed in"
        assert page.locator("form.admin").count() == 0
        page.fill("#admin-token", "a guess")
        page.click("#sign-in button")
        assert "wrong admin token" in page.locator("body").inner_text()
        page.goto(server.url + "/admin")
        page.fill("#admin-token", TOKEN)
        page.click("#sign-in button")
        page.wait_for_url(server.url + "/admin")
        assert page.locator("#signed").inner_text().startswith("signed in")
        assert page.locator("form.admin").count() >= 3
        shot = page.screenshot(path=str(tmp_path / "admin.png"), full_page=True)
        assert_not_blank(shot, f"the signed-in admin page at {viewport}")
        if viewport["width"] < 500:  # the phone: nothing scrolls sideways
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.fill("textarea[name=players]", "Felix\njeep\nDanner\nkanzenryu")
        page.click("form[action='/admin/players'] button")
        page.wait_for_url(server.url + "/results")
        assert book.players() == ["Felix", "jeep", "Danner", "kanzenryu"]
        assert "Felix" in page.locator("body").inner_text()
        page.goto(server.url + "/admin")
        page.click("#sign-in button")  # Sign out
        page.wait_for_url(server.url + "/admin")
        assert page.locator("#signed").inner_text() == "not signed in"
        assert page.locator("form.admin").count() == 0
    finally:
        context.close()
        store.close()

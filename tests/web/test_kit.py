"""The page kit (``homeworlds.web.kit``) that the display, the archive viewer, the attract
mode and the hub share: every page is in its frame, links only assets its app serves, holds
no inline script or style, and every answer carries the security headers; one error page;
a map that cannot be drawn is a notice, not a broken page."""

from __future__ import annotations

import re
import warnings

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.feed import FeedHub  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web import kit  # noqa: E402
from homeworlds.web.app import DisplayState, create_app  # noqa: E402
from homeworlds.web.archive import Archive, archive_routes  # noqa: E402
from homeworlds.web.attract import attract_routes  # noqa: E402
from homeworlds.web.hub import HubPages  # noqa: E402
from homeworlds.web.hub import build_app as build_hub_app  # noqa: E402
from tests.web.archive_data import record_games  # noqa: E402

TOKEN = "kit-token-123"


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "games.sqlite"
    record_games(path, ["28841.raw"])
    return path


def _display(store_path, tmp_path):
    archive = Archive(store_path)
    state = DisplayState(FeedHub(), None, TOKEN, "club",
                         extra_routes=[*archive_routes(archive=archive),
                                       *attract_routes(archive, live_url="/")])
    return TestClient(create_app(state), raise_server_exceptions=False), [
        "/", f"/admin?token={TOKEN}", "/admin", "/archive", "/archive/game/1", "/attract",
        "/nowhere"]


def _archive_view(store_path, tmp_path):
    from homeworlds.commands.archive_view import build_app

    return TestClient(build_app(str(store_path), []), raise_server_exceptions=False), [
        "/archive", "/archive/game/1", "/archive/game/99", "/attract"]


def _hub(store_path, tmp_path):
    store = GameStore.open(tmp_path / "hub.sqlite")
    pages = HubPages(HubIngest(store, "club"), tmp_path / "hub.sqlite", EventBook(store),
                     admin_token=TOKEN, event="club")
    return TestClient(build_hub_app(pages), raise_server_exceptions=False), [
        "/", "/results", "/admin", "/archive", "/tables/nowhere/live"]


@pytest.mark.parametrize("app", [_display, _archive_view, _hub],
                         ids=["display", "archive-view", "hub"])
def test_every_page_is_in_the_kits_frame_with_its_headers_and_assets(store_path, tmp_path,
                                                                     app):
    client, paths = app(store_path, tmp_path)
    linked: set[str] = set()
    for path in paths:
        answer = client.get(path, follow_redirects=False)
        for name, value in kit.SECURITY_HEADERS.items():
            if name != "Cache-Control":  # a page may be cached differently
                assert answer.headers.get(name) == value, (path, name)
        if answer.status_code in (302, 303, 307):
            continue
        text = answer.text
        assert text.startswith('<!doctype html><html lang="en"><head><meta charset="utf-8">')
        assert "<style" not in text and " style=" not in text, path
        for script in re.findall(r"<script([^>]*)>", text):
            assert "src=" in script or 'type="application/json"' in script, (path, script)
        linked |= set(re.findall(r'(?:href|src)="(/static/[^"]+)"', text))
    assert "/static/kit.css" in linked or app is _display
    for path in linked:
        asset = client.get(path)
        assert asset.status_code == 200, path
        kind = "text/css" if path.endswith(".css") else "text/javascript"
        assert asset.headers["content-type"].startswith(kind), path
        assert asset.headers["x-content-type-options"] == "nosniff"


def test_the_error_page_names_the_problem_and_the_way_back():
    text = kit.error_page(404, "no game <7>", back="/archive")
    assert "<h1>Not found</h1>" in text and "no game &lt;7&gt;" in text
    assert 'href="/archive"' in text and 'data-status="404"' in text
    titled = kit.error_page(503, "the disk is full", title="Game store unreadable")
    assert "<title>503 Game store unreadable</title>" in titled


@pytest.mark.parametrize("app, path, status, words", [
    (_display, "/nowhere", 404, "no such page"),
    (_archive_view, "/archive/game/99", 404, "the store has no game 99"),
    (_hub, "/tables/nowhere/live", 404, "no table &#x27;nowhere&#x27; in this event"),
])
def test_one_error_page_for_every_app(store_path, tmp_path, app, path, status, words):
    client, _ = app(store_path, tmp_path)
    answer = client.get(path)
    assert answer.status_code == status
    assert f'data-status="{status}"' in answer.text and 'id="error"' in answer.text
    assert words in answer.text and "Traceback" not in answer.text


def test_a_script_asking_for_json_gets_the_error_as_json(store_path, tmp_path):
    client, _ = _display(store_path, tmp_path)
    answer = client.get("/nowhere", headers={"Accept": "application/json"})
    assert answer.status_code == 404
    assert answer.json() == {"error": "no such page", "status": 404}


def test_a_map_that_cannot_be_drawn_is_a_notice_in_the_drawing():
    def broken() -> str:
        raise ValueError("position uses more pieces than the bank holds: <r1>")

    svg = kit.map_svg(broken)
    assert svg.startswith("<svg") and "the map cannot be drawn" in svg
    assert "&lt;r1&gt;" in svg and "<r1>" not in svg
    assert kit.map_svg(lambda: "<svg>ok</svg>") == "<svg>ok</svg>"


def test_page_data_never_ends_its_element():
    block = kit.json_block("steps", {"text": "</script><script>alert(1)</script> & more"})
    assert block.count("</script>") == 1 and "<script>alert" not in block
    page = kit.page('a "title" <b>', "<p>body</p>", data={"events": '/x"><b>'})
    assert "<title>a &quot;title&quot; &lt;b&gt;</title>" in page
    assert 'data-events="/x&quot;&gt;&lt;b&gt;"' in page

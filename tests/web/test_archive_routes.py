"""The archive viewer's routes (Starlette's test client): pages, SVG steps, export, and a
clear page for every bad request or bad file, never a trace."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
from starlette.applications import Starlette  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from homeworlds.notation import read_sdg  # noqa: E402
from homeworlds.web.archive import archive_routes  # noqa: E402
from tests.display.svg_check import assert_svg_shows  # noqa: E402
from tests.web.archive_data import COOKED_DIR, SDG_DIR, engine_positions, record_games  # noqa: E402


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "games.sqlite"
    record_games(path, ["28841.raw", "6980.raw"])
    return path


def client(store=None, files=()):
    return TestClient(Starlette(routes=archive_routes(store, files)),
                      raise_server_exceptions=False)


def test_the_list_shows_every_stored_game_and_every_file(store, tmp_path):
    c = client(store, [SDG_DIR / "3426.raw", COOKED_DIR / "3426.cooked"])
    page = c.get("/archive")
    assert page.status_code == 200
    for words in ('href="/archive/game/1"', 'href="/archive/game/2"', "kanzenryu v Felix",
                  "TwoShort v Cochise", 'href="/archive/file/0"', "3426.raw", "3426.cooked"):
        assert words in page.text


def test_every_step_svg_of_a_stored_game_is_the_engines_position(store):
    c = client(store)
    _, positions = engine_positions(SDG_DIR / "28841.raw")
    for k, state in enumerate(positions):
        reply = c.get(f"/archive/game/1/svg/{k}")
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("image/svg+xml")
        assert_svg_shows(reply.text, state, f"stored game step {k}")
    assert c.get(f"/archive/game/1/svg/{len(positions)}").status_code == 404


def test_the_export_is_the_games_sdg(store):
    reply = client(store).get("/archive/game/1/export")
    assert reply.status_code == 200
    game = read_sdg(reply.text)
    original = read_sdg((SDG_DIR / "28841.raw").read_text())
    assert [t.actions for t in game.turns] == [t.actions for t in original.turns]
    assert 'filename="game-1.sdg"' in reply.headers["content-disposition"]


def test_a_cooked_file_is_stepped_and_exported_as_itself():
    path = COOKED_DIR / "28841.cooked"
    c = client(None, [path])
    page = c.get("/archive/file/0?turn=3")
    assert page.status_code == 200 and 'data-step="3"' in page.text
    assert '<h2 id="log-heading">Turns (cooked)</h2>' in page.text
    assert c.get("/archive/file/0/export").text == path.read_text()


def test_a_bad_file_gets_a_page_naming_the_file_and_line(tmp_path):
    bad = tmp_path / "broken.raw"
    text = (SDG_DIR / "3426.raw").read_text().splitlines()
    line = next(k for k, t in enumerate(text) if t.startswith("3)"))
    text[line] = "3) jeep: Teleport G1 to Mars"
    bad.write_text("\n".join(text) + "\n")
    garbage = tmp_path / "garbage.cooked"
    garbage.write_bytes(b"Home (0, y1b2) g3-\n\xff\xfe not text\n")
    c = client(None, [bad, garbage])
    listing = c.get("/archive").text
    assert f"line {line + 1}" in listing
    page = c.get("/archive/file/0")
    assert page.status_code == 422
    assert str(bad) in page.text and f"line {line + 1}" in page.text
    assert "Traceback" not in page.text
    page = c.get("/archive/file/1")
    assert page.status_code == 422 and "garbage.cooked" in page.text
    assert "Traceback" not in page.text


def test_bad_requests_and_a_missing_or_foreign_store_say_what_is_wrong(store, tmp_path):
    c = client(store)
    for url, status, words in [("/archive/game/99", 404, "no game 99"),
                               ("/archive/file/0", 404, "no file 0"),
                               ("/archive/game/1?turn=x", 400, "not a number"),
                               ("/archive/elsewhere/1", 404, "elsewhere")]:
        reply = c.get(url)
        assert reply.status_code == status and words in reply.text, url
    assert 'data-step="25"' in c.get("/archive/game/1?turn=999").text  # clamped to the end
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_bytes(b"not a database at all" * 100)
    reply = client(foreign).get("/archive")
    assert reply.status_code == 200 and "foreign.sqlite" in reply.text
    reply = client(foreign).get("/archive/game/1")
    assert reply.status_code == 503 and "Traceback" not in reply.text
    reply = client(tmp_path / "absent.sqlite").get("/archive")
    assert "no game store at" in reply.text


def test_markup_in_a_players_name_is_shown_as_text(tmp_path):
    path = tmp_path / "evil.raw"
    text = (SDG_DIR / "3426.raw").read_text().replace("jeep", "<script>alert(1)</script>")
    path.write_text(text)
    page = client(None, [path]).get("/archive/file/0?turn=5").text
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page

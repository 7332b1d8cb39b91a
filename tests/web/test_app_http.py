"""The display's HTTP surface: admin token, CSRF, errors without traces, the feed's JSON.

The admin commands run on a real ``TableSession`` driven by a loop thread, as on the table:
a refused request must leave the game as it was (and put nothing on the command queue)."""

from __future__ import annotations

import threading
import time
import warnings

import pytest

from homeworlds.feed import FeedHub, FeedProducer, event_from_json
from homeworlds.notation import parse_sdg_action
from homeworlds.rules import preset
from homeworlds.session import ControlQueue, TableControl, new_session
from homeworlds.sim import make_registry
from homeworlds.table.layout import builtin_layout

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from homeworlds.web.app import ADMIN_COOKIE, CSRF_COOKIE, DisplayState, create_app

TOKEN = "correct-horse-battery-staple-42"
PLAYERS = ("Ann", "Bob")
RECORD = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann"]


class _Table:
    """A session with three committed turns, run by a loop thread like `play`'s."""

    def __init__(self):
        layout = builtin_layout("standard-2p")
        self.session = new_session(layout, make_registry(layout, 2), preset("sdg"), PLAYERS)
        record = [(k % 2, tuple(parse_sdg_action(text, player=PLAYERS[k % 2])
                                for text in [t])) for k, t in enumerate(RECORD)]
        self.session.tracker.resume(record)
        self.hub = FeedHub()
        self.producer = FeedProducer(self.session, table="club", rules_name="sdg",
                                     sinks=[self.hub.publish_threadsafe])
        self.queue = ControlQueue()
        self.control = TableControl(self.session, producer=self.producer, max_brightness=0.5)
        self.producer.tick()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop.is_set():
            self.queue.run_pending(self.control)
            self.producer.tick()
            self.stop.wait(0.01)

    def close(self):
        self.stop.set()
        self.thread.join(5)


@pytest.fixture
def table():
    t = _Table()
    yield t
    t.close()


@pytest.fixture
def client(table):
    state = DisplayState(table.hub, table.queue, TOKEN, "club", debug_errors=[])
    with TestClient(create_app(state), raise_server_exceptions=False) as c:
        c.state = state
        yield c


def _logged_in(client) -> str:
    """The admin cookie (as the QR link sets it) and the CSRF token of the admin form."""
    r = client.get(f"/admin?token={TOKEN}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    page = client.get("/admin")
    assert 'id="do-undo"' in page.text
    return client.cookies[CSRF_COOKIE]


def test_the_live_page_and_its_assets_are_served_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200
    for ident in ("map", "turn", "turn-timer", "bank", "hints", "log", "result"):
        assert f'id="{ident}"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert client.get("/static/live.js").headers["content-type"].startswith("text/javascript")


def test_the_snapshot_json_is_a_feed_event(client, table):
    data = client.get("/api/snapshot").json()
    snap = event_from_json(data)
    assert snap.game.players == PLAYERS
    assert snap.turn_log == tuple(RECORD)
    assert snap.game.to_move == 1


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer wrong-token-wrong-token"},
    {"Authorization": "Basic " + TOKEN},
    {"Cookie": f"{ADMIN_COOKIE}=nope"},
])
@pytest.mark.parametrize("action", ["undo", "draw", "new-game", "resign", "settings"])
def test_an_admin_action_without_the_token_is_refused_and_changes_nothing(client, table,
                                                                        headers, action):
    before = list(table.session.tracker.record)
    r = client.post(f"/admin/{action}", data={"seat": "0", "hint_level": "minimal"},
                    headers=headers)
    assert r.status_code == 403
    assert "Traceback" not in r.text
    assert table.session.tracker.record == before
    assert not table.session.tracker.is_over
    assert table.session.lights.hint_level == "full"
    assert table.queue._queue.empty()


def test_a_wrong_token_in_the_link_sets_no_cookie(client):
    r = client.get("/admin?token=guess", follow_redirects=False)
    assert r.status_code == 403
    assert ADMIN_COOKIE not in r.headers.get("set-cookie", "")
    assert 'id="need-token"' in client.get("/admin").text


def test_the_link_sets_a_strict_http_only_cookie_and_drops_the_token_from_the_address(client):
    r = client.get(f"/admin?token={TOKEN}", follow_redirects=False)
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert TOKEN not in r.headers["location"]


def test_the_form_needs_its_csrf_token_and_the_same_origin(client, table):
    csrf = _logged_in(client)
    origin = {"Origin": "http://testserver"}
    assert client.post("/admin/draw", data={}, headers=origin).status_code == 403
    assert client.post("/admin/draw", data={"csrf": "forged"}, headers=origin).status_code \
        == 403
    assert client.post("/admin/draw", data={"csrf": csrf},
                       headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/admin/draw", data={"csrf": csrf}).status_code == 403  # no origin
    assert not table.session.tracker.is_over
    r = client.post("/admin/draw", data={"csrf": csrf}, headers=origin)
    assert r.status_code == 200, r.text
    assert "draw by agreement" in r.text
    assert table.session.tracker.ended_by == "agreed-draw"


@pytest.mark.parametrize("action, fields, question", [
    ("resign", {"seat": "1"}, "Resign the game for Bob?"),
    ("new-game", {}, "Abandon the current game and start a new one?"),
    ("undo", {}, "Withdraw the last committed turn?"),
])
def test_a_form_that_cannot_be_taken_back_asks_again_first(client, table, action, fields,
                                                           question):
    csrf = _logged_in(client)
    origin = {"Origin": "http://testserver"}
    r = client.post(f"/admin/{action}", data={"csrf": csrf, **fields}, headers=origin)
    assert r.status_code == 200 and question in r.text and 'id="do-confirm"' in r.text
    assert len(table.session.tracker.record) == 3 and not table.session.tracker.is_over
    assert table.queue._queue.empty()  # nothing was sent to the table
    r = client.post(f"/admin/{action}", data={"csrf": csrf, "confirm": "yes", **fields},
                    headers=origin)
    assert r.status_code == 200 and 'id="flash" class="ok"' in r.text, r.text
    if action == "resign":
        assert table.session.tracker.state.result.winners == (0,)
    elif action == "undo":
        assert len(table.session.tracker.record) == 2


def test_the_admin_page_shows_the_current_settings_and_suits_a_phone(client, table):
    _logged_in(client)
    page = client.get("/admin").text
    assert '<b id="current-hint-level">full</b>' in page
    assert "<option selected>full</option>" in page
    css = client.get("/static/admin.css").text
    assert "min-height:44px" in css
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert client.post("/admin/settings", data={"hint_level": "minimal", "brightness": "0.25"},
                       headers=auth).status_code == 200
    for _ in range(100):  # the loop's next tick sends a snapshot with the new settings
        page = client.get("/admin").text
        if '<b id="current-hint-level">minimal</b>' in page:
            break
        time.sleep(0.02)
    assert '<b id="current-hint-level">minimal</b>' in page
    assert '<b id="current-brightness">0.25</b>' in page and 'value="0.25"' in page


def test_undo_with_the_token_withdraws_the_last_turn_and_the_display_shows_what_to_restore(
        client, table):
    r = client.post("/admin/undo", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200, r.text
    assert r.json()["ok"]
    assert len(table.session.tracker.record) == 2
    assert table.session.tracker.state.to_move == 0
    # The answer comes when the command ran; the loop's next feed tick sends the snapshot.
    deadline = time.monotonic() + 5
    while len(table.producer.latest.turn_log) != 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    snap = table.producer.latest
    assert snap.turn_log == tuple(RECORD[:2])
    guidance = snap.hints.guidance
    assert guidance["withdrawn_turn"] == 3 and guidance["sdg"] == "Build G1 Ann"
    assert guidance["restore"] == snap.position


def test_an_action_that_cannot_be_done_says_why_and_changes_nothing(client, table):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    r = client.post("/admin/resign", data={"seat": "7"}, headers=auth)
    assert r.status_code == 409 and "resign" in r.json()["message"]
    r = client.post("/admin/resign", data={"seat": "Ann"}, headers=auth)
    assert r.status_code == 400
    r = client.post("/admin/settings", data={"brightness": "0.9"}, headers=auth)
    assert r.status_code == 409 and "0.5" in r.json()["message"]
    r = client.post("/admin/settings", data={"brightness": "nan"}, headers=auth)
    assert r.status_code in (400, 409)
    r = client.post("/admin/settings", data={"hint_level": "loud"}, headers=auth)
    assert r.status_code == 409 and "full, warnings, minimal" in r.json()["message"]
    r = client.post("/admin/explode", headers=auth)
    assert r.status_code == 400 and "unknown action" in r.json()["message"]
    assert table.session.lights.hint_level == "full" and len(table.session.tracker.record) == 3
    r = client.post("/admin/settings", data={"hint_level": "warnings", "brightness": "0.25"},
                    headers=auth)
    assert r.status_code == 200
    assert table.session.lights.hint_level == "warnings" and table.session.lights.brightness == 0.25


def test_resign_ends_the_game_and_a_second_resign_is_refused(client, table):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert client.post("/admin/resign", json={"seat": 1}, headers=auth).status_code == 200
    assert table.session.tracker.state.result.winners == (0,)
    r = client.post("/admin/resign", json={"seat": 0}, headers=auth)
    assert r.status_code == 409 and "already over" in r.json()["message"]
    assert client.post("/admin/undo", headers=auth).status_code == 409
    assert client.post("/admin/new-game", headers=auth).status_code == 200
    assert table.session.tracker.record == [] and not table.session.tracker.is_over


@pytest.mark.parametrize("body, content_type", [
    (b"\xff\xfe=\xff", "application/x-www-form-urlencoded"),
    (b"[1, 2", "application/json"),
    (b"[1, 2]", "application/json"),
    (b"seat=" + b"1" * 5000, "application/x-www-form-urlencoded"),
])
def test_garbage_bodies_are_refused_without_a_trace(client, table, body, content_type):
    r = client.post("/admin/resign", content=body, headers={
        "Authorization": f"Bearer {TOKEN}", "Content-Type": content_type})
    assert r.status_code in (400, 403)
    assert "Traceback" not in r.text and "File \"" not in r.text
    assert not table.session.tracker.is_over


def test_errors_never_show_a_stack_trace(client, table):
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "no such page" in r.text
    r = client.put("/admin/undo")
    assert r.status_code == 405
    # A bug behind a request: the answer says nothing of the code.
    table.hub.latest = object()
    r = client.get("/api/snapshot")
    assert r.status_code == 500
    assert "Traceback" not in r.text and "AttributeError" not in r.text
    assert r.json()["error"] == "the display could not answer this request"
    assert client.state.debug_errors  # the test saw the real exception


def test_names_from_the_table_are_escaped_in_the_admin_page(table):
    table.close()  # this test drives the producer itself
    table.session.tracker.players = ("<script>x</script>", "Bob")
    table.producer.latest = None
    table.producer._key = None
    table.producer.tick()
    table.hub.latest = table.producer.latest
    state = DisplayState(table.hub, table.queue, TOKEN, "<b>club</b>")
    with TestClient(create_app(state)) as c:
        c.get(f"/admin?token={TOKEN}")
        page = c.get("/admin").text
        assert "<script>x" not in page and "&lt;script&gt;" in page
        assert "<b>club" not in c.get("/").text


def test_a_burst_sends_the_newest_snapshot_and_every_turn_in_order():
    from homeworlds.feed import GameInfo, Hints, SnapshotEvent, TurnEvent
    from homeworlds.web.app import coalesce

    def snap(seq):
        return SnapshotEvent("t", seq, 0.0, GameInfo(None, "sdg", PLAYERS, 0, 0, 1, None, False),
                        "", {}, (), Hints(), True)

    def turn(seq):
        return TurnEvent("t", seq, "u", seq, 0, "Pass", "", "", None)

    batch = [snap(1), snap(2), turn(3), snap(4), turn(5), snap(6)]
    assert [e.seq for e in coalesce(batch)] == [3, 5, 6]
    assert [e.seq for e in coalesce([turn(1), turn(2)])] == [1, 2]
    assert [e.seq for e in coalesce([snap(1), turn(2)])] == [1, 2]


def test_brain_transference_from_the_admin_page_is_refused_with_the_reason(client, table):
    """000 (NOVICE VS. EXPERT): "The Junior Officer is given one chance" — only where the
    handicap is on: this game has none, so the table answers why and nothing changes."""
    csrf = _logged_in(client)
    assert 'id="do-brain-transference"' in client.get("/admin").text
    assert 'id="do-skip"' not in client.get("/admin").text  # two players miss no turn
    r = client.post("/admin/brain-transference", data={"csrf": csrf},
                    headers={"Origin": "http://testserver"})
    assert r.status_code == 409
    assert "Brain Transference is not enabled for this game" in r.text
    assert len(table.session.tracker.record) == 3

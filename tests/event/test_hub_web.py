"""The hub's pages: spectators read, admins need the token."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.event.topics import table_topic  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.store.export import export_sdg  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402
from tests.event.helpers import TWO_PLAYER_GAMES  # noqa: E402
from tests.event.hub_sign_in import csrf_of, sign_in  # noqa: E402
from tests.event.tables import TableSigner, issue, messages, played_store  # noqa: E402

EVENT = "club"
TOKEN = "organiser-token-123"


@pytest.fixture
def hub(tmp_path):
    for table in ("t1", "t2"):
        SIGNERS[table] = TableSigner(issue(tmp_path / "hub.sqlite", table))
    store = GameStore.open(tmp_path / "hub.sqlite")
    ingest = HubIngest(store, EVENT)
    # Table t1: kanzenryu v Felix, finished; table t2: jeep v Danner, 6 turns in.
    t1 = played_store(tmp_path / "t1.sqlite", TWO_PLAYER_GAMES[0], "t1")
    t2 = played_store(tmp_path / "t2.sqlite", TWO_PLAYER_GAMES[1], "t2", turns=6)
    book = EventBook(store, "round-robin")
    pages = HubPages(ingest, tmp_path / "hub.sqlite", book, admin_token=TOKEN, event=EVENT)
    client = TestClient(build_app(pages), raise_server_exceptions=False)
    yield client, ingest, book, (t1, t2)
    store.close()


#: table -> its signer (the hub fixture issues t1's and t2's keys)
SIGNERS: dict[str, TableSigner] = {}


def send(ingest, table: str, kind: str, payload: bytes | dict) -> None:
    """A message as ``table`` publishes it: signed with its key."""
    topic = table_topic(EVENT, table, kind)
    ingest.handle(topic, SIGNERS[table](topic, payload))


def feed(ingest, path, table, upto=None):
    for topic, payload in messages(path, EVENT, table, SIGNERS[table])[:upto]:
        ingest.handle(topic, payload)
    send(ingest, table, "online", b'{"online": true}')


def test_overview_shows_every_table_with_map_turn_and_material(hub):
    client, ingest, _, (t1, t2) = hub
    feed(ingest, t1, "t1")
    feed(ingest, t2, "t2", upto=4)
    html = client.get("/").text
    assert 'data-table="t1"' in html and 'data-table="t2"' in html
    assert html.count("<svg") == 2
    # t1 was won on the board: the card says who won and why, in the rulebook's terms.
    assert "kanzenryu won<span class=\"why\">: Felix&#x27;s homeworld lost both its stars" \
        "</span> (after" in html
    assert 'data-turn="5"' in html and "to move" in html
    # Who is ahead: the calibrated chances (never the material count).
    chances = re.search(r'Chances: jeep (\d+)% · Danner (\d+)%', html)
    assert chances and int(chances[1]) + int(chances[2]) in (99, 100, 101)
    assert "Material" not in html
    assert "Sensors' link unknown" in html  # the state says nothing of the sensors
    assert '<span class="online">online</span>' in html
    tables = {row["table"]: row for row in client.get("/api/tables").json()}
    assert tables["t2"]["game"]["turns"] == 4
    assert client.get("/tables/t2/live").status_code == 200


def test_an_unknown_table_is_a_page_not_a_trace(hub):
    client, *_ = hub
    r = client.get("/tables/nowhere/live")
    assert r.status_code == 404
    assert "no table 'nowhere'" in html.unescape(r.text) and "Traceback" not in r.text


def test_archive_replays_and_exports_the_hubs_copy(hub):
    client, ingest, _, (t1, _) = hub
    feed(ingest, t1, "t1")
    game = ingest.store.games()[0]
    assert client.get(f"/archive/game/{game.id}").status_code == 200
    exported = client.get(f"/archive/game/{game.id}/export").text
    assert exported == export_sdg(ingest.store, game)
    assert "kanzenryu" in exported and "Felix" in exported


@pytest.mark.parametrize("token", [None, "wrong", ""])
def test_admin_actions_need_the_token(hub, token):
    client, _, book, _ = hub
    data = {"players": "Ann\nBob"}
    if token is not None:
        data["token"] = token
    r = client.post("/admin/players", data=data, follow_redirects=False)
    assert r.status_code == 403
    assert book.players() == []


def test_a_form_posted_from_another_site_is_refused(hub):
    client, _, book, _ = hub
    r = client.post("/admin/players", data={"players": "Ann\nBob", "token": TOKEN},
                    headers={"origin": "https://evil.example"}, follow_redirects=False)
    assert r.status_code == 403
    assert book.players() == []


def test_admin_names_players_pairs_a_round_and_results_follow_the_games(hub):
    client, ingest, book, (t1, _) = hub
    r = client.post("/admin/players", data={"players": "Felix\njeep\nDanner\nkanzenryu",
                                            "token": TOKEN}, follow_redirects=False)
    assert r.status_code == 303
    assert "Next round" in client.get("/results").text
    r = client.post("/admin/round", headers={"authorization": f"Bearer {TOKEN}"},
                    follow_redirects=False)
    assert r.status_code == 303
    boards = book.boards()
    assert [(b.a, b.b) for b in boards] == [("Felix", "kanzenryu"), ("jeep", "Danner")]
    # Table t1 plays Felix v kanzenryu: it counts for board 1 once the hub holds it. (A game
    # that started before the round, like the fixture's, does not.)
    feed(ingest, t1, "t1")
    assert book.boards()[0].game is None
    t1 = played_store(t1.with_name("t1-round1.sqlite"), TWO_PLAYER_GAMES[0], "t1")
    feed(ingest, t1, "t1")
    board = book.boards()[0]
    assert board.game is not None and board.winner in ("Felix", "kanzenryu")
    page = client.get("/results").text
    assert "Round 1" in page and "won" in page
    assert book.boards()[1].winner is None  # jeep v Danner: not started
    # The organiser corrects board 1 to a draw.
    r = client.post("/admin/correct", data={"token": TOKEN, "game": str(board.game.id),
                                            "winner": "", "note": "flag fall unseen"},
                    follow_redirects=False)
    assert r.status_code == 303
    assert book.boards()[0].winner == "" and book.boards()[0].corrected
    assert dict(book.standings())["Felix"] == 0.5 == dict(book.standings())["kanzenryu"]


def test_a_bad_admin_form_gets_a_clear_message(hub):
    client, *_ = hub
    r = client.post("/admin/correct", data={"token": TOKEN, "game": "77", "note": "x"})
    assert r.status_code == 400 and "no game 77" in r.text
    r = client.post("/admin/round", data={"token": TOKEN})
    assert r.status_code == 400 and "at least two players" in r.text


def test_table_events_show_on_the_card(hub):
    client, ingest, _, (t1, _) = hub
    feed(ingest, t1, "t1", upto=2)
    send(ingest, "t1", "events", b'{"type": "event", "kind": "link", "up": false}')
    send(ingest, "t1", "events", b'{"type": "event", "kind": "store", "fault": "the disk is full"}')
    page = client.get("/").text
    assert "sensors are not connected" in page and "the disk is full" in page


def test_clocks_in_the_retained_state_show_on_the_card(hub):
    client, ingest, _, (_, t2) = hub
    feed(ingest, t2, "t2", upto=3)
    state = {"type": "snapshot", "clocks": {"seats": [
        {"remaining_ms": 125_000, "running": True, "flagged": False},
        {"remaining_ms": 0, "running": False, "flagged": True}], "paused": None}}
    send(ingest, "t2", "state", state)
    page = client.get("/").text
    assert "Clocks: jeep 2:05, Danner 0:00 (flag)" in page
    # A player who left a game of three or more (docs/clocks.md): their time, stopped.
    state["clocks"]["seats"][1] = {"remaining_ms": 95_000, "running": False,
                                   "flagged": False, "left": True}
    send(ingest, "t2", "state", state)
    assert "Clocks: jeep 2:05, Danner 1:35 (left)" in client.get("/").text


def test_a_table_name_cannot_inject_markup(hub):
    client, ingest, _, (t1, _) = hub
    evil = 'x"><img src=x onerror=alert(1)><script>alert(1)'  # a topic level has no "/"
    feed(ingest, t1, "t1", upto=1)
    for topic, payload in messages(t1, EVENT, "t1", SIGNERS["t1"])[:2]:
        ingest.handle(topic.replace("/t1/", f"/{evil}/"), payload)
    page = client.get("/").text
    # No key names such a table: refused, and its topic shown escaped under Problems.
    assert "x&quot;&gt;&lt;img" in page and "refused a message" in page
    assert "<img" not in page and "<script>alert(1)" not in page
    live = client.get("/tables/" + quote(evil, safe="") + "/live")
    assert live.status_code == 404
    assert "<img" not in live.text and "<script>alert(1)" not in live.text


def test_the_page_is_told_of_every_change_over_sse(tmp_path, hub):
    """A live server: the SSE stream sends a notice when a turn arrives."""
    import threading
    import time

    import httpx2
    import uvicorn

    from tests.event.broker import free_port

    client, ingest, _, (t1, _) = hub
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(client.app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        notices = []
        with httpx2.Client(timeout=10) as http, \
                http.stream("GET", f"http://127.0.0.1:{port}/events") as stream:
            lines = stream.iter_lines()
            notices.append(next(line for line in lines if line.startswith("data:")))
            feed(ingest, t1, "t1", upto=1)
            notices.append(next(line for line in lines if line.startswith("data:")))
        assert int(notices[1].split(":")[1]) > int(notices[0].split(":")[1])
        assert 'data-turn="2"' in client.get("/fragment/tables").text
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("game_turns", ["many", None, [1], 1e3, -3, 10 ** 9])
def test_a_bad_retained_state_never_breaks_a_page(hub, game_turns):
    """Defect 2: a retained state with the game's real uid and a non-number game.turns made
    /, /fragment/tables and /api/tables answer 500 for every table; 1e3 showed "996.0 turns
    still on their way"."""
    client, ingest, _, (t1, t2) = hub
    feed(ingest, t1, "t1", upto=3)
    feed(ingest, t2, "t2", upto=4)
    uid = next(g.uid for g in ingest.store.games() if g.table == "t2")
    send(ingest, "t2", "state", {"type": "snapshot", "table": "t2", "game": {
        "uid": uid, "turns": game_turns, "turn_number": 5, "players": ["jeep", "Danner"],
        "to_move": 0, "result": None}})
    assert "table t2: refused a message on" in ingest.problems[-1]
    assert "game.turns" in ingest.problems[-1]
    for url in ("/", "/fragment/tables", "/api/tables", "/tables/t2/live"):
        answer = client.get(url)
        assert answer.status_code == 200, (url, answer.text[:300])
    page = client.get("/").text
    assert "turns still on their way" not in page and 'data-table="t1"' in page
    assert 'data-turn="5"' in page


@pytest.mark.parametrize("remaining_ms, words", [
    (-115_000, "clocks.seats[0].remaining_ms: -115000 is out of range"),
    (10 ** 12, "is out of range"),
    ("1:55", "has the wrong type"),
])
def test_clocks_out_of_range_are_not_shown(hub, remaining_ms, words):
    """Defect 2: negative or huge clocks in a retained state were shown as given ("-1:55",
    "-16666667:20")."""
    client, ingest, _, (_, t2) = hub
    feed(ingest, t2, "t2", upto=3)
    send(ingest, "t2", "state", {"type": "snapshot", "clocks": {"seats": [
        {"remaining_ms": remaining_ms, "running": True, "flagged": False},
        {"remaining_ms": 60_000, "running": False, "flagged": False}], "paused": None}})
    assert words in ingest.problems[-1]
    page = client.get("/").text
    assert "Clocks:" not in page and "-1:55" not in page and "16666667" not in page


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 12, 10 ** 12) | st.floats() |
    st.text(max_size=6), lambda inner: st.lists(inner, max_size=3) |
    st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(game=st.dictionaries(st.sampled_from(["uid", "turns", "turn_number", "players",
                                             "to_move", "result", "rules", "first_seat"]),
                            json_values, max_size=4),
       top=st.dictionaries(st.sampled_from(["clocks", "link_up", "store_fault", "hints",
                                            "bank", "position", "turn_log", "game"]),
                           json_values, max_size=3))
def test_no_retained_state_breaks_a_page(hub, game, top):
    """Whatever a table's retained state holds, every page answers (the state is either
    checked and shown or refused and logged)."""
    client, ingest, _, (_, t2) = hub
    if not ingest.store.games():
        feed(ingest, t2, "t2", upto=3)
    uid = ingest.store.games()[0].uid
    state = {"type": "snapshot", "table": "t2",
             "game": {"uid": uid, "turns": 3, "turn_number": 4, "players": ["jeep", "Danner"],
                      "to_move": 1, "result": None, **game}, **top}
    send(ingest, "t2", "state", state)
    for url in ("/", "/fragment/tables", "/api/tables", "/tables/t2/live"):
        answer = client.get(url)
        assert answer.status_code == 200, (url, state, answer.text[:300])


def test_a_tables_card_counts_the_messages_refused_on_its_topics(hub):
    client, ingest, _, (t1, _) = hub
    feed(ingest, t1, "t1", upto=2)
    topic = table_topic(EVENT, "t1", "turns")
    for _ in range(3):
        ingest.handle(topic, b'{"type": "turn"}')  # unsigned
    ingest.handle(table_topic(EVENT, "nobody", "turns"), b"{}")  # no such table: no card
    page = client.get("/").text
    assert "3 messages on this table's topics refused" in page
    assert 'data-table="nobody"' not in page
    assert {r["table"]: r["refused"] for r in client.get("/api/tables").json()} == {"t1": 3}


def test_results_show_table_numbers_buchholz_and_a_big_screen_view(hub):
    client, ingest, book, (t1, _) = hub
    book.set_players(["Felix", "jeep", "Danner", "kanzenryu"])
    book.start_round()
    t1 = played_store(t1.with_name("t1-round1.sqlite"), TWO_PLAYER_GAMES[0], "t1")
    feed(ingest, t1, "t1")
    page = client.get("/results").text
    assert '<th class="num" title="Buchholz' in page
    assert "<th>Table</th>" in page and '<td class="num">1</td><td>t1</td>' in page
    assert '<time datetime="' in page  # the round's start, shown in the reader's zone
    winner = book.boards()[0].winner
    loser = "Felix" if winner == "kanzenryu" else "kanzenryu"
    rows = dict((p, (s, t)) for p, s, t in book.standings_with_tiebreak())
    assert rows[winner] == (1.0, 0.0) and rows[loser] == (0.0, 1.0)
    screen = client.get("/results/screen")
    assert screen.status_code == 200 and '<body class="screen"' in screen.text
    assert 'data-fragment="/fragment/results"' in screen.text
    assert client.get("/fragment/results").text.startswith("<h2>Standings")
    assert "script-src 'self'" in screen.headers["content-security-policy"]


def test_the_admin_page_has_one_sign_in_for_every_form(hub):
    """Signed out: the sign-in form alone. Signed in: every admin form carries the page's
    CSRF field, none the token; the script plays no part in signing in."""
    client, *_ = hub
    page = client.get("/admin").text
    assert page.count('id="admin-token"') == 1 and page.count('type="password"') == 1
    assert '<form id="sign-in" method="post" action="/admin/sign-in">' in page
    assert '<form class="admin"' not in page
    csrf = sign_in(client, TOKEN)
    page = client.get("/admin").text
    assert 'id="admin-token"' not in page and 'action="/admin/sign-out"' in page
    forms = page.count('<form class="admin"')
    assert forms >= 3 and page.count(f'<input type="hidden" name="csrf" value="{csrf}">') \
        == forms + 1  # and the sign-out form
    assert 'name="token"' not in page
    assert "sessionStorage" not in client.get("/static/hub.js").text


def test_signing_in_needs_no_script_and_every_form_then_its_csrf_field(hub):
    """Issue 29's leftover: a plain form post signs in; the browser then holds a session
    cookie (not the token) and its forms need the CSRF field and this site's origin."""
    client, _, book, _ = hub
    here = {"origin": "http://testserver"}
    csrf = csrf_of(client.get("/admin").text)
    wrong = client.post("/admin/sign-in", data={"csrf": csrf, "token": "guess"}, headers=here)
    assert wrong.status_code == 403 and "wrong admin token" in wrong.text
    forged = client.post("/admin/sign-in", data={"csrf": "x" * 32, "token": TOKEN},
                         headers=here)
    assert forged.status_code == 403 and "CSRF" in forged.text
    elsewhere = client.post("/admin/sign-in", data={"csrf": csrf, "token": TOKEN},
                            headers={"origin": "https://evil.example"})
    assert elsewhere.status_code == 403
    r = client.post("/admin/sign-in", data={"csrf": csrf, "token": TOKEN}, headers=here,
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    cookie = r.headers["set-cookie"]
    assert "hw_hub_admin=" in cookie and TOKEN not in cookie
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    # Signed in: a form with the page's CSRF field, from this site, acts.
    r = client.post("/admin/players", data={"csrf": csrf, "players": "Ann\nBob"},
                    headers=here, follow_redirects=False)
    assert r.status_code == 303 and book.players() == ["Ann", "Bob"]
    # Without the field, from another site, or without an origin: refused.
    for data, headers in (({"players": "Eve"}, here),
                          ({"csrf": "y" * 32, "players": "Eve"}, here),
                          ({"csrf": csrf, "players": "Eve"}, {"origin": "https://evil.example"}),
                          ({"csrf": csrf, "players": "Eve"}, {})):
        r = client.post("/admin/players", data=data, headers=headers)
        assert r.status_code == 403, (data, headers)
    assert book.players() == ["Ann", "Bob"]
    # Signed out: the cookie is forgotten by the hub, even if a browser kept it.
    kept = client.cookies.get("hw_hub_admin")
    r = client.post("/admin/sign-out", data={"csrf": csrf}, headers=here,
                    follow_redirects=False)
    assert r.status_code == 303
    client.cookies.set("hw_hub_admin", kept)
    r = client.post("/admin/players", data={"csrf": csrf, "players": "Eve"}, headers=here)
    assert r.status_code == 403 and "not signed in" in r.text
    assert book.players() == ["Ann", "Bob"]


def test_wrong_tokens_make_sign_in_wait(hub):
    client, *_ = hub
    here = {"origin": "http://testserver"}
    csrf = csrf_of(client.get("/admin").text)
    codes = [client.post("/admin/sign-in", data={"csrf": csrf, "token": f"guess{k}"},
                         headers=here).status_code for k in range(11)]
    assert codes[:10] == [403] * 10 and codes[10] == 429
    r = client.post("/admin/sign-in", data={"csrf": csrf, "token": TOKEN}, headers=here,
                    follow_redirects=False)
    assert r.status_code == 429  # even the right token waits the minute out


def test_the_live_view_of_a_table_without_a_retained_state_is_as_of_its_last_turn(hub):
    """Without a retained state the live view is built from the hub's store: its moment is
    the last stored turn's (a snapshot's ``at`` must be a moment the feed accepts)."""
    from datetime import datetime

    client, ingest, _, (_, t2) = hub
    for topic, payload in messages(t2, EVENT, "t2", SIGNERS["t2"])[:3]:
        ingest.handle(topic, payload)
    pages = HubPages(ingest, ingest.store.path, EventBook(ingest.store), admin_token=TOKEN,
                     event=EVENT)
    snapshot = pages.live_snapshot("t2")
    assert snapshot is not None and not ingest.problems
    last = ingest.store.turns(ingest.store.games()[0].id)[-1]
    assert snapshot.at == datetime.fromisoformat(last.committed).timestamp()

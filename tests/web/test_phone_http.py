"""Issue 30 item 2: the phone's pages over HTTP (``web.phone``): a spectator and a second
phone cannot play, every post needs the claimed phone's cookie, the CSRF field and this
origin, every field is bounded, mistakes come back with the rulebook's sentence."""

from __future__ import annotations

import re
import warnings

import pytest

pytest.importorskip("starlette")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from homeworlds.web.kit import SECURITY_HEADERS  # noqa: E402
from homeworlds.web.phone import (  # noqa: E402
    CSRF_COOKIE,
    SESSION_COOKIE,
    announce,
    build_phone_app,
)
from tests.remote.phone_table import PhoneTable  # noqa: E402

ORIGIN = {"origin": "http://testserver"}
CODE = "K7MQ2XPD"


@pytest.fixture
def table(tmp_path):
    table = PhoneTable(tmp_path, 0, start=False, code=CODE)
    yield table
    table.close()


def client(table) -> TestClient:
    return TestClient(build_phone_app(table.phone, "club"), raise_server_exceptions=False)


def csrf_of(c: TestClient, path: str = "/phone") -> str:
    answer = c.get(path)
    assert answer.status_code == 200
    field = re.search(r'name="csrf" value="([^"]+)"', answer.text).group(1)
    assert c.cookies.get(CSRF_COOKIE) == field
    return field


def claimed(table) -> TestClient:
    c = client(table)
    answer = c.post("/phone/claim", data={"csrf": csrf_of(c), "code": CODE}, headers=ORIGIN,
                    follow_redirects=False)
    assert answer.status_code == 303, answer.text
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(SESSION_COOKIE + "=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    return c


def test_the_claim_page_asks_for_the_code_and_a_get_never_claims(table):
    c = client(table)
    answer = c.get("/phone?code=" + CODE)
    assert answer.status_code == 200
    assert 'id="claim"' in answer.text and f'value="{CODE}"' in answer.text
    assert not table.phone.claimed
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name] == value


def test_a_wrong_code_and_a_second_phone_are_refused(table):
    spectator = client(table)
    answer = spectator.post("/phone/claim", data={"csrf": csrf_of(spectator), "code": "AAAA"},
                            headers=ORIGIN)
    assert answer.status_code == 403 and "wrong code" in answer.text
    first = claimed(table)
    assert 'id="draft"' in first.get("/phone").text
    second = client(table)
    answer = second.post("/phone/claim", data={"csrf": csrf_of(second), "code": CODE},
                         headers=ORIGIN)
    assert answer.status_code == 409 and "already played from another phone" in answer.text
    assert "already played from another phone" in second.get("/phone").text
    answer = second.post("/phone/action", data={"csrf": csrf_of(second),
                                                "action": "Homeworld B2 Y3 G3"}, headers=ORIGIN)
    assert answer.status_code == 403 and table.phone.draft() == ()
    assert second.get("/phone/state").status_code == 403


def test_posts_need_the_csrf_field_and_this_origin(table):
    c = claimed(table)
    csrf = csrf_of(c)
    action = {"action": "Homeworld B2 Y3 G3"}
    assert c.post("/phone/action", data=action, headers=ORIGIN).status_code == 403
    assert c.post("/phone/action", data={**action, "csrf": "x" * 32},
                  headers=ORIGIN).status_code == 403
    assert c.post("/phone/action", data={**action, "csrf": csrf},
                  headers={"origin": "http://evil.example"}).status_code == 403
    assert c.post("/phone/action", data={**action, "csrf": csrf}).status_code == 403
    assert table.phone.draft() == ()
    answer = c.post("/phone/action", data={**action, "csrf": csrf}, headers=ORIGIN,
                    follow_redirects=False)
    assert answer.status_code == 303 and len(table.phone.draft()) == 1


def test_every_field_is_bounded(table):
    c = claimed(table)
    csrf = csrf_of(c)
    big = c.post("/phone/action", data={"csrf": csrf, "action": "x" * 5000}, headers=ORIGIN)
    assert big.status_code == 403 and "too large" in big.text
    long = c.post("/phone/action", data={"csrf": csrf, "action": "Build " + "G1 " * 40},
                  headers=ORIGIN)
    assert long.status_code == 422 and "at most 80 printable characters" in long.text
    for number in ("", "-1", "1e9", "9999999", "two"):
        sent = c.post("/phone/send", data={"csrf": csrf, "number": number}, headers=ORIGIN)
        assert sent.status_code == 422, number
    garbage = c.post("/phone/action", content=b"\xff\xfe=\x00", headers={
        **ORIGIN, "content-type": "application/x-www-form-urlencoded"})
    assert garbage.status_code == 403
    assert table.phone.draft() == () and table.phone.wait_for_turn(1, 0.01) is None


def test_a_mistake_comes_back_with_the_rulebooks_sentence_and_the_turn_is_sent(table):
    c = claimed(table)
    csrf = csrf_of(c)
    c.post("/phone/action", data={"csrf": csrf, "action": "Homeworld B2 Y3 G3"}, headers=ORIGIN)
    wrong = c.post("/phone/action", data={"csrf": csrf, "action": "Build G1 jeep"},
                   headers=ORIGIN)
    assert wrong.status_code == 422
    assert 'id="mistake"' in wrong.text and "this action is refused" in wrong.text
    assert 'id="rule"' in wrong.text and "—" in wrong.text
    assert "<li>Homeworld B2 Y3 G3</li>" in wrong.text
    stale = c.post("/phone/send", data={"csrf": csrf, "number": "5"}, headers=ORIGIN)
    assert stale.status_code == 422 and "reload" in stale.text
    sent = c.post("/phone/send", data={"csrf": csrf, "number": "1"}, headers=ORIGIN,
                  follow_redirects=False)
    assert sent.status_code == 303
    assert table.phone.wait_for_turn(1, 0.01) is not None
    page = c.get("/phone").text
    assert "your turn was sent" in page and 'id="send"' not in page
    assert c.get("/phone/state").json()["sent"] == "true"


def test_the_table_shows_the_link_and_the_code(table, capsys):
    import io

    out = io.StringIO()
    announce("http://192.168.1.20:8090/", table.phone, out)
    text = out.getvalue()
    assert f"phone seat jeep: open http://192.168.1.20:8090/phone?code={CODE}" in text
    assert f"type the code {CODE}" in text
    c = client(table)
    assert f'value="{CODE}"' in c.get(f"/phone?code={CODE}").text


def test_the_claim_survives_a_new_connection_with_its_cookie(table):
    first = claimed(table)
    token = first.cookies.get(SESSION_COOKIE)
    again = client(table)  # the phone's browser comes back: same cookie, new connection
    again.cookies.set(SESSION_COOKIE, token)
    assert 'id="draft"' in again.get("/phone").text
    assert again.get("/phone/state").json()["version"] == table.phone.view().version
    forged = client(table)
    forged.cookies.set(SESSION_COOKIE, token[:-2] + "AA")
    assert 'id="claim"' in forged.get("/phone").text


def test_resigning_asks_again_and_needs_the_claimed_phone(table):
    spectator = client(table)
    refused = spectator.post("/phone/resign", data={"csrf": csrf_of(spectator),
                                                    "confirm": "yes"}, headers=ORIGIN)
    assert refused.status_code == 403 and not table.phone.view().resigning
    c = claimed(table)
    csrf = csrf_of(c)
    assert c.post("/phone/resign", data={"confirm": "yes"}, headers=ORIGIN).status_code == 403
    asked = c.post("/phone/resign", data={"csrf": csrf}, headers=ORIGIN)
    assert asked.status_code == 200 and 'id="question"' in asked.text
    assert 'name="confirm" value="yes"' in asked.text and not table.phone.view().resigning
    done = c.post("/phone/resign", data={"csrf": csrf, "confirm": "yes"}, headers=ORIGIN,
                  follow_redirects=False)
    assert done.status_code == 303 and table.phone.view().resigning
    page = c.get("/phone").text
    assert "you resigned: the table ends the game" in page and 'id="resign"' not in page


def test_a_draw_is_offered_once_from_the_page(table):
    c = claimed(table)
    csrf = csrf_of(c)
    assert 'id="offer-draw"' in c.get("/phone").text
    assert c.post("/phone/draw", data={}, headers=ORIGIN).status_code == 403
    offered = c.post("/phone/draw", data={"csrf": csrf}, headers=ORIGIN,
                     follow_redirects=False)
    assert offered.status_code == 303 and table.phone.draw_offered
    page = c.get("/phone").text
    assert "you offered a draw" in page and 'id="offer-draw"' not in page
    again = c.post("/phone/draw", data={"csrf": csrf}, headers=ORIGIN)
    assert again.status_code == 422 and "waits for the table&#x27;s answer" in again.text
    table.phone.decline_draw()
    assert "the table declined your draw offer" in c.get("/phone").text


def test_the_play_page_shows_the_clocks_as_the_table_reads_them(table):
    from dataclasses import replace

    c = claimed(table)
    assert 'id="clocks"' not in c.get("/phone").text  # an untimed game shows none
    reading = {"seats": [{"remaining_ms": 283_400, "running": True, "flagged": False,
                          "delay_ms": 0},
                         {"remaining_ms": 5_100, "running": False, "flagged": False,
                          "delay_ms": 0}], "paused": None}
    phone = table.phone
    phone._view = replace(phone._view, clocks=reading, taken_at=10**9)  # no time has run
    page = c.get("/phone").text
    assert '<span class="clock seat-0 running" data-seat="0">jeep <span class="time" ' \
           'data-ms="283400" data-delay="0">4:43</span>' in page
    assert 'data-ms="5100" data-delay="0">5.1</span>' in page
    phone._view = replace(phone._view, clocks={**reading, "paused": "link-down"})
    assert "clocks paused: the table&#x27;s link is down" in c.get("/phone").text

"""Issue 30 item 2: the phone seat on the display's admin page. The table's person sees the
seat's one-time code, its link and QR code there (authenticated as every admin page: a
spectator never sees the code), that a phone holds the seat once claimed, and a draw the
phone offered, with Accept (draw by agreement) and Decline."""

from __future__ import annotations

import threading
import warnings

import pytest

pytest.importorskip("starlette")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from homeworlds.feed import FeedHub  # noqa: E402
from homeworlds.session import AdminCommand, ControlError, ControlQueue, TableControl  # noqa: E402
from homeworlds.web.app import CSRF_COOKIE, DisplayState, create_app, phone_info  # noqa: E402
from tests.remote.phone_table import PhoneTable  # noqa: E402

TOKEN = "correct-horse-battery-staple-42"
CODE = "K7MQ2XPD"
BASE = "http://192.168.1.20:8090/"


class _Admin:
    """The phone's table (``PhoneTable``) with its admin commands run by a loop thread."""

    def __init__(self, directory):
        self.table = PhoneTable(directory, 1, start=False, code=CODE)
        self.phone = self.table.phone
        self.phone.base_url = BASE
        self.queue = ControlQueue()
        self.control = TableControl(self.table.session, recorder=self.table.recorder,
                                    decline_draw=self.phone.decline_draw,
                                    release_phone=self.phone.release)
        self.state = DisplayState(FeedHub(), self.queue, TOKEN, "club")
        self.phone.on_admin_info = lambda info: setattr(self.state, "phone",
                                                        phone_info(info))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop.is_set():
            self.queue.run_pending(self.control)
            self.phone.refresh()  # the session's tick: what the admin page shows
            self.stop.wait(0.01)

    def wait_for(self, until, what):
        import time

        deadline = time.monotonic() + 10
        while not until():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.01)

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.table.close()


@pytest.fixture
def admin(tmp_path):
    a = _Admin(tmp_path)
    yield a
    a.close()


def _client(admin) -> TestClient:
    return TestClient(create_app(admin.state), raise_server_exceptions=False)


def _logged_in(c) -> str:
    assert c.get(f"/admin?token={TOKEN}", follow_redirects=False).status_code == 303
    c.get("/admin")
    return c.cookies[CSRF_COOKIE]


def test_the_admin_page_shows_the_code_its_link_and_qr_code(admin):
    admin.wait_for(lambda: admin.state.phone is not None, "the seat's information")
    with _client(admin) as spectator:
        page = spectator.get("/admin").text
        assert CODE not in page and 'id="phone"' not in page
    with _client(admin) as c:
        _logged_in(c)
        page = c.get("/admin").text
        assert f'<b id="phone-code">{CODE}</b>' in page
        assert f'href="{BASE}phone?code={CODE}"' in page
        assert '<svg class="qr"' in page and 'aria-label="QR code of the link"' in page
        assert "style=" not in page.split('<svg class="qr"')[1].split("</svg>")[0]
        admin.phone.claim(CODE)
        admin.wait_for(lambda: admin.state.phone["claimed"], "the claim")
        page = c.get("/admin").text
        assert CODE not in page and "Danner is played from a phone" in page
        assert 'id="phone-claimed"' in page


def test_a_draw_offered_from_the_phone_is_answered_on_the_admin_page(admin):
    admin.phone.offer_draw()
    admin.wait_for(lambda: admin.state.phone and admin.state.phone["draw_offered"],
                   "the offer")
    with _client(admin) as c:
        csrf = _logged_in(c)
        page = c.get("/admin").text
        assert "Danner offers a draw from the phone" in page
        assert 'id="do-accept-draw"' in page and 'id="do-decline-draw"' in page
        declined = c.post("/admin/decline-draw", data={"csrf": csrf},
                          headers={"origin": "http://testserver"})
        assert declined.status_code == 200, declined.text
        assert "Danner&#x27;s draw offer declined: the game goes on" in declined.text
        assert admin.phone.view().draw == "declined"
        again = c.post("/admin/decline-draw", data={"csrf": csrf},
                       headers={"origin": "http://testserver"})
        assert again.status_code == 409 and "has not offered a draw" in again.text
        # Offered again and accepted: the display's Draw by agreement.
        admin.phone.offer_draw()
        accepted = c.post("/admin/draw", data={"csrf": csrf},
                          headers={"origin": "http://testserver"})
        assert accepted.status_code == 200, accepted.text
    result = admin.table.stored_result()
    assert result is not None and result.kind == "agreed-draw"


def test_a_table_without_a_phone_refuses_decline_draw(admin):
    control = TableControl(admin.table.session)
    with pytest.raises(ControlError, match="no one offered a draw"):
        control(AdminCommand("decline-draw"))


@pytest.mark.parametrize("bad", [
    None, [], {"seat": 1, "player": "Danner"},
    {"seat": 1, "player": "Danner", "claimed": "no", "code": CODE},
    {"seat": 1, "player": "Danner", "claimed": False, "code": "<script>x</script>"},
    {"seat": 1, "player": "Danner", "claimed": False, "code": CODE,
     "link": "javascript:alert(1)"},
    {"seat": 99, "player": "Danner", "claimed": False, "code": CODE},
    {"seat": 1, "player": "x" * 500, "claimed": False, "code": CODE},
])
def test_the_seats_information_from_the_table_is_checked(bad):
    assert phone_info(bad) is None


def test_the_admin_page_frees_the_seat_after_asking_again(admin):
    token = admin.phone.claim(CODE)
    admin.wait_for(lambda: admin.state.phone and admin.state.phone["claimed"], "the claim")
    with _client(admin) as c:
        csrf = _logged_in(c)
        assert 'id="do-release-phone"' in c.get("/admin").text
        origin = {"origin": "http://testserver"}
        asked = c.post("/admin/release-phone", data={"csrf": csrf}, headers=origin)
        assert asked.status_code == 200 and "Take the seat from the phone" in asked.text
        assert admin.phone.holds(token)
        done = c.post("/admin/release-phone", data={"csrf": csrf, "confirm": "yes"},
                      headers=origin)
        assert done.status_code == 200, done.text
        assert f"a phone claims it with the new code {admin.phone.code}" in done.text
        assert not admin.phone.holds(token)
        admin.wait_for(lambda: not admin.state.phone["claimed"], "the admin page's copy")
        assert f'<b id="phone-code">{admin.phone.code}</b>' in c.get("/admin").text

"""The hub's remote games in Chromium: the organiser pairs two tables on the admin page;
the overview shows each game with both its tables, their state and turns, at 1920×1080 and
390×844, whatever a side reported (an HTML refusal is text, nothing overflows)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.event.topics import table_topic  # noqa: E402
from homeworlds.identity import Signer  # noqa: E402
from homeworlds.notation import read_sdg_file  # noqa: E402
from homeworlds.remote.hub_games import HubRemoteGames  # noqa: E402
from homeworlds.remote.invitation import Invitation  # noqa: E402
from homeworlds.remote.messages import (  # noqa: E402
    Hello,
    Refusal,
    TurnMessage,
    to_payload,
    topic,
)
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402
from tests.event.helpers import TWO_PLAYER_GAMES  # noqa: E402
from tests.event.tables import TableSigner, issue, messages, played_store  # noqa: E402

EVENT = "club"


class Control:
    """What the hub's broker client offers the pages (the invitations sent are noted)."""

    event_clock = None

    def __init__(self):
        self.sent: list[str] = []

    def send_invitations(self, game_id: str) -> int:
        self.sent.append(game_id)
        return 2


def say(remote: HubRemoteGames, gid: str, role: str, message, seq: int) -> None:
    secret = bytes.fromhex(remote.games[gid].game.secret)
    signer = Signer(Invitation(secret).key(role), lambda n, s=seq: s)
    remote.handle(topic(gid, role), signer.sign(topic(gid, role), to_payload(message)))


def test_the_organiser_pairs_two_tables_and_the_overview_shows_the_game(
        tmp_path, page, live_server, screenshot_dir):
    path = tmp_path / "hub.sqlite"
    signers = {t: TableSigner(issue(path, t)) for t in ("t1", "t2", "t3", "t4")}
    store = GameStore.open(path)
    try:
        ingest = HubIngest(store, EVENT)
        assert not ingest.problems
        ann, bob = read_sdg_file(TWO_PLAYER_GAMES[0]).players  # both tables' game
        for name in ("t1", "t2"):
            played = played_store(tmp_path / f"{name}.sqlite", TWO_PLAYER_GAMES[0], name,
                                  turns=7, finish=False)
            for where, payload in messages(played, EVENT, name, signers[name]):
                ingest.handle(where, payload)
            online = table_topic(EVENT, name, "online")
            ingest.handle(online, signers[name](online, b'{"online": true}'))
        assert not ingest.problems
        remote = HubRemoteGames(store, EVENT, ingest.identities, lock=ingest.lock)
        control = Control()
        pages = HubPages(ingest, path, EventBook(store, "swiss"), admin_token="organiser",
                         event=EVENT, clock_control=control, remote=remote)
        server = live_server(build_app(pages))

        page.goto(server.url + "/admin")  # the organiser signs in (a session cookie)
        page.fill("#admin-token", "organiser")
        page.click("#sign-in button")
        page.wait_for_selector("select[name=host]")
        page.select_option("select[name=host]", "t1")
        page.fill("input[name=player0]", ann)
        page.select_option("select[name=guest]", "t2")
        page.fill("input[name=player1]", bob)
        page.click("text=Invite both tables")
        page.wait_for_url(server.url + "/")
        [gid] = control.sent
        assert page.locator(f'[data-remote="{gid}"] .status').inner_text() == \
            "invited: waiting for table t1 and t2 to accept"
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(server.url + "/admin")
        page.locator("form[action='/admin/remote']").scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "hub-admin-remote-390.png"))
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1920, "height": 1080})
        # A bad form is a page naming the problem.
        page.goto(server.url + "/admin")
        page.select_option("select[name=host]", "t3")
        page.select_option("select[name=guest]", "t3")
        page.fill("input[name=player0]", "Cy")
        page.fill("input[name=player1]", "Di")
        page.click("text=Invite both tables")
        assert "both sides are table t3: choose two tables" in page.content()

        # The game goes on: both sides say hello, turns, one refusal carrying HTML.
        say(remote, gid, "host", Hello(gid, 0, (ann, bob), "sdg", 7), 10)
        say(remote, gid, "guest", Hello(gid, 1, (ann, bob), "sdg", 7), 10)
        other = remote.arrange("t3", "t4", ["Cy", "Di"], "sdg").game_id
        say(remote, other, "host", Hello(other, 0, ("Cy", "Di"), "sdg", 2), 3)
        say(remote, other, "guest", TurnMessage(other, 3, 1, "Pass"), 4)
        say(remote, other, "guest", Refusal(other, 4, "<img src=x onerror=alert(1)> turn 4 "
                                            "is illegal: " + "very long reason " * 30), 5)
        for width, height, shot in ((1920, 1080, "hub-remote.png"), (390, 844, None)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(server.url + "/")
            game = page.locator(f'[data-remote="{gid}"]')
            assert game.locator(".status").inner_text() == "playing: 7 turns"
            assert game.locator("h3").inner_text() == f"{ann} (table t1) v {bob} (table t2)"
            assert game.locator('[data-side="host"]').inner_text() == \
                f"Table t1 (host, plays {ann}): online, 7 turns"
            card = page.locator('.table[data-table="t1"]')
            assert card.locator(".remote-line").inner_text() == \
                f"Remote game: {ann} here v {bob} at table t2 (playing: 7 turns)"
            second = page.locator(f'[data-remote="{other}"]')
            assert second.locator(".status").inner_text() == "paused: table t4 refused a " \
                "message of the other table (the reason is below)"
            assert second.locator(".problem").inner_text().startswith(
                "refused turn 4: <img src=x onerror=alert(1)> turn 4 is illegal")
            assert page.locator(".remote img").count() == 0
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            box = second.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
            page.locator("h2", has_text="Remote games").scroll_into_view_if_needed()
            page.screenshot(path=str(screenshot_dir / shot if shot else
                                     tmp_path / f"hub-remote-{width}.png"))
    finally:
        store.close()

"""The hub's full live view of a table in Chromium: the spectator display's live page, fed
by the hub's copy of the table (what the table published), updated live."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette")

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.event.topics import table_topic  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402
from tests.event.helpers import TWO_PLAYER_GAMES  # noqa: E402
from tests.event.tables import TableSigner, issue, messages, played_store  # noqa: E402

EVENT = "club"


def test_the_hubs_live_view_shows_the_table_and_follows_its_state(tmp_path, page,
                                                                   live_server):
    sign = TableSigner(issue(tmp_path / "hub.sqlite", "t2"))
    store = GameStore.open(tmp_path / "hub.sqlite")
    try:
        ingest = HubIngest(store, EVENT)
        t2 = played_store(tmp_path / "t2.sqlite", TWO_PLAYER_GAMES[1], "t2", turns=6,
                          finish=False)
        for topic, payload in messages(t2, EVENT, "t2", sign):
            ingest.handle(topic, payload)
        online = table_topic(EVENT, "t2", "online")
        ingest.handle(online, sign(online, b'{"online": true}'))
        pages = HubPages(ingest, tmp_path / "hub.sqlite", EventBook(store, "swiss"),
                         admin_token="organiser", event=EVENT)
        server = live_server(build_app(pages))
        page.goto(server.url + "/tables/t2/live")
        # No retained state yet: the hub's store shows the six turns, the link unknown.
        page.wait_for_function("() => document.querySelectorAll('#log li').length === 6")
        assert page.locator("#map svg").count() == 1
        assert page.locator("#link").get_attribute("class") == "unknown"
        assert page.locator("#link").inner_text() == "link unknown"
        # The table's retained state arrives: the lifted ship and the sensors' link show.
        stored, state = ingest.latest("t2")
        snapshot = pages.live_snapshot("t2").to_json()
        snapshot.update(seq=5, at=time.time(), link_up=True)
        mover = stored.players[state.to_move]
        snapshot["hints"] = dict(snapshot["hints"], lifted={"seat": state.to_move,
                                                            "piece": "y1", "from": mover})
        topic = table_topic(EVENT, "t2", "state")
        ingest.handle(topic, sign(topic, snapshot))
        assert not ingest.problems
        page.wait_for_function("() => document.getElementById('hints').textContent"
                               f".includes({json.dumps(mover + ' lifted y1')})")
        assert page.locator("#link").get_attribute("class") == "up"
        assert page.locator("#table-name").text_content() == "Table t2"
    finally:
        store.close()

"""Every route of the display, the archive viewer and the hub answers with the security
headers, found by walking each app's route table (issue 27, defect 8), not by a list of
pages someone remembered: a route added later is checked too. Streams (``/events``,
``/feed``) are checked on their first message; an HTML answer holds no inline script."""

from __future__ import annotations

import asyncio
import re

import pytest

pytest.importorskip("starlette")

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

TOKEN = "walk-token-123"

#: A value for each path parameter a route may have.
SAMPLES = {"table": "t1", "action": "new-game", "kind": "game", "ident": "1", "step": "0"}


def _display(store):
    archive = Archive(store)
    return create_app(DisplayState(FeedHub(), None, TOKEN, "club", extra_routes=[
        *archive_routes(archive=archive), *attract_routes(archive, live_url="/")]))


def _archive_view(store):
    from homeworlds.commands.archive_view import build_app

    return build_app(str(store), [])


def _hub(store):
    from homeworlds.remote.hub_games import HubRemoteGames

    hub_store = GameStore.open(store.with_name("hub.sqlite"))
    ingest = HubIngest(hub_store, "club")
    remote = HubRemoteGames(hub_store, "club", ingest.identities, lock=ingest.lock)
    return build_hub_app(HubPages(ingest, store.with_name("hub.sqlite"),
                                  EventBook(hub_store), admin_token=TOKEN, event="club",
                                  remote=remote))


def _routes(app):
    """(method, path) of every route, path parameters filled with samples."""
    found = []
    for route in app.routes:
        path = getattr(route, "path", None)
        if path is None:
            continue
        path = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: SAMPLES[m.group(1)], path)
        methods = sorted((getattr(route, "methods", None) or {"GET"}) - {"HEAD"})
        found += [(method, path) for method in methods]
    return found


async def _first_answer(app, method: str, path: str, query: str = "") -> dict:
    """The answer's start (status and headers) as the server would send it; a stream is
    left as soon as it has begun."""
    started: asyncio.Future = asyncio.get_running_loop().create_future()
    body_sent = asyncio.Event()
    chunks: list[bytes] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", b"testserver"), (b"accept", b"text/html")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
    requested = False

    async def receive():
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await body_sent.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start" and not started.done():
            started.set_result(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False) or len(b"".join(chunks)) > 0:
                body_sent.set()

    task = asyncio.create_task(app(scope, receive, send))
    try:
        start = await asyncio.wait_for(started, 10)
        await asyncio.wait_for(body_sent.wait(), 10)
    finally:
        body_sent.set()
        try:
            await asyncio.wait_for(task, 5)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return {"status": start["status"], "headers": headers, "body": b"".join(chunks)}


def _phone(store):
    from homeworlds.web.phone import build_phone_app
    from tests.remote.phone_table import PhoneTable

    table = PhoneTable(store.parent, 0, start=False)
    return build_phone_app(table.phone, "club")


@pytest.mark.parametrize("make", [_display, _archive_view, _hub, _phone],
                         ids=["display", "archive-view", "hub", "phone"])
def test_every_route_answers_with_the_security_headers_and_no_inline_script(tmp_path, make):
    store = tmp_path / "games.sqlite"
    record_games(store, ["28841.raw"])
    app = make(store)

    async def walk():
        async with _lifespan(app):
            answers = {}
            for method, path in _routes(app):
                answers[(method, path)] = await _first_answer(app, method, path)
            answers[("GET", "/no-such-page")] = await _first_answer(app, "GET", "/no-such-page")
            return answers

    answers = _run_apart(walk)
    walked = {path for _, path in answers}
    assert {"/", "/admin", "/archive", "/phone"} & walked and len(walked) >= 6, walked
    for (method, path), answer in answers.items():
        for name, value in kit.SECURITY_HEADERS.items():
            if name != "Cache-Control":  # an asset is revalidated, not "no-store"
                assert answer["headers"].get(name.lower()) == value, (method, path, name)
        if answer["headers"].get("content-type", "").startswith("text/html"):
            text = answer["body"].decode("utf-8", "replace")
            for script in re.findall(r"<script([^>]*)>", text):
                assert "src=" in script or 'type="application/json"' in script, (path, script)
            assert not re.search(r"<[^>]+\son[a-z]+=", text), (path, "an inline handler")


def _run_apart(make_coroutine):
    """Run a coroutine on a loop of its own, in a thread: the browser tests may leave a loop
    running on this one."""
    import threading

    result: list = []
    error: list = []

    def run() -> None:
        try:
            result.append(asyncio.run(make_coroutine()))
        except BaseException as exc:  # handed to the test's thread
            error.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(120)
    if error:
        raise error[0]
    assert result, "the walk did not finish in 120 s"
    return result[0]


class _lifespan:
    """The app's startup and shutdown around the walk (the display's feed needs its loop)."""

    def __init__(self, app):
        self.app = app

    async def __aenter__(self):
        self.queue: asyncio.Queue = asyncio.Queue()
        self.sent: asyncio.Queue = asyncio.Queue()
        await self.queue.put({"type": "lifespan.startup"})
        self.task = asyncio.create_task(self.app({"type": "lifespan", "asgi": {
            "version": "3.0"}}, self.queue.get, self.sent.put))
        message = await asyncio.wait_for(self.sent.get(), 10)
        assert message["type"] == "lifespan.startup.complete", message

    async def __aexit__(self, *exc):
        await self.queue.put({"type": "lifespan.shutdown"})
        try:
            await asyncio.wait_for(self.task, 5)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()

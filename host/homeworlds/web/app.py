"""The display's ASGI app (Starlette): live page, event streams, admin actions.

Routes (docs/display.md):

* ``GET /`` the live table view; ``GET /static/live.js``, ``/static/live.css``.
* ``GET /events`` server-sent events for the live page: every feed event, snapshots with
  the star map drawn (``svg``). The first event of every connection is a full snapshot,
  so a page that reconnects (EventSource does so by itself) resyncs.
* ``GET /feed`` the bare table feed as server-sent events (another host's display, a hub);
  ``GET /api/snapshot`` the latest snapshot as JSON.
* ``GET /admin`` the admin page; ``POST /admin/{action}`` an admin action (new-game, resign,
  draw, undo, settings). Each needs the admin token: ``Authorization: Bearer TOKEN`` (a
  script), or the admin cookie that ``GET /admin?token=TOKEN`` (the QR code's link) sets
  — then also the CSRF token of the form (double submit: cookie and field must match) and
  a same-origin ``Origin``/``Referer``. Anything else gets 403 and changes nothing.

Every error is a short page or JSON without a trace (``debug`` is off, handlers for every
status and for any exception).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from homeworlds.clock import steady_time
from homeworlds.feed import FeedEvent, FeedHub, SnapshotEvent, Subscription
from homeworlds.session import AdminCommand, ControlError, ControlQueue
from homeworlds.web import kit, page
from homeworlds.web.analysis_view import ANALYSIS_SCRIPT

#: Seconds between keep-alive comments on an idle event stream (proxies drop silent ones).
KEEPALIVE_S = 15.0
#: Milliseconds an EventSource waits before reconnecting (sent in the stream).
RETRY_MS = 1000
#: Seconds an admin request waits for the table loop to run its command.
COMMAND_TIMEOUT_S = 5.0
ADMIN_COOKIE = "hw_admin"
CSRF_COOKIE = "hw_csrf"
#: Largest admin form accepted (a few short fields).
MAX_FORM_BYTES = 4096

def new_admin_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class DisplayState:
    """What the app shares between requests (all on the server's event loop)."""

    hub: FeedHub
    control: ControlQueue | None
    admin_token: str
    table_name: str = "table"
    render_svg: Callable[[SnapshotEvent], str] | None = None
    #: seq -> rendered map, so that fifty spectators cost one drawing per snapshot
    _svg_cache: dict[tuple, str] = field(default_factory=dict)
    shutting_down: bool = False
    #: tests collect the exceptions behind 500 answers here (never shown to a client)
    debug_errors: list | None = None
    #: more routes served beside the live view (the archive viewer of the table's store)
    extra_routes: list = field(default_factory=list)
    #: more scripts of the live page (the analysis panel; the attract mode's switch)
    live_scripts: tuple[str, ...] = (ANALYSIS_SCRIPT.path,)

    #: (stream, seq, at) -> the event as sent: one encoding per event, not per spectator
    _sse_cache: dict[tuple, str] = field(default_factory=dict)
    #: What the admin page shows of the seat played from a phone (``phone_info``), None
    #: without one. Never on a spectator's page: its code claims the seat.
    phone: dict[str, Any] | None = None

    def svg_for(self, snapshot: SnapshotEvent, shape: str = "") -> str:
        """The map of ``snapshot`` drawn for a page's ``shape`` (``map_shape``)."""
        key = (snapshot.seq, snapshot.at, shape)
        svg = self._svg_cache.get(key)
        if svg is None:
            svg = draw_map(snapshot, self.render_svg, shape)
            if len(self._svg_cache) > 16:
                self._svg_cache.clear()
            self._svg_cache[key] = svg
        return svg

    def sse_for(self, event: FeedEvent, with_svg: bool, shape: str = "") -> str:
        key = (with_svg, shape, event.seq,
               event.at if isinstance(event, SnapshotEvent) else event.type)
        text = self._sse_cache.get(key)
        if text is None:
            text = _sse(event, self if with_svg else None, shape)
            if len(self._sse_cache) > 32:
                self._sse_cache.clear()
            self._sse_cache[key] = text
        return text


#: The shapes a live page may ask its map in: "portrait" (a phone: two cards a row) or the
#: width/height of its map box, in steps of a quarter (drawings are shared between pages).
MAP_ASPECTS = tuple(a / 4 for a in range(3, 17))


def map_shape(query: str | None, portrait: str | None = None) -> str:
    """The map shape a page asked for (``?aspect=1.5`` or ``?layout=portrait``), as one of
    the few shapes drawn: anything else is the default landscape."""
    if portrait == "portrait":
        return "portrait"
    try:
        aspect = float(query or "")
    except ValueError:
        return ""
    if not aspect == aspect or aspect <= 0:
        return ""
    return str(min(MAP_ASPECTS, key=lambda a: abs(a - aspect)))


def draw_map(snapshot: SnapshotEvent, render: Callable[[SnapshotEvent], str] | None = None,
             shape: str = "") -> str:
    """The star map of a snapshot as SVG text (``kit.map_svg``: a position that cannot be
    drawn becomes a short notice in the drawing). ``shape``: ``map_shape``'s; a shape makes
    the live page's drawing (no players' line and no bank: the page shows them)."""
    if render is not None:
        return kit.map_svg(lambda: render(snapshot))
    return kit.map_svg(lambda: snapshot_renderer(snapshot, shape))


def snapshot_renderer(snapshot: SnapshotEvent, shape: str = "") -> str:
    """The star-map renderer of ``homeworlds.display.svg`` applied to a feed snapshot."""
    from homeworlds.display.svg import render_snapshot_svg

    if not shape:
        return render_snapshot_svg(snapshot.to_json())
    return render_snapshot_svg(snapshot.to_json(), portrait=shape == "portrait",
                               aspect=None if shape == "portrait" else float(shape),
                               with_bank=False, with_top=False)


def story_of(snapshot: SnapshotEvent) -> dict[str, Any] | None:
    """What the snapshot's last turn did, in words (``display.story``): {"seat",
    "caption", "ending"}; None while a turn is in progress or when it is not known."""
    from homeworlds.display.svg import snapshot_story

    if snapshot.turn_in_progress or snapshot.last_turn is None:
        return None
    try:
        story = snapshot_story(snapshot.to_json())
    except Exception:  # a story that cannot be told must not cut a stream off
        return None
    if story is None:
        return None
    return {"seat": story.seat, "caption": story.caption, "ending": story.ending}


def _error_page(status: int, text: str, request: Request) -> Response:
    return kit.error_response(request, status, text, back_text="live view")


def create_app(state: DisplayState) -> Starlette:
    # The live page links the archive only where there is one (a demo has no store).
    archive = any(getattr(r, "path", None) == "/archive" for r in state.extra_routes)

    async def live(request: Request) -> Response:
        return HTMLResponse(page.live_page(state.table_name, scripts=state.live_scripts,
                                           archive=archive), headers=kit.headers())

    async def snapshot_json(request: Request) -> Response:
        latest = state.hub.latest
        if latest is None:
            return JSONResponse({"error": "no snapshot yet: the table has not started"},
                                status_code=503, headers=kit.headers())
        return JSONResponse(latest.to_json(), headers=kit.headers())

    def stream(request: Request, with_svg: bool) -> Response:
        shape = map_shape(request.query_params.get("aspect"),
                          request.query_params.get("layout")) if with_svg else ""
        sub = state.hub.subscribe()  # now: nothing published from here on is missed
        return StreamingResponse(_events(state, sub, with_svg, shape),
                                 media_type="text/event-stream",
                                 headers=kit.headers({"X-Accel-Buffering": "no"}))

    async def live_events(request: Request) -> Response:
        return stream(request, True)

    async def feed_events(request: Request) -> Response:
        return stream(request, False)

    async def admin_page(request: Request) -> Response:
        return _admin_page(request, state)

    async def admin_action(request: Request) -> Response:
        return await _admin_action(request, state)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        text = {404: "no such page", 405: "method not allowed"}.get(status, "bad request")
        return _error_page(status, text, request)

    async def server_error(request: Request, exc: Exception) -> Response:
        if state.debug_errors is not None:
            state.debug_errors.append(exc)
        return _error_page(500, "the display could not answer this request", request)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        state.hub.attach(asyncio.get_running_loop())
        yield
        state.shutting_down = True

    routes = [
        Route("/", live),
        *kit.asset_routes([page.LIVE_SCRIPT, page.LIVE_STYLE, page.ADMIN_ASSET,
                           ANALYSIS_SCRIPT, kit.KIT_CSS]),
        Route("/api/snapshot", snapshot_json),
        Route("/events", live_events),
        Route("/feed", feed_events),
        Route("/admin", admin_page),
        Route("/admin/{action}", admin_action, methods=["POST"]),
        *state.extra_routes,
    ]
    return Starlette(debug=False, routes=routes, lifespan=lifespan, exception_handlers={
        HTTPException: not_found, Exception: server_error, 500: server_error},
        middleware=[Middleware(kit.SecurityHeaders)])


async def _events(state: DisplayState, sub: Subscription, with_svg: bool,
                  shape: str = "") -> AsyncIterator[str]:
    """The event stream of one page (``sub``, its subscription to the feed): the feed's
    events as they come (a burst sent as one write), the host's clock, a keep-alive when
    nothing happens."""
    try:
        yield f"retry: {RETRY_MS}\n\n" + _clock()
        while not state.shutting_down:
            try:
                event = await asyncio.wait_for(sub.get(), KEEPALIVE_S)
            except TimeoutError:
                yield _clock()  # also keeps proxies from closing an idle stream
                continue
            if event is None:  # the server is shutting down
                return
            batch = [event]
            while not sub.queue.empty():  # a burst: what else is waiting
                batch.append(sub.queue.get_nowait())
            if batch[-1] is None:
                return
            yield "".join(state.sse_for(e, with_svg, shape) for e in coalesce(batch))
    finally:
        sub.close()


def _admin_page(request: Request, state: DisplayState) -> Response:
    token = request.query_params.get("token")
    if token is not None:
        if not _same(token, state.admin_token):
            return _error_page(403, "wrong admin token", request)
        # The token leaves the address bar (and history) at once; the cookie keeps it.
        redirect = RedirectResponse("/admin", status_code=303, headers=kit.headers())
        _set_cookie(redirect, ADMIN_COOKIE, token, request)
        return redirect
    authorised = _same(request.cookies.get(ADMIN_COOKIE), state.admin_token)
    csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
    response = HTMLResponse(page.admin_page(state.table_name, authorised, csrf,
                                            _settings(state),
                                            extra=phone_section(state.phone, csrf)
                                            if authorised else ""), headers=kit.headers())
    _set_cookie(response, CSRF_COOKIE, csrf, request)
    return response


async def _admin_action(request: Request, state: DisplayState) -> Response:
    action = request.path_params["action"]
    problem, form = await _authorise(request, state)
    if problem is not None:
        return _error_page(403, problem, request)
    try:
        command = _command(action, form)
    except ControlError as exc:
        return _answer(request, state, 400, str(exc))
    if action in page.CONFIRMED and form.get("confirm") != "yes" and \
            not request.headers.get("authorization"):
        # A tap on a phone must not resign or abandon a game: the page asks again.
        return HTMLResponse(page.confirm_page(state.table_name, action,
                                              request.cookies.get(CSRF_COOKIE) or "", form,
                                              _settings(state)), headers=kit.headers())
    if state.control is None:
        return _answer(request, state, 503, "this display has no table to command")
    future = state.control.submit(command)
    try:
        message = await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)
    except ControlError as exc:
        return _answer(request, state, 409, str(exc))
    except TimeoutError:
        future.cancel()
        return _answer(request, state, 504, "the table did not answer in time; nothing "
                       "was changed unless the page shows it")
    return _answer(request, state, 200, message)


def coalesce(batch: list) -> list:
    """Events waiting together, as they are sent: a snapshot is the whole table, so of
    several only the newest is worth drawing and sending; every turn and result event goes,
    in order."""
    snapshots = [k for k, e in enumerate(batch) if isinstance(e, SnapshotEvent)]
    newest = snapshots[-1] if snapshots else -1
    return [e for k, e in enumerate(batch)
            if e is not None and (k == newest or not isinstance(e, SnapshotEvent))]


def _clock() -> str:
    """The host's steady time now (``clock.steady_time``, the clock of the feed's moments):
    the page counts the turn's time from the snapshot's ``turn_started_at`` against it,
    whatever the spectator's own clock or a step of the host's wall clock says."""
    return f"event: clock\ndata: {steady_time():.3f}\n\n"


def _sse(event: FeedEvent, state: DisplayState | None, shape: str = "") -> str:
    data = event.to_json()
    if state is not None and isinstance(event, SnapshotEvent):
        data["svg"] = state.svg_for(event, shape)
        data["story"] = story_of(event)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event.type}\nid: {event.seq}\ndata: {text}\n\n"


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _set_cookie(response: Response, name: str, value: str, request: Request) -> None:
    response.set_cookie(name, value, httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")


def _settings(state: DisplayState) -> dict[str, Any]:
    latest = state.hub.latest
    settings = (latest.settings if latest is not None else None) or {}
    return {"table": state.table_name,
            "players": list(latest.game.players) if latest is not None else [],
            "hint_level": settings.get("hint_level"), "brightness": settings.get("brightness")}


async def _authorise(request: Request, state: DisplayState
                     ) -> tuple[str | None, dict[str, str]]:
    """(why the request is refused or None, its form). A bearer token needs nothing more;
    the cookie needs the CSRF field and a same-origin request."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return "request too large", {}
    form: dict[str, str] = {}
    kind = request.headers.get("content-type", "")
    if body:
        try:
            if kind.startswith("application/json"):
                data = json.loads(body)
                if not isinstance(data, dict):
                    return "a JSON object was expected", {}
                form = {str(k): str(v) for k, v in data.items() if v is not None}
            else:
                from urllib.parse import parse_qsl

                form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True,
                                      strict_parsing=False, max_num_fields=20))
        except (ValueError, UnicodeDecodeError):
            return "the request's form cannot be read", {}
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        if _same(auth[7:].strip(), state.admin_token):
            return None, form
        return "wrong admin token", form
    if not _same(request.cookies.get(ADMIN_COOKIE), state.admin_token):
        return "admin token required: open the admin link printed on the table's terminal " \
               "(or its QR code)", form
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not _same(form.get("csrf"), cookie):
        return "the form is stale or forged (CSRF check): reload the admin page", form
    if not _same_origin(request):
        return "cross-site request refused", form
    return None, form


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return False
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host


def _command(action: str, form: dict[str, str]) -> AdminCommand:
    if action == "resign":
        try:
            seat = int(form.get("seat", ""))
        except ValueError:
            raise ControlError("resign: name the seat that resigns (seat=0 or seat=1)") from None
        return AdminCommand("resign", seat=seat)
    if action == "settings":
        level = form.get("hint_level") or None
        brightness = None
        if form.get("brightness"):
            try:
                brightness = float(form["brightness"])
            except ValueError:
                raise ControlError(f"brightness {form['brightness']!r}: give a number such "
                                   "as 0.3") from None
            if brightness != brightness:
                raise ControlError("brightness: give a number such as 0.3")
        return AdminCommand("settings", hint_level=level, brightness=brightness)
    return AdminCommand(action)


def _answer(request: Request, state: DisplayState, status: int, message: str) -> Response:
    if "application/json" in request.headers.get("accept", "") or \
            request.headers.get("authorization"):
        return JSONResponse({"ok": status == 200, "message": message}, status_code=status,
                            headers=kit.headers())
    csrf = request.cookies.get(CSRF_COOKIE) or ""
    return HTMLResponse(page.admin_page(state.table_name, True, csrf, _settings(state),
                                        message=message, ok=status == 200,
                                        extra=phone_section(state.phone, csrf)),
                        status_code=status, headers=kit.headers())


#: The longest link or name the admin page takes from the table's pipe.
MAX_PHONE_TEXT = 200


def phone_info(data: Any) -> dict[str, Any] | None:
    """The phone seat's admin information as it came from the table (``PhoneSeat.
    admin_info``), every field checked: anything else is None (the page shows nothing
    rather than something wrong)."""
    if not isinstance(data, dict):
        return None
    seat, player, claimed = data.get("seat"), data.get("player"), data.get("claimed")
    code, link, where = data.get("code"), data.get("link"), data.get("page")
    if not (isinstance(seat, int) and 0 <= seat < 6 and isinstance(player, str)
            and 0 < len(player) <= MAX_PHONE_TEXT and isinstance(claimed, bool)):
        return None
    if code is not None and not (isinstance(code, str) and code.isascii()
                                 and code.isalnum() and 6 <= len(code) <= 32):
        return None
    for url in (link, where):
        if url is not None and not (isinstance(url, str) and len(url) <= MAX_PHONE_TEXT
                                    and url.startswith(("http://", "https://"))
                                    and url.isprintable()):
            return None
    return {"seat": seat, "player": player, "claimed": claimed, "code": code, "link": link,
            "page": where, "draw_offered": data.get("draw_offered") is True}


def phone_section(info: dict[str, Any] | None, csrf: str) -> str:
    """The admin page's box of the phone's seat: its code, link and QR code while no phone
    holds it; once one does, that it is played from a phone; a draw offered from the phone
    with its answers (Draw by agreement accepts)."""
    from html import escape

    if info is None:
        return ""
    player = escape(info["player"])
    c = escape(csrf, quote=True)
    if info["claimed"]:
        where = (f' (<a href="{escape(info["page"], quote=True)}">{escape(info["page"])}</a>)'
                 if info["page"] else "")
        body = (f'<p id="phone-claimed">{player} is played from a phone{where}: no other '
                "phone can take the seat.</p>"
                f'<form method="post" action="/admin/release-phone" id="form-release-phone">'
                f'<input type="hidden" name="csrf" value="{c}">'
                '<button type="submit" id="do-release-phone" class="danger">Free the seat '
                "for another phone (a new code)</button></form>")
    else:
        link = info["link"]
        shown = (f'<p>On the phone, scan the QR code or open <a id="phone-link" '
                 f'href="{escape(link, quote=True)}">{escape(link)}</a>, then press '
                 "<b>Play this seat</b>.</p><p>" + kit.qr_svg(link) + "</p>") if link else ""
        body = (f"<p>{player} plays from a phone; no phone has claimed the seat yet. Its "
                f'one-time code: <b id="phone-code">{escape(info["code"] or "")}</b></p>'
                + shown)
    if info["draw_offered"]:
        body += (f'<p id="phone-draw">{player} offers a draw from the phone.</p>'
                 f'<form method="post" action="/admin/draw" id="form-accept-draw">'
                 f'<input type="hidden" name="csrf" value="{c}">'
                 '<button type="submit" id="do-accept-draw">Accept: draw by agreement'
                 '</button></form>'
                 f'<form method="post" action="/admin/decline-draw" id="form-decline-draw">'
                 f'<input type="hidden" name="csrf" value="{c}">'
                 '<button type="submit" id="do-decline-draw">Decline the draw</button></form>')
    return f'<fieldset id="phone"><legend>Phone seat</legend>{body}</fieldset>'


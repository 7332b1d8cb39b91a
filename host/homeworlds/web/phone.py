"""The pages of a seat played from a phone (docs/remote-play.md, "A seat played from a
phone"): an app of its own, served in the table's process beside ``remote.phone.PhoneSeat``.

Routes:

* ``GET /phone`` the claim form (the code may come in ``?code=``, the QR code's link: a
  GET never claims), or, for the phone that claimed the seat, the play page: the star map,
  the turn built so far, the legal next actions as buttons, a field to type one, Undo and
  Send; the game clocks (a timed game), Offer a draw and Resign.
* ``POST /phone/claim`` (``code``), ``/phone/action`` (``action``), ``/phone/undo``,
  ``/phone/send`` (``number``), ``/phone/draw``, ``/phone/resign`` (asks again unless
  ``confirm=yes``): each needs the CSRF field of the page (double submit: the
  cookie and the field match) and a same-origin request; all but the claim need the
  session cookie of the phone that claimed the seat (HttpOnly, SameSite=Strict).
* ``GET /phone/state`` (that phone only) the position's version, which the page's script
  polls to load the page again when the table moves on.

Every field is bounded and checked; a mistake is answered with the page and its message
(422), a refusal with the error page (403, 409, 429); never a trace.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import secrets
import socket
import sys
import threading
import time
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from homeworlds.remote.phone import ClaimRefused, PhoneMistake, PhoneSeat, PhoneView
from homeworlds.web import WebUnavailable, kit
from homeworlds.web.server import print_qr

SESSION_COOKIE = "hw_phone"
CSRF_COOKIE = "hw_phone_csrf"
#: Largest form accepted (a few short fields).
MAX_FORM_BYTES = 2048
FIELDS = {"csrf", "code", "action", "number", "confirm"}

PHONE_CSS = kit.Asset.css("/static/phone.css", """
body { padding: .5rem .7rem; max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.2rem; margin: .2rem 0; }
.map svg { width: 100%; height: auto; max-height: 50vh; }
#status { font-weight: bold; }
#draft li { font-family: "DejaVu Sans Mono", monospace; }
.offered { display: flex; flex-wrap: wrap; gap: .3rem; }
.offered form { margin: 0; }
button, input { font-size: 1rem; padding: .45rem .6rem; }
input[name=action], input[name=code] { width: 100%; box-sizing: border-box; }
.row { display: flex; gap: .5rem; margin: .5rem 0; }
blockquote { margin: .3rem 0 .3rem 1rem; color: #c9d2ee; }
button { background: #23304f; color: #e8ebf5; border: 1px solid #4a5a85; border-radius: .3rem; }
#send { background: #2f6b3a; border-color: #4fa35f; font-weight: bold; }
button.danger { background: #6b1f2a; border-color: #a33a48; }
#clocks { display: flex; gap: .8rem; flex-wrap: wrap; font-size: 1.1rem; margin: .3rem 0; }
#clocks .clock { padding: .15rem .5rem; border: 1px solid #4a5a85; border-radius: .3rem; }
#clocks .running { border-color: #e8ebf5; font-weight: bold; }
#clocks .time { font-family: "DejaVu Sans Mono", monospace; }
.ending { margin-top: 1.2rem; border-top: 1px solid #3a4259; padding-top: .4rem; }
.confirm { border: 2px solid #a33a48; border-radius: .5rem; padding: .5rem .8rem; }
input { background: #161b29; color: #e8ebf5; border: 1px solid #4a5a85; }
""")

PHONE_JS = kit.Asset.js("/static/phone.js", """
(function () {
  var body = document.body;
  if (body.dataset.page !== "play") { return; }
  // The running game clock counts down from the table's reading (data-ms, taken when the
  // page was made) after the delay it had left (data-delay), as the table's clock does.
  var loaded = Date.now();
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function clockText(ms) {
    ms = Math.max(0, Math.floor(ms));
    if (ms < 10000) { return Math.floor(ms / 1000) + "." + Math.floor(ms % 1000 / 100); }
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
    return h ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
  }
  function tick() {
    var ran = Date.now() - loaded;
    document.querySelectorAll("#clocks .running .time").forEach(function (el) {
      var ms = Number(el.dataset.ms), delay = Number(el.dataset.delay || 0);
      if (isFinite(ms)) { el.textContent = clockText(ms - Math.max(0, ran - delay)); }
    });
  }
  if (document.querySelector("#clocks .running")) { window.setInterval(tick, 100); }
  var version = body.dataset.version, sent = body.dataset.sent;
  function check() {
    fetch("/phone/state", {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (s && (String(s.version) !== version || String(s.sent) !== sent)) {
          window.location.assign("/phone");
        }
      })
      .catch(function () {})
      .then(function () { window.setTimeout(check, 1000); });
  }
  window.setTimeout(check, 1000);
}());
""")


def build_phone_app(seat: PhoneSeat, table_name: str = "table") -> Starlette:
    """The phone's app for ``seat`` (its ``attach`` is the caller's)."""

    async def phone(request: Request) -> Response:
        if seat.holds(request.cookies.get(SESSION_COOKIE)):
            return _play(request, seat, table_name)
        code = request.query_params.get("code", "")[:32]
        return _claim_page(request, seat, table_name, code)

    async def claim(request: Request) -> Response:
        form, problem = await _form(request)
        if problem is not None:
            return _error(request, 403, problem)
        try:
            token = seat.claim(form.get("code", ""))
        except ClaimRefused as exc:
            return _error(request, exc.status, str(exc))
        response = RedirectResponse("/phone", status_code=303, headers=kit.headers())
        _set_cookie(response, SESSION_COOKIE, token, request)
        return response

    async def action(request: Request) -> Response:
        return await _act(request, seat, table_name,
                          lambda form: seat.add_action(form.get("action", "")))

    async def undo(request: Request) -> Response:
        return await _act(request, seat, table_name, lambda form: seat.undo())

    async def send(request: Request) -> Response:
        def sending(form: dict[str, str]) -> object:
            number = form.get("number", "")
            if not (number.isdigit() and len(number) <= 6):
                raise PhoneMistake("not sent: the page gave no turn number: reload")
            return seat.send(int(number))
        return await _act(request, seat, table_name, sending)

    async def state(request: Request) -> Response:
        if not seat.holds(request.cookies.get(SESSION_COOKIE)):
            return _error(request, 403, "only the phone that claimed the seat")
        view = seat.view()
        return JSONResponse({"version": view.version, "sent": str(view.sent).lower(),
                             "to_move": view.state.to_move}, headers=kit.headers())

    async def failed(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        text = {404: "no such page", 405: "method not allowed"}.get(status, "bad request")
        return _error(request, status, text)

    async def crashed(request: Request, exc: Exception) -> Response:
        return _error(request, 500, "the table could not answer this request")

    routes = [
        Route("/", lambda request: RedirectResponse("/phone", 303, headers=kit.headers())),
        Route("/phone", phone),
        Route("/phone/claim", claim, methods=["POST"]),
        Route("/phone/action", action, methods=["POST"]),
        Route("/phone/undo", undo, methods=["POST"]),
        Route("/phone/send", send, methods=["POST"]),
        *_ending_routes(seat, table_name),
        Route("/phone/state", state),
        *kit.asset_routes([kit.KIT_CSS, PHONE_CSS, PHONE_JS]),
    ]
    return Starlette(debug=False, routes=routes, exception_handlers={
        HTTPException: failed, Exception: crashed, 500: crashed},
        middleware=[Middleware(kit.SecurityHeaders)])


def _ending_routes(seat: PhoneSeat, table_name: str) -> list[Route]:
    """``POST /phone/resign`` (asks again unless ``confirm=yes``) and ``/phone/draw``."""

    async def resign(request: Request) -> Response:
        form, problem = await _form(request)
        if problem is None and form.get("confirm") != "yes" and \
                seat.holds(request.cookies.get(SESSION_COOKIE)):
            # A tap must not end the game: the page asks again.
            return _confirm_page(request, seat, table_name)
        return await _act(request, seat, table_name, lambda form: seat.resign(), form,
                          problem)

    async def draw(request: Request) -> Response:
        return await _act(request, seat, table_name, lambda form: seat.offer_draw())

    return [Route("/phone/resign", resign, methods=["POST"]),
            Route("/phone/draw", draw, methods=["POST"])]


class PhoneServer:
    """The phone's app served on a thread of the table's process (it needs the
    ``PhoneSeat``), bound before it starts and under the display's ``ServerLimits``
    (``web.guard``): a port of its own, apart from the display's process."""

    def __init__(self, seat: PhoneSeat, *, host: str = "127.0.0.1", port: int = 8090,
                 table_name: str = "table", limits: Any = None):
        self.seat, self.host, self.port = seat, host, port
        self.app = build_phone_app(seat, table_name)
        self.limits = limits
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        from homeworlds.web.server import display_url

        return display_url(self.host, self.port)

    def start(self) -> PhoneServer:
        import uvicorn

        from homeworlds.web.guard import LISTEN_QUEUE, guarded_config, limits_for_descriptors

        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise WebUnavailable(f"cannot serve the phone seat on {self.host}:{self.port}: "
                                 f"{exc.strerror or exc} (another program on that port?)"
                                 ) from None
        sock.listen(128)
        self.port, self._socket = sock.getsockname()[1], sock
        config = guarded_config(self.app, self.limits or limits_for_descriptors(),
                                access_log=False, lifespan="off")
        server = self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(server.serve(
            sockets=[sock])), name="phone-seat", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not server.started:
            self.stop()
            raise WebUnavailable(f"the phone seat did not start on {self.host}:{self.port}")
        sock.listen(LISTEN_QUEUE)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> PhoneServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def claim_link(base_url: str, seat: PhoneSeat) -> str:
    """The link the table shows: the phone page with the code filled in (a GET never
    claims: the player still presses "Play this seat")."""
    return f"{base_url.rstrip('/')}/phone?code={seat.code}"


def announce(base_url: str, seat: PhoneSeat, out: TextIO | None = None,
             qr: bool = True) -> None:
    """Print, on the table's terminal, where the phone plays the seat and its one-time
    code (with the link's QR code on a terminal, ``qrcode`` of the web extra)."""
    out = out if out is not None else sys.stdout
    player = seat.view().players[seat.seat]
    link = claim_link(base_url, seat)
    print(f"phone seat {player}: open {link}", file=out, flush=True)
    print(f"phone seat {player}: or open {base_url.rstrip('/')}/phone and type the code "
          f"{seat.code}", file=out, flush=True)
    if qr:
        print_qr(link, out)


async def _act(request: Request, seat: PhoneSeat, table_name: str, do,
               form: dict[str, str] | None = None, problem: str | None = None) -> Response:
    if form is None:
        form, problem = await _form(request)
    if problem is not None:
        return _error(request, 403, problem)
    if not seat.holds(request.cookies.get(SESSION_COOKIE)):
        return _error(request, 403, "this phone has not claimed the seat: open the link the "
                      "table shows and type its code")
    try:
        do(form)
    except PhoneMistake as exc:
        return _play(request, seat, table_name, mistake=exc, status=422)
    return RedirectResponse("/phone", status_code=303, headers=kit.headers())


async def _form(request: Request) -> tuple[dict[str, str], str | None]:
    """(the form, why the request is refused or None): bounded, known fields only, the
    CSRF field equal to its cookie, from this origin."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}, "request too large"
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8)
    except (ValueError, UnicodeDecodeError):
        return {}, "the request's form cannot be read"
    form = {name: value for name, value in pairs if name in FIELDS}
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not _same(form.get("csrf"), cookie):
        return form, "the form is stale or forged (CSRF check): reload the page"
    if not _same_origin(request):
        return form, "cross-site request refused"
    return form, None


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return False
    return urlsplit(origin).netloc == request.headers.get("host", "")


def _set_cookie(response: Response, name: str, value: str, request: Request) -> None:
    response.set_cookie(name, value, httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")


def _csrf(request: Request) -> str:
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return cookie if 16 <= len(cookie) <= 64 and cookie.isascii() else secrets.token_urlsafe(24)


def _error(request: Request, status: int, text: str) -> Response:
    return kit.error_response(request, status, text, back="/phone", back_text="phone page")


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _hidden(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{_esc(csrf)}">'


def _respond(request: Request, csrf: str, body: str, status: int = 200) -> Response:
    response = HTMLResponse(body, status_code=status, headers=kit.headers())
    _set_cookie(response, CSRF_COOKIE, csrf, request)
    return response


def _claim_page(request: Request, seat: PhoneSeat, table_name: str, code: str) -> Response:
    csrf = _csrf(request)
    view = seat.view()
    player = view.players[seat.seat]
    taken = ('<p class="problem" id="taken">This seat is already played from another '
             "phone.</p>") if seat.claimed else ""
    body = (f"<h1>Play {_esc(player)} at {_esc(table_name)}</h1>{taken}"
            "<p>Type the code the table shows (its terminal or display) to play this seat "
            "from this phone.</p>"
            f'<form method="post" action="/phone/claim" id="claim">{_hidden(csrf)}'
            f'<input name="code" id="code" maxlength="32" autocomplete="off" '
            f'autocapitalize="characters" value="{_esc(code)}" placeholder="code">'
            '<div class="row"><button type="submit" id="claim-button">Play this seat'
            "</button></div></form>")
    page = kit.page(f"Play {player}", body, styles=[PHONE_CSS], scripts=[PHONE_JS],
                    data={"page": "claim"})
    return _respond(request, csrf, page)


def _play(request: Request, seat: PhoneSeat, table_name: str,
          mistake: PhoneMistake | None = None, status: int = 200) -> Response:
    from homeworlds.display.svg import render_svg

    csrf = _csrf(request)
    view = seat.view()
    svg = kit.map_svg(lambda: render_svg(view.state, players=view.players, portrait=True))
    body = (f"<h1>{_esc(view.players[seat.seat])} at {_esc(table_name)}, turn "
            f"{view.number}</h1>"
            f'<p id="status">{_esc(_status(seat, view))}</p>'
            f"{_clocks(view)}{_draw_note(view)}"
            f"{_mistake(mistake)}<div class=\"map\" id=\"map\">{svg}</div>"
            f"{_turn_form(seat, view, csrf)}{_endings(view, csrf)}")
    page = kit.page(f"{view.players[seat.seat]}: turn {view.number}", body,
                    styles=[PHONE_CSS], scripts=[PHONE_JS],
                    data={"page": "play", "version": view.version,
                          "sent": str(view.sent).lower(), "seat": seat.seat})
    return _respond(request, csrf, page, status)


def _status(seat: PhoneSeat, view: PhoneView) -> str:
    problem = seat.my_turn(view)
    if problem is None:
        return "your turn: add actions one by one, then send"
    if view.state.result is not None:
        if view.ended_by == "agreed-draw":
            return "the game is over: drawn by agreement"
        winners = view.state.result.winners
        names = ", ".join(view.players[w] for w in winners)
        how = {"resigned": " by resignation", "flag": " on time"}.get(view.ended_by or "", "")
        return f"the game is over{': ' + names + ' won' + how if names else ''}"
    return problem


def _clocks(view: PhoneView) -> str:
    """The game clocks as the table read them (docs/clocks.md), the running one counting
    down on the page; nothing for an untimed game."""
    from homeworlds.clock import PAUSE_TEXT, format_clock

    clocks = view.clocks
    if not clocks:
        return ""
    ran_ms = max(0.0, (time.monotonic() - view.taken_at) * 1000)
    parts = []
    for seat, reading in enumerate(clocks.get("seats", ())[:len(view.players)]):
        left = float(reading.get("remaining_ms", 0))
        running = bool(reading.get("running"))
        delay = float(reading.get("delay_ms", 0))
        if running:
            left -= max(0.0, ran_ms - delay)
            delay = max(0.0, delay - ran_ms)
        shown = "FLAG" if reading.get("flagged") else format_clock(left)
        parts.append(f'<span class="clock seat-{seat}{" running" if running else ""}" '
                     f'data-seat="{seat}">{_esc(view.players[seat])} <span class="time" '
                     f'data-ms="{int(left)}" data-delay="{int(delay)}">{_esc(shown)}</span>'
                     "</span>")
    paused = clocks.get("paused")
    if paused:
        parts.append(f'<span class="paused">clocks paused: '
                     f"{_esc(PAUSE_TEXT.get(paused, paused))}</span>")
    return f'<div id="clocks">{"".join(parts)}</div>'


def _draw_note(view: PhoneView) -> str:
    if view.state.result is not None or view.draw is None:
        return ""
    text = ("you offered a draw: the table's person answers at the table"
            if view.draw == "offered" else "the table declined your draw offer: play on")
    return f'<p id="draw">{_esc(text)}</p>'


def _endings(view: PhoneView, csrf: str) -> str:
    """Offer a draw, resign: while the game goes on (resigning asks again)."""
    if view.state.result is not None or view.resigning:
        return ""
    hidden = _hidden(csrf)
    offer = "" if view.draw == "offered" else (
        f'<form method="post" action="/phone/draw">{hidden}'
        '<button type="submit" id="offer-draw">Offer a draw</button></form>')
    return (f'<div class="row ending">{offer}'
            f'<form method="post" action="/phone/resign">{hidden}'
            '<button type="submit" id="resign" class="danger">Resign</button></form></div>')


def _confirm_page(request: Request, seat: PhoneSeat, table_name: str) -> Response:
    """The second step of resigning (no script needed): the same form with confirm=yes."""
    csrf = _csrf(request)
    player = seat.view().players[seat.seat]
    body = (f"<h1>{_esc(player)} at {_esc(table_name)}</h1><div class=\"confirm\">"
            '<p id="question">Resign the game? It cannot be taken back: the other player '
            "wins.</p>"
            f'<form method="post" action="/phone/resign" id="form-confirm">{_hidden(csrf)}'
            '<input type="hidden" name="confirm" value="yes"><div class="row">'
            '<button type="submit" id="do-confirm" class="danger">Yes, resign</button>'
            '</div></form><p><a href="/phone" id="cancel">No, back to the game</a></p>'
            "</div>")
    page = kit.page(f"{player}: resign?", body, styles=[PHONE_CSS], scripts=[PHONE_JS],
                    data={"page": "confirm"})
    return _respond(request, csrf, page)


def _mistake(mistake: PhoneMistake | None) -> str:
    if mistake is None:
        return ""
    rule = "" if mistake.citation is None else \
        f'<blockquote id="rule">{_esc(mistake.citation.text())}</blockquote>'
    return f'<p class="problem" id="mistake">{_esc(mistake)}</p>{rule}'


def _turn_form(seat: PhoneSeat, view: PhoneView, csrf: str) -> str:
    if seat.my_turn(view) is not None:
        return ""
    hidden = _hidden(csrf)
    draft = seat.draft_text(view)
    items = "".join(f"<li>{_esc(a)}</li>" for a in draft) or \
        '<li class="none">no action yet</li>'
    offered = "".join(
        f'<form method="post" action="/phone/action">{hidden}'
        f'<input type="hidden" name="action" value="{_esc(a)}">'
        f'<button type="submit" class="offer">{_esc(a)}</button></form>'
        for a in seat.offered(view))
    example = "Homeworld G3 B1 Y2" if view.state.in_setup else \
        f"Build G1 {view.players[seat.seat]}"
    return (f'<h2>This turn</h2><ol id="draft">{items}</ol>'
            f'<form method="post" action="/phone/action" id="type">{hidden}'
            f'<input name="action" id="action" maxlength="80" autocomplete="off" '
            f'placeholder="{_esc(example)}"><div class="row">'
            '<button type="submit" id="add">Add action</button></div></form>'
            '<div class="row">'
            f'<form method="post" action="/phone/undo">{hidden}'
            '<button type="submit" id="undo">Undo</button></form>'
            f'<form method="post" action="/phone/send">{hidden}'
            f'<input type="hidden" name="number" value="{view.number}">'
            '<button type="submit" id="send">Send turn</button></form></div>'
            + (f'<h2>Legal next actions</h2><div class="offered" id="offered">{offered}</div>'
               if offered else ""))


__all__ = ["PhoneServer", "announce", "build_phone_app", "claim_link"]

"""The hub's web pages (Starlette): every table at a glance, a table's live view, the
results with the next round's pairings, the archive of every game (docs/event.md, "The
hub's pages"). They are made with the display's page kit (``web.kit``: frame, styles,
security headers, error page, star map) and its live page fed by the hub's copy of a table.

Spectators read; admin actions (players, start a round, correct a result, the event's
clock) are POSTs from a browser signed in with the admin token (``web.hub_admin``: a
plain sign-in form, no script needed; then the page's CSRF field and a same-site origin),
or carrying the token itself (a form field ``token`` or ``Authorization: Bearer``, for
scripts); anything else gets 403. Errors are pages naming the problem, never a trace.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from homeworlds.clock import MODES, ON_FLAG, ClockSpec, ClockSpecError, steady_time
from homeworlds.display.svg import esc, render_svg
from homeworlds.event.event_clock import describe
from homeworlds.event.hub import HubIngest
from homeworlds.event.pairing import PairingError
from homeworlds.event.payloads import snapshot_message
from homeworlds.event.rounds import EventBook
from homeworlds.store import StoreError
from homeworlds.web import hub_remote, kit
from homeworlds.web.hub_admin import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AdminSessions,
    browser_refusal,
    csrf_field,
    csrf_of,
    set_cookie,
    sign_in_form,
    sign_in_routes,
)

#: Seconds between two update notices to one page (a busy event changes many times a second).
SSE_MIN_INTERVAL_S = 0.1
#: Largest admin form read (the players' names are the longest field).
MAX_FORM_BYTES = 64 * 1024

#: A snapshot's hints when the table published none (its store's state only).
NO_HINTS: dict[str, object] = {
    "lifted": None, "legal_destinations": [], "may_discover": False, "overpopulated": [],
    "red_alert_seat": None, "mistakes": [], "message": "", "guidance": None}

CSS = """
.tables { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr));
          gap: .8rem; }
.table { border: 1px solid #2c3550; border-radius: .5rem; padding: .5rem .7rem; }
.table h2 { margin: 0 0 .3rem 0; font-size: 1.1rem; }
.online { color: #7be08a; } .offline { color: #ff8a80; } .unknown { color: #9aa4c0; }
.map svg { width: 100%; height: 22rem; }
.result { font-weight: bold; color: #ffd54f; }
.result .why { font-weight: normal; color: #e8ebf5; }
.chances { font-variant-numeric: tabular-nums; }
table.results td, table.results th { padding: .15rem .6rem; text-align: left; }
table.results td.num, table.results th.num { text-align: right; }
nav a { margin-right: 1rem; }
#sign-in { display: flex; gap: .6rem; align-items: center; flex-wrap: wrap;
           padding: .5rem .8rem; border: 1px solid #2c3550; border-radius: .5rem; }
#sign-in input, #sign-in button { font-size: 1rem; min-height: 2.2rem; }
#signed { color: #7be08a; } #signed.out { color: #ff8a80; }
/* The big screen of the results: read from across the room. */
body.screen { font-size: clamp(18px, 2vw, 40px); }
body.screen h1 { font-size: 1.6em; margin: .2em 0; }
body.screen table.results { font-size: 1em; }
body.screen .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 2em; }
@media (max-width: 900px) { body.screen .columns { grid-template-columns: 1fr; } }
"""

NAV = ('<nav><a href="/">Tables</a><a href="/results">Results</a>'
       '<a href="/results/screen">Big screen</a>'
       '<a href="/archive">Archive</a><a href="/admin">Admin</a></nav>')

#: Every element with ``data-updates`` (an event stream) and ``data-fragment`` (its
#: content's address) is fetched again at each notice of the stream.
UPDATE_JS = """
'use strict';
// Times are sent as <time datetime="...Z">: each reader sees them in their own time zone.
function localTimes(root) {
  for (const el of root.querySelectorAll('time[datetime]')) {
    const when = new Date(el.getAttribute('datetime'));
    if (!isNaN(when)) {
      el.textContent = when.toLocaleString([], {dateStyle: 'medium', timeStyle: 'short'});
      el.title = el.getAttribute('datetime');
    }
  }
}
localTimes(document);
for (const target of document.querySelectorAll('[data-updates]')) {
  const source = new EventSource(target.dataset.updates);
  source.onmessage = async () => {
    const r = await fetch(target.dataset.fragment, {cache: 'no-store'});
    if (r.ok) { target.innerHTML = await r.text(); localTimes(target); }
  };
}
"""

HUB_STYLE = kit.Asset.css("/static/hub.css", CSS + hub_remote.CSS)
HUB_SCRIPT = kit.Asset.js("/static/hub.js", UPDATE_JS)


class HubPages:
    def __init__(self, ingest: HubIngest, store_path: str | Path, book: EventBook, *,
                 admin_token: str, event: str, clock_control: Any = None,
                 remote: Any = None, on_arranged: Any = None):
        self.ingest = ingest
        #: the remote games the hub arranges (``remote.hub_games.HubRemoteGames``) and
        #: what is done once one is arranged (the broker's ACL written again), or None
        self.remote = remote
        self.on_arranged = on_arranged
        #: sets the event's time control on the broker (``HubClient``: ``event_clock``,
        #: ``set_event_clock``); None: this hub has no broker
        self.clock_control = clock_control
        self.store_path = Path(store_path)
        self.book = book
        self.admin_token = admin_token
        #: The browsers signed in as the organiser (``web.hub_admin``).
        self.sessions = AdminSessions(admin_token)
        self.event = event
        #: table -> (what its live snapshot shows, the event sent for it)
        self._live_events: dict[str, tuple[str, str]] = {}
        #: table -> whether its state says anything of its sensors' link
        self._link_known: dict[str, bool] = {}
        #: (game id, turns) -> why the game ended (the last turn's story)
        self._endings: dict[tuple[int, int], str | None] = {}

    # ------------------------------------------------------------------ fragments

    def tables_fragment(self) -> str:
        rows = self.ingest.overview()
        remote = self.remote_rows(rows)
        if not rows:
            return ('<p class="none">No table has published yet.</p>' +
                    hub_remote.remote_section(remote))
        cards = [hub_remote.with_card_line(self._card(row), row["table"], remote)
                 for row in rows]
        problems = list(self.ingest.problems)[-5:]
        if self.remote is not None:
            problems += self.remote.problems[-3:]
        extra = "".join(f'<li class="problem">{esc(p)}</li>' for p in problems)
        return ('<div class="tables">' + "".join(cards) + "</div>" +
                hub_remote.remote_section(remote) +
                (f"<h3>Problems</h3><ul>{extra}</ul>" if extra else ""))

    def remote_rows(self, rows: list[dict[str, Any]] | None = None) -> list[dict]:
        """The remote games (``HubRemoteGames.overview``), each table's published turns
        of a game between the same players filling in what its side did not say."""
        if self.remote is None:
            return []
        rows = self.ingest.overview() if rows is None else rows
        games = {r["table"]: r["game"] for r in rows if r.get("game")}

        def table_turns(table: str) -> int | None:
            game = games.get(table)
            return game["turns"] if game is not None else None
        return self.remote.overview(table_turns)

    def _card(self, row: dict[str, Any]) -> str:
        name = row["table"]
        online = row["online"]
        badge = {True: '<span class="online">online</span>',
                 False: '<span class="offline">offline</span>'}.get(
                     online, '<span class="unknown">not heard from</span>')
        game = row["game"]
        out = [f'<div class="table" data-table="{esc(name)}"><h2>Table {esc(name)} {badge}</h2>']
        if row.get("link_up") is False:
            out.append('<p class="problem">The table\'s sensors are not connected</p>')
        elif row.get("link_up") is None:
            # The table's state says nothing of its sensors: neither up nor down.
            out.append('<p class="unknown link">Sensors\' link unknown</p>')
        if row.get("store_fault"):
            out.append(f'<p class="problem">Store fault: {esc(row["store_fault"])}</p>')
        if row.get("refused"):
            out.append(f'<p class="problem refused">{row["refused"]} messages on this '
                       "table's topics refused (not signed by it, replayed or malformed; "
                       "the hub's log names each)</p>")
        if game is None:
            out.append('<p class="none">No game yet.</p></div>')
            return "".join(out)
        players = game["players"]
        out.append(f"<p>{' v '.join(esc(p) for p in players)}</p>")
        latest = self.ingest.latest(name)
        if game["finished"] or game["result"]:
            out.append(self._result_line(game, latest))
        else:
            out.append(f'<p class="turn" data-turn="{game["turn_number"]}">Turn '
                       f'{game["turn_number"]}: {esc(game["to_move_name"])} to move</p>')
            chances = _chances(players, latest[1] if latest is not None else None)
            if chances:
                out.append(chances)
        clocks = row.get("clocks")
        if isinstance(clocks, dict) and isinstance(clocks.get("seats"), list):
            parts = []
            for p, seat in zip(players, clocks["seats"], strict=False):
                ms = seat.get("remaining_ms") if isinstance(seat, dict) else None
                if isinstance(ms, int):
                    flag = " (left)" if seat.get("left") is True else \
                        " (flag)" if seat.get("flagged") else ""
                    parts.append(f"{esc(p)} {ms // 60000}:{ms // 1000 % 60:02d}{flag}")
            if parts:
                out.append(f'<p class="clocks">Clocks: {", ".join(parts)}</p>')
        if game["behind"]:
            out.append(f'<p class="problem">{game["behind"]} turns still on their way</p>')
        if latest is not None:
            stored, state = latest
            drawn = kit.map_svg(lambda: render_svg(state, players=stored.players,
                                                   aspect=1.6))
            out.append(f'<div class="map">{drawn}</div>')
        out.append(f'<p><a href="/tables/{quote(name, safe="")}/live">Full live view</a> · '
                   f'<a href="/archive/game/{game["id"]}">Replay</a> · '
                   f'<a href="/archive/game/{game["id"]}/export">SDG</a></p></div>')
        return "".join(out)

    def _result_line(self, game: dict[str, Any], latest) -> str:
        """A finished game's card line: who won and why, in the rulebook's terms."""
        players = game["players"]
        result = game.get("result") or {}
        winners = [players[w] for w in result.get("winners", []) if 0 <= w < len(players)]
        kind = result.get("kind")
        who = (" and ".join(esc(w) for w in winners) + " won") if winners else \
            ("Draw" if kind else "Game over")
        why = self._why(game, latest, kind)
        return (f'<p class="result" data-kind="{esc(kind or "")}">{who}'
                f'{f"""<span class="why">: {esc(why)}</span>""" if why else ""}'
                f' (after {game["turns"]} turns)</p>')

    def _why(self, game: dict[str, Any], latest, kind: str | None) -> str | None:
        """Why the game ended: the last turn's story for a win on the board
        (``display.story``), else the result's kind in words."""
        if kind == "resigned":
            return "resignation"
        if kind == "agreed-draw":
            return "agreed by the players"
        if kind == "abandoned":
            return "abandoned"
        if latest is None or kind not in ("opponent-eliminated", "self-eliminated", "draw"):
            return None
        stored = latest[0]
        key = (stored.id, game["turns"])
        if key not in self._endings:
            from homeworlds.display.steps import steps_of_stored

            ending = None
            try:
                steps = steps_of_stored(self.ingest.store, stored)
                story = steps.story(len(steps.steps) - 1)
                ending = story.ending if story is not None else None
            except (StoreError, ValueError):
                ending = None
            self._endings[key] = ending
        return self._endings[key]

    def live_snapshot(self, table: str):
        """The table as the spectator display's feed shows it (a ``feed.SnapshotEvent``), from
        the hub's copy: the table's retained state (its hints, clocks, sensors' link and
        turn start, as the table last published them), else the game in the hub's store.
        None while the hub knows no game of the table."""
        from homeworlds.feed import FeedError, event_from_json

        status = self.ingest.tables.get(table)
        retained = status.snapshot if status is not None else None
        if isinstance(retained, dict) and isinstance(retained.get("game"), dict):
            data = dict(retained)
        else:
            latest = self.ingest.latest(table)
            if latest is None:
                return None
            stored, state = latest
            turns = self.ingest.store.turns(stored.id)
            data = snapshot_message(table, 0, stored, state, turns,
                                    self.ingest.store.result(stored.id))
            # The same snapshot until the store changes: it is as of the last stored turn.
            data["at"] = stored_moment(turns[-1].committed if turns else stored.started)
        data["hints"] = data.get("hints") or dict(NO_HINTS)
        # An offline table's sensors are not known to be connected; a state that says
        # nothing of them is "link unknown" on the page, not "down".
        known = isinstance(data.get("link_up"), bool) and (
            status is None or status.online is not False)
        data["link_up"] = data.get("link_up") is True and (
            status is None or status.online is not False)
        self._link_known[table] = known
        try:
            return event_from_json(data)
        except FeedError as exc:
            text = f"table {table}: its state cannot be shown live: {exc}"
            if not self.ingest.problems or self.ingest.problems[-1] != text:
                self.ingest.problems.append(text)
            return None

    def live_event(self, table: str, snapshot) -> tuple[str, str]:
        """(what the snapshot shows, its server-sent event with the star map drawn): one
        drawing per change of the table, however many spectators watch it."""
        from homeworlds.web.app import draw_map

        data = snapshot.to_json()
        key = json.dumps({k: v for k, v in data.items() if k != "at"}, sort_keys=True)
        cached = self._live_events.get(table)
        if cached is not None and cached[0] == key:
            return cached
        data["svg"] = draw_map(snapshot)
        data["link_known"] = self._link_known.get(table, True)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        cached = (key, f"event: snapshot\nid: {snapshot.seq}\ndata: {text}\n\n")
        self._live_events[table] = cached
        return cached

    def results_fragment(self) -> str:
        book = self.book
        rows = "".join(f'<tr><td class="num">{k + 1}</td><td>{esc(p)}</td>'
                       f'<td class="num">{s:g}</td><td class="num">{t:g}</td></tr>'
                       for k, (p, s, t) in enumerate(book.standings_with_tiebreak()))
        out = [f"<h2>Standings ({esc(book.format)})</h2>",
               '<table class="results standings"><tr><th class="num">#</th><th>Player</th>'
               '<th class="num">Points</th><th class="num" title="Buchholz: the sum of the '
               'points of the opponents met, the first tie-break">Buchholz</th></tr>'
               f"{rows}</table>" if rows else '<p class="none">No players named yet.</p>']
        boards = book.boards()
        for number, started in reversed(book.rounds()):
            items = []
            for b in (b for b in boards if b.round == number):
                table = esc(b.game.table) if b.game is not None else str(b.board)
                if b.b is None:
                    items.append(f'<tr><td class="num">{b.board}</td><td></td>'
                                 f"<td>{esc(b.a)}</td><td>bye</td><td></td></tr>")
                    continue
                if b.winner is None:
                    state = "playing" if b.game is not None else "not started"
                else:
                    state = f"{esc(b.winner)} won" if b.winner else "draw"
                    if b.corrected:
                        state += " (corrected)"
                link = (f' <a href="/archive/game/{b.game.id}">game {b.game.id}</a>'
                        if b.game is not None else "")
                items.append(f'<tr><td class="num">{b.board}</td><td>{table}</td>'
                             f"<td>{esc(b.a)}</td><td>{esc(b.b)}</td>"
                             f"<td>{state}{link}</td></tr>")
            out.append(f'<h3>Round {number} <small>started {_time(started)}</small></h3>'
                       '<table class="results round"><tr><th class="num">Board</th>'
                       "<th>Table</th><th>Player</th><th>Opponent</th><th>Result</th></tr>"
                       f"{''.join(items)}</table>")
        try:
            pairs = book.next_pairings()
            nxt = "".join(f'<tr><td class="num">{k + 1}</td><td>{esc(a)}</td>'
                          f"<td>{esc(b) if b else 'bye'}</td></tr>"
                          for k, (a, b) in enumerate(pairs))
            out.append("<h3>Next round's pairings</h3><table class=\"results next\">"
                       '<tr><th class="num">Board</th><th>Player</th><th>Opponent</th></tr>'
                       f"{nxt}</table>")
        except PairingError as exc:
            out.append(f'<p class="none">Next round: {esc(exc)}</p>')
        return "".join(out)

    def locked(self, work, *args):
        """Run ``work`` holding the hub's lock: the hub's store connection is shared with
        the broker's thread, and one transaction must not interleave with another."""
        with self.ingest.lock:
            return work(*args)

    # ------------------------------------------------------------------ admin

    def authorised(self, given: str | None) -> bool:
        return given is not None and given != "" and \
            hmac.compare_digest(given.encode(), self.admin_token.encode())


def _chances(players: Sequence[str], state) -> str:
    """Who is ahead: the calibrated chance of each player to win (``ai.analysis``,
    docs/analysis.md), or nothing where the model has no answer (setup, more than two
    seats)."""
    if state is None or state.players != 2 or state.in_setup or state.is_over:
        return ""
    from homeworlds.ai.analysis import win_probability

    try:
        first = win_probability(state)
    except ValueError:
        return ""
    parts = [f"{esc(players[0])} {round(first * 100)}%",
             f"{esc(players[1])} {round((1 - first) * 100)}%"]
    return ('<p class="chances" title="chances to win, from the computer\'s evaluation '
            f'calibrated on real games">Chances: {" · ".join(parts)}</p>')


def _time(iso: str) -> str:
    """A moment (ISO 8601, UTC) that the page shows in the reader's own time zone."""
    return f'<time datetime="{esc(iso)}">{esc(iso.replace("T", " ")[:16])} UTC</time>'


def stored_moment(text: str) -> float:
    """A stored time (ISO 8601) as seconds since the epoch, for a snapshot's ``at``."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return steady_time()
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


#: The clock form's choice that clears the event's time control.
TABLES_OWN = "table"
_CLOCK_NUMBERS = ("initial_s", "increment_s", "delay_s")


def clock_from_form(form: dict[str, str]) -> ClockSpec | None:
    """The time control the admin's clock form asks for (None: each table's own).
    ClockSpecError names the field."""
    mode = form.get("mode", "")
    if mode == TABLES_OWN:
        return None
    data: dict[str, Any] = {"mode": mode, "on_flag": form.get("on_flag", "loss"),
                            "timed_setup": form.get("timed_setup") in ("on", "true", "1")}
    # The form shows every box; a box the chosen mode does not use is left out (the API,
    # which sends only what it means, is checked strictly).
    used = {"none": (), "fischer": ("initial_s", "increment_s"),
            "delay": ("initial_s", "delay_s")}.get(mode, ("initial_s",))
    for key in _CLOCK_NUMBERS:
        text = form.get(key, "").strip()
        if not text or key not in used:
            continue
        try:
            data[key] = float(text)
        except ValueError:
            raise ClockSpecError(f"{text!r} is not a number of seconds", key=key,
                                 source="the clock form") from None
    return ClockSpec.from_dict(data, source="the clock form")


def clock_from_json(body: bytes) -> ClockSpec | None:
    """The time control of an API request: a ``ClockSpec.to_dict()`` object, or
    ``{"mode": "table"}`` / ``null`` to clear it. ClockSpecError names the problem."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ClockSpecError(f"not JSON: {exc}", source="the request") from None
    if data is None or isinstance(data, dict) and data.get("mode") == TABLES_OWN \
            and len(data) == 1:
        return None
    return ClockSpec.from_dict(data, source="the request")


def clock_form(current: ClockSpec | None, token: str) -> str:
    """The admin page's form that sets the event's time control."""
    modes = "".join(f'<option value="{m}"{" selected" if current and current.mode == m else ""}'
                    f">{m}</option>" for m in MODES)
    own = "" if current is not None else " selected"
    flags = "".join(f'<option value="{f}"{" selected" if current and current.on_flag == f else ""}'
                    f">{f}</option>" for f in ON_FLAG)

    def number(key: str) -> str:
        value = getattr(current, key) if current is not None else 0.0
        shown = f"{value:g}" if value else ""
        return f'<input name="{key}" size="6" inputmode="decimal" value="{shown}">'

    setup = " checked" if current is not None and current.timed_setup else ""
    return (f'<h2>Clock</h2><p class="clock-now">The event\'s time control: '
            f"{esc(describe(current)) if current is not None else 'each table its own [clock]'}"
            '. A new setting applies to each table\'s next game; games in progress keep '
            "theirs.</p>"
            f'<form class="admin" method="post" action="/admin/clock">{token}<br>mode '
            f'<select name="mode"><option value="{TABLES_OWN}"{own}>each table its own'
            f"</option>{modes}</select> main time (s) {number('initial_s')} increment (s) "
            f"{number('increment_s')} delay (s) {number('delay_s')} flag fall "
            f'<select name="on_flag">{flags}</select> <label><input type="checkbox" '
            f'name="timed_setup"{setup}> time the setup</label> '
            "<button>Set the clock</button></form>")


def build_app(pages: HubPages):
    """The Starlette application of the hub."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.responses import (
        HTMLResponse,
        JSONResponse,
        StreamingResponse,
    )
    from starlette.routing import Route

    from homeworlds.web import page as live_page
    from homeworlds.web.archive import archive_routes

    ingest = pages.ingest
    title = f"Event {pages.event}"

    def whole(heading: str, body: str, scripts: tuple[kit.Asset, ...] = ()) -> str:
        return kit.page(heading, f"{NAV}<h1>{esc(heading)}</h1>{body}", styles=[HUB_STYLE],
                        scripts=scripts)

    async def overview(request):
        body = await run_in_threadpool(pages.locked, pages.tables_fragment)
        return HTMLResponse(whole(title, '<div id="tables" data-updates="/events" '
                                  f'data-fragment="/fragment/tables">{body}</div>',
                                  (HUB_SCRIPT,)))

    async def tables_fragment(request):
        return HTMLResponse(await run_in_threadpool(pages.locked, pages.tables_fragment))

    async def api_tables(request):
        return JSONResponse(await run_in_threadpool(ingest.overview))

    async def live(request):
        """The spectator display's live page, fed by the hub's copy of the table."""
        name = _table_name(ingest, request)
        events = f"/tables/{quote(name, safe='')}/live/events"
        return HTMLResponse(live_page.live_page(f"Table {name}", events=events),
                            headers={"Cache-Control": "no-store"})

    async def live_events(request):
        """The live page's stream (``_live_stream``)."""
        name = _table_name(ingest, request)
        return StreamingResponse(_live_stream(pages, name, request),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

    async def events(request):
        return StreamingResponse(_change_stream(ingest, request),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def results(request):
        body = await run_in_threadpool(pages.locked, pages.results_fragment)
        return HTMLResponse(whole(f"{title}: results",
                                  '<div id="results" data-updates="/events" '
                                  f'data-fragment="/fragment/results">{body}</div>',
                                  (HUB_SCRIPT,)))

    async def admin(request):
        csrf = csrf_of(request.cookies)
        signed_in = pages.sessions.holds(request.cookies.get(SESSION_COOKIE))
        body = sign_in_form(csrf, signed_in)
        if signed_in:
            players = await run_in_threadpool(pages.locked, pages.book.players)
            stored = await run_in_threadpool(pages.locked, ingest.store.games)
            body += _admin_body(pages, players, stored, csrf_field(csrf))
        else:
            body += ('<p class="none">Sign in to name the players, start a round, correct '
                     "a result and set the event's clock.</p>")
        response = HTMLResponse(whole(f"{title}: admin", body, (HUB_SCRIPT,)),
                                headers={"Cache-Control": "no-store"})
        set_cookie(response, CSRF_COOKIE, csrf, request)
        return response

    async def admin_action(request):
        return await _admin_dispatch(pages, request)

    async def http_error(request, exc):
        return HTMLResponse(kit.error_page(exc.status_code, exc.detail),
                            status_code=exc.status_code, headers=kit.headers())

    async def server_error(request, exc):
        return HTMLResponse(kit.error_page(500, f"{type(exc).__name__}: the hub could not "
                                           "build this page; the record is safe",
                                           title="Hub error"),
                            status_code=500, headers=kit.headers())

    routes = [
        Route("/", overview),
        Route("/fragment/tables", tables_fragment),
        Route("/api/tables", api_tables),
        _remote_api(pages),
        Route("/events", events),
        Route("/tables/{table:str}/live", live),
        Route("/tables/{table:str}/live/events", live_events),
        *kit.asset_routes([kit.KIT_CSS, HUB_STYLE, HUB_SCRIPT, live_page.LIVE_SCRIPT,
                           live_page.LIVE_STYLE]),
        Route("/results", results),
        *_results_routes(pages, title),
        Route("/admin", admin),
        *sign_in_routes(pages.sessions),
        Route("/admin/{action:str}", admin_action, methods=["POST"]),
        *archive_routes(store_path=pages.store_path),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                        Exception: server_error},
                     middleware=[Middleware(kit.SecurityHeaders)])


async def _admin_dispatch(pages: HubPages, request):
    """One admin POST: the clock, a remote game arranged, or an action on the record."""
    from starlette.responses import RedirectResponse

    form, body, as_json = await _admin_form(request, pages)
    action = request.path_params["action"]
    if action == "clock":
        return await _set_clock(pages, form, body if as_json else None)
    if action == "remote":
        return await _arrange_remote(pages, form)
    await _admin_action(pages, action, form)
    return RedirectResponse("/results", status_code=303)


def _results_routes(pages: HubPages, title: str) -> list:
    """The big screen of the results (``/results/screen``: large type, kept up to date)
    and the fragment the results pages fetch at each change."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    async def results_screen(request):
        body = await run_in_threadpool(pages.locked, pages.results_fragment)
        page = kit.page(f"{title}: results", f'<h1>{esc(title)}: results</h1>'
                        '<div id="results" class="columns" data-updates="/events" '
                        f'data-fragment="/fragment/results">{body}</div>',
                        styles=[HUB_STYLE], scripts=[HUB_SCRIPT], data={"view": "screen"})
        return HTMLResponse(page.replace("<body ", '<body class="screen" ', 1))

    async def results_fragment(request):
        return HTMLResponse(await run_in_threadpool(pages.locked, pages.results_fragment))

    return [Route("/results/screen", results_screen),
            Route("/fragment/results", results_fragment)]


def _remote_api(pages: HubPages):
    """``/api/remote``: the remote games as JSON (``HubPages.remote_rows``)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def api_remote(request):
        return JSONResponse(await run_in_threadpool(pages.locked, pages.remote_rows))
    return Route("/api/remote", api_remote)


def _table_name(ingest: HubIngest, request) -> str:
    """The table a path names (404 when the event has no such table)."""
    from starlette.exceptions import HTTPException

    name = request.path_params["table"]
    if name not in ingest.tables and ingest.latest(name) is None:
        raise HTTPException(404, f"no table {name!r} in this event")
    return name


async def _live_stream(pages: HubPages, name: str, request) -> AsyncIterator[str]:
    """The live page's stream, as the table's own display sends it: a snapshot (with its
    star map) whenever the hub's copy of table ``name`` changes, the hub's clock."""
    from starlette.concurrency import run_in_threadpool

    from homeworlds.web.app import KEEPALIVE_S, RETRY_MS

    ingest = pages.ingest
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def listener(_version: int) -> None:
        loop.call_soon_threadsafe(changed.set)

    def clock() -> str:
        return f"event: clock\ndata: {steady_time():.3f}\n\n"  # never steps

    def current() -> tuple[str, str] | None:
        snapshot = pages.locked(pages.live_snapshot, name)
        return None if snapshot is None else pages.live_event(name, snapshot)

    ingest.listeners.append(listener)
    try:
        yield f"retry: {RETRY_MS}\n\n" + clock()
        sent = None
        while not await request.is_disconnected():
            event = await run_in_threadpool(current)
            if event is not None and event[0] != sent:
                sent = event[0]
                yield event[1]
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE_S)
            except TimeoutError:
                yield clock()
                continue
            changed.clear()
            await asyncio.sleep(SSE_MIN_INTERVAL_S)
    finally:
        ingest.listeners.remove(listener)


async def _change_stream(ingest, request) -> AsyncIterator[str]:
    """The overview's stream: the ingest's version whenever it changes (a keep-alive
    comment every 15 s)."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def listener(_version: int) -> None:
        loop.call_soon_threadsafe(changed.set)

    ingest.listeners.append(listener)
    try:
        yield f"data: {ingest.version}\n\n"
        while not await request.is_disconnected():
            try:
                await asyncio.wait_for(changed.wait(), 15)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            changed.clear()
            yield f"data: {ingest.version}\n\n"
            await asyncio.sleep(SSE_MIN_INTERVAL_S)
    finally:
        ingest.listeners.remove(listener)


def _admin_body(pages: HubPages, players: Sequence[str], stored: Sequence, token: str) -> str:
    """The admin page's forms for a signed-in browser: players, rounds, result corrections,
    the event's clock. ``token``: each form's CSRF field (``web.hub_admin``)."""
    games = "".join(f'<option value="{g.id}">game {g.id}: {esc(" v ".join(g.players))} '
                    f"(table {esc(g.table)})</option>" for g in stored)
    body = (
        f'<h2>Players</h2><form class="admin" method="post" action="/admin/players">{token}'
        f'<textarea name="players" rows="8" cols="30">{esc(chr(10).join(players))}</textarea>'
        '<br><button>Save players</button></form>'
        f'<h2>Rounds</h2><form class="admin" method="post" action="/admin/round">{token}'
        "<button>Pair and start the next round</button></form>"
        f'<h2>Correct a result</h2><form class="admin" method="post" '
        f'action="/admin/correct">{token}'
        f'<select name="game">{games}</select> winner '
        '<input name="winner" placeholder="name, or empty for a draw"> note '
        '<input name="note" required><button>Correct</button></form>')
    control = pages.clock_control
    if control is not None:
        body += clock_form(control.event_clock, token)
    if pages.remote is not None:
        body += hub_remote.arrange_form(sorted(pages.ingest.identities.tables(
            valid_only=True)), token)
    return body


async def _admin_form(request, pages: HubPages) -> tuple[dict[str, str], bytes, bool]:
    """(the form's fields, the raw body, whether it is JSON) of an admin POST from this
    site carrying the admin token (form field or bearer); else the HTTP error."""
    from starlette.exceptions import HTTPException

    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
        raise HTTPException(403, "a form from another site: refused")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise HTTPException(413, "the form is too large")
    as_json = request.headers.get("content-type", "").split(";")[0].strip() == \
        "application/json"
    try:
        fields = {} if as_json else parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise HTTPException(400, "the form is not UTF-8 text") from None
    form = {k: v[0] for k, v in fields.items()}
    bearer = request.headers.get("authorization", "")
    token = form.get("token") or (bearer[7:] if bearer.startswith("Bearer ") else None)
    if token:  # a script, or a form that carries the token itself
        if not pages.authorised(token if isinstance(token, str) else None):
            raise HTTPException(403, "the admin token is missing or wrong")
        return form, body, as_json
    refused = browser_refusal(form, request.cookies, request.headers, pages.sessions)
    if refused is not None:
        raise HTTPException(403, refused)
    return form, body, as_json



async def _admin_action(pages: HubPages, action: str, form: dict[str, str]) -> None:
    """The players, round and correct actions of the admin page."""
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException

    try:
        if action == "players":
            raw = form.get("players")
            if not isinstance(raw, str):
                raise PairingError("name the players, one a line")
            await run_in_threadpool(pages.locked, pages.book.set_players, raw.splitlines())
        elif action == "round":
            await run_in_threadpool(pages.locked, pages.book.start_round)
        elif action == "correct":
            game, winner, note = form.get("game"), form.get("winner"), form.get("note")
            if not isinstance(game, str) or not game.isdigit():
                raise PairingError("choose a game")
            if not isinstance(note, str) or not note.strip():
                raise PairingError("say why the result is corrected (note)")
            name = winner.strip() if isinstance(winner, str) else ""
            await run_in_threadpool(pages.locked, pages.book.correct_result, int(game),
                                    name or None, note.strip())
        else:
            raise HTTPException(404, f"no admin action {action!r}")
    except PairingError as exc:
        raise HTTPException(400, str(exc)) from None
    except StoreError as exc:
        raise HTTPException(503, str(exc)) from None


async def _set_clock(pages: HubPages, form: dict[str, str], body: bytes | None):
    """Publish the event's time control (retained) for every table's next game."""
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.responses import JSONResponse, RedirectResponse

    from homeworlds.event.hub_client import HubOffline

    control = pages.clock_control
    if control is None:
        raise HTTPException(503, "this hub has no broker: the time control cannot be "
                            "sent to the tables")
    try:
        spec = clock_from_json(body) if body is not None else clock_from_form(form)
    except ClockSpecError as exc:
        raise HTTPException(400, str(exc)) from None
    try:
        await run_in_threadpool(control.set_event_clock, spec)
    except HubOffline as exc:
        raise HTTPException(503, str(exc)) from None
    if body is not None:
        return JSONResponse({"clock": None if spec is None else spec.to_dict()})
    return RedirectResponse("/admin", status_code=303)


async def _arrange_remote(pages: HubPages, form: dict[str, str]):
    """Pair two tables for a remote game and send each its invitation (docs/remote-play.md,
    "Invited by the hub"); the broker's ACL is written again with the game's topics."""
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.responses import RedirectResponse

    from homeworlds.event.hub_client import HubOffline
    from homeworlds.remote.hub_games import ArrangeError

    if pages.remote is None:
        raise HTTPException(404, "this hub does not arrange remote games")
    control = pages.clock_control
    send = getattr(control, "send_invitations", None)
    try:
        game_id, _ = await run_in_threadpool(pages.locked, hub_remote.arranged, pages.remote,
                                             form, None)
        if pages.on_arranged is not None:
            await run_in_threadpool(pages.locked, pages.on_arranged)
        if send is None:
            raise HubOffline("this hub has no broker")
        await run_in_threadpool(send, game_id)
    except ArrangeError as exc:
        raise HTTPException(400, str(exc)) from None
    except StoreError as exc:
        raise HTTPException(503, str(exc)) from None
    except HubOffline as exc:
        raise HTTPException(503, f"the remote game {game_id} is kept, its invitations not "
                            f"sent yet: {exc}") from None
    return RedirectResponse("/", status_code=303)

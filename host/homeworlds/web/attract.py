"""Attract mode: while no game is in progress, the display replays archive games.

``AttractMode`` is pure logic on an injected clock: it starts ``idle_after_s`` seconds
after the table last saw a game or a hand, steps through a playlist of recorded games (one
turn every ``step_s`` seconds, a pause at each end), and stops the moment a piece is placed
on the table (a ``ZoneChanged`` or ``SnapshotReceived`` that changes what the table holds)
or a game is in progress. ``frame()`` says what to show now: a game, a step and its caption
(who, which turn, Red Alert, catastrophe, the win), or None.

``AttractLeds`` turns such a frame into an LED frame through the hints renderer (the
replayed position, its systems on the layout's slots), never touching the tracker's game
state; the table loop shows it instead of its own frame while attract mode runs (the
``[display] attract_leds`` setting).

``attract_routes`` serves the page (``/attract``: full screen, captions) and its state
(``/attract/state``: JSON with the SVG of the current step).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from homeworlds.display.steps import GameSteps, caption
from homeworlds.display.svg import Overlay, esc, render_svg
from homeworlds.web.kit import Asset

__all__ = ["DEFAULT_IDLE_AFTER_S", "AttractFrame", "AttractLeds", "AttractMode", "AttractTable",
           "attract_routes", "playlist_from_archive"]

#: Seconds without a game before the replays start (``[display] attract_after_s``).
DEFAULT_IDLE_AFTER_S = 120.0
#: Seconds each replayed turn stays up, and the pause on a game's last position.
STEP_S = 2.5
END_PAUSE_S = 8.0
#: Games in one playlist (the newest stored ones, then the files).
PLAYLIST_LENGTH = 20
#: Shortest game worth replaying (turns after the start).
MIN_TURNS = 4


@dataclass(frozen=True, slots=True)
class AttractFrame:
    """Step ``step`` of ``game``, the ``position``-th game of the playlist."""

    game: GameSteps
    position: int
    step: int

    @property
    def caption(self) -> str:
        return caption(self.game, self.step)

    @property
    def key(self) -> str:
        """Changes whenever the picture does (the page fetches a new SVG then)."""
        return f"{self.position}:{self.game.source}:{self.step}"

    def overlay(self) -> Overlay:
        state = self.game.steps[self.step].state
        result = state.result
        text = None
        if result is not None:
            text = (" and ".join(self.game.player(s) for s in result.winners) + " wins"
                    if result.winners else "A draw")
        return Overlay(title=f"Replay: {self.game.title}", caption=self.caption,
                       red_alert_seat=self.game.red_alert_seat(self.step), result=text)

    def svg(self, *, with_caption: bool = True) -> str:
        overlay = self.overlay()
        if not with_caption:
            overlay = Overlay(title=overlay.title, red_alert_seat=overlay.red_alert_seat,
                              result=overlay.result)
        return render_svg(self.game.steps[self.step].state, players=self.game.players,
                          overlay=overlay)


class AttractMode:
    """When to replay, and what. Thread-safe: the table loop reports, the web serves."""

    def __init__(self, playlist: Callable[[], Sequence[GameSteps]], *,
                 idle_after_s: float = DEFAULT_IDLE_AFTER_S, step_s: float = STEP_S,
                 end_pause_s: float = END_PAUSE_S, clock: Callable[[], float] = time.monotonic):
        if idle_after_s < 0 or step_s <= 0 or end_pause_s < 0:
            raise ValueError("attract mode: idle_after_s and end_pause_s must be 0 or more, "
                             "step_s more than 0")
        self._playlist_source = playlist
        self.idle_after_s = idle_after_s
        self.step_s = step_s
        self.end_pause_s = end_pause_s
        self.clock = clock
        self._lock = threading.Lock()
        self._idle_since = clock()
        self._game_in_progress = False
        self._zones: dict[int, frozenset[str]] | None = None
        self._playlist: tuple[GameSteps, ...] | None = None
        self._started_at: float | None = None
        #: How many times attract mode started and was stopped (for the page and tests).
        self.starts = 0
        self.stops = 0
        #: Called (outside the lock) when a link event changed what the table holds: the
        #: table host tells its display process, whose own mode serves the page.
        self.on_activity: Callable[[], None] | None = None

    # ---- what the table reports

    def set_game_in_progress(self, in_progress: bool) -> None:
        """A game is being played (no replays), or none is (the idle time starts now)."""
        with self._lock:
            if in_progress:
                self._stop_locked()
            elif self._game_in_progress:
                self._idle_since = self.clock()
            self._game_in_progress = in_progress

    def activity(self) -> None:
        """Someone is at the table: stop any replay; the idle time starts again."""
        with self._lock:
            self._stop_locked()

    def observe(self, event: object) -> bool:
        """A link event (``ZoneChanged``, ``SnapshotReceived``) or a table-feed event (a
        ``snapshot`` dict). True when it stopped the replays."""
        from homeworlds.link import SnapshotReceived, ZoneChanged

        if isinstance(event, Mapping):
            if event.get("type") == "snapshot":
                was = self.active
                self.set_game_in_progress(game_in_progress(event.get("game")))
                return was and not self.active
            return False
        changed = False
        with self._lock:
            if isinstance(event, ZoneChanged):
                before = None if self._zones is None else self._zones.get(event.zone,
                                                                          frozenset())
                changed = event.uids != before if before is not None else bool(event.uids)
                if self._zones is not None:
                    self._zones[event.zone] = frozenset(event.uids)
            elif isinstance(event, SnapshotReceived):
                zones = {z: frozenset(u) for z, u in event.zones.items()}
                if self._zones is not None:
                    keys = set(zones) | set(self._zones)
                    changed = any(zones.get(z, frozenset()) != self._zones.get(z, frozenset())
                                  for z in keys)
                # The first picture after a (re)connect is only learnt: nothing moved.
                self._zones = zones
            if not changed:
                return False
            was = self._active_locked(self.clock())
            self._stop_locked()
        if self.on_activity is not None:
            self.on_activity()
        return was

    def _stop_locked(self) -> None:
        if self._started_at is not None:
            self.stops += 1
        self._started_at = None
        self._playlist = None
        self._idle_since = self.clock()

    # ---- what to show

    @property
    def active(self) -> bool:
        with self._lock:
            return self._active_locked(self.clock())

    def _active_locked(self, now: float) -> bool:
        if self._game_in_progress:
            return False
        if now - self._idle_since < self.idle_after_s:
            return False
        if self._started_at is None:
            self._started_at = self._idle_since + self.idle_after_s
            self.starts += 1
        return True

    def seconds_until_start(self) -> float | None:
        """None while a game is in progress; 0 while replaying."""
        with self._lock:
            if self._game_in_progress:
                return None
            return max(0.0, self._idle_since + self.idle_after_s - self.clock())

    def frame(self) -> AttractFrame | None:
        """What to show now (None: not replaying, or nothing to replay)."""
        with self._lock:
            now = self.clock()
            if not self._active_locked(now):
                return None
            if self._playlist is None:
                self._playlist = tuple(g for g in self._playlist_source()
                                       if len(g.steps) > MIN_TURNS)
            playlist = self._playlist
            started = self._started_at
        if not playlist or started is None:  # started: set by _active_locked
            return None
        lengths = [len(g.steps) * self.step_s + self.end_pause_s for g in playlist]
        t = (now - started) % sum(lengths)
        for position, (game, length) in enumerate(zip(playlist, lengths, strict=True)):
            if t < length:
                step = min(int(t // self.step_s), len(game.steps) - 1)
                return AttractFrame(game, position, step)
            t -= length
        return AttractFrame(playlist[-1], len(playlist) - 1, len(playlist[-1].steps) - 1)


def game_in_progress(game: Mapping | None) -> bool:
    """From a feed snapshot's ``game``: a game is on and not over, past its first setup
    turn (a table waiting for its first homeworld is idle). ``turn_number`` is the number
    of the turn being played: 1 before any turn is committed."""
    if not isinstance(game, Mapping) or game.get("uid") is None:
        return False
    if game.get("result") is not None:
        return False
    number = game.get("turn_number")
    return (isinstance(number, int) and number > 1) or not game.get("in_setup", True)


def playlist_from_archive(archive, limit: int = PLAYLIST_LENGTH) -> Callable[[], list[GameSteps]]:
    """The newest finished stored games, then the archive's files (unreadable ones left
    out), read when attract mode starts."""
    from homeworlds.web.archive import ArchiveError

    def playlist() -> list[GameSteps]:
        games: list[GameSteps] = []
        try:
            stored = archive.stored_games()
        except ArchiveError:
            stored = []
        for g in stored:
            if len(games) >= limit:
                break
            if g.status == "playing" or g.turns < MIN_TURNS:
                continue
            try:
                games.append(archive.stored(g.id))
            except ArchiveError:
                continue
        for k in range(len(archive.files)):
            if len(games) >= limit:
                break
            try:
                games.append(archive.file(k))
            except ArchiveError:
                continue
        return games
    return playlist


class AttractLeds:
    """LED frames of the replays, through the hints renderer (``[display] attract_leds``).

    The replayed position's homes go on their seats' home slots (the layout's suggestion),
    the other systems on the free slots in order; a system with no slot left is not shown.
    """

    def __init__(self, layout, renderer=None):
        from homeworlds.hints import Renderer

        self.layout = layout
        self.renderer = renderer if renderer is not None else Renderer(layout)

    def system_at(self, state) -> dict[int, str]:
        slots = [s.index for s in self.layout.slots]
        placed: dict[int, str] = {}
        for system in state.systems:
            if system.home_of is not None and system.home_of < len(self.layout.seats):
                home = self.layout.seats[system.home_of].home_slot
                if home is not None and home not in placed:
                    placed[home] = system.name
        free = [s for s in slots if s not in placed]
        shown = set(placed.values())
        for system in state.systems:
            if system.name in shown or not free:
                continue
            placed[free.pop(0)] = system.name
        return placed

    def frame(self, attract: AttractFrame, now: float):
        from homeworlds.hints import HintView, Outcome

        state = attract.game.steps[attract.step].state
        seats = len(self.layout.seats)
        if state.players > seats:
            return None  # a game for more seats than this table has: the LEDs stay the table's
        result = None if state.result is None else Outcome.from_game_result(state.result)
        red = attract.game.red_alert_seat(attract.step)
        view = HintView(layout=self.layout, game=state, system_at=self.system_at(state),
                        active_seat=None if state.is_over else state.to_move,
                        result=result, red_alert_seat=red, link_down=False)
        return self.renderer.render(view, now)


class AttractTable:
    """The table loop's ``TableSession`` with attract mode in front of it.

    The loop calls ``handle`` and ``tick`` here instead of on the session: every link event
    is shown to the attract mode (a piece placed stops the replays) and then handled by the
    session as ever; ``tick`` tells the mode whether a game is in progress and, while it
    replays with ``leds`` given, sends the replay's LED frame to the session's output instead
    of the table's own (the table is still judged: its game state is the tracker's alone).
    """

    def __init__(self, session, mode: AttractMode, leds: AttractLeds | None = None):
        self.session, self.mode, self.leds = session, mode, leds

    def handle(self, event: object) -> None:
        self.mode.observe(event)
        self.session.handle(event)

    def game_in_progress(self) -> bool:
        state = self.session.tracker.state
        return state.ply > 0 and state.result is None

    def tick(self) -> None:
        self.mode.set_game_in_progress(self.game_in_progress())
        output = self.session.output
        leds = self.leds
        frame = self.mode.frame() if leds is not None and output is not None else None
        pixels = (None if frame is None or leds is None
                  else leds.frame(frame, self.session.clock()))
        if pixels is None:
            self.session.tick()
            return
        self.session.evaluate()
        output.submit(pixels)
        output.poll()


# ---------------------------------------------------------------------- web


def attract_routes(archive, *, idle_after_s: float | None = None,
                   attract: AttractMode | None = None, prefix: str = "/attract",
                   live_url: str | None = None) -> list:
    """``/attract`` (the page) and ``/attract/state`` (JSON: ``active``, ``key``,
    ``caption``, ``seconds_until_start``, and ``svg`` when ``?have=`` is not the current
    key). ``attract`` is the table's own AttractMode; without one, a mode on the archive
    that never sees a game (``homeworlds archive-view``). With ``live_url`` (the table's
    live display) the attract page goes back there the moment the replays stop, and
    ``SWITCH_SCRIPT`` (for the live page) goes to the attract page when they start."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    from homeworlds.web import kit

    if attract is None:
        attract = AttractMode(playlist_from_archive(archive),
                              idle_after_s=DEFAULT_IDLE_AFTER_S if idle_after_s is None
                              else idle_after_s)
    mode = attract

    def state(request):
        frame = mode.frame()
        body: dict[str, object] = {"active": mode.active,
                                   "seconds_until_start": mode.seconds_until_start(),
                                   "key": None, "caption": None}
        if frame is not None:
            body["key"] = frame.key
            body["caption"] = frame.caption
            if request.query_params.get("have") != frame.key:
                body["svg"] = frame.svg(with_caption=False)  # the page shows it larger
        return body

    async def state_endpoint(request):
        return JSONResponse(await run_in_threadpool(state, request),
                            headers={"Cache-Control": "no-store"})

    async def page_endpoint(request):
        body = (f'<div id="attract"><div id="replay"><p id="waiting">{esc(WAITING)}</p>'
                f'<div id="map"></div><p id="caption"></p></div>{INTRO}</div>')
        data = {"state": prefix + "/state"}
        if live_url is not None:
            data["live"] = live_url
        return HTMLResponse(kit.page("Homeworlds", body, styles=[ATTRACT_STYLE],
                                     scripts=[ATTRACT_SCRIPT], data=data),
                            headers=kit.headers())

    async def switch_endpoint(request):
        script = SWITCH_JS.replace("STATE_URL", json.dumps(prefix + "/state")).replace(
            "ATTRACT_URL", json.dumps(prefix))
        return Response(script, media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})

    routes = [*kit.asset_routes([kit.KIT_CSS, ATTRACT_STYLE, ATTRACT_SCRIPT]),
              Route(prefix, page_endpoint), Route(prefix + "/state", state_endpoint)]
    if live_url is not None:
        routes.append(Route(SWITCH_SCRIPT, switch_endpoint))
    return routes


#: The live page's script that shows the attract page while the replays run.
SWITCH_SCRIPT = "/static/attract-switch.js"
#: Seconds between the live page's looks at the attract state (only while not replaying:
#: no map is drawn for it).
SWITCH_POLL_S = 2


WAITING = "Homeworlds \u2014 place a piece on the table to play"

#: The stand's welcome beside the replays: what the game is, how to follow it, an
#: invitation to the table.
INTRO = """<aside id="intro" aria-label="About Homeworlds">
<h2>What is Homeworlds?</h2>
<p>A game of space empires for two, played with coloured pyramids. Each player starts with
a homeworld and one ship; you lose when you have no ship left at your homeworld, or its
stars are destroyed.</p>
<h2>How to watch</h2>
<p>Each card is a star system: the upright pyramids are its stars, the lying ones the
ships, in a band of their owner\u2019s colour. Ships move between systems that share no
star size. The colours are powers: red captures, yellow moves, green builds, blue trades.
Four pieces of one colour in a system make a catastrophe. The marked cards show what the
last turn did; the line under the map says it in words.</p>
<h2>Come and play</h2>
<p>Sit down at the table and place a piece: the lights show you every legal move, and
the computer will play against you or give you a hint.</p>
</aside>"""

ATTRACT_CSS = """
body { padding: 0; overflow: hidden; }
#attract { height: 100vh; display: grid; grid-template-columns: minmax(0, 1fr)
  clamp(16rem, 24vw, 30rem); gap: 1rem; }
#replay { display: flex; flex-direction: column; min-height: 0; min-width: 0; }
#intro { background: #151925; border-radius: .6rem; padding: .4rem 1.2rem; margin: .6rem .6rem
  .6rem 0; overflow: auto; font-size: clamp(15px, 1.05vw, 22px); line-height: 1.35; }
#intro h2 { font-size: 1.2em; color: #ffe082; margin: .6em 0 .2em; }
#intro p { margin: 0 0 .4em; }
@media (max-width: 900px) { body { overflow: auto; } #attract { display: block;
  height: auto; } #replay { height: 80vh; } #intro { margin: .6rem; } }
#map { flex: 1 1 auto; min-height: 0; }
#map svg { width: 100%; height: 100%; display: block; }
#caption { font-size: clamp(1.2rem, 2.4vw, 2.6rem); color: #ffe082; margin: .4rem 1rem;
  min-height: 1.4em; }
#waiting { font-size: clamp(1.4rem, 3vw, 3rem); text-align: center; margin: 1rem; }
"""

ATTRACT_JS = r"""
'use strict';
// The attract page: the replay's current map from the state URL (body data-state), and back
// to the live view (body data-live, when the table has one) the moment the replays stop.
(() => {
  const STATE_URL = document.body.dataset.state;
  const LIVE_URL = document.body.dataset.live === undefined ? null : document.body.dataset.live;
  let have = '';
  async function poll() {
    try {
      const r = await fetch(STATE_URL + '?have=' + encodeURIComponent(have), {cache: 'no-store'});
      const s = await r.json();
      document.body.dataset.active = s.active ? 'yes' : 'no';
      document.getElementById('waiting').hidden = s.active && !!s.key;
      if (s.key && s.svg) { document.getElementById('map').innerHTML = s.svg; }
      if (!s.key) { document.getElementById('map').innerHTML = ''; }
      have = s.key || '';
      document.body.dataset.key = have;
      document.getElementById('caption').textContent = s.caption || '';
      if (LIVE_URL !== null && !s.active) { location.replace(LIVE_URL); return; }
    } catch (e) { /* the host restarts: try again */ }
    setTimeout(poll, 1000);
  }
  poll();
})();
"""

SWITCH_JS = r"""
'use strict';
// Attract mode: while the table is idle the live page gives way to the replays; the attract
// page comes back here the moment a piece is placed.
(() => {
  async function look() {
    try {
      const r = await fetch(STATE_URL + '?have=live', {cache: 'no-store'});
      const s = await r.json();
      if (s.active && s.key) { location.assign(ATTRACT_URL); return; }
    } catch (e) { /* the host restarts: try again */ }
    setTimeout(look, SWITCH_POLL_MS);
  }
  setTimeout(look, SWITCH_POLL_MS);
})();
""".replace("SWITCH_POLL_MS", str(SWITCH_POLL_S * 1000))

ATTRACT_STYLE = Asset.css("/static/attract.css", ATTRACT_CSS)
ATTRACT_SCRIPT = Asset.js("/static/attract.js", ATTRACT_JS)

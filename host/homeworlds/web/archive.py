"""The archive viewer: every stored game, and any SDG or cooked file given, turn by turn.

``archive_routes(store_path, files)`` returns Starlette routes under ``/archive``:

- ``/archive``: the list of the stored games (newest first) and of the files;
- ``/archive/game/{id}`` and ``/archive/file/{k}``: a game page with the star map after a
  turn (``?turn=N``, the index of the step: 0 is the start), the turn log in SDG, buttons and
  the keys ←/→/Home/End to step (the page fetches each step's SVG; without script the
  buttons are plain links);
- ``.../svg/{n}``: the SVG of step ``n`` (``homeworlds.display.svg``);
- ``.../export``: the game's SDG text (a stored game through ``store.export``; a file its
  own text).

The store is opened read-only for each request (the table may be writing it). A file that
cannot be read is listed with the reason, and its page is an error page naming the file and
line, never a trace. Routes are mounted into the live app by ``homeworlds.web``, or served
alone by ``homeworlds archive-view``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

from homeworlds.display.steps import (
    GameFileError,
    GameSteps,
    caption,
    load_game_file,
    steps_of_stored,
)
from homeworlds.display.svg import Overlay, esc, render_svg
from homeworlds.web import kit

__all__ = ["Archive", "archive_routes"]

#: Between the actions of one turn in the record.
ACTION_SEPARATOR = " \u00b7 "
#: Games kept replayed in memory (a replay of a long game takes tens of milliseconds).
CACHE_SIZE = 16


class ArchiveError(Exception):
    """What a request cannot be answered with, as a page: ``status``, ``title``, ``text``."""

    def __init__(self, status: int, title: str, text: str):
        self.status, self.title, self.text = status, title, text
        super().__init__(f"{title}: {text}")


class Archive:
    """The games to show: a store (read-only, per request) and files (read when asked)."""

    def __init__(self, store_path: str | Path | None = None, files: Sequence[str | Path] = ()):
        self.store_path = Path(store_path) if store_path is not None else None
        self.files = [Path(f) for f in files]
        self._cache: OrderedDict[tuple, GameSteps] = OrderedDict()
        self._lock = threading.Lock()

    # ---- the store

    def _open_store(self):
        from homeworlds.store import GameStore, StoreError
        path = self.store_path
        if path is None:
            return None
        if not path.is_file():
            raise ArchiveError(503, "No game store", f"there is no game store at {path}")
        try:
            return GameStore.open_read_only(path)
        except StoreError as exc:
            raise ArchiveError(503, "Game store unreadable", str(exc)) from None

    def stored_games(self) -> list:
        store = self._open_store()
        if store is None:
            return []
        try:
            return sorted(store.games(), key=lambda g: g.id, reverse=True)
        finally:
            store.close()

    def stored(self, game_id: int) -> GameSteps:
        from homeworlds.store import StoreError
        store = self._open_store()
        if store is None:
            raise ArchiveError(404, "No game store", "this display was started without one")
        try:
            game = store.game(game_id)
            if game is None:
                raise ArchiveError(404, "No such game", f"the store has no game {game_id}")
            key = ("game", game_id, game.turns, game.status)
            cached = self._cached(key)
            if cached is not None:
                return cached
            return self._keep(key, steps_of_stored(store, game))
        except StoreError as exc:
            raise ArchiveError(503, "Game store unreadable", str(exc)) from None
        finally:
            store.close()

    # ---- files

    def file(self, index: int) -> GameSteps:
        if not 0 <= index < len(self.files):
            raise ArchiveError(404, "No such file", f"there is no file {index}")
        path = self.files[index]
        try:
            mtime = path.stat().st_mtime_ns
        except OSError as exc:
            raise ArchiveError(422, "Cannot show the file",
                               str(GameFileError(str(path), exc.strerror or str(exc)))) from None
        key = ("file", index, mtime)
        cached = self._cached(key)
        if cached is not None:
            return cached
        try:
            return self._keep(key, load_game_file(path))
        except GameFileError as exc:
            raise ArchiveError(422, "Cannot show the file", str(exc)) from None

    def file_problem(self, index: int) -> str | None:
        try:
            self.file(index)
        except ArchiveError as exc:
            return exc.text
        return None

    # ---- cache

    def _cached(self, key) -> GameSteps | None:
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
            return found

    def _keep(self, key, game: GameSteps) -> GameSteps:
        with self._lock:
            self._cache[key] = game
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return game


def step_svg(game: GameSteps, index: int, *, with_caption: bool = True,
             portrait: bool = False, aspect: float | None = None) -> str:
    """The map after step ``index``, its turn marked (``display.story``)."""
    step = game.steps[index]
    result = step.state.result
    story = game.story(index)
    why = f": {story.ending}" if story is not None and story.ending else ""
    overlay = Overlay(
        caption=caption(game, index) if with_caption else None,
        red_alert_seat=game.red_alert_seat(index),
        result=None if result is None else (
            " and ".join(game.player(s) for s in result.winners) + " wins" + why
            if result.winners else "A draw" + why), story=story)
    return render_svg(step.state, players=game.players, overlay=overlay, portrait=portrait,
                      aspect=aspect)


# ---------------------------------------------------------------------- pages


def _list_page(archive: Archive, prefix: str) -> str:
    rows = []
    problem = None
    try:
        games = archive.stored_games()
    except ArchiveError as exc:
        games, problem = [], exc.text
    for g in games:
        rows.append(f'<tr data-game="{g.id}"><td><a href="{prefix}/game/{g.id}">Game {g.id}</a>'
                    f'</td><td>{esc(" v ".join(g.players))}</td><td><time '
                    f'datetime="{esc(g.started)}">{esc(g.started)}</time></td>'
                    f'<td>{g.turns}</td><td>{esc(g.status)}</td></tr>')
    stored = ("<table class='games'><thead><tr><th>Game</th><th>Players</th><th>Started</th>"
              "<th>Turns</th><th>Status</th></tr></thead><tbody>" + "".join(rows)
              + "</tbody></table>") if rows else "<p class='none'>No stored games.</p>"
    if problem:
        stored = f"<p class='problem'>{esc(problem)}</p>"
    elif archive.store_path is None:
        stored = "<p class='none'>No game store was given.</p>"
    files = []
    for k, path in enumerate(archive.files):
        why = archive.file_problem(k)
        note = f' <span class="problem">{esc(why)}</span>' if why else ""
        files.append(f'<li data-file="{k}"><a href="{prefix}/file/{k}">{esc(path.name)}</a>'
                     f'{note}</li>')
    file_part = (f"<h2>Files</h2><ul class='files'>{''.join(files)}</ul>" if files else "")
    return kit.page("Archive", f"<h1>Archive</h1><h2>Stored games</h2>{stored}{file_part}",
                    styles=[LIST_STYLE], scripts=[LIST_SCRIPT])


def _game_page(game: GameSteps, base: str, index: int, back: str) -> str:
    index = max(0, min(index, len(game.steps) - 1))
    steps = [{"number": s.number, "player": game.player(s.seat), "text": s.text,
              "caption": caption(game, k, alerts=False)} for k, s in enumerate(game.steps)]
    log = "".join(
        f'<li data-step="{k}"{" class=current" if k == index else ""}>'
        f'<a href="?turn={k}"><span class="n">{s.number}.</span> '
        f'<span class="who">{esc(game.player(s.seat))}</span> '
        f'<span class="sdg">{esc(ACTION_SEPARATOR.join(s.text.splitlines()))}</span></a></li>'
        for k, s in enumerate(game.steps) if k > 0)
    error = (f"<p class='problem' id='replay-error'>The replay stopped: {esc(game.error)}</p>"
             if game.error else "")
    export = (f'<a id="export" href="{base}/export">Export SDG</a>' if game.sdg is not None
              else f'<a id="export" href="{base}/export">Export cooked text</a>'
              if game.cooked is not None else "")
    last = len(game.steps) - 1
    body = f"""
<header><a href="{back}" id="back">\u2190 All games</a>
<h1 id="title">{esc(game.title)}</h1>{export}</header>
<nav class="stepper" aria-label="Step through the game">
<a class="button" id="first" href="?turn=0" title="Home">\u25c0\u25c0 Start</a>
<a class="button" id="prev" href="?turn={max(0, index - 1)}" title="\u2190">\u25c0 Back</a>
<span id="counter">Turn <b id="turn-number">{game.steps[index].number}</b> \u00b7 step
<b id="step-index">{index}</b> of {last}</span>
<a class="button" id="next" href="?turn={min(last, index + 1)}" title="\u2192">Next \u25b6</a>
<a class="button" id="last" href="?turn={last}" title="End">End \u25b6\u25b6</a>
</nav>
<p id="caption">{esc(caption(game, index, alerts=False))}</p>{error}
<main><div id="map">{step_svg(game, index, with_caption=False)}</div>
<aside><h2 id="log-heading">{"Turns (cooked)" if game.cooked is not None else "Turns (SDG)"}</h2>
<ol id="log">{log}</ol></aside></main>
{kit.json_block("steps", {"steps": steps, "svg": f"{base}/svg/", "start": index})}"""
    return kit.page(game.title, body, styles=[GAME_STYLE], scripts=[GAME_SCRIPT],
                    data={"step": index})


def archive_routes(store_path: str | Path | None = None, files: Sequence[str | Path] = (),
                   *, prefix: str = "/archive", archive: Archive | None = None) -> list:
    """Starlette routes of the archive viewer (see the module's docstring)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, PlainTextResponse, Response
    from starlette.routing import Route

    archive = archive or Archive(store_path, files)

    def guarded(build: Callable[..., Response]):
        async def endpoint(request):
            try:
                return await run_in_threadpool(build, request)
            except ArchiveError as exc:
                return HTMLResponse(kit.error_page(exc.status, exc.text, title=exc.title,
                                                   back=prefix),
                                    status_code=exc.status, headers=kit.headers())
        return endpoint

    def number(request, name: str) -> int:
        raw = request.path_params[name]
        return raw if isinstance(raw, int) else int(raw)

    def turn_of(request, game: GameSteps) -> int:
        raw = request.query_params.get("turn", "0")
        try:
            value = int(raw)
        except ValueError:
            raise ArchiveError(400, "Bad turn", f"turn={raw!r} is not a number") from None
        return max(0, min(value, len(game.steps) - 1))

    def game_of(request) -> tuple[GameSteps, str, str]:
        kind = request.path_params["kind"]
        if kind not in ("game", "file"):
            raise ArchiveError(404, "Not found", f"no {kind!r} in the archive")
        ident = number(request, "ident")
        game = archive.stored(ident) if kind == "game" else archive.file(ident)
        slug = (f"game-{ident}" if kind == "game"
                else Path(archive.files[ident].name).stem)
        return game, f"{prefix}/{kind}/{ident}", slug

    def listing(request):
        return HTMLResponse(_list_page(archive, prefix))

    def game_page(request):
        game, base, _ = game_of(request)
        return HTMLResponse(_game_page(game, base, turn_of(request, game), prefix))

    def svg(request):
        game, _, _ = game_of(request)
        index = number(request, "step")
        if not 0 <= index < len(game.steps):
            raise ArchiveError(404, "No such step", f"the game has steps 0 to "
                               f"{len(game.steps) - 1}, not {index}")
        portrait = request.query_params.get("layout") == "portrait"
        aspect = _aspect(request.query_params.get("aspect"))
        return Response(step_svg(game, index, with_caption=False, portrait=portrait,
                                 aspect=aspect),
                        media_type="image/svg+xml",
                        headers={"Cache-Control": "no-cache"})

    def export(request):
        game, _, slug = game_of(request)
        text, ext = (game.sdg, "sdg") if game.sdg is not None else (game.cooked, "cooked")
        if text is None:
            raise ArchiveError(404, "Nothing to export", "this game has no SDG text")
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in slug) or "game"
        return PlainTextResponse(text, headers={
            "Content-Disposition": f'inline; filename="{safe}.{ext}"'})

    return [
        *kit.asset_routes(ASSETS),
        Route(prefix, guarded(listing)),
        Route(prefix + "/{kind:str}/{ident:int}", guarded(game_page)),
        Route(prefix + "/{kind:str}/{ident:int}/svg/{step:int}", guarded(svg)),
        Route(prefix + "/{kind:str}/{ident:int}/export", guarded(export)),
    ]


def _aspect(text: str | None) -> float | None:
    """A map box's width / height as asked (``?aspect=1.5``), in quarter steps from 0.75
    to 4 (a few shapes, each drawn alike for everyone); None when not given or not one."""
    try:
        value = float(text or "")
    except ValueError:
        return None
    if not 0 < value < 100:
        return None
    return min(16, max(3, round(value * 4))) / 4


LIST_CSS = """
table.games { border-collapse: collapse; font-size: 1.2rem; }
table.games td, table.games th { padding: .4em .8em; border-bottom: 1px solid #333a4d;
  text-align: left; }
ul.files { font-size: 1.2rem; }
"""

GAME_CSS = """
/* One screen on a wide display: the heading, the stepper and the caption, then the map
   and the record filling the rest; a phone scrolls, the map two cards a row. */
html, body { height: 100%; }
body { display: flex; flex-direction: column; box-sizing: border-box; }
header { display: flex; gap: 1.5rem; align-items: baseline; flex-wrap: wrap; }
header h1 { margin: .2em 0; font-size: clamp(1.2rem, 2.2vw, 2.2rem); }
.stepper { display: flex; gap: .6rem; align-items: center; flex-wrap: wrap; margin: .4rem 0; }
.button { background: #263049; color: #fff; padding: .45em .9em; border-radius: .4em;
  text-decoration: none; font-size: clamp(1rem, 1.4vw, 1.4rem); border: 1px solid #4a5470;
  min-height: 44px; min-width: 44px; box-sizing: border-box; display: inline-flex;
  align-items: center; }
.button:focus, .button:hover { background: #34416a; }
#counter { font-size: clamp(1rem, 1.4vw, 1.4rem); }
#caption { font-size: clamp(1.1rem, 1.5vw, 1.7rem); color: #ffe082; margin: .3rem 0; }
main { display: flex; gap: 1rem; align-items: stretch; flex: 1; min-height: 0; }
#map { flex: 1 1 auto; min-width: 0; min-height: 0; }
#map svg { width: 100%; height: 100%; display: block; }
aside { flex: 0 0 22rem; overflow: auto; background: #151925;
  border-radius: .6rem; padding: .4rem 1rem; }
#log { padding-left: 0; list-style: none; font-family: "DejaVu Sans Mono", monospace; }
#log li a { color: #cfd6ea; text-decoration: none; display: block; padding: .15em .3em;
  white-space: pre-wrap; }
#log li .who { font-family: "DejaVu Sans", Verdana, sans-serif; font-weight: bold; }
#log li.current a { background: #34416a; color: #fff; border-radius: .3em; }
@media (max-width: 900px) { body { display: block; height: auto; padding: .4rem; }
  main { flex-direction: column; align-items: stretch; }
  #map svg { height: auto; }
  aside { flex: none; width: 100%; max-height: none; box-sizing: border-box; } }
"""

GAME_JS = r"""
(() => {
  const data = JSON.parse(document.getElementById('steps').textContent);
  const last = data.steps.length - 1;
  let index = data.start, wanted = data.start;
  const $ = (id) => document.getElementById(id);
  // The map is drawn for the shape of its box: two cards a row on a phone, the columns
  // that fill the box on a screen.
  function shape() {
    if (window.innerWidth <= 900) return '?layout=portrait';
    const box = $('map').getBoundingClientRect();
    return box.width && box.height ? '?aspect=' + (box.width / box.height).toFixed(2) : '';
  }
  function showText(i) {
    const step = data.steps[i];
    $('turn-number').textContent = step.number;
    $('step-index').textContent = i;
    $('caption').textContent = step.caption;
    $('prev').href = '?turn=' + Math.max(0, i - 1);
    $('next').href = '?turn=' + Math.min(last, i + 1);
    // The address is always the step shown (or being fetched): a copied link shows it.
    history.replaceState(null, '', '?turn=' + i);
  }
  async function show(i) {
    i = Math.max(0, Math.min(last, i));
    wanted = i;
    showText(i);
    const response = await fetch(data.svg + i + shape());
    if (!response.ok || wanted !== i) return;
    const text = await response.text();
    if (wanted !== i) return;
    $('map').innerHTML = text;
    index = i;
    showText(i);
    for (const li of document.querySelectorAll('#log li')) {
      const on = Number(li.dataset.step) === i;
      li.classList.toggle('current', on);
      // The log scrolls in its own box on a wide screen; on a phone the page would jump.
      if (on && window.innerWidth > 900) li.scrollIntoView({block: 'nearest'});
    }
    document.body.dataset.step = i;
    document.body.dataset.shape = shape();  // the drawing fits this page's box
  }
  // Steps count from the one asked for last, so quick presses add up before a fetch ends.
  const go = {first: () => 0, prev: () => wanted - 1, next: () => wanted + 1, last: () => last};
  for (const [id, target] of Object.entries(go)) {
    $(id).addEventListener('click', (e) => { e.preventDefault(); show(target()); });
  }
  for (const li of document.querySelectorAll('#log li')) {
    li.querySelector('a').addEventListener('click', (e) => {
      e.preventDefault(); show(Number(li.dataset.step)); });
  }
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = {ArrowLeft: wanted - 1, ArrowRight: wanted + 1, Home: 0, End: last};
    if (e.key in keys) { e.preventDefault(); show(keys[e.key]); }
  });
  let resizing = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => show(wanted), 300);
  });
  show(wanted);
})();
"""

LIST_JS = r"""
// A game's start in the reader's own time zone (the page sends it as UTC).
for (const el of document.querySelectorAll('time[datetime]')) {
  const when = new Date(el.getAttribute('datetime'));
  if (!isNaN(when)) {
    el.textContent = when.toLocaleString([], {dateStyle: 'medium', timeStyle: 'short'});
    el.title = el.getAttribute('datetime');
  }
}
"""

LIST_STYLE = kit.Asset.css("/static/archive.css", LIST_CSS)
LIST_SCRIPT = kit.Asset.js("/static/archive-list.js", LIST_JS)
GAME_STYLE = kit.Asset.css("/static/archive-game.css", GAME_CSS)
GAME_SCRIPT = kit.Asset.js("/static/archive-game.js", GAME_JS)
#: What the archive's pages link: served by the routes of ``archive_routes``.
ASSETS = (kit.KIT_CSS, LIST_STYLE, LIST_SCRIPT, GAME_STYLE, GAME_SCRIPT)

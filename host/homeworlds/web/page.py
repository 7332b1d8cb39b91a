"""The display's pages: the live view (HTML, its script and style) and the admin page,
made with the page kit (``web.kit``). Every text from the table (player and system names,
messages) is escaped here or set as text by the script, never as markup; the star map comes
drawn (and escaped) by ``display.svg``."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from homeworlds.clock import LOW_TIME_S, PAUSE_TEXT
from homeworlds.feed.events import MAX_CLOCK_MS
from homeworlds.web import kit


def live_page(table: str, *, events: str = "/events", scripts: tuple[str, ...] = (),
              archive: bool = True) -> str:
    """``events``: the stream of the table's feed (a hub serves several tables' pages);
    ``scripts``: more scripts of this origin (the attract mode's switch); ``archive``: link
    the archive viewer (there is one)."""
    t = escape(table)
    archive_link = '<a id="archive-link" href="/archive">archive</a>' if archive else ""
    body = f"""
<header id="top">
  <h1 id="table-name">{t}</h1>
  <div id="players"></div>
  <div id="turn" aria-live="polite">waiting for the table…</div>
  <div id="turn-timer" title="how long this turn has lasted">–</div>
  <div id="clocks" hidden aria-label="game clocks"></div>
  <div id="link" class="down">connecting…</div>
  {archive_link}
</header>
<div id="result" hidden></div>
<p id="story" aria-live="polite" hidden></p>
<div id="message" aria-live="polite"></div>
<div id="guidance" hidden aria-live="polite"></div>
<main>
  <section id="map" aria-label="star map"></section>
  <aside>
    <section id="hints-box" hidden><h2>Hints</h2><ul id="hints"></ul></section>
    <section id="bank-box"><h2>Bank</h2><table id="bank"><thead><tr><th></th>
      <th scope="col">small</th><th scope="col">medium</th><th scope="col">large</th></tr>
      </thead><tbody></tbody></table></section>
    <section id="log-box"><h2>Turns</h2><ol id="log"></ol></section>
  </aside>
</main>
"""
    return kit.page(f"{table} — Homeworlds live", body, styles=[LIVE_STYLE],
                    scripts=[LIVE_SCRIPT, *scripts], base_style=False,
                    data={"seq": 0, "connected": "false", "events": events})


LIVE_CSS = """
:root { --bg:#10131a; --fg:#f2f2f2; --muted:#9aa3b2; --panel:#1b2030; --alert:#ff4040;
        --ok:#42d77d; --seat0:#f2f2f2; --seat1:#d17bff; --seat2:#38e0d0; --seat3:#ff9e40; }
/* the owners' colours of the star map (display.svg SEAT_COLORS) */
* { box-sizing: border-box; }
html, body { margin:0; height:100%; background:var(--bg); color:var(--fg);
             font-family: "DejaVu Sans", Verdana, sans-serif; }
/* One screen: header, result, what the last turn did, then the map and the side panel
   filling the rest (the newest turn stays in view: the log scrolls inside its box). */
body { display:flex; flex-direction:column; overflow:hidden; }
header { display:flex; flex-wrap:wrap; align-items:baseline; gap:0.2em 1.2em;
         padding:0.3em 1em; background:var(--panel); font-size:clamp(16px, 1.6vw, 34px); }
header h1 { font-size:1em; margin:0; color:var(--muted); }
#turn { font-weight:bold; }
#turn-timer { font-variant-numeric: tabular-nums; }
#link { margin-left:auto; font-size:0.7em; }
#link.unknown { color:var(--muted); }
#archive-link { font-size:0.7em; color:#8fb8ff; }
#link.down { color:var(--alert); }
#link.up { color:var(--ok); }
.seat-0 { color:var(--seat0); } .seat-1 { color:var(--seat1); }
.seat-2 { color:var(--seat2); } .seat-3 { color:var(--seat3); }
#result { padding:0.2em 1em; font-size:clamp(18px, 2vw, 40px); font-weight:bold;
          background:#2d6a3e; text-align:center; }
#result .why { font-weight:normal; }
#story { margin:0; padding:0.15em 1em; font-size:clamp(16px, 1.3vw, 28px); color:#ffcf6e;
         background:#231d0e; }
#story .who { font-weight:bold; }
#message { padding:0 1em; font-size:clamp(14px, 1.3vw, 28px); color:#ffcf40; }
#message:empty { display:none; }
main { display:grid; grid-template-columns: minmax(0, 1fr) clamp(16em, 24vw, 30em);
       gap:0.6em; padding:0.4em 0.8em; flex:1; min-height:0; }
#map { min-height:0; min-width:0; background:#0b0e14; border-radius:8px; overflow:hidden; }
#map svg { width:100%; height:100%; display:block; }
aside { display:flex; flex-direction:column; gap:0.5em; min-height:0;
        font-size:clamp(15px, 1.1vw, 24px); }
aside section { background:var(--panel); border-radius:8px; padding:0.3em 0.7em; }
aside h2 { font-size:0.85em; margin:0.2em 0; color:var(--muted); text-transform:uppercase; }
#log-box { flex:1; min-height:6em; overflow:auto; }
#log { margin:0; padding-left:2.4em; font-size:0.9em; }
#log li { padding:0.15em 0.2em; border-bottom:1px solid #2a3040; }
#log li .who { font-weight:bold; margin-right:0.4em; }
#log li .act { display:inline-block; margin-right:0.3em; padding:0 0.3em; border-radius:4px;
               background:#262d42; font-family:"DejaVu Sans Mono", monospace; }
#log li.last { background:#2a3350; }
#hints { margin:0; padding-left:1.1em; }
#hints li.alert, #hints li.mistake { color:var(--alert); font-weight:bold; }
#clocks { display:flex; gap:0.3em 0.8em; flex-wrap:wrap; align-items:baseline; }
#clocks .clock { font-variant-numeric: tabular-nums; padding:0 0.3em; border-radius:4px;
                 border:2px solid transparent; }
#clocks .clock .time { font-weight:bold; margin-left:0.3em; }
#clocks .clock.running { border-color:var(--ok); }
#clocks .clock.low .time { color:#ffcf40; animation:blink 1s steps(2, start) infinite; }
#clocks .clock.flagged .time { color:var(--alert); }
#clocks .flag { color:var(--alert); margin-left:0.3em; }
#clocks .clock.left { opacity:0.55; } #clocks .clock.left .flag { color:inherit; font-size:0.7em; }
#clocks .paused { font-size:0.6em; color:#ffcf40; }
@keyframes blink { to { visibility:hidden; } }
#guidance { margin:0.2em 0.8em; padding:0.3em 0.7em; border-radius:8px;
            font-size:clamp(16px, 2vw, 38px); background:#1f4d3a; }
#guidance .label { font-weight:bold; margin-right:0.6em; }
#guidance .count { color:var(--muted); margin-right:0.6em; font-size:0.8em; }
#guidance.phase-thinking { background:#2a3a66; }
#guidance.phase-thinking .step::after { content:"…"; animation:blink 1s steps(2, start)
                                        infinite; }
#guidance.phase-restore { background:#6a4a1f; }
#guidance.hint { background:#4b2f6b; }
#guidance .badge { background:#d17bff; color:#10131a; border-radius:4px; padding:0 0.3em;
                   margin-right:0.5em; font-size:0.8em; font-weight:bold; }
#guidance.correction .step { color:#ffb0b0; font-weight:bold; }
#bank { border-collapse:collapse; width:100%; font-variant-numeric: tabular-nums; }
#bank td, #bank th { padding:0.05em 0.3em; text-align:center; }
#bank thead th { color:var(--muted); font-weight:normal; font-size:0.85em; }
#bank tbody th { text-align:left; }
#bank td.empty { opacity:0.35; }
.c-r { color:#ff5050; } .c-y { color:#ffc000; } .c-g { color:#00e08c; } .c-b { color:#4080ff; }
@media (max-width: 900px) {
  /* A phone: the page scrolls; the map is drawn two cards a row (as the archive's). */
  body { display:block; overflow:auto; height:auto; }
  main { display:block; padding:0.3em; }
  #map { margin-bottom:0.6em; }
  #map svg { height:auto; }
  aside { font-size:16px; }
  #link { margin-left:0; }
}
"""


LIVE_JS = r"""
'use strict';
// The live view: one EventSource on /events. Every connection starts with a full snapshot
// (the page resyncs from it after the host restarts); EventSource reconnects by itself.
(function () {
  const $ = (id) => document.getElementById(id);
  let snapshot = null;
  // The host's steady time minus this page's monotonic time (seconds), from the 'clock'
  // events: performance.now() never steps, so neither a step of the spectator's wall clock
  // nor of the host's (the host sends its steady time) moves a clock or the turn timer.
  let clockOffset = null;
  function hostNow() { return performance.now() / 1000 + clockOffset; }
  window.hwApplied = [];  // [seq, feed time, applied time] for the latency benchmark

  function text(el, value) { el.textContent = value; }

  function seatSpan(players, seat) {
    const span = document.createElement('span');
    span.className = 'seat-' + seat;
    span.textContent = players[seat] !== undefined ? players[seat] : 'seat ' + seat;
    return span;
  }

  function li(content, cls) {
    const item = document.createElement('li');
    if (cls) item.className = cls;
    item.textContent = content;
    return item;
  }

  const PAUSE_TEXT = __PAUSE_TEXT__;
  const LOW_MS = __LOW_MS__;
  // Beyond these a value is not a clock (a broken or hostile feed): shown as '–'.
  const MAX_CLOCK_MS = __MAX_CLOCK_MS__;
  const MAX_TIMER_S = 24 * 3600;

  function pad(n) { return String(n).padStart(2, '0'); }

  // As the host's terminal shows a clock (clock.format_clock): h:mm:ss, m:ss, s.t.
  function clockText(ms) {
    if (!Number.isFinite(ms)) return '–';
    ms = Math.min(MAX_CLOCK_MS, Math.max(0, Math.floor(ms)));
    if (ms < 10000) return Math.floor(ms / 1000) + '.' + Math.floor(ms % 1000 / 100);
    const s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
    return h ? h + ':' + pad(m) + ':' + pad(s % 60) : m + ':' + pad(s % 60);
  }

  // The game clocks: the snapshot gives each seat's time at the host's moment 'at'; the
  // running clock counts down from there by the host's clock (after any delay left).
  function showClocks() {
    const box = $('clocks');
    const c = snapshot && snapshot.clocks;
    if (!c) { box.hidden = true; box.replaceChildren(); return; }
    box.hidden = false;
    const players = snapshot.game.players;
    const ran = clockOffset === null ? 0 : Math.max(0, (hostNow() - snapshot.at) * 1000);
    if (box.children.length !== c.seats.length + 1) {
      box.replaceChildren();
      c.seats.forEach((_s, seat) => {
        const el = document.createElement('span');
        const name = seatSpan(players, seat);
        name.className = 'name';
        const time = document.createElement('span');
        time.className = 'time';
        const flag = document.createElement('span');
        flag.className = 'flag';
        el.append(name, time, flag);
        box.append(el);
      });
      const paused = document.createElement('span');
      paused.className = 'paused';
      box.append(paused);
    }
    c.seats.forEach((s, seat) => {
      let left = Number.isFinite(s.remaining_ms) ? s.remaining_ms : NaN;
      if (s.running) left -= Math.max(0, ran - (s.delay_ms || 0));
      const el = box.children[seat];
      el.className = 'clock seat-' + seat + (s.running ? ' running' : '') +
                     (s.flagged ? ' flagged' : '') + (s.left ? ' left' : '') +
                     (s.running && !s.flagged && left < LOW_MS ? ' low' : '');
      el.dataset.seat = seat;
      el.dataset.running = s.running;
      el.dataset.flagged = s.flagged;
      el.dataset.left = !!s.left;
      text(el.children[1], clockText(left));
      // A player who left the game (issue 28): their clock stopped for good.
      text(el.children[2], s.left ? 'left the game' : s.flagged ? '⚑ flag fell' : '');
    });
    const paused = box.children[c.seats.length];
    paused.dataset.reason = c.paused || '';
    text(paused, c.paused ? 'clocks paused: ' + (PAUSE_TEXT[c.paused] || c.paused) : '');
  }

  // The computer at the table (thinking, the step of its turn or of a learner's hint) and
  // the steps back after an undo: hints.guidance (docs/display.md, "The table feed").
  function showGuidance(g, players) {
    const box = $('guidance');
    box.replaceChildren();
    if (!g) { box.hidden = true; box.className = ''; box.dataset.phase = ''; return; }
    box.hidden = false;
    box.dataset.phase = g.phase;
    box.dataset.seat = g.seat === null || g.seat === undefined ? '' : g.seat;
    box.className = 'phase-' + g.phase + (g.hint ? ' hint' : '') +
                    (g.mistakes && g.mistakes.length ? ' correction' : '');
    if (g.hint) {
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.textContent = 'HINT';
      box.append(badge);
    }
    const label = document.createElement('span');
    label.className = 'label';
    if (g.phase === 'restore') {
      label.textContent = g.withdrawn_turn === undefined ? 'Back to the earlier position' :
        'Undo of turn ' + g.withdrawn_turn + (g.sdg ? ' (' + g.sdg + ')' : '');
    } else if (g.seat !== null && g.seat !== undefined) {
      label.append(seatSpan(players, g.seat));
      // A seat played at another table or from a phone is not the computer.
      label.append(g.hint ? ': a suggestion' : g.phase === 'thinking' ? '' :
                   g.played_from ? ' (from ' + g.played_from + ')' : ' (the computer)');
    }
    if (g.phase !== 'thinking') box.append(label);
    if (g.steps_total) {
      const count = document.createElement('span');
      count.className = 'count';
      count.textContent = 'step ' + (g.steps_total - g.steps_left + 1) + ' of ' + g.steps_total;
      box.append(count);
    }
    const step = document.createElement('span');
    step.className = 'step';
    step.textContent = (g.text || 'follow the lights').replace(/…$/, '');
    box.append(step);
  }

  function showTimer() {
    const el = $('turn-timer');
    const g = snapshot && snapshot.game;
    if (!g || !Number.isFinite(g.turn_started_at) || g.result || clockOffset === null) {
      text(el, '–');
      return;
    }
    const s = Math.max(0, Math.floor(hostNow() - g.turn_started_at));
    if (s > MAX_TIMER_S) { text(el, '–'); return; }
    const m = Math.floor(s / 60);
    text(el, m + ':' + String(s % 60).padStart(2, '0'));
  }

  // A turn's SDG text, one action a line, as the record shows it: the mover's name, then
  // each action in a box of its own.
  function logItem(k, sdg, seat, players, last) {
    const item = document.createElement('li');
    item.dataset.turn = k + 1;
    if (last) item.className = 'last';
    if (seat !== undefined && seat !== null) {
      const who = seatSpan(players, seat);
      who.classList.add('who');
      item.append(who, ' ');
    }
    for (const action of String(sdg).split('\n')) {
      if (!action.trim()) continue;
      const act = document.createElement('span');
      act.className = 'act';
      act.textContent = action.trim();
      item.append(act, ' ');
    }
    return item;
  }

  function showLog(snap) {
    const log = $('log');
    const seats = snap.turn_seats || [];
    const players = snap.game.players;
    // Only what is new is added: a long game's record is not rebuilt on every tick.
    if (log.children.length > snap.turn_log.length ||
        (log.children.length && log.lastElementChild.dataset.sdg !==
         snap.turn_log[log.children.length - 1])) {
      log.replaceChildren();
    }
    for (let k = log.children.length; k < snap.turn_log.length; k++) {
      const item = logItem(k, snap.turn_log[k], seats[k], players, false);
      item.dataset.sdg = snap.turn_log[k];
      log.append(item);
    }
    for (const item of log.querySelectorAll('li.last')) item.classList.remove('last');
    if (log.lastElementChild) log.lastElementChild.classList.add('last');
    $('log-box').scrollTop = $('log-box').scrollHeight;
  }

  function showStory(snap) {
    const box = $('story');
    const story = snap.story;
    box.replaceChildren();
    box.hidden = !story;
    if (!story) return;
    const players = snap.game.players;
    const name = players[story.seat];
    let caption = story.caption;
    if (story.ending) caption = caption.replace(' — ' + story.ending, '');
    if (name !== undefined && caption.startsWith(name + ' ')) {
      const who = seatSpan(players, story.seat);
      who.classList.add('who');
      box.append('Last turn: ', who, caption.slice(name.length));
    } else {
      box.append('Last turn: ' + caption);
    }
  }

  function apply(snap) {
    snapshot = snap;
    const g = snap.game;
    $('map').innerHTML = snap.svg || '';
    const players = $('players');
    players.replaceChildren();
    g.players.forEach((name, seat) => {
      if (seat) players.append(' v ');
      players.append(seatSpan(g.players, seat));
    });
    const turn = $('turn');
    turn.replaceChildren();
    if (g.result) {
      turn.append('Game over');  // the banner below says who won and why
    } else {
      turn.append(seatSpan(g.players, g.to_move));
      turn.append(g.in_setup ? ' sets up' : ' to move — turn ' + g.turn_number);
    }
    turn.dataset.seat = g.result ? '' : g.to_move;
    // No clock in an untimed game's header: a "0:00" there reads as a game clock.
    $('turn-timer').hidden = !!g.result || !snap.clocks;
    const result = $('result');
    result.hidden = !g.result;
    result.replaceChildren();
    if (g.result) {
      result.append(g.result.text);
      const why = snap.story && snap.story.ending;
      if (why) {
        const span = document.createElement('span');
        span.className = 'why';
        span.textContent = ': ' + why;
        result.append(span);
      }
    }
    showStory(snap);
    text($('message'), snap.hints.message || '');
    const link = $('link');
    if (snap.link_known === false) {  // the hub's copy says nothing of the sensors
      link.className = 'unknown';
      text(link, 'link unknown');
    } else {
      link.className = snap.link_up ? 'up' : 'down';
      text(link, snap.link_up ? 'table connected' : 'table link down');
    }
    const hints = $('hints');
    hints.replaceChildren();
    const h = snap.hints;
    if (h.lifted) {
      const where = [];
      if (h.legal_destinations.length) where.push('move to ' + h.legal_destinations.join(', '));
      if (h.may_discover) where.push('discover a new system');
      hints.append(li(g.players[h.lifted.seat] + ' lifted ' + h.lifted.piece +
                      (h.lifted.from ? ' from ' + h.lifted.from : '') + ': ' +
                      (where.length ? 'may ' + where.join(', or ') : 'cannot move it now'),
                      'lifted'));
    }
    h.overpopulated.forEach((o) => hints.append(li('overpopulation: ' + o.system + ' (' +
                                                   o.color + ')', 'overpop')));
    if (h.red_alert_seat !== null && h.red_alert_seat !== undefined) {
      hints.append(li('Red Alert: ' + g.players[h.red_alert_seat] +
                      ' can be eliminated next turn', 'alert'));
    }
    h.mistakes.forEach((m) => hints.append(li('mistake at ' + m.slot + ': ' + m.text,
                                              'mistake')));
    if (h.rule) {  // the rule the mistake breaks, in the rulebook's words
      hints.append(li('Rule: “' + h.rule.quote + '” — ' + h.rule.book + ', ' +
                      h.rule.section, 'rule'));
    }
    showGuidance(h.guidance, g.players);
    if (snap.turn_in_progress.length) {
      hints.append(li('so far: ' + snap.turn_in_progress.join('; '), 'progress'));
    }
    // The hints panel only when there is something to show.
    $('hints-box').hidden = !hints.children.length;
    const bank = $('bank').tBodies[0];
    bank.replaceChildren();
    for (const c of ['r', 'y', 'g', 'b']) {
      const row = document.createElement('tr');
      row.className = 'c-' + c;
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = {r: 'red', y: 'yellow', g: 'green', b: 'blue'}[c];
      row.append(th);
      for (const size of [1, 2, 3]) {
        const td = document.createElement('td');
        td.dataset.piece = c + size;
        td.textContent = snap.bank[c + size];
        if (!snap.bank[c + size]) td.className = 'empty';
        row.append(td);
      }
      bank.append(row);
    }
    showLog(snap);
    showTimer();
    showClocks();
    document.body.dataset.seq = snap.seq;
    document.body.dataset.turnNumber = g.turn_number;
    window.dispatchEvent(new CustomEvent('hw-snapshot', {detail: snap}));  // analysis.js
    window.hwApplied.push([snap.seq, snap.at, Date.now() / 1000]);
    if (window.hwApplied.length > 1000) window.hwApplied.shift();
  }

  // The map is drawn by the host for the shape of this page's map box: a phone gets the
  // cards two a row, a screen the columns that fill its box (docs/display.md).
  function mapShape() {
    if (window.innerWidth <= 900) return 'layout=portrait';
    const box = $('map').getBoundingClientRect();
    if (!box.width || !box.height) return '';
    return 'aspect=' + (Math.round(box.width / box.height * 4) / 4);
  }

  let source = null;
  let shape = null;
  function connect() {
    shape = mapShape();
    const base = document.body.dataset.events || '/events';
    if (source) source.close();
    source = new EventSource(shape ? base + (base.includes('?') ? '&' : '?') + shape : base);
    source.addEventListener('open', () => { document.body.dataset.connected = 'true'; });
    source.addEventListener('error', () => {
      document.body.dataset.connected = 'false';
      const link = $('link');
      link.className = 'down';
      text(link, 'reconnecting to the host…');
    });
    source.addEventListener('snapshot', (e) => apply(JSON.parse(e.data)));
    source.addEventListener('analysis', (e) => window.dispatchEvent(
      new CustomEvent('hw-analysis', {detail: JSON.parse(e.data)})));
    source.addEventListener('clock', (e) => {
      const host = Number(e.data);
      if (Number.isFinite(host)) clockOffset = host - performance.now() / 1000;
      showTimer();
      showClocks();
    });
  }

  let resizing = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (mapShape() !== shape) connect(); }, 400);
  });

  connect();
  setInterval(showTimer, 1000);
  setInterval(() => { if (snapshot && snapshot.clocks) showClocks(); }, 100);
})();
""".replace("__PAUSE_TEXT__", json.dumps(PAUSE_TEXT)).replace(
    "__LOW_MS__", str(round(LOW_TIME_S * 1000))).replace(
    "__MAX_CLOCK_MS__", str(MAX_CLOCK_MS))

LIVE_STYLE = kit.Asset.css("/static/live.css", LIVE_CSS)
LIVE_SCRIPT = kit.Asset.js("/static/live.js", LIVE_JS)


def _flash(message: str | None, ok: bool) -> str:
    if not message:
        return ""
    cls = "ok" if ok else "error"
    return f'<p id="flash" class="{cls}">{escape(message)}</p>'


ADMIN_STYLE = """
html { background:#10131a; color:#eee; font-family:"DejaVu Sans", Verdana, sans-serif; }
body { max-width:40em; margin:0 auto; padding:0.6em 1em 2em; font-size:18px; }
h1 { font-size:1.4em; margin:0.4em 0; }
fieldset { margin:0.8em 0; border:1px solid #3a4259; border-radius:10px; padding:0.6em 0.8em; }
legend { color:#9aa3b2; padding:0 0.3em; }
form { margin:0.4em 0; display:flex; flex-wrap:wrap; gap:0.5em; align-items:center; }
/* Every target a finger can hit: at least 44 px (WCAG 2.5.5). */
button, select, input, .button { font-size:1em; min-height:44px; min-width:44px;
  box-sizing:border-box; border-radius:8px; border:1px solid #4a5470; }
button, .button { background:#263049; color:#fff; padding:0.4em 1em; cursor:pointer;
  text-decoration:none; display:inline-flex; align-items:center; }
button.danger { background:#6b1f2a; border-color:#a33a48; }
button:focus, button:hover, .button:hover { background:#34416a; }
select, input { background:#1b2030; color:#eee; padding:0.3em 0.5em; }
label { display:inline-flex; gap:0.4em; align-items:center; }
#current { color:#c8d0e0; }
#current b { color:#fff; }
.error { color:#ff6060; } .ok { color:#60ff90; }
#flash { padding:0.4em 0.6em; border-radius:8px; background:#1b2030; }
a { color:#8cf; }
p.links a { display:inline-flex; min-height:44px; align-items:center; margin-right:1em; }
.confirm { border:2px solid #a33a48; border-radius:10px; padding:0.6em 1em; }
"""
ADMIN_ASSET = kit.Asset.css("/static/admin.css", ADMIN_STYLE)

#: Admin actions that cannot be taken back: the page asks again before doing them.
CONFIRMED = {"undo": "Withdraw the last committed turn?",
             "resign": "Resign the game for {seat}?",
             "new-game": "Abandon the current game and start a new one?",
             "release-phone": "Take the seat from the phone that plays it? A new code lets "
                              "another phone claim it."}


def _setting_words(info: dict[str, Any]) -> str:
    level = info.get("hint_level")
    brightness = info.get("brightness")
    if level is None and brightness is None:
        return '<p id="current">Current settings: not known yet (the table has not ' \
               "reported).</p>"
    parts = []
    if level is not None:
        parts.append(f'hint level <b id="current-hint-level">{escape(str(level))}</b>')
    if brightness is not None:
        parts.append(f'LED brightness <b id="current-brightness">{float(brightness):g}</b>')
    return f'<p id="current">Now: {", ".join(parts)}.</p>'


def admin_page(table: str, authorised: bool, csrf: str, info: dict[str, Any], *,
               message: str | None = None, ok: bool = True, extra: str = "") -> str:
    """``extra``: more of the page (HTML, escaped by its maker) before the game's actions,
    e.g. the phone seat's code."""
    t = escape(table)
    title = f"{table} — admin"
    head = f"<h1>{t}: admin</h1>"
    if not authorised:
        return kit.page(title, head + '<p id="need-token">Admin actions need the admin token: '
                        "open the link printed on the table's terminal (or scan its QR code)."
                        '</p><p class="links"><a href="/">back to the live view</a></p>',
                        styles=[ADMIN_ASSET], base_style=False)
    c = escape(csrf, quote=True)

    def form(action: str, label: str, fields: str = "", danger: bool = False) -> str:
        cls = ' class="danger"' if danger else ""
        return (f'<form method="post" action="/admin/{action}" id="form-{action}">'
                f'<input type="hidden" name="csrf" value="{c}">{fields}'
                f'<button type="submit" id="do-{action}"{cls}>{escape(label)}</button></form>')

    players = info.get("players") or ()
    seats = "".join(f'<option value="{k}">{escape(name)}</option>'
                    for k, name in enumerate(players))
    level = info.get("hint_level")
    levels = "".join(f'<option{" selected" if name == level else ""}>{name}</option>'
                     for name in ("full", "warnings", "minimal"))
    brightness = info.get("brightness")
    value = f' value="{float(brightness):g}"' if brightness is not None else ""
    # A game of three or more: a player may miss a turn. Two players: the junior's Brain
    # Transference (refused with the reason when the handicap is off).
    turn_order = (form("skip", "The player to move misses the turn") if len(players) > 2
                  else form("brain-transference", "Brain Transference (the junior player "
                            "changes places with the senior)") if len(players) == 2 else "")
    return kit.page(title, head + _flash(message, ok) + extra +
                    '<fieldset><legend>Game</legend>' +
                    form("undo", "Undo the last committed turn", danger=True) +
                    form("draw", "Draw by agreement") +
                    form("resign", "Resign",
                         '<label>for <select name="seat" id="resign-seat">'
                         f'{seats}</select></label>', danger=True) +
                    turn_order +
                    form("new-game", "New game (abandons the current one)", danger=True) +
                    '</fieldset><fieldset><legend>Settings</legend>' + _setting_words(info) +
                    form("settings", "Apply",
                         '<label>Hint level <select name="hint_level" id="hint-level">'
                         f'{levels}</select></label> '
                         '<label>LED brightness <input name="brightness" id="brightness" '
                         f'inputmode="decimal" size="5" placeholder="0.3"{value}></label> ') +
                    '</fieldset><p class="links"><a href="/">live view</a></p>',
                    styles=[ADMIN_ASSET], base_style=False)


def confirm_page(table: str, action: str, csrf: str, form: dict[str, str],
                 info: dict[str, Any]) -> str:
    """The second step of an action that cannot be taken back: what it will do, and the
    same form again with ``confirm=yes`` (no script needed)."""
    players = info.get("players") or []
    seat = form.get("seat", "")
    name = players[int(seat)] if seat.isdigit() and int(seat) < len(players) else seat
    question = CONFIRMED[action].format(seat=name or "?")
    c = escape(csrf, quote=True)
    kept = "".join(f'<input type="hidden" name="{escape(k, quote=True)}" '
                   f'value="{escape(v, quote=True)}">'
                   for k, v in form.items() if k in ("seat",))
    body = (f"<h1>{escape(table)}: admin</h1><div class=\"confirm\"><p id=\"question\">"
            f"{escape(question)}</p>"
            f'<form method="post" action="/admin/{escape(action, quote=True)}" '
            f'id="form-confirm"><input type="hidden" name="csrf" value="{c}">{kept}'
            '<input type="hidden" name="confirm" value="yes">'
            '<button type="submit" id="do-confirm" class="danger">Yes, do it</button> '
            '<a class="button" id="cancel" href="/admin">Cancel</a></form></div>')
    return kit.page(f"{table} — confirm", body, styles=[ADMIN_ASSET], base_style=False)

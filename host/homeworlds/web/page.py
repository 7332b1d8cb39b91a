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


def live_page(table: str, *, events: str = "/events", scripts: tuple[str, ...] = ()) -> str:
    """``events``: the stream of the table's feed (a hub serves several tables' pages);
    ``scripts``: more scripts of this origin (the attract mode's switch)."""
    t = escape(table)
    body = f"""
<header id="top">
  <h1 id="table-name">{t}</h1>
  <div id="players"></div>
  <div id="turn" aria-live="polite">waiting for the table…</div>
  <div id="turn-timer" title="how long this turn has lasted">–</div>
  <div id="clocks" hidden aria-label="game clocks"></div>
  <div id="link" class="down">connecting…</div>
  <a id="archive-link" href="/archive">archive</a>
</header>
<div id="result" hidden></div>
<div id="message" aria-live="polite"></div>
<div id="guidance" hidden aria-live="polite"></div>
<main>
  <section id="map" aria-label="star map"></section>
  <aside>
    <section id="hints-box"><h2>Hints</h2><ul id="hints"><li>none</li></ul></section>
    <section id="bank-box"><h2>Bank</h2><table id="bank"></table></section>
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
header { display:flex; flex-wrap:wrap; align-items:baseline; gap:0.4em 1.4em;
         padding:0.4em 1em; background:var(--panel); font-size:clamp(16px, 2.2vw, 40px); }
header h1 { font-size:1em; margin:0; color:var(--muted); }
#turn { font-weight:bold; }
#turn-timer { font-variant-numeric: tabular-nums; }
#link { margin-left:auto; font-size:0.6em; }
#archive-link { font-size:0.5em; color:var(--muted); }
#link.down { color:var(--alert); }
#link.up { color:var(--ok); }
.seat-0 { color:var(--seat0); } .seat-1 { color:var(--seat1); }
.seat-2 { color:var(--seat2); } .seat-3 { color:var(--seat3); }
#result { padding:0.3em 1em; font-size:clamp(20px, 3vw, 56px); font-weight:bold;
          background:#2d6a3e; text-align:center; }
#message { padding:0 1em; min-height:1.4em; font-size:clamp(14px, 1.6vw, 30px);
           color:#ffcf40; }
main { display:grid; grid-template-columns: minmax(0, 3fr) minmax(16em, 1fr); gap:0.6em;
       padding:0.4em 0.8em; height:calc(100% - 7.5em); }
#map { min-height:0; background:#0b0e14; border-radius:8px; overflow:hidden; }
#map svg { width:100%; height:100%; display:block; }
aside { display:flex; flex-direction:column; gap:0.6em; min-height:0;
        font-size:clamp(14px, 1.25vw, 26px); }
aside section { background:var(--panel); border-radius:8px; padding:0.3em 0.7em; }
aside h2 { font-size:0.8em; margin:0.2em 0; color:var(--muted); text-transform:uppercase; }
#log-box { flex:1; min-height:6em; overflow:auto; }
#log { margin:0; padding-left:2.2em; font-family:"DejaVu Sans Mono", monospace;
       font-size:0.85em; }
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
#bank th { text-align:left; }
.c-r { color:#ff5050; } .c-y { color:#ffc000; } .c-g { color:#00e08c; } .c-b { color:#4080ff; }
@media (max-width: 900px) {
  main { display:block; height:auto; }
  #map { height:70vh; margin-bottom:0.6em; }
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
                     (s.flagged ? ' flagged' : '') +
                     (s.running && !s.flagged && left < LOW_MS ? ' low' : '');
      el.dataset.seat = seat;
      el.dataset.running = s.running;
      el.dataset.flagged = s.flagged;
      text(el.children[1], clockText(left));
      text(el.children[2], s.flagged ? '⚑ flag fell' : '');
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
      label.append(g.hint ? ': a suggestion' : g.phase === 'thinking' ? '' : ' (the computer)');
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
      turn.append('game over');
    } else {
      turn.append(seatSpan(g.players, g.to_move));
      turn.append(g.in_setup ? ' sets up' : ' to move — turn ' + g.turn_number);
    }
    turn.dataset.seat = g.to_move;
    const result = $('result');
    result.hidden = !g.result;
    text(result, g.result ? g.result.text : '');
    text($('message'), snap.hints.message || '');
    const link = $('link');
    link.className = snap.link_up ? 'up' : 'down';
    text(link, snap.link_up ? 'table connected' : 'table link down');
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
    if (!hints.children.length) hints.append(li('none', 'none'));
    const bank = $('bank');
    bank.replaceChildren();
    for (const c of ['r', 'y', 'g', 'b']) {
      const row = document.createElement('tr');
      row.className = 'c-' + c;
      const th = document.createElement('th');
      th.textContent = {r: 'red', y: 'yellow', g: 'green', b: 'blue'}[c];
      row.append(th);
      for (const size of [1, 2, 3]) {
        const td = document.createElement('td');
        td.dataset.piece = c + size;
        td.textContent = snap.bank[c + size];
        row.append(td);
      }
      bank.append(row);
    }
    const log = $('log');
    log.replaceChildren();
    snap.turn_log.forEach((sdg, k) => log.append(li(sdg, k === snap.turn_log.length - 1 ?
                                                         'last' : '')));
    $('log-box').scrollTop = $('log-box').scrollHeight;
    showTimer();
    showClocks();
    document.body.dataset.seq = snap.seq;
    document.body.dataset.turnNumber = g.turn_number;
    window.dispatchEvent(new CustomEvent('hw-snapshot', {detail: snap}));  // analysis.js
    window.hwApplied.push([snap.seq, snap.at, Date.now() / 1000]);
    if (window.hwApplied.length > 1000) window.hwApplied.shift();
  }

  function connect() {
    const source = new EventSource(document.body.dataset.events || '/events');
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


ADMIN_STYLE = ("body{font-family:sans-serif;max-width:40em;margin:1em auto;padding:0 1em;"
               "background:#10131a;color:#eee}fieldset{margin:0.8em 0;border:1px solid #444}"
               "button{font-size:1.1em;margin:0.2em}.error{color:#ff6060}.ok{color:#60ff90}"
               "a{color:#8cf}")
ADMIN_ASSET = kit.Asset.css("/static/admin.css", ADMIN_STYLE)


def admin_page(table: str, authorised: bool, csrf: str, info: dict[str, Any], *,
               message: str | None = None, ok: bool = True) -> str:
    t = escape(table)
    title = f"{table} — admin"
    head = f"<h1>{t}: admin</h1>"
    if not authorised:
        return kit.page(title, head + '<p id="need-token">Admin actions need the admin token: '
                        "open the link printed on the table's terminal (or scan its QR code)."
                        '</p><p><a href="/">back to the live view</a></p>',
                        styles=[ADMIN_ASSET], base_style=False)
    c = escape(csrf, quote=True)

    def form(action: str, label: str, fields: str = "") -> str:
        return (f'<form method="post" action="/admin/{action}" id="form-{action}">'
                f'<input type="hidden" name="csrf" value="{c}">{fields}'
                f'<button type="submit" id="do-{action}">{escape(label)}</button></form>')

    players = info.get("players") or ()
    seats = "".join(f'<option value="{k}">{escape(name)}</option>'
                    for k, name in enumerate(players))
    # A game of three or more: a player may miss a turn. Two players: the junior's Brain
    # Transference (refused with the reason when the handicap is off).
    turn_order = (form("skip", "The player to move misses the turn") if len(players) > 2
                  else form("brain-transference", "Brain Transference (the junior player "
                            "changes places with the senior)") if len(players) == 2 else "")
    return kit.page(title, head + _flash(message, ok) +
                    '<fieldset><legend>Game</legend>' +
                    form("undo", "Undo the last committed turn") +
                    form("draw", "Draw by agreement") +
                    form("resign", "Resign",
                         f'<select name="seat" id="resign-seat">{seats}</select>') +
                    turn_order +
                    form("new-game", "New game (abandons the current one)") +
                    '</fieldset><fieldset><legend>Settings</legend>' +
                    form("settings", "Apply",
                         '<label>Hint level <select name="hint_level" id="hint-level">'
                         '<option value="">(unchanged)</option><option>full</option>'
                         '<option>warnings</option><option>minimal</option></select></label> '
                         '<label>LED brightness <input name="brightness" id="brightness" '
                         'inputmode="decimal" size="5" placeholder="0.3"></label> ') +
                    '</fieldset><p><a href="/">live view</a></p>',
                    styles=[ADMIN_ASSET], base_style=False)
